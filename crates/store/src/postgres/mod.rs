//! The PostgreSQL backend: for servers, and for several server instances sharing one database.
//!
//! Same semantics as the SQLite backend, plus:
//! - every appended event's Activity Timeline records (seed 003) are written to the
//!   `agent_events` table in the same statement (see [`project_uuid`] / [`task_uuid`] for its
//!   uuid columns); when a `supabase_realtime` publication exists, `agent_events` is added to it
//!   with `REPLICA IDENTITY FULL`;
//! - each committed append sends one `NOTIFY keel_events` per session touched, with
//!   `{"session_id": …, "seq": <highest stored seq>}` (never the events: NOTIFY payloads are
//!   limited to 8000 bytes), which [`Store::watch`] of every store on the database receives.
//!
//! PostgreSQL's `jsonb` cannot hold the NUL character: a `\u0000` in an event's JSON is stored
//! (and read back) as U+FFFD.

mod columns;
mod events;
mod listener;
pub(crate) mod migrations;
mod sessions;
mod turns;
mod uuids;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use keel_events::Event;
use serde_json::Value;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::error::{StoreError, StoreResult};
use crate::range::EventRange;
use crate::session::{NewSession, Session, SessionFilter, SessionUpdate};
use crate::store::Store;
use crate::turn::{NewTurn, Turn, TurnLease, TurnOutcome, TurnStart};
use crate::watch::{AppendWatch, CONTROL_CHANNEL, ControlMessage};

pub use migrations::{REALTIME_PUBLICATION, postgres_migrator};
pub use uuids::{PROJECT_ID_NAMESPACE, TASK_ID_NAMESPACE, project_uuid, task_uuid};

/// Connections in the pool [`PostgresStore::connect`] opens (one of them is held by the
/// listener once something watches).
pub const POOL_CONNECTIONS: u32 = 10;

/// How long [`PostgresStore::connect`] keeps trying to reach the server before it gives up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The PostgreSQL store. Cloning is cheap and shares the pool and the listener.
#[derive(Clone)]
pub struct PostgresStore {
    pool: PgPool,
    /// The URL without its password, for messages.
    location: String,
    realtime: bool,
    hub: Arc<listener::Hub>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location)
            .field("realtime", &self.realtime)
            .finish_non_exhaustive()
    }
}

/// `url` with its password replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

impl PostgresStore {
    /// Connects to a `postgres://` / `postgresql://` URL (a pool of [`POOL_CONNECTIONS`],
    /// waiting at most [`CONNECT_TIMEOUT`] for a connection) and brings the schema up to date.
    pub async fn connect(url: &str) -> StoreResult<Self> {
        let location = redact(url);
        let options = PgConnectOptions::from_str(url).map_err(|e| StoreError::BadUrl {
            location: location.clone(),
            reason: e.to_string(),
        })?;
        let pool = PgPoolOptions::new()
            .max_connections(POOL_CONNECTIONS)
            .acquire_timeout(CONNECT_TIMEOUT);
        Self::connect_with(options, pool, location).await
    }

    /// Connects with explicit connection and pool options; `location` names the database in
    /// messages (do not put a password in it).
    pub async fn connect_with(
        options: PgConnectOptions,
        pool: PgPoolOptions,
        location: String,
    ) -> StoreResult<Self> {
        let pool = pool
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        Self::from_pool(pool, location).await
    }

    /// Uses an existing pool: migrates it and applies the Realtime set-up.
    pub async fn from_pool(pool: PgPool, location: String) -> StoreResult<Self> {
        postgres_migrator().run(&pool).await?;
        let realtime = migrations::enable_realtime(&pool).await?;
        Ok(Self {
            pool,
            location,
            realtime,
            hub: Arc::new(listener::Hub::default()),
        })
    }

    /// Where the store was opened from, without the password.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Whether the `supabase_realtime` publication existed when the store was opened (and so
    /// now publishes `agent_events`).
    pub fn realtime(&self) -> bool {
        self.realtime
    }

    /// The connection pool, for maintenance and diagnostics outside the [`Store`] API.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

#[async_trait]
impl Store for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn create_session(&self, new: NewSession) -> StoreResult<Session> {
        sessions::create(&self.pool, new).await
    }

    async fn get_session(&self, id: &str) -> StoreResult<Session> {
        sessions::get(&self.pool, id).await
    }

    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
        sessions::list(&self.pool, filter).await
    }

    async fn update_session(&self, id: &str, update: SessionUpdate) -> StoreResult<Session> {
        sessions::update(&self.pool, id, update).await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        events::delete_session(&self.pool, id).await
    }

    async fn save_conversation(&self, id: &str, conversation: &Value) -> StoreResult<()> {
        sessions::save_conversation(&self.pool, id, conversation).await
    }

    async fn load_conversation(&self, id: &str) -> StoreResult<Option<Value>> {
        sessions::load_conversation(&self.pool, id).await
    }

    async fn append_batch(&self, events: &[&Event]) -> StoreResult<usize> {
        events::append(&self.pool, events).await
    }

    async fn read_events(&self, session_id: &str, range: EventRange) -> StoreResult<Vec<Event>> {
        events::read(&self.pool, session_id, range).await
    }

    async fn last_seq(&self, session_id: &str) -> StoreResult<u64> {
        events::last_seq(&self.pool, session_id).await
    }

    async fn count_events(&self, session_id: &str) -> StoreResult<u64> {
        events::count(&self.pool, session_id).await
    }

    async fn oldest_seq(&self, session_id: &str) -> StoreResult<u64> {
        events::oldest_seq(&self.pool, session_id).await
    }

    async fn prune_events(&self, session_id: &str, keep_after_seq: u64) -> StoreResult<u64> {
        events::prune(&self.pool, session_id, keep_after_seq).await
    }

    async fn watch(&self) -> StoreResult<AppendWatch> {
        Ok(AppendWatch::new(self.hub.subscribe(&self.pool).await?))
    }

    async fn send_control(&self, message: &ControlMessage) -> StoreResult<()> {
        let payload = message.encode()?;
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CONTROL_CHANNEL)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn begin_turn(&self, new: NewTurn) -> StoreResult<TurnStart> {
        turns::begin(&self.pool, new).await
    }

    async fn get_turn(&self, turn_id: &str) -> StoreResult<Turn> {
        turns::get(&self.pool, turn_id).await
    }

    async fn turn_by_request_id(
        &self,
        session_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<Turn>> {
        turns::by_request_id(&self.pool, session_id, request_id).await
    }

    async fn list_turns(&self, session_id: &str) -> StoreResult<Vec<Turn>> {
        turns::list(&self.pool, session_id).await
    }

    async fn finish_turn(
        &self,
        turn_id: &str,
        outcome: TurnOutcome,
        error: Option<String>,
    ) -> StoreResult<Turn> {
        turns::finish(&self.pool, turn_id, outcome, error).await
    }

    async fn fail_running_turns(&self) -> StoreResult<Vec<Turn>> {
        turns::fail_running(&self.pool).await
    }

    async fn renew_turn_leases(&self, lease: &TurnLease) -> StoreResult<Vec<String>> {
        turns::renew_leases(&self.pool, lease).await
    }

    async fn fail_expired_turns(&self, restarted_owner: Option<&str>) -> StoreResult<Vec<Turn>> {
        turns::fail_expired(&self.pool, restarted_owner).await
    }

    async fn close(&self) {
        self.hub.stop();
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://postgres:keel@127.0.0.1:5432/keel_test"),
            "postgres://postgres:***@127.0.0.1:5432/keel_test"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("postgresql://h/db?x=1"), "postgresql://h/db?x=1");
        assert_eq!(redact("postgres://u:p@ss@h/db"), "postgres://u:***@h/db");
    }
}
