//! Turns that finish elsewhere: what a process does with a running turn handed to it after the
//! process running it died, stalled past its lease or drained.
//!
//! [`plan_continuation`] reads the turn's committed work ([`CommittedTurn`]) and decides: a
//! turn whose `agent.end` is stored only has its row to end; a turn that can go on is
//! continued from its last committed state (the agent built on the conversation with the
//! turn's messages, then [`AgentSession::resume_turn_with_id`]); one that cannot (it runs a
//! plan) fails as before, but properly: a `system.error` and an `agent.end{failed}` with its
//! `turn_id`, and its committed work saved for the next turn.
//!
//! [`AgentSession::resume_turn_with_id`]: keel_engine::AgentSession::resume_turn_with_id

use keel_engine::ResumedTurn;
use keel_events::{AgentEnd, AgentStatus, LogLevel, SystemError, SystemLog, Usage};
use keel_store::{Store, TurnHandover};

use crate::continuation::CommittedTurn;
use crate::error::HostError;
use crate::saved::SavedConversation;
use crate::session::open_session;

/// What to do with a turn handed over to this process.
#[derive(Debug, Clone, PartialEq)]
pub enum Continuation {
    /// The turn's `agent.end` is stored: end its row with this status and save the
    /// conversation (which then holds the turn).
    Ended {
        /// The stored `agent.end`'s status.
        status: AgentStatus,
        /// Its result.
        result: String,
        /// The conversation to save.
        saved: SavedConversation,
    },
    /// Continue the turn: announce it with `notice`, build the agent on `saved`, then run
    /// `resume`.
    Resume {
        /// The conversation up to the turn's last committed state.
        saved: SavedConversation,
        /// The turn to continue.
        resume: ResumedTurn,
        /// The `system.log` naming both processes.
        notice: SystemLog,
    },
    /// The turn cannot be continued: record `error` and `end` on it, then save `saved` (its
    /// committed work, every call closed) and end its row failed.
    Fail {
        /// The conversation with the turn's committed work.
        saved: SavedConversation,
        /// The `system.error` saying why.
        error: SystemError,
        /// The turn's `agent.end{failed}`.
        end: AgentEnd,
    },
}

/// Who ran a handed-over turn, for messages.
fn previous(handover: &TurnHandover) -> String {
    match &handover.previous_owner {
        Some(owner) => format!("instance `{owner}`"),
        None => "the process running it".to_owned(),
    }
}

/// Decides how `me` carries on with the turn of `handover` (see [`Continuation`]).
pub async fn plan_continuation(
    store: &dyn Store,
    handover: &TurnHandover,
    me: &str,
) -> Result<Continuation, HostError> {
    let turn = &handover.turn;
    let opened = open_session(store, &turn.session_id).await?;
    let committed = CommittedTurn::read(store, turn).await?;
    let saved = committed.conversation(&opened.session, opened.saved);
    if let Some((status, result)) = committed.ended.clone() {
        return Ok(Continuation::Ended {
            status,
            result,
            saved,
        });
    }
    let before = previous(handover);
    if let Some(reason) = committed.not_resumable.clone() {
        let message = format!(
            "turn `{}` was interrupted: {before} stopped, and instance `{me}` cannot continue \
             it ({reason}); its committed work is kept for the next turn",
            turn.id
        );
        return Ok(Continuation::Fail {
            saved: SavedConversation::new(saved.conversation_id, {
                let mut closed = saved.conversation;
                closed.close_pending();
                closed
            }),
            error: SystemError {
                error: message.clone(),
                error_type: "interrupted".to_owned(),
                recoverable: true,
                stack: None,
                error_display: None,
            },
            end: AgentEnd {
                status: AgentStatus::Failed,
                result: message,
                files_changed: Vec::new(),
                usage: Usage::default(),
                warning: None,
            },
        });
    }
    let notice = SystemLog {
        level: LogLevel::Warn,
        message: format!(
            "turn `{}` continues on instance `{me}` from its last committed state: {before} \
             stopped running it ({})",
            turn.id,
            committed.summary()
        ),
        metadata: match serde_json::json!({
            "continued_by": me,
            "continued_from": handover.previous_owner,
            "iterations": committed.iterations,
            "calls_done": committed.calls_done,
            "interrupted": committed.interrupted,
            "pending": committed.pending,
        }) {
            serde_json::Value::Object(map) => Some(map),
            _ => None,
        },
    };
    Ok(Continuation::Resume {
        saved,
        resume: ResumedTurn {
            turn_id: turn.id.clone(),
            input: committed.input,
            iterations: committed.iterations,
        },
        notice,
    })
}
