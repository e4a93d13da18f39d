//! Appending to and pruning SQLite's `events` table (the append-only event log): multi-row
//! inserts under one write lock, with the events' timeline rows and the usage reports added to
//! their sessions' totals in the same transaction.

use std::sync::LazyLock;

use keel_events::Event;
use sqlx::error::ErrorKind;
use sqlx::sqlite::SqliteConnection;
use sqlx::{AssertSqlSafe, SqlitePool};

use super::timeline;
use crate::claim::WriterClaim;
use crate::error::{StoreError, StoreResult};
use crate::tables::events::{EventRow, event_rows};
use crate::tables::usage::{UsageDelta, usage_deltas};

/// Turns a failed insert into an error that names the event.
fn insert_error(error: sqlx::Error, row: &EventRow<'_>) -> StoreError {
    let event = row.event;
    match &error {
        sqlx::Error::Database(db) if db.kind() == ErrorKind::UniqueViolation => {
            if db.message().ends_with("events.id") {
                StoreError::DuplicateEventId {
                    id: event.id.to_string(),
                    session_id: event.session_id.clone(),
                    seq: event.seq,
                }
            } else {
                StoreError::DuplicateSeq {
                    session_id: event.session_id.clone(),
                    seq: event.seq,
                }
            }
        }
        // The only foreign key of `events` is its session.
        sqlx::Error::Database(db) if db.kind() == ErrorKind::ForeignKeyViolation => {
            StoreError::session_not_found(&event.session_id)
        }
        _ => StoreError::Database(error),
    }
}

/// Most rows in one multi-row `INSERT` (8 parameters each).
const ROWS_PER_INSERT: usize = 64;

/// `INSERT … VALUES (…), (…)` for 1 ..= [`ROWS_PER_INSERT`] rows (index `n - 1` has `n`).
/// Only placeholders vary, never data.
static INSERT_SQL: LazyLock<Vec<String>> = LazyLock::new(|| {
    (1..=ROWS_PER_INSERT)
        .map(|n| {
            let values = vec!["(?, ?, ?, ?, ?, ?, ?, ?)"; n].join(", ");
            format!(
                "INSERT INTO events (session_id, seq, id, type, turn_id, project_id, ts, data) \
                 VALUES {values}"
            )
        })
        .collect()
});

/// Inserts `rows` with one statement (1 ..= [`ROWS_PER_INSERT`] of them).
async fn insert(conn: &mut SqliteConnection, rows: &[EventRow<'_>]) -> Result<(), sqlx::Error> {
    let Some(sql) = rows.len().checked_sub(1).and_then(|i| INSERT_SQL.get(i)) else {
        return Ok(());
    };
    let mut query = sqlx::query(AssertSqlSafe(sql.as_str()));
    for row in rows {
        let event = row.event;
        query = query
            .bind(&event.session_id)
            .bind(row.seq)
            .bind(event.id.to_string())
            .bind(event.type_name())
            .bind(&event.turn_id)
            .bind(&event.project_id)
            .bind(event.ts_string())
            .bind(&row.json);
    }
    query.execute(conn).await.map(|_| ())
}

/// After a multi-row insert failed, inserts its rows one by one (inside the same transaction)
/// to find, and name, the row that fails.
async fn find_failing_row(
    conn: &mut SqliteConnection,
    rows: &[EventRow<'_>],
    error: sqlx::Error,
) -> StoreError {
    for row in rows {
        if let Err(e) = insert(conn, std::slice::from_ref(row)).await {
            return insert_error(e, row);
        }
    }
    StoreError::Database(error)
}

/// Adds a batch's usage reports to a session's totals.
const ADD_USAGE_SQL: &str = "UPDATE sessions SET \
     prompt_tokens = prompt_tokens + ?1, completion_tokens = completion_tokens + ?2, \
     cached_tokens = cached_tokens + ?3, total_tokens = total_tokens + ?4, \
     model_calls = model_calls + ?5, unpriced_calls = unpriced_calls + ?6, \
     cost_nanousd = CASE WHEN ?7 IS NULL THEN cost_nanousd ELSE COALESCE(cost_nanousd, 0) + ?7 END \
     WHERE id = ?8";

async fn add_usage(conn: &mut SqliteConnection, delta: &UsageDelta) -> Result<(), sqlx::Error> {
    sqlx::query(ADD_USAGE_SQL)
        .bind(delta.prompt_tokens)
        .bind(delta.completion_tokens)
        .bind(delta.cached_tokens)
        .bind(delta.total_tokens)
        .bind(delta.model_calls)
        .bind(delta.unpriced_calls)
        .bind(delta.cost_nanousd)
        .bind(&delta.session_id)
        .execute(conn)
        .await
        .map(|_| ())
}

/// Whether `claim` is current (inside the append's transaction, which holds the write lock).
async fn claim_holds(conn: &mut SqliteConnection, claim: &WriterClaim) -> StoreResult<bool> {
    let held: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM sessions WHERE id = ?1 AND writer = ?2 AND writer_epoch = ?3",
    )
    .bind(&claim.session_id)
    .bind(&claim.owner)
    .bind(claim.epoch)
    .fetch_optional(conn)
    .await?;
    Ok(held.is_some())
}

/// Appends `events`; under `claim`, only while it is current (else [`StoreError::Fenced`],
/// holder not yet named).
pub(super) async fn append(
    pool: &SqlitePool,
    events: &[&Event],
    claim: Option<&WriterClaim>,
) -> StoreResult<usize> {
    // Serialise before taking the write lock.
    let rows = event_rows(events)?;
    let usage = usage_deltas(&rows);
    let timeline: Vec<_> = rows
        .iter()
        .flat_map(|row| timeline::rows_of(row.event, row.seq))
        .collect();
    match rows.as_slice() {
        [] => return Ok(0),
        // One statement commits on its own (a usage report also updates its session, a
        // timeline record adds its rows: more than one).
        [row] if usage.is_empty() && timeline.is_empty() && claim.is_none() => {
            let mut conn = pool.acquire().await?;
            insert(&mut conn, &rows)
                .await
                .map_err(|e| insert_error(e, row))?;
            return Ok(1);
        }
        _ => {}
    }
    // IMMEDIATE takes the write lock up front, so another process cannot make this transaction
    // fail half-way, nor take the claim over between its check and the inserts; on error the
    // transaction is dropped, which rolls it back.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    if let Some(claim) = claim
        && !claim_holds(&mut tx, claim).await?
    {
        return Err(StoreError::Fenced {
            session_id: claim.session_id.clone(),
            owner: claim.owner.clone(),
            epoch: claim.epoch,
            holder: None,
        });
    }
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        if let Err(error) = insert(&mut tx, chunk).await {
            return Err(match chunk {
                [row] => insert_error(error, row),
                _ => find_failing_row(&mut tx, chunk, error).await,
            });
        }
    }
    timeline::insert(&mut tx, &timeline).await?;
    for delta in &usage {
        add_usage(&mut tx, delta).await?;
    }
    tx.commit().await?;
    Ok(rows.len())
}

/// Deletes the session's events up to `keep_after`, but never its newest, with their timeline
/// rows.
pub(super) async fn prune(
    pool: &SqlitePool,
    session_id: &str,
    keep_after: i64,
) -> StoreResult<u64> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let done = sqlx::query(
        "DELETE FROM events WHERE session_id = ?1 AND seq <= ?2 \
         AND seq < (SELECT MAX(seq) FROM events WHERE session_id = ?1)",
    )
    .bind(session_id)
    .bind(keep_after)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() > 0 {
        timeline::prune(&mut tx, session_id).await?;
    }
    tx.commit().await?;
    Ok(done.rows_affected())
}
