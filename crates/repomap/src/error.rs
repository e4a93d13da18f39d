//! Errors of the repository map.

use std::path::PathBuf;

/// What can go wrong building, caching, rendering or watching a map.
#[derive(Debug, thiserror::Error)]
pub enum RepoMapError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A tags query failed to compile (a bug in our queries or a grammar version mismatch).
    #[error("the {language} tags query does not compile: {message}")]
    Query {
        /// Language of the query.
        language: &'static str,
        /// The compiler's message.
        message: String,
    },
    /// The grammar could not be loaded into the parser (ABI version mismatch).
    #[error("the {language} grammar cannot be loaded: {message}")]
    Grammar {
        /// Language of the grammar.
        language: &'static str,
        /// The loader's message.
        message: String,
    },
    /// The root is not a directory.
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    /// A path lies outside the map's root.
    #[error("{0} is outside the repository root")]
    OutsideRoot(PathBuf),
    /// The file watcher failed.
    #[error("file watcher: {0}")]
    Watch(#[from] notify::Error),
}
