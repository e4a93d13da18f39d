//! The PostgreSQL [`Backend`]: one pool for reads and writes; appends are announced by the
//! database (`NOTIFY`) to every store on it.

use keel_events::Event;
use sqlx::postgres::PgRow;

use super::{PostgresStore, dialect, events};
use crate::backend::{Backend, Dialect, Statement};
use crate::claim::WriterClaim;
use crate::error::StoreResult;
use crate::watch::{AppendWatch, CONTROL_CHANNEL, ControlMessage};

impl Backend for PostgresStore {
    type Row = PgRow;

    const NAME: &'static str = "postgres";

    const DIALECT: Dialect = dialect::DIALECT;

    async fn rows(&self, statement: Statement<'_>) -> sqlx::Result<Vec<PgRow>> {
        // One pool serves reads and writes alike.
        statement.query(dialect::bind).fetch_all(&self.pool).await
    }

    async fn append(&self, events: &[&Event]) -> StoreResult<usize> {
        events::append(&self.pool, events).await
    }

    async fn append_claimed(&self, claim: &WriterClaim, events: &[&Event]) -> StoreResult<usize> {
        events::append_fenced(&self.pool, claim, events).await
    }

    async fn remove_session(&self, id: &str) -> StoreResult<()> {
        events::delete_session(&self.pool, id).await
    }

    async fn prune(&self, session_id: &str, keep_after_seq: i64) -> StoreResult<u64> {
        events::prune(&self.pool, session_id, keep_after_seq).await
    }

    async fn subscribe(&self) -> StoreResult<AppendWatch> {
        Ok(AppendWatch::new(self.hub.subscribe(&self.pool).await?))
    }

    async fn relay_control(&self, message: &ControlMessage) -> StoreResult<()> {
        let payload = message.encode()?;
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CONTROL_CHANNEL)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn close_connections(&self) {
        self.hub.stop();
        self.pool.close().await;
    }
}
