//! A file that could not be used: its path, the line, and why. Discovery goes on without it.

use std::path::PathBuf;

/// A file discovery skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {message}; it is skipped", path.display())]
pub struct Warning {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line the problem is on.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}
