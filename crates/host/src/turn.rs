//! Ending a turn in the store: its row, the session's status and the saved conversation.

use keel_events::AgentStatus;
use keel_store::{FencedTurnEnd, SessionStatus, Store, TurnOutcome, WriterClaim};

use crate::error::HostError;
use crate::saved::SavedConversation;

/// How a turn ended, as a front end saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The engine ran it to its `agent.end`.
    Finished {
        /// The `agent.end` status.
        status: AgentStatus,
        /// The final answer, or what went wrong.
        result: String,
    },
    /// The front end gave it up before it ended (e.g. Ctrl-C pressed twice); why.
    Abandoned(String),
    /// It could not run; the message says why (already reported on the event stream).
    Failed(String),
}

impl TurnEnd {
    /// The end of a turn the engine finished.
    pub fn finished(outcome: &keel_engine::TurnOutcome) -> Self {
        Self::Finished {
            status: outcome.status,
            result: outcome.result.clone(),
        }
    }

    /// What the turn row and the session record.
    fn record(&self) -> (TurnOutcome, SessionStatus, Option<String>) {
        match self {
            Self::Finished {
                status: AgentStatus::Completed,
                ..
            } => (TurnOutcome::Completed, SessionStatus::Completed, None),
            Self::Finished {
                status: AgentStatus::Cancelled,
                ..
            } => (TurnOutcome::Cancelled, SessionStatus::Cancelled, None),
            Self::Finished {
                status: AgentStatus::MaxIterations,
                result,
            } => (
                TurnOutcome::Failed,
                SessionStatus::Failed,
                Some(non_empty(result, "the iteration limit was reached")),
            ),
            Self::Finished { result, .. } => (
                TurnOutcome::Failed,
                SessionStatus::Failed,
                Some(non_empty(result, "the turn failed")),
            ),
            Self::Abandoned(why) => (
                TurnOutcome::Cancelled,
                SessionStatus::Cancelled,
                Some(why.clone()),
            ),
            Self::Failed(message) => (
                TurnOutcome::Failed,
                SessionStatus::Failed,
                Some(message.clone()),
            ),
        }
    }
}

fn non_empty(text: &str, otherwise: &str) -> String {
    if text.trim().is_empty() {
        otherwise.to_owned()
    } else {
        text.to_owned()
    }
}

/// Ends turn `turn_id` of session `session_id`: saves `saved` (when given), sets the session's
/// status, then ends the turn row — in that order, so whoever sees the turn end sees the
/// session's final status and history. The caller flushes the turn's events first. Every step
/// is attempted; the first failure is returned.
pub async fn finish_turn(
    store: &dyn Store,
    session_id: &str,
    turn_id: Option<&str>,
    end: &TurnEnd,
    saved: Option<&SavedConversation>,
) -> Result<(), HostError> {
    let (outcome, session_status, error) = end.record();
    let mut first: Option<HostError> = None;
    if let Some(saved) = saved {
        let stored = match saved.to_value(session_id) {
            Ok(value) => store
                .save_conversation(session_id, &value)
                .await
                .map_err(HostError::from),
            Err(e) => Err(e),
        };
        if let Err(e) = stored {
            first.get_or_insert(e);
        }
    }
    if let Err(e) = store.set_session_status(session_id, session_status).await {
        first.get_or_insert(e.into());
    }
    if let Some(turn_id) = turn_id
        && let Err(e) = store.finish_turn(turn_id, outcome, error).await
    {
        first.get_or_insert(e.into());
    }
    first.map_or(Ok(()), Err)
}

/// [`finish_turn`] under the session's writer `claim`: the same three writes, each refused by
/// the store once another process has taken the session over
/// ([`StoreError::Fenced`](keel_store::StoreError::Fenced)) — a process that lost the session
/// records nothing of how its run ended. The first failure stops the rest.
pub async fn finish_turn_fenced(
    store: &dyn Store,
    claim: &WriterClaim,
    turn_id: Option<&str>,
    end: &TurnEnd,
    saved: Option<&SavedConversation>,
) -> Result<(), HostError> {
    let (outcome, session_status, error) = end.record();
    let conversation = saved
        .map(|saved| saved.to_value(&claim.session_id))
        .transpose()?;
    store
        .end_turn_fenced(
            claim,
            FencedTurnEnd {
                conversation: conversation.as_ref(),
                session_status,
                turn_id,
                outcome,
                error,
            },
        )
        .await?;
    Ok(())
}
