//! Keel's store: sessions, turns and the event log.
//!
//! [`Store`] is the backend trait front ends program against (`Arc<dyn Store>`); [`SqliteStore`]
//! is the embedded default, one file at `<project>/.keel/keel.db`, and [`PostgresStore`] serves
//! several server instances sharing one database (with LISTEN/NOTIFY append notices, see
//! [`Store::watch`]); [`open`] picks one from a path or URL. Events are kept whole (their JSON)
//! plus the envelope columns they are queried by, append-only and unique by `(session_id, seq)`;
//! both backends also write each event's Activity Timeline rows to seed 003's `agent_events`
//! table in the same transaction. [`EventWriter`] persists a live
//! event stream in batches, so a producer never waits on one transaction per event and
//! subscribers can be fed only what is already stored.
//!
//! The [`Store`] logic is written once (`tables`) over a sealed per-backend trait (`backend`):
//! each backend supplies only its SQL where the dialects differ, how it binds parameters and
//! reads timestamps, and the operations whose steps are its own (appends, watching).

mod backend;
mod claim;
mod columns;
mod error;
mod import;
mod location;
mod migrations;
mod postgres;
mod range;
mod session;
mod sqlite;
mod status;
mod store;
mod stored_event;
mod tables;
mod turn;
mod uuids;
mod watch;
mod writer;

pub use claim::{FencedTurnEnd, SharedClaim, WriterClaim};
pub use error::{StoreError, StoreResult};
pub use import::{LogImportReport, LogImportRequest, import_log};
pub use location::{DB_FILE, STATE_DIR, default_db_path, open, open_store};
pub use postgres::{
    CONNECT_TIMEOUT, POOL_CONNECTIONS, PostgresStore, REALTIME_PUBLICATION, postgres_migrator,
};
pub use range::EventRange;
pub use session::{
    NewSession, Session, SessionFilter, SessionOrder, SessionStatus, SessionUpdate, SessionUsage,
    UnknownSessionStatus,
};
pub use sqlite::{BUSY_TIMEOUT, SqliteStore, migrator};
pub use store::Store;
pub use turn::{
    INTERRUPTED_ERROR, NewTurn, Turn, TurnHandover, TurnLease, TurnOutcome, TurnStart, TurnStatus,
    UnknownTurnStatus,
};
pub use uuids::{PROJECT_ID_NAMESPACE, TASK_ID_NAMESPACE, project_uuid, task_uuid};
pub use watch::{
    AppendNotice, AppendWatch, CONTROL_CHANNEL, ControlKind, ControlMessage, MAX_CONTROL_BYTES,
    NOTIFY_CHANNEL, WATCH_CAPACITY, WatchNotice,
};
pub use writer::{EventSink, EventWriter, WriterOptions, WriterReport};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
