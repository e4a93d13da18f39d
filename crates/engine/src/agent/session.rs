//! [`AgentSession`]: the state of one agent conversation and its turn driver.

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use futures::Stream;
use keel_context::repomap::RepoMap;
use keel_context::{
    Conversation, ExtractiveSummarizer, FocusedFiles, Memory, PromptCache, RetentionPolicy,
    Summarizer,
};
use keel_events::{
    AgentEnd, AgentStart, AgentStatus, ConversationAction, Emitter, Event, EventHandler, EventKind,
    PrepareConversationOpen, PrepareHistoryLoad, ResponseMode, RunResponseEnd, RunResponseStart,
    Usage,
};
use keel_tools::{Approver, CannotAsk, CheckpointError, CheckpointStore, ToolRegistry};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use super::anomaly::AnomalyDetector;
use super::config::{AgentConfig, Mode};
use super::control_tools::{AskFollowupQuestion, AttemptCompletion, CreatePlan, PlanModeRespond};
use super::question::{CannotAnswer, QuestionAnswerer};
use super::turn::{Ending, FunctionsCache, Turn};
use crate::provider::Provider;

/// Why a session could not be created.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The workspace root does not exist or cannot be resolved.
    #[error("workspace root `{path}`: {source}")]
    Root {
        /// The root as given.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The checkpoint store could not be opened.
    #[error(transparent)]
    Checkpoints(#[from] CheckpointError),
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// Completed, failed, cancelled or out of iterations (as in `agent.end`).
    pub status: AgentStatus,
    /// The final answer, or what went wrong.
    pub result: String,
    /// Workspace-relative paths changed during the turn.
    pub files_changed: Vec<String>,
    /// Tokens used by the turn.
    pub usage: Usage,
    /// How the turn was answered.
    pub mode: ResponseMode,
    /// Model calls made.
    pub iterations: u32,
}

/// What the session's bus handler shares with the session.
#[derive(Debug, Default)]
pub(crate) struct TapState {
    /// Where `run()` wants the events.
    forward: Option<UnboundedSender<Arc<Event>>>,
    /// Paths of `run.file.change` events since the turn started, in order (with repeats).
    pub(crate) changes: Vec<String>,
}

/// Inline bus handler: records file changes and forwards events to a `run()` stream.
struct Tap(Arc<Mutex<TapState>>);

impl EventHandler for Tap {
    fn handle(&mut self, event: &Event) {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let EventKind::RunFileChange(change) = &event.kind {
            if let Some(from) = &change.from_path {
                state.changes.push(from.clone());
            }
            state.changes.push(change.path.clone());
        }
        if let Some(tx) = &state.forward {
            // An error only means the stream was dropped.
            let _ = tx.send(Arc::new(event.clone()));
        }
    }
}

/// One agent conversation: the model, the tools, the context, and the turn loop (seed 004's
/// SDK runner). See the [module documentation](super) for what a turn does and emits.
pub struct AgentSession {
    pub(crate) config: AgentConfig,
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) tools: ToolRegistry,
    pub(crate) conversation: Conversation,
    pub(crate) conversation_id: String,
    pub(crate) focused: FocusedFiles,
    pub(crate) memory: Option<Memory>,
    pub(crate) repo_map: Option<String>,
    /// The map given by [`AgentSession::with_repo_map`] is used as it is (no building).
    pub(crate) repo_map_fixed: bool,
    /// The repo map engine, kept between turns (opened at the first turn).
    pub(crate) repo_map_engine: Option<RepoMap>,
    pub(crate) emitter: Emitter,
    pub(crate) checkpoints: Option<Arc<CheckpointStore>>,
    pub(crate) approver: Arc<dyn Approver>,
    pub(crate) answerer: Arc<dyn QuestionAnswerer>,
    pub(crate) summarizer: Arc<dyn Summarizer>,
    pub(crate) retention: RetentionPolicy,
    pub(crate) tap: Arc<Mutex<TapState>>,
    pub(crate) usage: Usage,
    /// XML tool calls numbered so far (for their ids).
    pub(crate) xml_calls: u64,
    /// History renderings kept between requests.
    pub(crate) prompt_cache: PromptCache,
    /// Tool definitions built so far (emptied when the tools change).
    pub(crate) functions_cache: Vec<FunctionsCache>,
    cancel: CancellationToken,
    turns: u64,
    resumed: bool,
    last_outcome: Option<TurnOutcome>,
}

impl std::fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession")
            .field("root", &self.config.root)
            .field("mode", &self.config.mode)
            .field("conversation_id", &self.conversation_id)
            .field("messages", &self.conversation.len())
            .field("turns", &self.turns)
            .finish_non_exhaustive()
    }
}

impl AgentSession {
    /// A session on `config.root` talking to `provider`, reporting to `emitter`: every built-in
    /// tool plus the control tools, a new conversation, checkpoints under the root, and a
    /// front end that can neither approve ([`CannotAsk`]) nor answer ([`CannotAnswer`]).
    pub fn new(
        mut config: AgentConfig,
        provider: Arc<dyn Provider>,
        emitter: Emitter,
    ) -> Result<Self, AgentError> {
        config.root = config
            .root
            .canonicalize()
            .map_err(|source| AgentError::Root {
                path: config.root.clone(),
                source,
            })?;
        // The first request needs token counts: build the tokenizer while the turn gets ready.
        if let Some(model) = config.models.models().first() {
            keel_context::Encoding::for_model(model).preload();
        }
        let checkpoints = Arc::new(CheckpointStore::open(&config.root)?);
        let tap = Arc::new(Mutex::new(TapState::default()));
        emitter.bus().add_handler(Tap(Arc::clone(&tap)));
        Ok(Self {
            config,
            provider,
            tools: with_control_tools(ToolRegistry::builtin()),
            conversation: Conversation::new(),
            conversation_id: format!("conv_{}", uuid::Uuid::now_v7().simple()),
            focused: FocusedFiles::new(),
            memory: None,
            repo_map: None,
            repo_map_fixed: false,
            repo_map_engine: None,
            emitter,
            checkpoints: Some(checkpoints),
            approver: Arc::new(CannotAsk),
            answerer: Arc::new(CannotAnswer),
            summarizer: Arc::new(ExtractiveSummarizer),
            retention: RetentionPolicy::default(),
            tap,
            usage: Usage::default(),
            xml_calls: 0,
            prompt_cache: PromptCache::new(),
            functions_cache: Vec::new(),
            cancel: CancellationToken::new(),
            turns: 0,
            resumed: false,
            last_outcome: None,
        })
    }

    /// Uses these tools (the control tools are added to them).
    pub fn with_tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = with_control_tools(tools);
        self.functions_cache.clear();
        self
    }

    /// Continues a stored conversation under its id (`prepare.conversation.open` says
    /// `resume`, and `prepare.history.load` follows when it has messages).
    pub fn with_conversation(mut self, id: impl Into<String>, conversation: Conversation) -> Self {
        self.conversation_id = id.into();
        self.conversation = conversation;
        self.turns = 0;
        self.resumed = true;
        self
    }

    /// Starts with these focused files (e.g. restored with the conversation).
    pub fn with_focused_files(mut self, focused: FocusedFiles) -> Self {
        self.focused = focused;
        self
    }

    /// Shows this project memory to the model.
    pub fn with_memory(mut self, memory: Memory) -> Self {
        self.memory = Some(memory);
        self
    }

    /// Shows this rendered repository map to the model, instead of the map the session
    /// would build at each turn (see [`AgentConfig::repo_map`]).
    pub fn with_repo_map(mut self, repo_map: impl Into<String>) -> Self {
        self.repo_map = Some(repo_map.into());
        self.repo_map_fixed = true;
        self
    }

    /// Asks `approver` when a command or plan needs approval.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = approver;
        self
    }

    /// Asks `answerer` the model's questions.
    pub fn with_answerer(mut self, answerer: Arc<dyn QuestionAnswerer>) -> Self {
        self.answerer = answerer;
        self
    }

    /// Summarises old turns with `summarizer` when the prompt is over budget.
    pub fn with_summarizer(mut self, summarizer: Arc<dyn Summarizer>) -> Self {
        self.summarizer = summarizer;
        self
    }

    /// Records file changes in `store` (`None`: not recorded, no rollback).
    pub fn with_checkpoints(mut self, store: Option<Arc<CheckpointStore>>) -> Self {
        self.checkpoints = store;
        self
    }

    /// The settings.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The conversation's id.
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// The focused files.
    pub fn focused_files(&self) -> &FocusedFiles {
        &self.focused
    }

    /// The tools offered to the model.
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// Where events go.
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// The checkpoint store, if changes are recorded.
    pub fn checkpoints(&self) -> Option<&Arc<CheckpointStore>> {
        self.checkpoints.as_ref()
    }

    /// Tokens used by the session so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// How the latest turn ended.
    pub fn last_outcome(&self) -> Option<&TurnOutcome> {
        self.last_outcome.as_ref()
    }

    /// A token that cancels the running turn (or, if none is running, the next one). After a
    /// cancelled turn the session takes a fresh token: ask for a new handle for later turns.
    pub fn cancel_handle(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Runs one turn for `input`; its events go to the emitter's bus, stamped with a fresh
    /// turn id ([`new_turn_id`]).
    pub async fn run_turn(&mut self, input: impl Into<String>) -> TurnOutcome {
        self.run_turn_with_id(new_turn_id(), input).await
    }

    /// Runs one turn for `input` whose events carry `turn_id` (e.g. the id a store gave the
    /// turn), so the caller's record of the turn and its events share one id.
    pub async fn run_turn_with_id(
        &mut self,
        turn_id: impl Into<String>,
        input: impl Into<String>,
    ) -> TurnOutcome {
        let input = input.into();
        let cancel = self.cancel.clone();
        self.turns += 1;
        self.emitter.set_turn(Some(turn_id.into()));
        self.tap_state().changes.clear();

        self.emitter.emit(AgentStart {
            agent_name: self.config.agent_name.clone(),
            task_input: input.clone(),
            mode_hint: Some(self.config.mode.hint()),
        });
        if self.turns == 1 {
            let resume = self.resumed;
            self.emitter.emit(PrepareConversationOpen {
                conversation_id: self.conversation_id.clone(),
                action: if resume {
                    ConversationAction::Resume
                } else {
                    ConversationAction::New
                },
            });
            if resume && !self.conversation.is_empty() {
                let users = self
                    .conversation
                    .messages()
                    .iter()
                    .filter(|m| m.is_user())
                    .count() as u64;
                self.emitter.emit(PrepareHistoryLoad {
                    start_turn: users + 1,
                    action_history_len: self.conversation.len() as u64,
                    pending_tool_count: self.conversation.pending_calls().len() as u64,
                });
            }
        }
        self.config.models.announce(&self.emitter);
        self.prepare_repo_map(&input).await;
        self.conversation.push_user(input);

        let mode = match self.config.mode {
            Mode::Plan => ResponseMode::Plan,
            Mode::Auto | Mode::Direct => ResponseMode::Direct,
        };
        self.emitter.emit(RunResponseStart { mode });
        let mut turn = Turn {
            cancel: cancel.clone(),
            response: mode,
            usage: Usage::default(),
            iterations: 0,
            detector: AnomalyDetector::new(self.config.anomalies),
            plan: None,
            hints: Vec::new(),
            last_failure: None,
            nudged: false,
        };
        let ending: Ending = self.drive(&mut turn).await;

        self.conversation.close_pending();
        self.focused.release_all();
        self.emitter.emit(RunResponseEnd {
            mode: turn.response,
        });
        let files_changed = self.files_changed_since(0);
        let outcome = TurnOutcome {
            status: ending.status,
            result: ending.result,
            files_changed,
            usage: turn.usage,
            mode: turn.response,
            iterations: turn.iterations,
        };
        self.emitter.emit(AgentEnd {
            status: outcome.status,
            result: outcome.result.clone(),
            files_changed: outcome.files_changed.clone(),
            usage: outcome.usage,
        });
        self.emitter.set_turn(None);
        if cancel.is_cancelled() {
            self.cancel = CancellationToken::new();
        }
        self.last_outcome = Some(outcome.clone());
        outcome
    }

    /// Runs one turn for `input` and yields every event it emits, in order, none lost; the
    /// stream ends after `agent.end`. The outcome is then in [`AgentSession::last_outcome`].
    /// Dropping the stream abandons the turn (the next turn repairs the conversation).
    pub fn run(&mut self, input: impl Into<String>) -> impl Stream<Item = Arc<Event>> + Send + '_ {
        self.run_with_id(new_turn_id(), input)
    }

    /// [`AgentSession::run`] for a turn whose events carry `turn_id` (see
    /// [`AgentSession::run_turn_with_id`]).
    pub fn run_with_id(
        &mut self,
        turn_id: impl Into<String>,
        input: impl Into<String>,
    ) -> impl Stream<Item = Arc<Event>> + Send + '_ {
        let turn_id = turn_id.into();
        let input = input.into();
        let (tx, mut rx) = unbounded_channel();
        self.tap_state().forward = Some(tx);
        let tap = Arc::clone(&self.tap);
        let mut turn: Option<Pin<Box<dyn Future<Output = ()> + Send + '_>>> =
            Some(Box::pin(async move {
                self.run_turn_with_id(turn_id, input).await;
                tap.lock().unwrap_or_else(|p| p.into_inner()).forward = None;
            }));
        futures::stream::poll_fn(move |cx| {
            loop {
                if let Poll::Ready(Some(event)) = rx.poll_recv(cx) {
                    return Poll::Ready(Some(event));
                }
                match turn.as_mut() {
                    Some(future) => match future.as_mut().poll(cx) {
                        Poll::Ready(()) => turn = None,
                        Poll::Pending => return Poll::Pending,
                    },
                    None => return Poll::Ready(rx.try_recv().ok()),
                }
            }
        })
    }

    pub(crate) fn tap_state(&self) -> std::sync::MutexGuard<'_, TapState> {
        self.tap.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Number of file-change paths recorded so far in the turn.
    pub(crate) fn change_count(&self) -> usize {
        self.tap_state().changes.len()
    }

    /// Distinct paths changed since change number `from`, in first-change order.
    pub(crate) fn files_changed_since(&self, from: usize) -> Vec<String> {
        let state = self.tap_state();
        let mut out: Vec<String> = Vec::new();
        for path in state.changes.iter().skip(from) {
            if !out.contains(path) {
                out.push(path.clone());
            }
        }
        out
    }
}

/// A fresh turn id, `turn_<uuid v7>`, as [`AgentSession::run_turn`] stamps on its events.
pub fn new_turn_id() -> String {
    format!("turn_{}", uuid::Uuid::now_v7().simple())
}

fn with_control_tools(mut tools: ToolRegistry) -> ToolRegistry {
    tools
        .register(AttemptCompletion)
        .register(CreatePlan)
        .register(AskFollowupQuestion)
        .register(PlanModeRespond);
    tools
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use futures::StreamExt;
    use keel_events::{Bus, Emitter, EventHandler, EventKind, Sequencer};

    use super::*;
    use crate::fallback::ModelChain;
    use crate::scripted::{Script, ScriptedProvider};

    fn session(root: &std::path::Path) -> AgentSession {
        let script = serde_json::json!({"turns": [
            {"tool_calls": [{"id": "c1", "name": "attempt_completion",
                             "arguments": {"result": "done"}}]},
            {"tool_calls": [{"id": "c2", "name": "attempt_completion",
                             "arguments": {"result": "done again"}}]}
        ]});
        let provider = Arc::new(ScriptedProvider::new(
            Script::from_json(&script.to_string()).unwrap(),
        ));
        let mut config = AgentConfig::new(root, ModelChain::new(["scripted-model"]).unwrap());
        config.mode = Mode::Direct;
        config.repo_map = crate::agent::RepoMapConfig::disabled();
        let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
        AgentSession::new(config, provider, emitter).unwrap()
    }

    #[derive(Clone, Default)]
    struct Collect(Arc<Mutex<Vec<Event>>>);

    impl EventHandler for Collect {
        fn handle(&mut self, event: &Event) {
            self.0.lock().unwrap().push(event.clone());
        }
    }

    #[tokio::test]
    async fn turns_run_with_a_given_id_stamp_it_on_every_event() {
        let dir = tempfile::tempdir().unwrap();
        let mut agent = session(dir.path());
        let collect = Collect::default();
        agent.emitter().bus().add_handler(collect.clone());

        agent.run_turn_with_id("turn_given_1", "finish").await;
        let first = collect.0.lock().unwrap().clone();
        assert!(matches!(first[0].kind, EventKind::AgentStart(_)));
        assert!(matches!(first.last().unwrap().kind, EventKind::AgentEnd(_)));
        assert!(
            first
                .iter()
                .all(|e| e.turn_id.as_deref() == Some("turn_given_1"))
        );

        let streamed: Vec<_> = agent.run_with_id("turn_given_2", "again").collect().await;
        assert!(matches!(streamed[0].kind, EventKind::AgentStart(_)));
        assert!(
            streamed
                .iter()
                .all(|e| e.turn_id.as_deref() == Some("turn_given_2"))
        );
        // Outside a turn nothing is stamped, and generated ids keep their shape.
        assert_eq!(agent.emitter().turn_id(), None);
        assert!(new_turn_id().starts_with("turn_"));
        assert_ne!(new_turn_id(), new_turn_id());
    }
}
