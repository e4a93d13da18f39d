//! Where a store lives: the project default, a file path, or a URL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{StoreError, StoreResult};
use crate::postgres::PostgresStore;
use crate::sqlite::SqliteStore;
use crate::store::Store;

/// The folder under a project root that holds Keel's state.
pub const STATE_DIR: &str = ".keel";

/// The database file name inside [`STATE_DIR`].
pub const DB_FILE: &str = "keel.db";

/// The project's default database file: `<root>/.keel/keel.db`.
pub fn default_db_path(root: &Path) -> PathBuf {
    root.join(STATE_DIR).join(DB_FILE)
}

/// Opens the store at `location`:
///
/// - `postgres://…` or `postgresql://…`: PostgreSQL ([`PostgresStore::connect`]);
/// - `sqlite:…` (`sqlite://file.db`, `sqlite:///abs/file.db`, `sqlite::memory:`), or a plain
///   file path: SQLite ([`SqliteStore`]), creating the file and its folders.
///
/// Any other URL scheme, or an empty location, is a [`StoreError::BadUrl`] naming the schemes
/// this build supports. The schema is brought up to date either way.
pub async fn open(location: &str) -> StoreResult<Arc<dyn Store>> {
    if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        return Ok(Arc::new(PostgresStore::connect(location).await?));
    }
    if location.starts_with("sqlite:") {
        return Ok(Arc::new(SqliteStore::connect(location).await?));
    }
    if let Some((scheme, _)) = location.split_once("://") {
        return Err(StoreError::BadUrl {
            location: location.to_owned(),
            reason: format!(
                "unsupported scheme `{scheme}` (this build supports `sqlite:`, `postgres://` \
                 and `postgresql://` URLs, or a file path)"
            ),
        });
    }
    if location.trim().is_empty() {
        return Err(StoreError::BadUrl {
            location: location.to_owned(),
            reason: "empty location".to_owned(),
        });
    }
    Ok(Arc::new(SqliteStore::open(location).await?))
}

/// The same as [`open`] (its earlier name).
pub async fn open_store(location: &str) -> StoreResult<Arc<dyn Store>> {
    open(location).await
}
