//! Approvals and questions over HTTP: the engine's [`Approver`] and [`QuestionAnswerer`] park
//! each request until a client decides (`POST …/approvals/{id}`, `…/questions/{id}`) or the
//! turn is cancelled. The engine records the decision as `run.approval.resolve` /
//! `run.question.answer`; deciding twice is idempotent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use keel_events::{ApprovalDecision, EventKind};
use keel_protocol::{ApprovalReply, ApprovalRequest, Approver};
use keel_protocol::{Question, QuestionAnswerer};
use keel_store::{EventRange, Store};
use tokio::sync::{Notify, oneshot};

use crate::error::{ApiError, ApiResult};

/// How long a decision for a request the store knows of but that is not parked yet (its event
/// was stored a moment before the engine asked) waits for it to be parked.
const PARK_WAIT: Duration = Duration::from_secs(3);

/// What a decision did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The waiting request got this decision.
    Yes,
    /// The same decision had been given already.
    AlreadyDecided,
}

#[derive(Debug, Default)]
struct State {
    approvals: HashMap<String, oneshot::Sender<ApprovalReply>>,
    questions: HashMap<String, oneshot::Sender<String>>,
    /// Decisions given here: approval id → decision; question id → answer.
    approval_decisions: HashMap<String, ApprovalDecision>,
    answers: HashMap<String, String>,
}

/// The parked requests of one session.
#[derive(Debug, Default)]
pub struct Interactions {
    state: Mutex<State>,
    parked: Notify,
}

impl Interactions {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ids of approvals waiting for a decision.
    pub fn pending_approvals(&self) -> Vec<String> {
        self.lock().approvals.keys().cloned().collect()
    }

    /// Decides approval `id` of session `session_id`.
    pub async fn decide_approval(
        &self,
        store: &dyn Store,
        session_id: &str,
        id: &str,
        reply: ApprovalReply,
    ) -> ApiResult<Applied> {
        let deadline = tokio::time::Instant::now() + PARK_WAIT;
        let mut known = false;
        loop {
            let notified = self.parked.notified();
            {
                let mut state = self.lock();
                if let Some(previous) = state.approval_decisions.get(id) {
                    return same_or_conflict(*previous == reply.decision, "approval", id);
                }
                if let Some(tx) = state.approvals.remove(id) {
                    state
                        .approval_decisions
                        .insert(id.to_owned(), reply.decision);
                    // A closed receiver means the turn stopped waiting (cancelled): the
                    // decision is recorded but nothing applies it.
                    return Ok(if tx.send(reply).is_ok() {
                        Applied::Yes
                    } else {
                        Applied::AlreadyDecided
                    });
                }
            }
            if !known {
                match stored_approval(store, session_id, id).await? {
                    StoredState::Unknown => {
                        return Err(ApiError::not_found(format!("no approval `{id}`")));
                    }
                    StoredState::Decided(decision) => {
                        let decision: ApprovalDecision =
                            serde_json::from_value(serde_json::Value::String(decision))
                                .map_err(|e| ApiError::internal(e.to_string()))?;
                        return same_or_conflict(decision == reply.decision, "approval", id);
                    }
                    StoredState::Requested => known = true,
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(ApiError::conflict(format!(
                    "approval `{id}` is not waiting for a decision on this server (its turn \
                     ended or runs elsewhere)"
                )));
            }
        }
    }

    /// Answers question `id` of session `session_id`.
    pub async fn answer_question(
        &self,
        store: &dyn Store,
        session_id: &str,
        id: &str,
        answer: String,
    ) -> ApiResult<Applied> {
        let deadline = tokio::time::Instant::now() + PARK_WAIT;
        let mut known = false;
        loop {
            let notified = self.parked.notified();
            {
                let mut state = self.lock();
                if let Some(previous) = state.answers.get(id) {
                    return same_or_conflict(*previous == answer, "question", id);
                }
                if let Some(tx) = state.questions.remove(id) {
                    state.answers.insert(id.to_owned(), answer.clone());
                    return Ok(if tx.send(answer).is_ok() {
                        Applied::Yes
                    } else {
                        Applied::AlreadyDecided
                    });
                }
            }
            if !known {
                match stored_question(store, session_id, id).await? {
                    StoredState::Unknown => {
                        return Err(ApiError::not_found(format!("no question `{id}`")));
                    }
                    StoredState::Decided(previous) => {
                        return same_or_conflict(previous == answer, "question", id);
                    }
                    StoredState::Requested => known = true,
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(ApiError::conflict(format!(
                    "question `{id}` is not waiting for an answer on this server (its turn \
                     ended or runs elsewhere)"
                )));
            }
        }
    }
}

pub(crate) fn same_or_conflict(same: bool, what: &str, id: &str) -> ApiResult<Applied> {
    if same {
        Ok(Applied::AlreadyDecided)
    } else {
        Err(ApiError::conflict(format!(
            "{what} `{id}` was already decided differently"
        )))
    }
}

/// What the store shows of an approval or question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StoredState {
    /// Never asked.
    Unknown,
    /// Asked, not decided yet.
    Requested,
    /// Decided: the decision's name or the answer.
    Decided(String),
}

async fn stored_approval(store: &dyn Store, session_id: &str, id: &str) -> ApiResult<StoredState> {
    let events = store.read_events(session_id, EventRange::all()).await?;
    let mut state = StoredState::Unknown;
    scan_approval(&events, id, &mut state);
    Ok(state)
}

/// The stored `run.approval.request` of approval `id` (`None`: never asked) and what the store
/// shows of it.
pub(crate) async fn stored_request(
    store: &dyn Store,
    session_id: &str,
    id: &str,
) -> ApiResult<(Option<keel_events::RunApprovalRequest>, StoredState)> {
    let events = store.read_events(session_id, EventRange::all()).await?;
    let request = events.iter().find_map(|event| match &event.kind {
        EventKind::RunApprovalRequest(r) if r.approval_id == id => Some(r.clone()),
        _ => None,
    });
    let mut state = StoredState::Unknown;
    scan_approval(&events, id, &mut state);
    Ok((request, state))
}

async fn stored_question(store: &dyn Store, session_id: &str, id: &str) -> ApiResult<StoredState> {
    let events = store.read_events(session_id, EventRange::all()).await?;
    let mut state = StoredState::Unknown;
    scan_question(&events, id, &mut state);
    Ok(state)
}

/// Moves `state` along `events` (in seq order) for approval `id`; a decision is its name.
pub(crate) fn scan_approval(events: &[keel_events::Event], id: &str, state: &mut StoredState) {
    for event in events {
        match &event.kind {
            EventKind::RunApprovalRequest(r) if r.approval_id == id => {
                *state = StoredState::Requested;
            }
            EventKind::RunApprovalResolve(r) if r.approval_id == id => {
                *state = StoredState::Decided(decision_name(r.decision));
            }
            _ => {}
        }
    }
}

/// Moves `state` along `events` (in seq order) for question `id` (a `run.question.ask` or a
/// `run.plan.respond`); a decision is the answer.
pub(crate) fn scan_question(events: &[keel_events::Event], id: &str, state: &mut StoredState) {
    for event in events {
        match &event.kind {
            EventKind::RunQuestionAsk(q) if q.question_id == id => {
                *state = StoredState::Requested;
            }
            EventKind::RunPlanRespond(r) if r.question_id == id => {
                *state = StoredState::Requested;
            }
            // Planning replies recorded before `run.plan.respond` carried its `question_id`.
            EventKind::RunToolStart(t) if t.call_id == id && t.tool_name == "plan_mode_respond" => {
                *state = StoredState::Requested;
            }
            EventKind::RunQuestionAnswer(a) if a.question_id == id => {
                *state = StoredState::Decided(a.answer.clone());
            }
            _ => {}
        }
    }
}

/// The wire name of a decision (`approve`, `reject`, `modify`).
pub(crate) fn decision_name(decision: ApprovalDecision) -> String {
    serde_json::to_value(decision)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Removes a parked entry when the engine stops waiting (turn cancelled).
struct Unpark<'a> {
    interactions: &'a Interactions,
    id: String,
    approval: bool,
}

impl Drop for Unpark<'_> {
    fn drop(&mut self) {
        let mut state = self.interactions.lock();
        if self.approval {
            state.approvals.remove(&self.id);
        } else {
            state.questions.remove(&self.id);
        }
    }
}

/// The engine's approver for a session served over HTTP.
#[derive(Debug, Clone)]
pub struct HttpApprover(pub Arc<Interactions>);

#[async_trait]
impl Approver for HttpApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply {
        let (tx, rx) = oneshot::channel();
        self.0
            .lock()
            .approvals
            .insert(request.approval_id.clone(), tx);
        self.0.parked.notify_waiters();
        let _unpark = Unpark {
            interactions: &self.0,
            id: request.approval_id.clone(),
            approval: true,
        };
        match rx.await {
            Ok(reply) => reply,
            Err(_) => ApprovalReply::reject("the server stopped waiting for a decision"),
        }
    }
}

/// The engine's question answerer for a session served over HTTP.
#[derive(Debug, Clone)]
pub struct HttpAnswerer(pub Arc<Interactions>);

#[async_trait]
impl QuestionAnswerer for HttpAnswerer {
    async fn answer(&self, question: &Question) -> String {
        let (tx, rx) = oneshot::channel();
        self.0.lock().questions.insert(question.id.clone(), tx);
        self.0.parked.notify_waiters();
        let _unpark = Unpark {
            interactions: &self.0,
            id: question.id.clone(),
            approval: false,
        };
        rx.await
            .unwrap_or_else(|_| keel_protocol::CANNOT_ANSWER.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use keel_events::{RunPlanRespond, RunQuestionAnswer, RunToolStart, Sequencer};

    use super::*;

    fn scan(kinds: Vec<EventKind>) -> StoredState {
        let seq = Sequencer::new("s", "p");
        let events: Vec<_> = kinds.into_iter().map(|k| seq.stamp(None, k)).collect();
        let mut state = StoredState::Unknown;
        scan_question(&events, "call_respond", &mut state);
        state
    }

    #[test]
    fn planning_replies_are_questions_by_their_id() {
        let respond = |id: &str| {
            EventKind::from(RunPlanRespond {
                response: "Patch or rewrite?".into(),
                options: vec![],
                question_id: id.into(),
            })
        };
        let answer = EventKind::from(RunQuestionAnswer {
            question_id: "call_respond".into(),
            answer: "patch".into(),
        });
        assert_eq!(scan(vec![respond("other")]), StoredState::Unknown);
        assert_eq!(scan(vec![respond("call_respond")]), StoredState::Requested);
        assert_eq!(
            scan(vec![respond("call_respond"), answer]),
            StoredState::Decided("patch".into())
        );
        // A reply stored before `question_id` existed is found by its tool call.
        let legacy = EventKind::from(RunToolStart {
            call_id: "call_respond".into(),
            tool_name: "plan_mode_respond".into(),
            arguments: serde_json::json!({"response": "Patch or rewrite?"}),
            step_id: None,
            mcp_server: None,
        });
        assert_eq!(scan(vec![legacy, respond("")]), StoredState::Requested);
    }
}
