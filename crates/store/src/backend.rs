//! What a backend supplies to the store logic, which is written once (see `tables`): the SQL of
//! the statements that differ between SQL dialects ([`Dialect`]), how it runs a [`Statement`]
//! and binds each [`Param`], how its rows hold a timestamp
//! ([`ReadTimestamp`](crate::columns::ReadTimestamp)), and the operations whose steps differ
//! altogether (appending events, deleting, pruning, watching).

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Utc};
use keel_events::Event;
use sqlx::query::Query;

use crate::claim::WriterClaim;
use crate::columns::ReadColumns;
use crate::error::StoreResult;
use crate::watch::{AppendWatch, ControlMessage};

/// A statement parameter in backend-neutral form; each backend binds it the way its columns
/// store the value.
#[derive(Debug, Clone)]
pub enum Param<'a> {
    /// Text, or NULL.
    Text(Option<&'a str>),
    /// A JSON document for a column PostgreSQL keeps as `jsonb` (which cannot hold NUL), or NULL.
    Jsonb(Option<String>),
    /// An integer, or NULL.
    Int(Option<i64>),
    /// A point in time (SQLite: RFC 3339 text; PostgreSQL: `timestamptz`).
    Time(DateTime<Utc>),
    /// The end of a lease of this length taken now, or NULL (SQLite: by this process's clock;
    /// PostgreSQL: the length in seconds, for the database's clock to add).
    LeaseEnd(Option<Duration>),
    /// A row limit; `None` for no limit.
    Limit(Option<u32>),
}

impl<'a> Param<'a> {
    /// Text that is never NULL.
    pub fn text(text: &'a str) -> Self {
        Self::Text(Some(text))
    }
}

/// Whether a statement only reads or also writes (SQLite reads through a pool of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only.
    Read,
    /// Writes.
    Write,
}

/// A statement to run: its SQL, its parameters (`$1`, `$2`, … in order) and whether it writes.
#[derive(Debug, Clone)]
pub struct Statement<'a> {
    /// The SQL.
    pub sql: &'static str,
    /// The parameters, in order.
    pub params: Vec<Param<'a>>,
    /// Whether it only reads.
    pub access: Access,
}

impl<'a> Statement<'a> {
    /// A statement that only reads.
    pub fn read(sql: &'static str, params: Vec<Param<'a>>) -> Self {
        Self {
            sql,
            params,
            access: Access::Read,
        }
    }

    /// A statement that writes.
    pub fn write(sql: &'static str, params: Vec<Param<'a>>) -> Self {
        Self {
            sql,
            params,
            access: Access::Write,
        }
    }

    /// The statement as a query of `DB`, with each parameter bound by `bind`.
    pub fn query<DB: sqlx::Database>(self, bind: Binder<DB>) -> Query<'static, DB, DB::Arguments> {
        let query = sqlx::query(self.sql);
        self.params.into_iter().fold(query, bind)
    }
}

/// How a backend binds a [`Param`] to a query of its database.
pub type Binder<DB> = fn(
    Query<'static, DB, <DB as sqlx::Database>::Arguments>,
    Param<'_>,
) -> Query<'static, DB, <DB as sqlx::Database>::Arguments>;

/// The statements whose SQL differs between the backends; the others are shared (see
/// `tables`). Parameters are numbered `$1`, `$2`, … in both dialects, and a statement
/// takes the same parameters, in the same order, on every backend.
#[derive(Debug)]
pub struct Dialect {
    /// Inserts a session: `$1` id, `$2` project, `$3` root, `$4` title, `$5` status, `$6`
    /// model, `$7` mode, `$8` metadata (jsonb), `$9` created and updated at.
    pub insert_session: &'static str,
    /// The session columns of the sessions of project `$1` (any if NULL) with status `$2` (any if
    /// NULL), newest created first, at most `$3`.
    pub list_sessions_by_created: &'static str,
    /// As `list_sessions_by_created`, most recently updated first.
    pub list_sessions_by_updated: &'static str,
    /// Sets session `$7`'s title `$1`, status `$2`, model `$3`, mode `$4`, metadata `$5` (jsonb)
    /// where not NULL and `updated_at` to `$6`; returns its session columns.
    pub update_session: &'static str,
    /// Sets session `$3`'s conversation to `$1` (JSON text, kept as written) and `updated_at` to
    /// `$2`; returns its id.
    pub save_conversation: &'static str,
    /// Inserts a running turn: `$1` id, `$2` session, `$3` request id, `$4` input, `$5` started
    /// at, `$6` owner, `$7` lease end; inserts nothing when the request id already started a turn
    /// of the session. Returns the turn columns of what it inserted.
    pub insert_turn: &'static str,
    /// The turn columns of session `$1`'s turns, oldest first.
    pub list_turns: &'static str,
    /// Sets the lease end of owner `$2`'s running turns to `$1`; returns their ids.
    pub renew_leases: &'static str,
    /// Marks failed, with error `$1` and end `$2`, the running turns whose lease has lapsed or
    /// whose owner is `$3`; returns their turn columns.
    pub fail_expired: &'static str,
    /// The turn columns of the running turns whose lease has lapsed or whose owner is `$1`.
    pub lapsed_turns: &'static str,
    /// Gives running turn `$3` to owner `$1` with lease end `$2` if its lease has lapsed or its
    /// owner is `$1` already; returns its turn columns.
    pub take_over_turn: &'static str,
    /// Claims session `$3` for writer `$1` with claim end `$2` when it has no writer, its
    /// writer is `$1` or the writer's claim has lapsed; the epoch grows unless the writer was
    /// `$1`. Returns `writer_epoch`.
    pub claim_writer: &'static str,
    /// Sets the claim end of writer `$2`'s sessions to `$1`; returns their `id` and
    /// `writer_epoch`.
    pub renew_writers: &'static str,
    /// Sets session `$3`'s conversation to `$1` (JSON text) and `updated_at` to `$2` if writer
    /// `$4` holds it with epoch `$5`; returns its id.
    pub save_conversation_fenced: &'static str,
}

/// One store backend. The [`Store`](crate::Store) implementation of every backend is written
/// once on top of this trait; a backend implements only what is its own.
///
/// Sealed: the trait is `pub` but its module is private, so nothing outside the crate can name
/// or implement it.
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// A row as the backend's driver returns it.
    type Row: ReadColumns + Send;

    /// Short backend name, [`Store::backend`](crate::Store::backend).
    const NAME: &'static str;

    /// The backend's SQL for the statements that differ between dialects.
    const DIALECT: Dialect;

    /// Runs `statement` and returns the rows it yields.
    fn rows(
        &self,
        statement: Statement<'_>,
    ) -> impl Future<Output = sqlx::Result<Vec<Self::Row>>> + Send;

    /// The first row `statement` yields, if any.
    fn row(
        &self,
        statement: Statement<'_>,
    ) -> impl Future<Output = sqlx::Result<Option<Self::Row>>> + Send {
        async move { Ok(self.rows(statement).await?.into_iter().next()) }
    }

    /// [`Store::append_batch`](crate::Store::append_batch).
    fn append(&self, events: &[&Event]) -> impl Future<Output = StoreResult<usize>> + Send;

    /// [`Store::append_fenced`](crate::Store::append_fenced): `events` all belong to the
    /// claim's session (checked by the caller). A refusal may be any
    /// [`StoreError::Fenced`](crate::StoreError::Fenced): the caller names the holder.
    fn append_claimed(
        &self,
        claim: &WriterClaim,
        events: &[&Event],
    ) -> impl Future<Output = StoreResult<usize>> + Send;

    /// [`Store::delete_session`](crate::Store::delete_session).
    fn remove_session(&self, id: &str) -> impl Future<Output = StoreResult<()>> + Send;

    /// [`Store::prune_events`](crate::Store::prune_events), with the seq already clamped to what
    /// can be stored.
    fn prune(
        &self,
        session_id: &str,
        keep_after_seq: i64,
    ) -> impl Future<Output = StoreResult<u64>> + Send;

    /// [`Store::watch`](crate::Store::watch).
    fn subscribe(&self) -> impl Future<Output = StoreResult<AppendWatch>> + Send;

    /// [`Store::send_control`](crate::Store::send_control).
    fn relay_control(
        &self,
        message: &ControlMessage,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// [`Store::close`](crate::Store::close).
    fn close_connections(&self) -> impl Future<Output = ()> + Send;
}
