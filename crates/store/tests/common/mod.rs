//! Shared helpers: a fresh database per test on every backend, and stamped events.
//!
//! [`TestDb`] is one isolated database: a SQLite file in a temporary folder, or a PostgreSQL
//! database created for the test (named `keel_t_<uuid>`, dropped when the `TestDb` is) on the
//! server `KEEL_TEST_DATABASE_URL` points to. Without that variable the PostgreSQL tests are
//! skipped with a notice, unless `CI` is set, where they fail.
//!
//! [`store_tests!`] turns each test into one test per backend (`sqlite::name`,
//! `postgres::name`).

#![allow(dead_code, unused_macros, unused_imports)]

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use keel_events::{DisplayStyle, Event, Sequencer, SystemCliDisplay, SystemStatus};
use keel_store::{NewSession, PostgresStore, SqliteStore, Store};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use tempfile::TempDir;

/// The variable naming the PostgreSQL server for tests (a database on it that the tests may
/// connect to and create databases from).
pub const DATABASE_URL_VAR: &str = "KEEL_TEST_DATABASE_URL";

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
    Sqlite {
        _dir: TempDir,
        path: PathBuf,
    },
    Postgres {
        /// Options of the test's own database.
        options: Box<PgConnectOptions>,
        /// The server's database the test database was created from.
        admin: Box<PgConnectOptions>,
        /// `postgres://` URL of the test's own database.
        url: String,
        name: String,
    },
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

    /// A fresh PostgreSQL database, or `None` (after a notice) when `KEEL_TEST_DATABASE_URL` is
    /// unset. Panics when it is unset and `CI` is set.
    pub async fn postgres() -> Option<Self> {
        let Some(url) = std::env::var(DATABASE_URL_VAR)
            .ok()
            .filter(|u| !u.is_empty())
        else {
            if std::env::var_os("CI").is_some() {
                panic!(
                    "{DATABASE_URL_VAR} must be set under CI: the PostgreSQL tests cannot be skipped"
                );
            }
            eprintln!("note: {DATABASE_URL_VAR} is unset; skipping this PostgreSQL test");
            return None;
        };
        let admin = PgConnectOptions::from_str(&url).unwrap();
        let name = format!("keel_t_{}", uuid::Uuid::now_v7().simple());
        let mut conn = PgConnection::connect_with(&admin).await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        // The same URL with the test database's name as its path.
        let (scheme, rest) = url.split_once("://").unwrap();
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let query = rest[authority_end..]
            .find('?')
            .map_or("", |at| &rest[authority_end + at..]);
        let db_url = format!("{scheme}://{}/{name}{query}", &rest[..authority_end]);
        Some(Self {
            backend: Backend::Postgres {
                options: Box::new(admin.clone().database(&name)),
                admin: Box::new(admin),
                url: db_url,
                name,
            },
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
            Backend::Postgres { .. } => "postgres",
        }
    }

    /// A new store value on this database: with PostgreSQL, a new pool (as another server
    /// instance would have); with SQLite, a new pool on the same file.
    pub async fn open(&self) -> Arc<dyn Store> {
        match &self.backend {
            Backend::Sqlite { path, .. } => Arc::new(SqliteStore::open(path).await.unwrap()),
            Backend::Postgres { .. } => Arc::new(self.postgres_store().await),
        }
    }

    /// A PostgreSQL store on this database (panics on SQLite).
    pub async fn postgres_store(&self) -> PostgresStore {
        match &self.backend {
            Backend::Postgres { options, name, .. } => PostgresStore::connect_with(
                (**options).clone(),
                PgPoolOptions::new().max_connections(4),
                name.clone(),
            )
            .await
            .unwrap(),
            Backend::Sqlite { .. } => panic!("not a PostgreSQL test database"),
        }
    }

    /// The connect options of this PostgreSQL database (panics on SQLite).
    pub fn pg_options(&self) -> PgConnectOptions {
        match &self.backend {
            Backend::Postgres { options, .. } => (**options).clone(),
            Backend::Sqlite { .. } => panic!("not a PostgreSQL test database"),
        }
    }

    /// The `postgres://` URL of this PostgreSQL database (panics on SQLite).
    pub fn pg_url(&self) -> String {
        match &self.backend {
            Backend::Postgres { url, .. } => url.clone(),
            Backend::Sqlite { .. } => panic!("not a PostgreSQL test database"),
        }
    }

    /// The SQLite file (panics on PostgreSQL).
    pub fn sqlite_path(&self) -> PathBuf {
        match &self.backend {
            Backend::Sqlite { path, .. } => path.clone(),
            Backend::Postgres { .. } => panic!("not a SQLite test database"),
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Backend::Postgres { admin, name, .. } = &self.backend else {
            return;
        };
        let (admin, name) = ((**admin).clone(), name.clone());
        // Drop runs inside the test's runtime: use a thread with its own.
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let mut conn = PgConnection::connect_with(&admin).await?;
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                )))
                .execute(&mut conn)
                .await?;
                conn.close().await
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("warning: could not drop test database: {dropped:?}");
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
        .map(|i| {
            seq.stamp(
                Some("turn-1"),
                SystemStatus {
                    message: format!("status {i}"),
                },
            )
        })
        .collect()
}

/// One status event with an explicit seq.
pub fn status_event(session: &str, seq: u64, message: &str) -> Event {
    Sequencer::resume(session, "p", seq - 1).stamp(
        None,
        SystemStatus {
            message: message.to_owned(),
        },
    )
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
