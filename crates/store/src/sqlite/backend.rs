//! The SQLite [`Backend`]: reads through the read pool, writes through the one write connection;
//! appends are announced to this store value's watches.

use keel_events::Event;
use sqlx::sqlite::SqliteRow;

use super::{SqliteStore, dialect, events};
use crate::backend::{Access, Backend, Dialect, Statement};
use crate::claim::WriterClaim;
use crate::error::{StoreError, StoreResult};
use crate::watch::{AppendWatch, ControlMessage, WatchNotice, notices};

impl SqliteStore {
    /// Appends (under `claim` when given) and announces the append to this store's watches.
    async fn append_checked(
        &self,
        events: &[&Event],
        claim: Option<&WriterClaim>,
    ) -> StoreResult<usize> {
        let stored = events::append(&self.writer, events, claim).await?;
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
}

impl Backend for SqliteStore {
    type Row = SqliteRow;

    const NAME: &'static str = "sqlite";

    const DIALECT: Dialect = dialect::DIALECT;

    async fn rows(&self, statement: Statement<'_>) -> sqlx::Result<Vec<SqliteRow>> {
        let pool = match statement.access {
            Access::Read => &self.reader,
            Access::Write => &self.writer,
        };
        statement.query(dialect::bind).fetch_all(pool).await
    }

    async fn append(&self, events: &[&Event]) -> StoreResult<usize> {
        self.append_checked(events, None).await
    }

    async fn append_claimed(&self, claim: &WriterClaim, events: &[&Event]) -> StoreResult<usize> {
        self.append_checked(events, Some(claim)).await
    }

    async fn remove_session(&self, id: &str) -> StoreResult<()> {
        let done = sqlx::query("DELETE FROM sessions WHERE id = $1")
            .bind(id)
            .execute(&self.writer)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::session_not_found(id));
        }
        Ok(())
    }

    async fn prune(&self, session_id: &str, keep_after_seq: i64) -> StoreResult<u64> {
        events::prune(&self.writer, session_id, keep_after_seq).await
    }

    async fn subscribe(&self) -> StoreResult<AppendWatch> {
        Ok(AppendWatch::new(self.notices.subscribe()))
    }

    async fn relay_control(&self, message: &ControlMessage) -> StoreResult<()> {
        message.encode()?;
        // An error only means nobody watches right now.
        let _ = self.notices.send(WatchNotice::Control(message.clone()));
        Ok(())
    }

    async fn close_connections(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}
