//! SQLite's `agent_events` table (seed 003 §0): the Activity Timeline rows of each appended
//! event, written in the append's transaction, and — once, when a store from before schema
//! version 5 is first opened — for the events it already held.

use keel_events::Event;
use keel_events::projection::{AgentEventRow, to_timeline_all};
use sqlx::SqlitePool;
use sqlx::error::ErrorKind;
use sqlx::sqlite::SqliteConnection;

use crate::error::{StoreError, StoreResult};
use crate::stored_event::decode;
use crate::uuids::{project_uuid, task_uuid};

/// One `agent_events` row, ready to bind.
pub(super) struct TimelineRow {
    id: String,
    task_id: Option<String>,
    project_id: String,
    kind: String,
    payload: String,
    created_at: String,
    seq: i64,
    session_id: String,
    /// The event the row projects (named when the insert fails).
    event_seq: u64,
}

/// The timeline rows of `event`, stored at `seq` (none for events the timeline does not show).
pub(super) fn rows_of(event: &Event, seq: i64) -> Vec<TimelineRow> {
    to_timeline_all(event)
        .iter()
        .map(|record| {
            let row = AgentEventRow::from(record);
            TimelineRow {
                id: row.id,
                task_id: row.task_id.as_deref().map(|t| task_uuid(t).to_string()),
                project_id: project_uuid(&row.project_id).to_string(),
                kind: row.event_type,
                payload: row.payload.to_string(),
                created_at: event.ts_string(),
                seq,
                session_id: event.session_id.clone(),
                event_seq: event.seq,
            }
        })
        .collect()
}

/// Inserts `rows` (inside the caller's transaction).
pub(super) async fn insert(conn: &mut SqliteConnection, rows: &[TimelineRow]) -> StoreResult<()> {
    for row in rows {
        sqlx::query(
            "INSERT INTO agent_events \
             (id, task_id, project_id, type, payload, created_at, seq, session_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .bind(&row.id)
        .bind(&row.task_id)
        .bind(&row.project_id)
        .bind(&row.kind)
        .bind(&row.payload)
        .bind(&row.created_at)
        .bind(row.seq)
        .bind(&row.session_id)
        .execute(&mut *conn)
        .await
        .map_err(|error| match &error {
            sqlx::Error::Database(db) if db.kind() == ErrorKind::UniqueViolation => {
                StoreError::DuplicateEventId {
                    id: row.id.clone(),
                    session_id: row.session_id.clone(),
                    seq: row.event_seq,
                }
            }
            _ => StoreError::Database(error),
        })?;
    }
    Ok(())
}

/// Deletes the timeline rows of `session_id` whose events are gone (after a prune).
pub(super) async fn prune(conn: &mut SqliteConnection, session_id: &str) -> StoreResult<()> {
    sqlx::query(
        "DELETE FROM agent_events WHERE session_id = ?1 \
         AND seq NOT IN (SELECT seq FROM events WHERE session_id = ?1)",
    )
    .bind(session_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Whether the database already has the `agent_events` table (schema version 5 or later).
pub(super) async fn table_exists(pool: &SqlitePool) -> StoreResult<bool> {
    let found: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_events'",
    )
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}

/// Events read per step of the backfill.
const BACKFILL_PAGE: i64 = 500;

/// Writes the timeline rows of every stored event: run once, right after the migration that
/// creates the table. One transaction, so a failure leaves no half-filled table (and the store
/// does not open); a corrupt event is logged and skipped (reading it reports it as before).
/// Returns the rows written.
pub(super) async fn backfill(pool: &SqlitePool) -> StoreResult<u64> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let mut after = 0_i64;
    let mut written = 0_u64;
    loop {
        let page: Vec<(i64, String, i64, Option<String>)> = sqlx::query_as(
            "SELECT rowid, session_id, seq, data FROM events WHERE rowid > ?1 \
             ORDER BY rowid LIMIT ?2",
        )
        .bind(after)
        .bind(BACKFILL_PAGE)
        .fetch_all(&mut *tx)
        .await?;
        let Some(last) = page.last() else { break };
        after = last.0;
        for (_, session_id, seq, data) in page {
            let event = match decode(&session_id, seq, Ok(data)) {
                Ok(event) => event,
                Err(error) => {
                    tracing::warn!(%error, "no timeline rows for a corrupt stored event");
                    continue;
                }
            };
            let rows = rows_of(&event, seq);
            written += rows.len() as u64;
            insert(&mut tx, &rows).await?;
        }
    }
    tx.commit().await?;
    Ok(written)
}
