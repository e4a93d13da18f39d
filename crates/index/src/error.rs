//! The index's errors.

use std::path::PathBuf;

/// What can go wrong building or searching an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The root is not a directory.
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    /// tantivy failed.
    #[error("search index at {path}: {source}")]
    Tantivy {
        /// The index directory.
        path: PathBuf,
        /// The cause.
        source: tantivy::TantivyError,
    },
    /// The repo map could not be built.
    #[error(transparent)]
    RepoMap(#[from] keel_repomap::RepoMapError),
    /// The embeddings endpoint failed or answered something unusable.
    #[error("embeddings endpoint {url}: {message}")]
    Embeddings {
        /// The endpoint.
        url: String,
        /// What went wrong.
        message: String,
    },
}
