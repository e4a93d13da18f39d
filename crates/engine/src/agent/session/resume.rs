//! Continuing a turn another process began: its messages so far are already in the
//! conversation, so the turn goes on from there — no `agent.start`, no new user message, the
//! calls still pending run first (a call whose approval was waiting asks it again) — and ends
//! with its one `agent.end`.

use keel_events::ResponseMode;
use tracing::Instrument;

use super::super::tool_loop::TurnRun;
use super::super::turn_state::TurnState;
use super::{AgentSession, TurnOutcome};
use crate::assemble::{ArgumentsStatus, AssembledToolCall};
use keel_protocol::Mode;

/// A turn to continue: the one the conversation's latest messages belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumedTurn {
    /// The turn's id, as its events carry it.
    pub turn_id: String,
    /// The user's request that began it.
    pub input: String,
    /// Model calls the turn already made (they count against `max_iterations`).
    pub iterations: u32,
}

impl AgentSession {
    /// Continues `turn` from the conversation as set ([`AgentSession::with_conversation`]):
    /// its request, the model's answers and the results of the calls that ended are there
    /// already. The calls of the latest answer still without a result run first, then the tool
    /// loop goes on; the turn ends with `run.response.end` and `agent.end` as any other.
    pub async fn resume_turn_with_id(&mut self, turn: ResumedTurn) -> TurnOutcome {
        let span = tracing::info_span!(
            "turn",
            session = %self.emitter.sequencer().session_id(),
            conversation = %self.conversation_id,
            turn = %turn.turn_id,
            resumed = true,
        );
        self.resume(turn).instrument(span).await
    }

    async fn resume(&mut self, turn: ResumedTurn) -> TurnOutcome {
        let cancel = self.cancel.clone();
        self.turns += 1;
        self.emitter.set_turn(Some(turn.turn_id));
        self.changes.clear();
        let input = turn.input;
        self.prepare_turn_context(&input).await;
        self.context.turn_focus = self.context.focused.clone();
        self.context.turn_notes.clear();
        self.note_task_excerpts(&input).await;
        // The turn's request is already in the conversation: a start over goes back to it.
        let turn_start = self
            .context
            .conversation
            .turns()
            .last()
            .map_or(0, |turn| turn.start);
        let mode = match self.config.mode {
            Mode::Plan => ResponseMode::Plan,
            Mode::Auto | Mode::Direct => ResponseMode::Direct,
        };
        let mut state = TurnState::new(cancel.clone(), mode, self.config.anomalies);
        // The process that began the turn announced its response.
        state.response.open = true;
        state.iterations = turn.iterations;
        state.asks_for_change = super::super::task_intent::asks_for_change(&input);
        state.only_asks = super::super::task_intent::only_asks(&input);
        state.task = input.clone();
        state.turn_start = turn_start;
        if state.asks_for_change {
            state.stamps = Some(super::super::stamps::Stamps::take(&self.config.root));
        }
        if self.config.shadow
            && let Err(result) = super::super::shadow::prepare(&mut self.config, &self.emitter)
        {
            let ending =
                super::super::turn_state::Ending::new(keel_events::AgentStatus::Failed, result);
            return self.close_turn(ending, &state, input);
        }
        let pending: Vec<AssembledToolCall> = self
            .context
            .conversation
            .pending_calls()
            .into_iter()
            .enumerate()
            .map(|(index, call)| AssembledToolCall {
                index: u32::try_from(index).unwrap_or(u32::MAX),
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
                pieces: 1,
                status: ArgumentsStatus::Complete,
            })
            .collect();
        let mut run = TurnRun {
            config: &mut self.config,
            emitter: &self.emitter,
            model: &mut self.model,
            tools: &mut self.tools,
            context: &mut self.context,
            changes: &self.changes,
            state,
        };
        let stopped = match pending.is_empty() {
            true => None,
            false => run.run_calls(&pending, None).await,
        };
        let ending = match stopped {
            Some(end) => run.direct_ending(end),
            None => run.drive().await,
        };
        let state = run.state;
        if self.config.shadow {
            super::super::shadow::announce(&self.config, &self.emitter, &self.changes);
        }
        let outcome = self.close_turn(ending, &state, input);
        if cancel.is_cancelled() {
            self.cancel = tokio_util::sync::CancellationToken::new();
        }
        outcome
    }
}
