//! The errors of configuring, connecting to and calling MCP servers.

use std::path::PathBuf;

/// A server configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file exists but cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not what it should be.
    #[error("invalid {}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// One server's settings are wrong.
    #[error("MCP server `{server}`: {message}")]
    Server {
        /// The server's name.
        server: String,
        /// What is wrong.
        message: String,
    },
}

/// Why a server could not be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum McpError {
    /// Starting or connecting failed (the message says why, with the server's own words when
    /// it wrote any).
    #[error("MCP server `{server}` could not start: {reason}")]
    Start {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// No server of that name is configured.
    #[error("no MCP server named `{0}` is configured")]
    UnknownServer(String),
    /// The server is configured but not running.
    #[error("MCP server `{server}` is not available: {reason}")]
    Unavailable {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// A request failed.
    #[error("MCP server `{server}`: {reason}")]
    Request {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
}
