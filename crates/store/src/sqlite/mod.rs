//! The SQLite backend: one embedded database file, zero set-up.
//!
//! Writes go through a pool of one connection (SQLite allows one writer at a time; queueing in
//! the pool is cheaper than SQLite's busy-wait), reads through a small pool of their own, so
//! readers never wait for a writer (WAL).

mod columns;
mod events;
pub(crate) mod migrations;
mod sessions;
mod turns;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use keel_events::Event;
use serde_json::Value;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::broadcast;

use crate::error::{StoreError, StoreResult};
use crate::location::default_db_path;
use crate::range::EventRange;
use crate::session::{NewSession, Session, SessionFilter, SessionUpdate};
use crate::store::Store;
use crate::turn::{NewTurn, Turn, TurnLease, TurnOutcome, TurnStart};
use crate::watch::{AppendWatch, ControlMessage, WATCH_CAPACITY, WatchNotice, notices};

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
        migrator().run(&writer).await?;
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

    /// The write connection pool, for maintenance and diagnostics outside the [`Store`] API.
    pub fn pool(&self) -> &SqlitePool {
        &self.writer
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn create_session(&self, new: NewSession) -> StoreResult<Session> {
        sessions::create(&self.writer, new).await
    }

    async fn get_session(&self, id: &str) -> StoreResult<Session> {
        sessions::get(&self.reader, id).await
    }

    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
        sessions::list(&self.reader, filter).await
    }

    async fn update_session(&self, id: &str, update: SessionUpdate) -> StoreResult<Session> {
        sessions::update(&self.writer, id, update).await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        sessions::delete(&self.writer, id).await
    }

    async fn save_conversation(&self, id: &str, conversation: &Value) -> StoreResult<()> {
        sessions::save_conversation(&self.writer, id, conversation).await
    }

    async fn load_conversation(&self, id: &str) -> StoreResult<Option<Value>> {
        sessions::load_conversation(&self.reader, id).await
    }

    async fn append_batch(&self, events: &[&Event]) -> StoreResult<usize> {
        let stored = events::append(&self.writer, events).await?;
        if stored > 0 && self.notices.receiver_count() > 0 {
            let appended = events
                .iter()
                .filter(|event| !event.kind.is_display_only())
                .map(|event| (event.session_id.as_str(), event.seq));
            for notice in notices(appended) {
                // An error only means nobody watches right now.
                let _ = self.notices.send(WatchNotice::Appended(notice));
            }
        }
        Ok(stored)
    }

    async fn read_events(&self, session_id: &str, range: EventRange) -> StoreResult<Vec<Event>> {
        events::read(&self.reader, session_id, range).await
    }

    async fn last_seq(&self, session_id: &str) -> StoreResult<u64> {
        events::last_seq(&self.reader, session_id).await
    }

    async fn count_events(&self, session_id: &str) -> StoreResult<u64> {
        events::count(&self.reader, session_id).await
    }

    async fn oldest_seq(&self, session_id: &str) -> StoreResult<u64> {
        events::oldest_seq(&self.reader, session_id).await
    }

    async fn prune_events(&self, session_id: &str, keep_after_seq: u64) -> StoreResult<u64> {
        events::prune(&self.writer, session_id, keep_after_seq).await
    }

    async fn watch(&self) -> StoreResult<AppendWatch> {
        Ok(AppendWatch::new(self.notices.subscribe()))
    }

    async fn send_control(&self, message: &ControlMessage) -> StoreResult<()> {
        message.encode()?;
        // An error only means nobody watches right now.
        let _ = self.notices.send(WatchNotice::Control(message.clone()));
        Ok(())
    }

    async fn begin_turn(&self, new: NewTurn) -> StoreResult<TurnStart> {
        turns::begin(&self.writer, new).await
    }

    async fn get_turn(&self, turn_id: &str) -> StoreResult<Turn> {
        turns::get(&self.reader, turn_id).await
    }

    async fn turn_by_request_id(
        &self,
        session_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<Turn>> {
        turns::by_request_id(&self.reader, session_id, request_id).await
    }

    async fn list_turns(&self, session_id: &str) -> StoreResult<Vec<Turn>> {
        turns::list(&self.reader, session_id).await
    }

    async fn finish_turn(
        &self,
        turn_id: &str,
        outcome: TurnOutcome,
        error: Option<String>,
    ) -> StoreResult<Turn> {
        turns::finish(&self.writer, turn_id, outcome, error).await
    }

    async fn fail_running_turns(&self) -> StoreResult<Vec<Turn>> {
        turns::fail_running(&self.writer).await
    }

    async fn renew_turn_leases(&self, lease: &TurnLease) -> StoreResult<Vec<String>> {
        turns::renew_leases(&self.writer, lease).await
    }

    async fn fail_expired_turns(&self, restarted_owner: Option<&str>) -> StoreResult<Vec<Turn>> {
        turns::fail_expired(&self.writer, restarted_owner).await
    }

    async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}
