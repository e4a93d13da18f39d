//! Shared helpers: a fresh database per test on every backend, and stamped events.
//!
//! [`TestDb`] is one isolated database: a SQLite file in a temporary folder, or a fresh
//! PostgreSQL database ([`TestDatabase`], which also decides when the PostgreSQL tests are
//! skipped and when a missing server fails the run).
//!
//! [`store_tests!`] turns each test into one test per backend (`sqlite::name`,
//! `postgres::name`).

#![allow(dead_code, unused_macros, unused_imports)]

use std::path::PathBuf;
use std::sync::Arc;

use keel_events::{DisplayStyle, Event, EventKind, Sequencer, SystemCliDisplay, SystemStatus};
use keel_store::{NewSession, PostgresStore, SqliteStore, Store};
use keel_test_support::TestDatabase;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use tempfile::TempDir;

/// Runs each test once per backend, in modules `sqlite` and `postgres`:
///
/// ```ignore
/// store_tests! {
///     #[tokio::test]
///     async fn name(db, store) { /* db: TestDb, store: Arc<dyn Store> */ }
/// }
/// ```
macro_rules! store_tests {
    ($( #[$attr:meta] async fn $name:ident($db:ident, $store:ident) $body:block )*) => {
        mod sqlite {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use pretty_assertions::assert_eq;
            $(
                #[$attr]
                async fn $name() {
                    #[allow(unused_variables)]
                    let $db = crate::common::TestDb::sqlite().await;
                    #[allow(unused_variables)]
                    let $store = $db.open().await;
                    $body
                }
            )*
        }
        mod postgres {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use pretty_assertions::assert_eq;
            $(
                #[$attr]
                async fn $name() {
                    let Some($db) = crate::common::TestDb::postgres().await else {
                        return;
                    };
                    #[allow(unused_variables)]
                    let $store = $db.open().await;
                    $body
                }
            )*
        }
    };
}
pub(crate) use store_tests;

/// One isolated database of one backend.
pub struct TestDb {
    backend: Backend,
}

enum Backend {
    Sqlite { _dir: TempDir, path: PathBuf },
    Postgres(TestDatabase),
}

impl TestDb {
    /// A SQLite file in a fresh temporary folder.
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = keel_store::default_db_path(dir.path());
        Self {
            backend: Backend::Sqlite { _dir: dir, path },
        }
    }

    /// A fresh PostgreSQL database, or `None` when the PostgreSQL tests are skipped.
    pub async fn postgres() -> Option<Self> {
        Some(Self {
            backend: Backend::Postgres(TestDatabase::create().await?),
        })
    }

    /// Every backend available here: SQLite, and PostgreSQL when configured.
    pub async fn all() -> Vec<Self> {
        let mut all = vec![Self::sqlite().await];
        all.extend(Self::postgres().await);
        all
    }

    /// `"sqlite"` or `"postgres"`.
    pub fn backend(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite { .. } => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// A new store value on this database: with PostgreSQL, a new pool (as another server
    /// instance would have); with SQLite, a new pool on the same file.
    pub async fn open(&self) -> Arc<dyn Store> {
        match &self.backend {
            Backend::Sqlite { path, .. } => Arc::new(SqliteStore::open(path).await.unwrap()),
            Backend::Postgres(_) => Arc::new(self.postgres_store().await),
        }
    }

    /// A PostgreSQL store on this database (panics on SQLite).
    pub async fn postgres_store(&self) -> PostgresStore {
        match &self.backend {
            Backend::Postgres(db) => PostgresStore::connect_with(
                db.options(),
                PgPoolOptions::new().max_connections(4),
                db.name().to_owned(),
            )
            .await
            .unwrap(),
            Backend::Sqlite { .. } => panic!("not a PostgreSQL test database"),
        }
    }

    /// The connect options of this PostgreSQL database (panics on SQLite).
    pub fn pg_options(&self) -> PgConnectOptions {
        match &self.backend {
            Backend::Postgres(db) => db.options(),
            Backend::Sqlite { .. } => panic!("not a PostgreSQL test database"),
        }
    }

    /// The `postgres://` URL of this PostgreSQL database (panics on SQLite).
    pub fn pg_url(&self) -> String {
        match &self.backend {
            Backend::Postgres(db) => db.url().to_owned(),
            Backend::Sqlite { .. } => panic!("not a PostgreSQL test database"),
        }
    }

    /// The SQLite file (panics on PostgreSQL).
    pub fn sqlite_path(&self) -> PathBuf {
        match &self.backend {
            Backend::Sqlite { path, .. } => path.clone(),
            Backend::Postgres(_) => panic!("not a SQLite test database"),
        }
    }
}

/// A store on a fresh SQLite file; keep the `TempDir` alive as long as the store.
pub async fn temp_store() -> (TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_project(dir.path()).await.unwrap();
    (dir, store)
}

/// The same as [`temp_store`], behind the trait object front ends use.
pub async fn temp_dyn_store() -> (TempDir, Arc<dyn Store>) {
    let (dir, store) = temp_store().await;
    (dir, Arc::new(store))
}

/// Creates session `id` of project `p`.
pub async fn session(store: &dyn Store, id: &str) {
    store
        .create_session(NewSession::new("p", PathBuf::from("/work/project")).with_id(id))
        .await
        .unwrap();
}

/// `n` status events of `session`, seq 1..=n, stamped by a fresh sequencer.
pub fn status_events(session: &str, n: u64) -> Vec<Event> {
    let seq = Sequencer::new(session, "p");
    (1..=n)
        .map(|i| seq.stamp(Some("turn-1"), SystemStatus::line(format!("status {i}"))))
        .collect()
}

/// One status event with an explicit seq.
pub fn status_event(session: &str, seq: u64, message: &str) -> Event {
    Sequencer::resume(session, "p", seq - 1).stamp(None, SystemStatus::line(message))
}

/// One display-only event with an explicit seq.
pub fn display_event(session: &str, seq: u64) -> Event {
    // Display-only events repeat the latest durable seq: this one follows durable event `seq`.
    Sequencer::resume(session, "p", seq).stamp(
        None,
        SystemCliDisplay {
            message: "shown, never stored".to_owned(),
            style: DisplayStyle::Info,
        },
    )
}

/// The messages of status events, for compact comparisons.
pub fn messages(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|event| match &event.kind {
            keel_events::EventKind::SystemStatus(status) => status.message.clone(),
            other => other.type_name().to_owned(),
        })
        .collect()
}

/// The event kind of type `ty` with `payload`.
pub fn kind(ty: &str, payload: serde_json::Value) -> EventKind {
    EventKind::from_parts(ty, &payload.to_string()).unwrap()
}

/// A turn's worth of events of project `my-project`: some project to Activity Timeline rows
/// (five: tool_call, file_update, the debugger's phase, self_repair, log), some (deltas) do not.
pub fn turn_events(session: &str, turn: &str) -> Vec<Event> {
    let seq = Sequencer::new(session, "my-project");
    let turn = Some(turn);
    vec![
        seq.stamp(turn, kind("run.llm.delta", serde_json::json!({"text": "Moving"}))),
        seq.stamp(
            turn,
            kind(
                "run.tool.end",
                serde_json::json!({"call_id": "c1", "tool_name": "move_file", "status": "success",
                    "result": "moved", "duration_ms": 12, "args_summary": "src/old.ts → src/new.ts",
                    "result_summary": "文件已移动", "from_path": "src/old.ts", "to_path": "src/new.ts"}),
            ),
        ),
        seq.stamp(
            turn,
            kind(
                "run.file.change",
                serde_json::json!({"path": "src/new.ts", "op": "move", "from_path": "src/old.ts",
                    "to_path": "src/new.ts", "summary": "移动文件 src/old.ts → src/new.ts",
                    "lines_added": 0, "lines_removed": 0}),
            ),
        ),
        seq.stamp(
            turn,
            kind(
                "run.repair.attempt",
                serde_json::json!({"attempt_number": 1, "max_attempts": 3, "trigger": "tests failed",
                    "result": "pending"}),
            ),
        ),
        seq.stamp(None, kind("system.status", serde_json::json!({"message": "idle"}))),
    ]
}
