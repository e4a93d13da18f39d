//! The sessions' writer claims, on every backend: claiming, renewing and releasing them, and
//! the end of a turn written under one (see [`crate::claim`]).

use keel_events::now_millis;

use super::turns;
use crate::backend::{Backend, Param, Statement};
use crate::claim::{FencedTurnEnd, WriterClaim};
use crate::columns::ReadColumns;
use crate::error::{StoreError, StoreResult};
use crate::turn::TurnLease;

const WRITER: &str = "SELECT id, writer FROM sessions WHERE id = $1";

const RELEASE: &str = "UPDATE sessions SET writer = NULL, writer_until = NULL \
                       WHERE id = $1 AND writer = $2 AND writer_epoch = $3 RETURNING id";

const SET_STATUS_FENCED: &str = "UPDATE sessions SET status = $1, updated_at = $2 \
                                 WHERE id = $3 AND writer = $4 AND writer_epoch = $5 RETURNING id";

/// Who holds session `session_id`'s writer claim (lapsed or not); `None` when nobody does.
/// A missing session is [`StoreError::NotFound`].
pub(crate) async fn holder<B: Backend>(
    backend: &B,
    session_id: &str,
) -> StoreResult<Option<String>> {
    let row = backend
        .row(Statement::read(WRITER, vec![Param::text(session_id)]))
        .await?
        .ok_or_else(|| StoreError::session_not_found(session_id))?;
    Ok(row.opt_text("writer")?)
}

pub(crate) async fn claim<B: Backend>(
    backend: &B,
    session_id: &str,
    lease: &TurnLease,
) -> StoreResult<WriterClaim> {
    let params = vec![
        Param::text(&lease.owner),
        Param::LeaseEnd(Some(lease.ttl)),
        Param::text(session_id),
    ];
    let row = backend
        .row(Statement::write(B::DIALECT.claim_writer, params))
        .await?;
    if let Some(row) = row {
        return Ok(WriterClaim {
            session_id: session_id.to_owned(),
            owner: lease.owner.clone(),
            epoch: row.opt_int("writer_epoch")?.unwrap_or_default(),
        });
    }
    match holder(backend, session_id).await? {
        Some(holder) => Err(StoreError::WriterHeld {
            session_id: session_id.to_owned(),
            holder,
        }),
        // Released between the two statements: the claim is free now.
        None => Box::pin(claim(backend, session_id, lease)).await,
    }
}

pub(crate) async fn release<B: Backend>(backend: &B, claim: &WriterClaim) -> StoreResult<bool> {
    let params = vec![
        Param::text(&claim.session_id),
        Param::text(&claim.owner),
        Param::Int(Some(claim.epoch)),
    ];
    Ok(backend
        .row(Statement::write(RELEASE, params))
        .await?
        .is_some())
}

pub(crate) async fn renew<B: Backend>(
    backend: &B,
    lease: &TurnLease,
) -> StoreResult<Vec<WriterClaim>> {
    let params = vec![Param::LeaseEnd(Some(lease.ttl)), Param::text(&lease.owner)];
    let rows = backend
        .rows(Statement::write(B::DIALECT.renew_writers, params))
        .await?;
    rows.iter()
        .map(|row| {
            Ok(WriterClaim {
                session_id: row.opt_text("id")?.unwrap_or_default(),
                owner: lease.owner.clone(),
                epoch: row.opt_int("writer_epoch")?.unwrap_or_default(),
            })
        })
        .collect()
}

/// The [`StoreError::Fenced`] of a write quoting `claim`, naming who holds the session now.
pub(crate) async fn fenced<B: Backend>(backend: &B, claim: &WriterClaim) -> StoreError {
    let holder = holder(backend, &claim.session_id).await.ok().flatten();
    StoreError::Fenced {
        session_id: claim.session_id.clone(),
        owner: claim.owner.clone(),
        epoch: claim.epoch,
        holder,
    }
}

/// Runs `statement`, a fenced write that returns a row when the claim held.
async fn fenced_write<B: Backend>(
    backend: &B,
    claim: &WriterClaim,
    statement: Statement<'_>,
) -> StoreResult<()> {
    match backend.row(statement).await? {
        Some(_) => Ok(()),
        None => Err(fenced(backend, claim).await),
    }
}

pub(crate) async fn end_turn<B: Backend>(
    backend: &B,
    claim: &WriterClaim,
    end: FencedTurnEnd<'_>,
) -> StoreResult<()> {
    let session_id = claim.session_id.as_str();
    let epoch = Param::Int(Some(claim.epoch));
    if let Some(conversation) = end.conversation {
        let conversation = conversation.to_string();
        let params = vec![
            Param::text(&conversation),
            Param::Time(now_millis()),
            Param::text(session_id),
            Param::text(&claim.owner),
            epoch.clone(),
        ];
        let statement = Statement::write(B::DIALECT.save_conversation_fenced, params);
        fenced_write(backend, claim, statement).await?;
    }
    let params = vec![
        Param::text(end.session_status.as_str()),
        Param::Time(now_millis()),
        Param::text(session_id),
        Param::text(&claim.owner),
        epoch,
    ];
    fenced_write(backend, claim, Statement::write(SET_STATUS_FENCED, params)).await?;
    let Some(turn_id) = end.turn_id else {
        return Ok(());
    };
    let ended = turns::finish_fenced(
        backend,
        turn_id,
        end.outcome,
        end.error,
        &claim.owner,
        claim.epoch,
    )
    .await?;
    if ended.is_some() {
        return Ok(());
    }
    let turn = turns::get(backend, turn_id).await?;
    if turn.status != crate::turn::TurnStatus::Running {
        return Err(StoreError::TurnNotRunning {
            turn_id: turn.id,
            status: turn.status,
        });
    }
    Err(fenced(backend, claim).await)
}
