//! The SQLite backend: one embedded database file, zero set-up.
//!
//! Writes go through a pool of one connection (SQLite allows one writer at a time; queueing in
//! the pool is cheaper than SQLite's busy-wait), reads through a small pool of their own, so
//! readers never wait for a writer (WAL).

mod backend;
mod columns;
mod dialect;
mod events;
pub(crate) mod migrations;
mod timeline;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::broadcast;

use crate::error::{StoreError, StoreResult};
use crate::location::default_db_path;
use crate::watch::{WATCH_CAPACITY, WatchNotice};

pub use migrations::migrator;

/// How long a connection waits for another process's write lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections in the read pool.
const READ_CONNECTIONS: u32 = 4;

/// The SQLite store. Cloning is cheap and shares the connections.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    location: String,
    path: Option<PathBuf>,
    /// Append notices of this store value and its clones.
    notices: broadcast::Sender<WatchNotice>,
}

impl SqliteStore {
    /// Opens (creating it and its folders if needed) the database file at `path`, and brings its
    /// schema up to date.
    pub async fn open(path: impl AsRef<Path>) -> StoreResult<Self> {
        let path = path.as_ref();
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true);
        Self::open_with(options, path.display().to_string(), Some(path.to_owned())).await
    }

    /// Opens the project's default database, `<root>/.keel/keel.db`.
    pub async fn open_project(root: impl AsRef<Path>) -> StoreResult<Self> {
        Self::open(default_db_path(root.as_ref())).await
    }

    /// Opens a `sqlite:` URL: `sqlite://relative/file.db`, `sqlite:///absolute/file.db`,
    /// `sqlite::memory:`. The file is created unless the URL sets `mode=`.
    pub async fn connect(url: &str) -> StoreResult<Self> {
        let bad_url = |reason: String| StoreError::BadUrl {
            location: url.to_owned(),
            reason,
        };
        if !url.starts_with("sqlite:") {
            return Err(bad_url("expected a `sqlite:` URL".to_owned()));
        }
        let mut options =
            SqliteConnectOptions::from_str(url).map_err(|e| bad_url(e.to_string()))?;
        if !url.contains("mode=") {
            options = options.create_if_missing(true);
        }
        let memory = url.contains(":memory:") || url.contains("mode=memory");
        let path = (!memory).then(|| options.get_filename().to_owned());
        if path.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
            return Err(bad_url("the URL names no database file".to_owned()));
        }
        Self::open_with(options, url.to_owned(), path).await
    }

    /// A private in-memory database, gone when the store is dropped. For tests and dry runs.
    pub async fn memory() -> StoreResult<Self> {
        Self::connect("sqlite::memory:").await
    }

    async fn open_with(
        options: SqliteConnectOptions,
        location: String,
        path: Option<PathBuf>,
    ) -> StoreResult<Self> {
        if let Some(parent) = path
            .as_deref()
            .and_then(Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
        {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|source| StoreError::CreateDir {
                    path: parent.to_owned(),
                    source,
                })?;
        }
        let options = options
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let open_error = |source| StoreError::Open {
            location: location.clone(),
            source,
        };
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            // An in-memory database lives only as long as a connection to it.
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.clone())
            .await
            .map_err(open_error)?;
        tracing::debug!(path = ?path, "applying pending SQLite migrations");
        let had_timeline = timeline::table_exists(&writer).await?;
        migrator().run(&writer).await?;
        if !had_timeline {
            let rows = timeline::backfill(&writer).await?;
            tracing::debug!(rows, "wrote the timeline rows of the events stored before");
        }
        let reader = if path.is_some() {
            SqlitePoolOptions::new()
                .max_connections(READ_CONNECTIONS)
                .connect_with(options)
                .await
                .map_err(open_error)?
        } else {
            writer.clone()
        };
        Ok(Self {
            writer,
            reader,
            location,
            path,
            notices: broadcast::channel(WATCH_CAPACITY).0,
        })
    }

    /// The database file, or `None` for an in-memory database.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Where the store was opened from, as given.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The write connection pool, for maintenance and diagnostics outside the
    /// [`Store`](crate::Store) API.
    pub fn pool(&self) -> &SqlitePool {
        &self.writer
    }
}
