//! Approvals, answers and cancels for work another instance runs. Only the instance running a
//! session's turn can apply them, so an instance that does not run it sends a
//! [`ControlMessage`] through the store ([`keel_store::Store::send_control`]: PostgreSQL
//! `NOTIFY`); every instance's store watch hands it to [`apply`], and the one running the turn
//! applies it. The sender then confirms from the store: the `run.approval.resolve` /
//! `run.question.answer` the engine records, or the turn's end.

use std::sync::Arc;
use std::time::Duration;

use keel_events::ApprovalDecision;
use keel_protocol::ApprovalReply;
use keel_store::{ControlKind, ControlMessage, EventRange};

use crate::error::{ApiError, ApiResult};
use crate::interaction::{
    Applied, StoredState, decision_name, same_or_conflict, scan_approval, scan_question,
};
use crate::state::AppState;

/// How long a relayed decision waits to show up in the store.
pub const CONFIRM_WAIT: Duration = Duration::from_secs(5);
/// How often the store is read while waiting.
const POLL_EVERY: Duration = Duration::from_millis(25);

/// Applies a control message from the store's watch if this instance runs the session's work.
pub fn apply(state: &Arc<AppState>, message: ControlMessage) {
    let Some(live) = state.live_if_any(&message.session_id) else {
        return;
    };
    match message.kind {
        // A cancel names the turn that ran when it was sent: one that arrives late must not
        // cancel a turn started since.
        ControlKind::Cancel => {
            if let Some(turn_id) = &message.id {
                live.cancel_turn(turn_id);
            }
            live.cancel_file_runs();
        }
        ControlKind::Approval => {
            let (Some(id), Some(reply)) = (message.id.clone(), approval_reply(&message)) else {
                return;
            };
            if !live.turn_running() {
                return;
            }
            let state = Arc::clone(state);
            tokio::spawn(async move {
                // Conflicts and unknown ids are the sender's to report, from the store.
                let _ = live
                    .interactions
                    .decide_approval(state.store.as_ref(), &message.session_id, &id, reply)
                    .await;
            });
        }
        ControlKind::Answer => {
            let (Some(id), Some(answer)) = (message.id.clone(), message.answer.clone()) else {
                return;
            };
            if !live.turn_running() {
                return;
            }
            let state = Arc::clone(state);
            tokio::spawn(async move {
                let _ = live
                    .interactions
                    .answer_question(state.store.as_ref(), &message.session_id, &id, answer)
                    .await;
            });
        }
    }
}

fn approval_reply(message: &ControlMessage) -> Option<ApprovalReply> {
    let decision: ApprovalDecision =
        serde_json::from_value(serde_json::Value::String(message.decision.clone()?)).ok()?;
    Some(ApprovalReply {
        decision,
        reason: message.reason.clone(),
        modified: message.modified.clone(),
    })
}

fn not_waiting(what: &str, id: &str) -> ApiError {
    ApiError::conflict(format!(
        "{what} `{id}` is not waiting for a decision (its turn has ended)"
    ))
}

/// A decision or answer for a turn this instance does not run: checks the store, relays it to
/// the instance running the turn and waits for it to be recorded.
async fn relay_decision(
    state: &AppState,
    message: ControlMessage,
    what: &str,
    id: &str,
    wanted: &str,
    scan: fn(&[keel_events::Event], &str, &mut StoredState),
) -> ApiResult<Applied> {
    let store = state.store.as_ref();
    let session_id = message.session_id.clone();
    let events = store.read_events(&session_id, EventRange::all()).await?;
    let mut cursor = events.last().map_or(0, |e| e.seq);
    let mut stored = StoredState::Unknown;
    scan(&events, id, &mut stored);
    match &stored {
        StoredState::Unknown => return Err(ApiError::not_found(format!("no {what} `{id}`"))),
        StoredState::Decided(previous) => return same_or_conflict(previous == wanted, what, id),
        StoredState::Requested => {}
    }
    let Some(turn) = state.host.running_turn(&session_id).await? else {
        return Err(not_waiting(what, id));
    };
    store.send_control(&message).await.map_err(|e| match e {
        keel_store::StoreError::ControlTooLarge { .. } => ApiError::new(
            crate::error::ErrorCode::PayloadTooLarge,
            format!("the {what} runs on another server instance and cannot be relayed there: {e}"),
        ),
        other => other.into(),
    })?;
    let deadline = tokio::time::Instant::now() + CONFIRM_WAIT;
    loop {
        tokio::time::sleep(POLL_EVERY).await;
        let events = store
            .read_events(&session_id, EventRange::after(cursor))
            .await?;
        if let Some(last) = events.last() {
            cursor = last.seq;
        }
        scan(&events, id, &mut stored);
        if let StoredState::Decided(decided) = &stored {
            return if decided == wanted {
                Ok(Applied::Yes)
            } else {
                same_or_conflict(false, what, id)
            };
        }
        if !state.host.is_running(&turn.id).await? {
            return Err(not_waiting(what, id));
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(ApiError::conflict(format!(
                "{what} `{id}` was sent to the server instance running its turn, which did not \
                 record it within {} s",
                CONFIRM_WAIT.as_secs()
            )));
        }
    }
}

/// Decides approval `id` of a session whose turn runs on another instance.
pub async fn relay_approval(
    state: &AppState,
    session_id: &str,
    id: &str,
    reply: ApprovalReply,
) -> ApiResult<Applied> {
    let wanted = decision_name(reply.decision);
    let mut message = ControlMessage::new(session_id, ControlKind::Approval);
    message.id = Some(id.to_owned());
    message.decision = Some(wanted.clone());
    message.reason = reply.reason;
    message.modified = reply.modified;
    relay_decision(state, message, "approval", id, &wanted, scan_approval).await
}

/// Answers question `id` of a session whose turn runs on another instance.
pub async fn relay_answer(
    state: &AppState,
    session_id: &str,
    id: &str,
    answer: String,
) -> ApiResult<Applied> {
    let mut message = ControlMessage::new(session_id, ControlKind::Answer);
    message.id = Some(id.to_owned());
    message.answer = Some(answer.clone());
    relay_decision(state, message, "question", id, &answer, scan_question).await
}

/// Cancels a session's work running on other instances: relays the cancel and, when the store
/// shows a running turn, waits (up to [`CONFIRM_WAIT`]) for it to end. True when a turn was
/// running.
pub async fn relay_cancel(state: &AppState, session_id: &str) -> ApiResult<bool> {
    let store = state.store.as_ref();
    let running = state.host.running_turn(session_id).await?;
    // File runs are not stored: relay even without a running turn (then naming none).
    let mut message = ControlMessage::new(session_id, ControlKind::Cancel);
    message.id = running.as_ref().map(|turn| turn.id.clone());
    store.send_control(&message).await?;
    let Some(turn) = running else {
        return Ok(false);
    };
    let deadline = tokio::time::Instant::now() + CONFIRM_WAIT;
    while tokio::time::Instant::now() < deadline {
        if !state.host.is_running(&turn.id).await? {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    Ok(true)
}
