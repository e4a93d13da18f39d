//! Why a server could not be started.

/// A server that did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// No command of the language's is installed (the programs tried).
    #[error("`{0}` was not found (is it installed and on PATH?)")]
    NotFound(String),
    /// It started and failed, or could not be started.
    #[error("{0}")]
    Failed(String),
}
