//! An HTTP client for tests that talk to a server over loopback.

/// A `reqwest` client. The workspace builds reqwest's rustls without a default crypto provider
/// (the binaries install one at start), so this installs ring's first.
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}
