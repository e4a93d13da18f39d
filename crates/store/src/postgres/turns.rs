//! The `turns` table.

use keel_events::now_millis;
use sqlx::PgPool;
use sqlx::error::ErrorKind;
use sqlx::postgres::PgRow;
use uuid::Uuid;

use super::columns::{RowRef, row_id};
use crate::error::{StoreError, StoreResult};
use crate::turn::{
    INTERRUPTED_ERROR, NewTurn, Turn, TurnLease, TurnOutcome, TurnStart, TurnStatus,
};

/// SQL for the end of a lease whose length in seconds is the parameter `$n`, by the database's
/// clock (so instances' clocks need not agree).
macro_rules! lease_end {
    ($n:literal) => {
        concat!(
            "date_trunc('milliseconds', now() + make_interval(secs => $",
            $n,
            "))"
        )
    };
}

/// The columns of [`Turn`], in the order [`from_row`] reads them.
macro_rules! turn_columns {
    () => {
        "id, session_id, request_id, input, status, error, started_at, ended_at, owner, lease_until"
    };
}

fn from_row(row: &PgRow) -> StoreResult<Turn> {
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

pub(super) async fn begin(pool: &PgPool, new: NewTurn) -> StoreResult<TurnStart> {
    let id = new.id.unwrap_or_else(|| Uuid::now_v7().to_string());
    let inserted = sqlx::query(concat!(
        "INSERT INTO turns",
        " (id, session_id, request_id, input, status, started_at, owner, lease_until)",
        " VALUES ($1, $2, $3, $4, 'running', $5, $6, CASE WHEN $6 IS NULL THEN NULL ELSE ",
        lease_end!(7),
        " END)",
        " ON CONFLICT ON CONSTRAINT turns_session_request_key DO NOTHING RETURNING ",
        turn_columns!()
    ))
    .bind(&id)
    .bind(&new.session_id)
    .bind(&new.request_id)
    .bind(&new.input)
    .bind(now_millis())
    .bind(new.lease.as_ref().map(|lease| lease.owner.as_str()))
    .bind(
        new.lease
            .as_ref()
            .map_or(0.0, |lease| lease.ttl.as_secs_f64()),
    )
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

pub(super) async fn get(pool: &PgPool, turn_id: &str) -> StoreResult<Turn> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE id = $1"
    ))
    .bind(turn_id)
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| StoreError::turn_not_found(turn_id))?;
    from_row(&row)
}

pub(super) async fn by_request_id(
    pool: &PgPool,
    session_id: &str,
    request_id: &str,
) -> StoreResult<Option<Turn>> {
    sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE session_id = $1 AND request_id = $2"
    ))
    .bind(session_id)
    .bind(request_id)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(from_row)
    .transpose()
}

pub(super) async fn list(pool: &PgPool, session_id: &str) -> StoreResult<Vec<Turn>> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE session_id = $1 ORDER BY started_at, ord"
    ))
    .bind(session_id)
    .fetch_all(pool)
    .await?;
    rows.iter().map(from_row).collect()
}

pub(super) async fn finish(
    pool: &PgPool,
    turn_id: &str,
    outcome: TurnOutcome,
    error: Option<String>,
) -> StoreResult<Turn> {
    let row = sqlx::query(concat!(
        "UPDATE turns SET status = $1, error = $2, ended_at = $3",
        " WHERE id = $4 AND status = 'running' RETURNING ",
        turn_columns!()
    ))
    .bind(TurnStatus::from(outcome).as_str())
    .bind(error)
    .bind(now_millis())
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

pub(super) async fn fail_running(pool: &PgPool) -> StoreResult<Vec<Turn>> {
    let rows = sqlx::query(concat!(
        "UPDATE turns SET status = 'failed', error = $1, ended_at = $2",
        " WHERE status = 'running' RETURNING ",
        turn_columns!()
    ))
    .bind(INTERRUPTED_ERROR)
    .bind(now_millis())
    .fetch_all(pool)
    .await?;
    let mut turns = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    turns.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    Ok(turns)
}

pub(super) async fn renew_leases(pool: &PgPool, lease: &TurnLease) -> StoreResult<Vec<String>> {
    let ids = sqlx::query_scalar(concat!(
        "UPDATE turns SET lease_until = ",
        lease_end!(1),
        " WHERE status = 'running' AND owner = $2 RETURNING id"
    ))
    .bind(lease.ttl.as_secs_f64())
    .bind(&lease.owner)
    .fetch_all(pool)
    .await?;
    Ok(ids)
}

pub(super) async fn fail_expired(
    pool: &PgPool,
    restarted_owner: Option<&str>,
) -> StoreResult<Vec<Turn>> {
    let rows = sqlx::query(concat!(
        "UPDATE turns SET status = 'failed', error = $1, ended_at = $2",
        " WHERE status = 'running' AND (lease_until < now() OR owner = $3) RETURNING ",
        turn_columns!()
    ))
    .bind(INTERRUPTED_ERROR)
    .bind(now_millis())
    .bind(restarted_owner)
    .fetch_all(pool)
    .await?;
    let mut turns = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    turns.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    Ok(turns)
}
