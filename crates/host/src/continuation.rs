//! A turn's committed work, read back from its stored events, so another process can continue
//! the turn (or end it properly) after the process running it stopped.
//!
//! The events are the truth of what was committed: the input (`agent.start`), each model
//! answer (`run.llm.end`, with its tool calls), each tool call begun (`run.tool.start`) and
//! ended (`run.tool.end`, with the result the model was given), approvals asked and decided.
//! [`CommittedTurn::read`] turns them into the turn's messages: calls whose `run.tool.end` is
//! stored keep their result and are never run again; a call begun but not ended gets an
//! "interrupted" result (it may have partly run); a call never begun, or one whose approval
//! was still waiting, stays pending, so the continuation runs it (asking the approval again).

use keel_context::{Conversation, Message, Retention, ToolCallRequest, ToolMessage};
use keel_events::{AgentStatus, Event, EventKind, ToolStatus};
use keel_store::{EventRange, Session, Store, Turn};

use crate::error::HostError;
use crate::saved::SavedConversation;

/// Most events read from the store per query while reading a turn back.
const PAGE: u32 = 2_000;

/// The result given to the model for a call that was running when its process stopped.
pub const INTERRUPTED_CALL_RESULT: &str = "[interrupted: the process running this tool call \
     stopped before it finished; it may have partly run. Check its effects before running it \
     again.]";

/// What a continued turn is told of the images its request came with: the event log keeps
/// their names, not their bytes, so the process continuing it cannot show them.
fn images_not_kept(images: &[keel_events::ImageInfo]) -> String {
    let names: Vec<&str> = images.iter().map(|i| i.name.as_str()).collect();
    format!(
        "[This request came with {} image(s) ({}); the event log keeps their names, not their bytes, so the turn continued here without them.]",
        images.len(),
        names.join(", ")
    )
}

/// What a turn committed before its process stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct CommittedTurn {
    /// The turn's id.
    pub turn_id: String,
    /// The user's request.
    pub input: String,
    /// The turn's messages as committed: the request, the model's answers with their calls,
    /// and the calls' results (interrupted calls included, calls to run still pending).
    pub messages: Vec<Message>,
    /// Model answers committed (`run.llm.end`), i.e. the iterations the turn has used.
    pub iterations: u32,
    /// Tool calls with a stored result.
    pub calls_done: usize,
    /// Tool calls begun but never ended: reported to the model as interrupted.
    pub interrupted: Vec<String>,
    /// Tool calls to run on continuing: never begun, or waiting for an approval.
    pub pending: Vec<String>,
    /// The turn's `agent.end`, when it was stored (only the turn row was left to end).
    pub ended: Option<(AgentStatus, String)>,
    /// Why the turn cannot be continued from here, when it cannot (it runs a plan, whose
    /// progress is not in the events alone).
    pub not_resumable: Option<String>,
}

/// A call of the latest answer, as far as the events go.
#[derive(Debug, Default)]
struct CallState {
    started: bool,
    awaiting_approval: bool,
}

impl CommittedTurn {
    /// Reads turn `turn`'s stored events back.
    pub async fn read(store: &dyn Store, turn: &Turn) -> Result<Self, HostError> {
        let mut events = Vec::new();
        let mut after = 0;
        loop {
            let page = store
                .read_events(&turn.session_id, EventRange::after(after).with_limit(PAGE))
                .await?;
            let Some(last) = page.last().map(|e| e.seq) else {
                break;
            };
            after = last;
            events.extend(
                page.into_iter()
                    .filter(|e| e.turn_id.as_deref() == Some(turn.id.as_str())),
            );
        }
        Ok(Self::from_events(turn, &events))
    }

    /// The committed work of `turn` in `events` (the turn's own, in seq order).
    pub fn from_events(turn: &Turn, events: &[Event]) -> Self {
        let mut committed = Self {
            turn_id: turn.id.clone(),
            input: turn.input.clone(),
            messages: Vec::new(),
            iterations: 0,
            calls_done: 0,
            interrupted: Vec::new(),
            pending: Vec::new(),
            ended: None,
            not_resumable: None,
        };
        let mut asked = false;
        // The calls of the latest answer, in order, by id.
        let mut calls: Vec<(ToolCallRequest, CallState)> = Vec::new();
        for event in events {
            match &event.kind {
                EventKind::AgentStart(start) if !asked => {
                    committed.input = match start.images.as_deref() {
                        Some(images) if !images.is_empty() => {
                            format!("{}\n\n{}", start.task_input, images_not_kept(images))
                        }
                        _ => start.task_input.clone(),
                    };
                }
                EventKind::RunLlmEnd(end) => {
                    committed.open_request(&mut asked);
                    committed.close_calls(&mut calls);
                    committed.iterations += 1;
                    calls = end
                        .tool_calls
                        .iter()
                        .map(|call| {
                            let request = ToolCallRequest::new(
                                call.id.clone(),
                                call.name.clone(),
                                arguments_text(&call.arguments),
                            );
                            (request, CallState::default())
                        })
                        .collect();
                    committed.messages.push(Message::Assistant {
                        content: end.llm_output.clone(),
                        tool_calls: Vec::new(),
                        at: Some(event.ts),
                    });
                }
                EventKind::RunToolStart(start) => {
                    match calls.iter_mut().find(|(call, _)| call.id == start.call_id) {
                        Some((_, state)) => state.started = true,
                        // A call recovered from the answer's text: not in `run.llm.end`.
                        None => calls.push((
                            ToolCallRequest::new(
                                start.call_id.clone(),
                                start.tool_name.clone(),
                                arguments_text(&start.arguments),
                            ),
                            CallState {
                                started: true,
                                awaiting_approval: false,
                            },
                        )),
                    }
                }
                EventKind::RunApprovalRequest(_) => {
                    if let Some((_, state)) = calls.iter_mut().rev().find(|(_, s)| s.started) {
                        state.awaiting_approval = true;
                    }
                }
                EventKind::RunApprovalResolve(_) => {
                    for (_, state) in &mut calls {
                        state.awaiting_approval = false;
                    }
                }
                EventKind::RunToolEnd(end) => {
                    committed.attach_calls(&calls);
                    if let Some(index) = calls.iter().position(|(call, _)| call.id == end.call_id) {
                        let (call, _) = calls.remove(index);
                        committed.messages.push(Message::Tool(ToolMessage {
                            tool_call_id: call.id,
                            tool_name: call.name,
                            content: end.result.clone(),
                            success: end.status == ToolStatus::Success,
                            retention: Retention::Whole,
                            path: None,
                            at: Some(event.ts),
                            lang: Default::default(),
                        }));
                        committed.calls_done += 1;
                    }
                }
                EventKind::RunPlanCreate(_) => {
                    committed.not_resumable =
                        Some("the turn runs a plan, whose progress cannot be resumed".to_owned());
                }
                EventKind::AgentEnd(end) => {
                    committed.ended = Some((end.status, end.result.clone()));
                }
                _ => {}
            }
        }
        committed.open_request(&mut asked);
        committed.attach_calls(&calls);
        for (call, state) in calls {
            if state.started && !state.awaiting_approval {
                committed.messages.push(Message::Tool(ToolMessage {
                    tool_call_id: call.id,
                    tool_name: call.name.clone(),
                    content: INTERRUPTED_CALL_RESULT.to_owned(),
                    success: false,
                    retention: Retention::Whole,
                    path: None,
                    at: None,
                    lang: Default::default(),
                }));
                committed.interrupted.push(call.name);
            } else {
                committed.pending.push(call.name);
            }
        }
        committed
    }

    /// The user's request opens the turn's messages (once).
    fn open_request(&mut self, asked: &mut bool) {
        if !*asked {
            *asked = true;
            self.messages.insert(
                0,
                Message::User {
                    content: self.input.clone(),
                    at: None,
                    note: false,
                    images: Vec::new(),
                },
            );
        }
    }

    /// Gives the latest answer its calls (those it made and those recovered from its text).
    fn attach_calls(&mut self, calls: &[(ToolCallRequest, CallState)]) {
        let Some(Message::Assistant { tool_calls, .. }) = self
            .messages
            .iter_mut()
            .rev()
            .find(|m| matches!(m, Message::Assistant { .. }))
        else {
            return;
        };
        for (call, _) in calls {
            if !tool_calls.iter().any(|c| c.id == call.id) {
                tool_calls.push(call.clone());
            }
        }
    }

    /// Before the next answer: the calls of the previous one without a result were never run.
    fn close_calls(&mut self, calls: &mut Vec<(ToolCallRequest, CallState)>) {
        self.attach_calls(calls);
        calls.clear();
    }

    /// `saved` (the conversation as the turn began) with the turn's committed messages after
    /// it: what the continuation starts from, or, for a turn that cannot continue, what the
    /// next turn sees of it (every call then closed).
    pub fn conversation(
        &self,
        session: &Session,
        saved: Option<SavedConversation>,
    ) -> SavedConversation {
        let (id, conversation) = match saved {
            Some(saved) => (saved.conversation_id, saved.conversation),
            None => (
                format!("conv_{}", session.id.replace('-', "")),
                Conversation::new(),
            ),
        };
        let mut messages = conversation.messages().to_vec();
        messages.extend(self.messages.iter().cloned());
        let summary = conversation.summary().map(str::to_owned);
        SavedConversation::new(id, Conversation::from_messages(messages, summary))
    }

    /// One line saying what the continuation keeps, for the `system.log` announcing it.
    pub fn summary(&self) -> String {
        format!(
            "{} model answer(s) and {} tool result(s) kept, {} call(s) interrupted, {} to run",
            self.iterations,
            self.calls_done,
            self.interrupted.len(),
            self.pending.len()
        )
    }
}

/// A call's arguments as the conversation keeps them: the model's text.
fn arguments_text(arguments: &serde_json::Value) -> String {
    match arguments {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_events::{
        AgentStart, ApprovalKind, FinishReason, RunApprovalRequest, RunLlmEnd, RunToolEnd,
        RunToolStart, Sequencer, ToolCall,
    };
    use keel_store::TurnStatus;

    fn turn() -> Turn {
        Turn {
            id: "t1".to_owned(),
            session_id: "s".to_owned(),
            request_id: None,
            input: "row input".to_owned(),
            status: TurnStatus::Running,
            error: None,
            started_at: keel_events::now_millis(),
            ended_at: None,
            owner: Some("a".to_owned()),
            lease_until: None,
        }
    }

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: serde_json::json!({"path": id}),
        }
    }

    fn answer(calls: Vec<ToolCall>) -> RunLlmEnd {
        RunLlmEnd {
            llm_output: "working".to_owned(),
            tool_calls: calls,
            finish_reason: FinishReason::ToolCalls,
            usage: None,
        }
    }

    fn start(id: &str) -> RunToolStart {
        RunToolStart {
            call_id: id.to_owned(),
            tool_name: "write_to_file".to_owned(),
            arguments: serde_json::json!({"path": id}),
            step_id: None,
            mcp_server: None,
        }
    }

    fn end(id: &str) -> RunToolEnd {
        RunToolEnd {
            call_id: id.to_owned(),
            tool_name: "write_to_file".to_owned(),
            status: ToolStatus::Success,
            result: format!("wrote {id}"),
            duration_ms: 1,
            args_summary: String::new(),
            result_summary: String::new(),
            step_id: None,
            from_path: None,
            to_path: None,
            mcp_server: None,
            diagnostics: None,
        }
    }

    #[test]
    fn ended_calls_keep_their_result_and_a_running_one_is_interrupted() {
        let seq = Sequencer::new("s", "p");
        let t = Some("t1");
        let events = vec![
            seq.stamp(
                t,
                AgentStart {
                    agent_name: "keel".to_owned(),
                    task_input: "write two files".to_owned(),
                    mode_hint: None,
                    images: None,
                },
            ),
            seq.stamp(t, answer(vec![call("c1", "write_to_file")])),
            seq.stamp(t, start("c1")),
            seq.stamp(t, end("c1")),
            seq.stamp(
                t,
                answer(vec![
                    call("c2", "write_to_file"),
                    call("c3", "write_to_file"),
                ]),
            ),
            seq.stamp(t, start("c2")),
        ];
        let committed = CommittedTurn::from_events(&turn(), &events);
        assert_eq!(committed.input, "write two files");
        assert_eq!(committed.iterations, 2);
        assert_eq!(committed.calls_done, 1);
        assert_eq!(committed.interrupted, ["write_to_file"]);
        assert_eq!(committed.pending, ["write_to_file"]);
        assert_eq!(committed.ended, None);
        let conversation = Conversation::from_messages(committed.messages.clone(), None);
        let roles: Vec<&str> = conversation
            .messages()
            .iter()
            .map(|m| match m {
                Message::User { .. } => "user",
                Message::Assistant { .. } => "assistant",
                Message::Tool(_) => "tool",
            })
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "assistant", "tool"]);
        assert_eq!(conversation.messages()[2].content(), "wrote c1");
        assert_eq!(
            conversation.messages()[4].content(),
            INTERRUPTED_CALL_RESULT
        );
        // c3 never began: it runs when the turn goes on.
        let pending: Vec<&str> = conversation
            .pending_calls()
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(pending, ["c3"]);
    }

    #[test]
    fn a_call_waiting_for_its_approval_runs_again() {
        let seq = Sequencer::new("s", "p");
        let t = Some("t1");
        let events = vec![
            seq.stamp(t, answer(vec![call("c1", "execute_command")])),
            seq.stamp(t, start("c1")),
            seq.stamp(
                t,
                RunApprovalRequest {
                    approval_id: "appr_1".to_owned(),
                    kind: ApprovalKind::Command,
                    subject: "rm -rf build".to_owned(),
                    reason: "deletes".to_owned(),
                    plan: None,
                },
            ),
        ];
        let committed = CommittedTurn::from_events(&turn(), &events);
        // No agent.start stored: the turn row's input.
        assert_eq!(committed.input, "row input");
        assert!(committed.interrupted.is_empty());
        let conversation = Conversation::from_messages(committed.messages, None);
        assert_eq!(conversation.pending_calls().len(), 1);
    }
}
