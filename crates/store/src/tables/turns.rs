//! The `turns` table: beginning turns (idempotently, by request id), ending them, and the
//! leases that let several processes share one database, on every backend.

use keel_events::now_millis;
use sqlx::error::ErrorKind;
use uuid::Uuid;

use super::expect_row;
use crate::backend::{Backend, Param, Statement};
use crate::columns::{ReadColumns, StoredRow, row_id};
use crate::error::{StoreError, StoreResult};
use crate::turn::{
    INTERRUPTED_ERROR, NewTurn, Turn, TurnHandover, TurnLease, TurnOutcome, TurnStart, TurnStatus,
};

/// The columns of [`Turn`], in the order [`from_row`] reads them.
macro_rules! turn_columns {
    () => {
        "id, session_id, request_id, input, status, error, started_at, ended_at, owner, lease_until"
    };
}

pub(crate) use turn_columns;

const GET: &str = concat!("SELECT ", turn_columns!(), " FROM turns WHERE id = $1");

const BY_REQUEST_ID: &str = concat!(
    "SELECT ",
    turn_columns!(),
    " FROM turns WHERE session_id = $1 AND request_id = $2"
);

const FINISH: &str = concat!(
    "UPDATE turns SET status = $1, error = $2, ended_at = $3",
    " WHERE id = $4 AND status = 'running' RETURNING ",
    turn_columns!()
);

const FINISH_FENCED: &str = concat!(
    "UPDATE turns SET status = $1, error = $2, ended_at = $3",
    " WHERE id = $4 AND status = 'running' AND (owner IS NULL OR owner = $5)",
    " AND EXISTS (SELECT 1 FROM sessions s",
    " WHERE s.id = turns.session_id AND s.writer = $5 AND s.writer_epoch = $6) RETURNING ",
    turn_columns!()
);

const RELEASE_LEASE: &str = "UPDATE turns SET lease_until = $3 \
                             WHERE id = $1 AND owner = $2 AND status = 'running' RETURNING id";

const FAIL_RUNNING: &str = concat!(
    "UPDATE turns SET status = 'failed', error = $1, ended_at = $2",
    " WHERE status = 'running' RETURNING ",
    turn_columns!()
);

fn from_row(row: &impl ReadColumns) -> StoreResult<Turn> {
    let r = StoredRow::new(row, "turn")?;
    Ok(Turn {
        session_id: r.text("session_id")?,
        request_id: r.opt_text("request_id")?,
        input: r.text("input")?,
        status: r.parsed("status")?,
        error: r.opt_text("error")?,
        started_at: r.ts("started_at")?,
        ended_at: r.opt_ts("ended_at")?,
        owner: r.opt_text("owner")?,
        lease_until: r.opt_ts("lease_until")?,
        id: r.id,
    })
}

/// Turns that were failed together, oldest first.
fn oldest_first(rows: &[impl ReadColumns]) -> StoreResult<Vec<Turn>> {
    let mut turns = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    turns.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    Ok(turns)
}

pub(crate) async fn begin<B: Backend>(backend: &B, new: NewTurn) -> StoreResult<TurnStart> {
    let id = new.id.unwrap_or_else(|| Uuid::now_v7().to_string());
    let params = vec![
        Param::text(&id),
        Param::text(&new.session_id),
        Param::Text(new.request_id.as_deref()),
        Param::text(&new.input),
        Param::Time(now_millis()),
        Param::Text(new.lease.as_ref().map(|lease| lease.owner.as_str())),
        Param::LeaseEnd(new.lease.as_ref().map(|lease| lease.ttl)),
    ];
    let inserted = match backend
        .row(Statement::write(B::DIALECT.insert_turn, params))
        .await
    {
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
    if let Some(row) = inserted {
        return Ok(TurnStart {
            turn: from_row(&row)?,
            created: true,
        });
    }
    // Nothing inserted: the request id already started a turn in this session.
    let request_id = new.request_id.unwrap_or_default();
    let existing = by_request_id(backend, &new.session_id, &request_id)
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

pub(crate) async fn get<B: Backend>(backend: &B, turn_id: &str) -> StoreResult<Turn> {
    let statement = Statement::read(GET, vec![Param::text(turn_id)]);
    from_row(&expect_row(backend, statement, || StoreError::turn_not_found(turn_id)).await?)
}

pub(crate) async fn by_request_id<B: Backend>(
    backend: &B,
    session_id: &str,
    request_id: &str,
) -> StoreResult<Option<Turn>> {
    let params = vec![Param::text(session_id), Param::text(request_id)];
    backend
        .row(Statement::read(BY_REQUEST_ID, params))
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
}

pub(crate) async fn list<B: Backend>(backend: &B, session_id: &str) -> StoreResult<Vec<Turn>> {
    let rows = backend
        .rows(Statement::read(
            B::DIALECT.list_turns,
            vec![Param::text(session_id)],
        ))
        .await?;
    rows.iter().map(from_row).collect()
}

pub(crate) async fn finish<B: Backend>(
    backend: &B,
    turn_id: &str,
    outcome: TurnOutcome,
    error: Option<String>,
) -> StoreResult<Turn> {
    let params = vec![
        Param::text(TurnStatus::from(outcome).as_str()),
        Param::Text(error.as_deref()),
        Param::Time(now_millis()),
        Param::text(turn_id),
    ];
    match backend.row(Statement::write(FINISH, params)).await? {
        Some(row) => from_row(&row),
        None => {
            let turn = get(backend, turn_id).await?;
            Err(StoreError::TurnNotRunning {
                turn_id: turn.id,
                status: turn.status,
            })
        }
    }
}

pub(crate) async fn fail_running<B: Backend>(backend: &B) -> StoreResult<Vec<Turn>> {
    let params = vec![Param::text(INTERRUPTED_ERROR), Param::Time(now_millis())];
    oldest_first(&backend.rows(Statement::write(FAIL_RUNNING, params)).await?)
}

pub(crate) async fn renew_leases<B: Backend>(
    backend: &B,
    lease: &TurnLease,
) -> StoreResult<Vec<String>> {
    let params = vec![Param::LeaseEnd(Some(lease.ttl)), Param::text(&lease.owner)];
    let rows = backend
        .rows(Statement::write(B::DIALECT.renew_leases, params))
        .await?;
    rows.iter().map(|row| row_id(row, "turn")).collect()
}

pub(crate) async fn fail_expired<B: Backend>(
    backend: &B,
    restarted_owner: Option<&str>,
) -> StoreResult<Vec<Turn>> {
    let params = vec![
        Param::text(INTERRUPTED_ERROR),
        Param::Time(now_millis()),
        Param::Text(restarted_owner),
    ];
    oldest_first(
        &backend
            .rows(Statement::write(B::DIALECT.fail_expired, params))
            .await?,
    )
}

/// Ends turn `turn_id` if `owner` holds its session's writer claim at `epoch`; `None` when the
/// claim is stale (the caller tells that from a turn that already ended).
pub(crate) async fn finish_fenced<B: Backend>(
    backend: &B,
    turn_id: &str,
    outcome: TurnOutcome,
    error: Option<String>,
    owner: &str,
    epoch: i64,
) -> StoreResult<Option<Turn>> {
    let params = vec![
        Param::text(TurnStatus::from(outcome).as_str()),
        Param::Text(error.as_deref()),
        Param::Time(now_millis()),
        Param::text(turn_id),
        Param::text(owner),
        Param::Int(Some(epoch)),
    ];
    backend
        .row(Statement::write(FINISH_FENCED, params))
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
}

pub(crate) async fn take_over<B: Backend>(
    backend: &B,
    lease: &TurnLease,
    include_own: bool,
) -> StoreResult<Vec<TurnHandover>> {
    let own = include_own.then_some(lease.owner.as_str());
    let candidates = backend
        .rows(Statement::read(
            B::DIALECT.lapsed_turns,
            vec![Param::Text(own)],
        ))
        .await?;
    let candidates = candidates
        .iter()
        .map(from_row)
        .collect::<StoreResult<Vec<_>>>()?;
    let mut taken = Vec::new();
    for candidate in candidates {
        if candidate.owner.as_deref() == Some(lease.owner.as_str()) && !include_own {
            continue;
        }
        let params = vec![
            Param::text(&lease.owner),
            Param::LeaseEnd(Some(lease.ttl)),
            Param::text(&candidate.id),
        ];
        // Another sweeper may have taken it first: its new lease makes this match nothing.
        if let Some(row) = backend
            .row(Statement::write(B::DIALECT.take_over_turn, params))
            .await?
        {
            taken.push(TurnHandover {
                turn: from_row(&row)?,
                previous_owner: candidate.owner,
            });
        }
    }
    Ok(taken)
}

pub(crate) async fn release_lease<B: Backend>(
    backend: &B,
    turn_id: &str,
    owner: &str,
) -> StoreResult<bool> {
    let params = vec![
        Param::text(turn_id),
        Param::text(owner),
        Param::Time(chrono::DateTime::UNIX_EPOCH),
    ];
    Ok(backend
        .row(Statement::write(RELEASE_LEASE, params))
        .await?
        .is_some())
}
