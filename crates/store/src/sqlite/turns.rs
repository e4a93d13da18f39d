//! The `turns` table.

use keel_events::{format_ts, now_millis};
use sqlx::SqlitePool;
use sqlx::error::ErrorKind;
use sqlx::sqlite::SqliteRow;
use uuid::Uuid;

use super::columns::{RowRef, row_id};
use crate::error::{StoreError, StoreResult};
use crate::turn::{
    INTERRUPTED_ERROR, NewTurn, Turn, TurnLease, TurnOutcome, TurnStart, TurnStatus,
};

/// The end of a lease of `ttl` taken now, as stored.
fn lease_end(ttl: std::time::Duration) -> String {
    let ttl = chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX);
    let end = now_millis()
        .checked_add_signed(ttl)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC);
    format_ts(&end)
}

/// The columns of [`Turn`], in the order [`from_row`] reads them.
macro_rules! turn_columns {
    () => {
        "id, session_id, request_id, input, status, error, started_at, ended_at, owner, lease_until"
    };
}

fn from_row(row: &SqliteRow) -> StoreResult<Turn> {
    let id = row_id(row, "turn")?;
    let r = RowRef {
        table: "turn",
        id: &id,
    };
    Ok(Turn {
        session_id: r.text(row, "session_id")?,
        request_id: r.opt_text(row, "request_id")?,
        input: r.text(row, "input")?,
        status: r.parsed(row, "status")?,
        error: r.opt_text(row, "error")?,
        started_at: r.ts(row, "started_at")?,
        ended_at: r.opt_ts(row, "ended_at")?,
        owner: r.opt_text(row, "owner")?,
        lease_until: r.opt_ts(row, "lease_until")?,
        id,
    })
}

pub(super) async fn begin(pool: &SqlitePool, new: NewTurn) -> StoreResult<TurnStart> {
    let id = new.id.unwrap_or_else(|| Uuid::now_v7().to_string());
    let inserted = sqlx::query(concat!(
        "INSERT INTO turns",
        " (id, session_id, request_id, input, status, started_at, owner, lease_until)",
        " VALUES (?, ?, ?, ?, 'running', ?, ?, ?)",
        " ON CONFLICT (session_id, request_id) DO NOTHING RETURNING ",
        turn_columns!()
    ))
    .bind(&id)
    .bind(&new.session_id)
    .bind(&new.request_id)
    .bind(&new.input)
    .bind(format_ts(&now_millis()))
    .bind(new.lease.as_ref().map(|lease| lease.owner.as_str()))
    .bind(new.lease.as_ref().map(|lease| lease_end(lease.ttl)))
    .fetch_optional(pool)
    .await;
    let row = match inserted {
        Ok(row) => row,
        Err(sqlx::Error::Database(e)) if e.kind() == ErrorKind::UniqueViolation => {
            return Err(StoreError::DuplicateTurn(id));
        }
        // The only foreign key of `turns` is its session.
        Err(sqlx::Error::Database(e)) if e.kind() == ErrorKind::ForeignKeyViolation => {
            return Err(StoreError::session_not_found(new.session_id));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(row) = row {
        return Ok(TurnStart {
            turn: from_row(&row)?,
            created: true,
        });
    }
    // Nothing inserted: the request id already started a turn in this session.
    let request_id = new.request_id.unwrap_or_default();
    let existing = by_request_id(pool, &new.session_id, &request_id)
        .await?
        .ok_or_else(|| StoreError::turn_not_found(&id))?;
    if existing.input != new.input {
        return Err(StoreError::RequestConflict {
            session_id: new.session_id,
            request_id,
            turn_id: existing.id,
        });
    }
    Ok(TurnStart {
        turn: existing,
        created: false,
    })
}

pub(super) async fn get(pool: &SqlitePool, turn_id: &str) -> StoreResult<Turn> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE id = ?"
    ))
    .bind(turn_id)
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| StoreError::turn_not_found(turn_id))?;
    from_row(&row)
}

pub(super) async fn by_request_id(
    pool: &SqlitePool,
    session_id: &str,
    request_id: &str,
) -> StoreResult<Option<Turn>> {
    sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE session_id = ? AND request_id = ?"
    ))
    .bind(session_id)
    .bind(request_id)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(from_row)
    .transpose()
}

pub(super) async fn list(pool: &SqlitePool, session_id: &str) -> StoreResult<Vec<Turn>> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE session_id = ? ORDER BY started_at, rowid"
    ))
    .bind(session_id)
    .fetch_all(pool)
    .await?;
    rows.iter().map(from_row).collect()
}

pub(super) async fn finish(
    pool: &SqlitePool,
    turn_id: &str,
    outcome: TurnOutcome,
    error: Option<String>,
) -> StoreResult<Turn> {
    let row = sqlx::query(concat!(
        "UPDATE turns SET status = ?, error = ?, ended_at = ?",
        " WHERE id = ? AND status = 'running' RETURNING ",
        turn_columns!()
    ))
    .bind(TurnStatus::from(outcome).as_str())
    .bind(error)
    .bind(format_ts(&now_millis()))
    .bind(turn_id)
    .fetch_optional(pool)
    .await?;
    match row {
        Some(row) => from_row(&row),
        None => {
            let turn = get(pool, turn_id).await?;
            Err(StoreError::TurnNotRunning {
                turn_id: turn.id,
                status: turn.status,
            })
        }
    }
}

pub(super) async fn fail_running(pool: &SqlitePool) -> StoreResult<Vec<Turn>> {
    let rows = sqlx::query(concat!(
        "UPDATE turns SET status = 'failed', error = ?, ended_at = ?",
        " WHERE status = 'running' RETURNING ",
        turn_columns!()
    ))
    .bind(INTERRUPTED_ERROR)
    .bind(format_ts(&now_millis()))
    .fetch_all(pool)
    .await?;
    let mut turns = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    turns.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    Ok(turns)
}

pub(super) async fn renew_leases(pool: &SqlitePool, lease: &TurnLease) -> StoreResult<Vec<String>> {
    let ids = sqlx::query_scalar(
        "UPDATE turns SET lease_until = ? WHERE status = 'running' AND owner = ? RETURNING id",
    )
    .bind(lease_end(lease.ttl))
    .bind(&lease.owner)
    .fetch_all(pool)
    .await?;
    Ok(ids)
}

pub(super) async fn fail_expired(
    pool: &SqlitePool,
    restarted_owner: Option<&str>,
) -> StoreResult<Vec<Turn>> {
    let now = format_ts(&now_millis());
    let rows = sqlx::query(concat!(
        "UPDATE turns SET status = 'failed', error = ?, ended_at = ?",
        " WHERE status = 'running' AND (lease_until < ? OR owner = ?) RETURNING ",
        turn_columns!()
    ))
    .bind(INTERRUPTED_ERROR)
    .bind(&now)
    .bind(&now)
    .bind(restarted_owner)
    .fetch_all(pool)
    .await?;
    let mut turns = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    turns.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    Ok(turns)
}
