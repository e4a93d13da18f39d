//! The PostgreSQL backend: for servers, and for several server instances sharing one database.
//!
//! Same semantics as the SQLite backend, plus:
//! - every appended event's Activity Timeline records (seed 003) are written to the
//!   `agent_events` table in the same statement (see [`crate::project_uuid`] / [`crate::task_uuid`] for its
//!   uuid columns); when a `supabase_realtime` publication exists, `agent_events` is added to it
//!   with `REPLICA IDENTITY FULL`;
//! - each committed append sends one `NOTIFY keel_events` per session touched, with
//!   `{"session_id": …, "seq": <highest stored seq>}` (never the events: NOTIFY payloads are
//!   limited to 8000 bytes), which [`Store::watch`] of every store on the database receives.
//!
//! PostgreSQL's `jsonb` cannot hold the NUL character: a `\u0000` in an event's JSON is stored
//! (and read back) as U+FFFD.

mod backend;
mod columns;
mod dialect;
mod events;
mod listener;
pub(crate) mod migrations;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::error::{StoreError, StoreResult};

pub use migrations::{REALTIME_PUBLICATION, postgres_migrator};

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
        tracing::debug!("applying pending PostgreSQL migrations");
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

    /// The connection pool, for maintenance and diagnostics outside the
    /// [`Store`](crate::Store) API.
    pub fn pool(&self) -> &PgPool {
        &self.pool
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
