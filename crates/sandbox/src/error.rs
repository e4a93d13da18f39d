//! `SandboxError`.

use std::path::PathBuf;

use crate::mode::SandboxMode;

/// Why a sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The mode cannot be fully enforced on this system and `sandbox_fallback` is `refuse`.
    #[error(
        "the sandbox mode `{mode}` cannot be enforced here: {missing}; commands are refused \
         (run `keel sandbox check` for details, choose another mode, or set \
         sandbox_fallback = \"warn\" to run with what can be enforced)"
    )]
    Unenforceable {
        /// The mode asked for.
        mode: SandboxMode,
        /// What is missing, joined with `; `.
        missing: String,
    },
    /// The workspace root or a `writable_roots` entry is unusable.
    #[error("sandbox path `{path}`: {reason}")]
    Path {
        /// The path as resolved.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The private temp dir could not be made.
    #[error("cannot create the sandbox's temp dir: {0}")]
    TempDir(#[source] std::io::Error),
    /// Building the Landlock ruleset failed.
    #[error("cannot build the Landlock ruleset: {0}")]
    Landlock(String),
    /// Building the seccomp filter failed.
    #[error("cannot build the seccomp filter: {0}")]
    Seccomp(String),
}
