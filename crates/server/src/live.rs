//! Sessions with work running in this process: one event producer per session (an [`Emitter`]
//! whose bus stores every event through an [`EventWriter`] before broadcasting it), the
//! [`AgentSession`] that runs its turns, its file runs and its parked approvals and questions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use keel_context::{Conversation, MemoryStore};
use keel_engine::{AgentConfig, AgentSession, Mode, ModelChain, RepoMapConfig};
use keel_events::{AgentStatus, Bus, Emitter, Sequencer, SystemError};
use keel_store::{
    EventWriter, NewTurn, SessionStatus, StoreResult, Turn, TurnOutcome, WriterOptions,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::error::{ApiError, ApiResult};
use crate::hub::{Channel, ProducingGuard};
use crate::interaction::{HttpAnswerer, HttpApprover, Interactions};
use crate::provider::build_provider;
use crate::state::AppState;

/// The event producer of a session: stamping, storing, then broadcasting.
#[derive(Debug)]
struct Producer {
    emitter: Emitter,
    writer: EventWriter,
    /// Bumped each time the producer is rebuilt, so the agent session is rebuilt with it.
    generation: u64,
}

/// An agent session and the producer generation it was built on.
struct Agent {
    session: AgentSession,
    generation: u64,
}

/// A turn running here.
#[derive(Debug, Clone)]
struct RunningTurn {
    cancel: CancellationToken,
    /// Set once the turn's row is stored.
    turn_id: Option<String>,
}

/// A session with (possible) work in this process.
pub struct LiveSession {
    /// The session id.
    pub id: String,
    channel: Arc<Channel>,
    producer: tokio::sync::Mutex<Option<Producer>>,
    agent: tokio::sync::Mutex<Option<Agent>>,
    turn: Mutex<Option<RunningTurn>>,
    file_runs: Mutex<HashMap<String, CancellationToken>>,
    /// When work last ended here (for evicting idle sessions).
    last_active: Mutex<std::time::Instant>,
    /// Parked approvals and questions.
    pub interactions: Arc<Interactions>,
}

impl std::fmt::Debug for LiveSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSession")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Why a turn could not start.
#[derive(Debug)]
pub enum StartError {
    /// Another turn is running.
    Running,
    /// Anything else.
    Api(ApiError),
}

impl From<ApiError> for StartError {
    fn from(error: ApiError) -> Self {
        Self::Api(error)
    }
}

impl LiveSession {
    /// A live session on `channel`.
    pub fn new(id: String, channel: Arc<Channel>) -> Self {
        Self {
            id,
            channel,
            producer: tokio::sync::Mutex::new(None),
            agent: tokio::sync::Mutex::new(None),
            turn: Mutex::new(None),
            file_runs: Mutex::new(HashMap::new()),
            last_active: Mutex::new(std::time::Instant::now()),
            interactions: Arc::new(Interactions::default()),
        }
    }

    fn touch(&self) {
        *self.last_active.lock().unwrap_or_else(|p| p.into_inner()) = std::time::Instant::now();
    }

    /// True when nothing runs here and nothing has for `idle`.
    pub fn is_idle_for(&self, idle: std::time::Duration) -> bool {
        !self.others_running()
            && self
                .last_active
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .elapsed()
                >= idle
    }

    /// Whether a turn runs here.
    pub fn turn_running(&self) -> bool {
        self.turn
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Claims the session for a new turn; `None` when one is running.
    fn claim(&self) -> Option<CancellationToken> {
        let mut turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
        if turn.is_some() {
            return None;
        }
        let cancel = CancellationToken::new();
        *turn = Some(RunningTurn {
            cancel: cancel.clone(),
            turn_id: None,
        });
        Some(cancel)
    }

    /// The id of the turn running here, once its row is stored.
    pub fn running_turn_id(&self) -> Option<String> {
        self.turn
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .and_then(|turn| turn.turn_id.clone())
    }

    fn set_running_turn_id(&self, turn_id: &str) {
        if let Some(turn) = self.turn.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            turn.turn_id = Some(turn_id.to_owned());
        }
    }

    /// Cancels turn `turn_id` if it is the one running here; true if it was.
    pub fn cancel_turn(&self, turn_id: &str) -> bool {
        match &*self.turn.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(turn) if turn.turn_id.as_deref() == Some(turn_id) => {
                turn.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    fn release(&self) {
        self.touch();
        *self.turn.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Cancels the running turn and file runs; true if there was anything to cancel.
    pub fn cancel(&self) -> bool {
        let mut any = false;
        if let Some(turn) = &*self.turn.lock().unwrap_or_else(|p| p.into_inner()) {
            turn.cancel.cancel();
            any = true;
        }
        for cancel in self
            .file_runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
        {
            cancel.cancel();
            any = true;
        }
        any
    }

    /// The session's emitter, (re)built so it continues the stored event log: when nothing
    /// else produces here, the writer is flushed and the sequencer compared with the store's
    /// last seq (another instance may have appended since).
    async fn emitter(&self, state: &AppState, others_running: bool) -> StoreResult<(Emitter, u64)> {
        let mut producer = self.producer.lock().await;
        if let Some(current) = producer.as_ref() {
            if others_running {
                return Ok((current.emitter.clone(), current.generation));
            }
            // Events still queued would make the store look behind.
            let _ = current.writer.flush().await;
            let stored = state.store.last_seq(&self.id).await?;
            if stored == current.emitter.sequencer().last_seq() {
                return Ok((current.emitter.clone(), current.generation));
            }
        }
        let generation = producer.as_ref().map_or(0, |p| p.generation + 1);
        if let Some(old) = producer.take() {
            let _ = old.writer.close().await;
        }
        let session = state.store.get_session(&self.id).await?;
        let last = state.store.last_seq(&self.id).await?;
        let emitter = Emitter::new(
            Sequencer::resume(self.id.clone(), session.project_id.clone(), last),
            Bus::default(),
        );
        let writer = {
            // The writer runs on the producer runtime, with the work that feeds it.
            let _producers = state.producers.handle().enter();
            EventWriter::spawn(
                Arc::clone(&state.store),
                WriterOptions {
                    forward: Some(self.channel.sender()),
                    // Commit at once; what queues meanwhile makes the next batch (group commit).
                    max_delay: std::time::Duration::ZERO,
                    ..WriterOptions::default()
                },
            )?
        };
        emitter.bus().add_handler(writer.sink());
        *producer = Some(Producer {
            emitter: emitter.clone(),
            writer,
            generation,
        });
        Ok((emitter, generation))
    }

    /// Waits until every event emitted so far is stored (and so broadcast).
    async fn flush(&self) {
        if let Some(producer) = self.producer.lock().await.as_ref()
            && producer.writer.flush().await.is_ok()
        {
            self.channel
                .mark_local(producer.emitter.sequencer().last_seq());
        }
    }

    fn file_runs_active(&self) -> bool {
        !self
            .file_runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
    }

    fn others_running(&self) -> bool {
        self.turn_running() || self.file_runs_active()
    }

    /// Starts a turn: idempotent by `request_id`, refused while another turn runs.
    pub async fn start_turn(
        self: &Arc<Self>,
        state: &Arc<AppState>,
        request_id: String,
        input: String,
    ) -> Result<(Turn, bool), StartError> {
        let store = &state.store;
        if let Some(turn) = store
            .turn_by_request_id(&self.id, &request_id)
            .await
            .map_err(ApiError::from)?
        {
            if turn.input == input {
                return Ok((turn, false));
            }
            return Err(StartError::Api(ApiError::conflict(format!(
                "request `{request_id}` already started turn `{}` with a different input",
                turn.id
            ))));
        }
        let Some(cancel) = self.claim() else {
            return Err(StartError::Running);
        };
        let begun = async {
            let turns = store.list_turns(&self.id).await?;
            if turns
                .iter()
                .any(|t| t.status == keel_store::TurnStatus::Running)
            {
                return Ok(None);
            }
            let new = NewTurn::new(self.id.clone(), input.clone())
                .with_request_id(request_id.clone())
                .with_lease(state.lease.clone());
            store.begin_turn(new).await.map(Some)
        }
        .await;
        let start = match begun {
            Ok(Some(start)) => start,
            Ok(None) => {
                self.release();
                return Err(StartError::Running);
            }
            Err(e) => {
                self.release();
                return Err(StartError::Api(e.into()));
            }
        };
        if !start.created {
            self.release();
            return Ok((start.turn, false));
        }
        self.set_running_turn_id(&start.turn.id);
        if let Err(e) = store
            .set_session_status(&self.id, SessionStatus::Running)
            .await
        {
            self.release();
            return Err(StartError::Api(e.into()));
        }
        let live = Arc::clone(self);
        let state = Arc::clone(state);
        let turn = start.turn.clone();
        state.producers.clone().spawn(async move {
            let guard = live.channel.producing();
            live.run_turn(&state, turn, input, cancel).await;
            live.release();
            drop(guard);
        });
        Ok((start.turn, true))
    }

    async fn run_turn(
        &self,
        state: &AppState,
        turn: Turn,
        input: String,
        cancel: CancellationToken,
    ) {
        let (outcome, error) = match self.drive_turn(state, &turn.id, &input, &cancel).await {
            Ok(outcome) => {
                let error = match outcome.status {
                    AgentStatus::Completed | AgentStatus::Cancelled => None,
                    _ => Some(outcome.result.clone()),
                };
                let status = match outcome.status {
                    AgentStatus::Completed => TurnOutcome::Completed,
                    AgentStatus::Cancelled => TurnOutcome::Cancelled,
                    _ => TurnOutcome::Failed,
                };
                (status, error)
            }
            Err(message) => {
                if let Ok((emitter, _)) = self.emitter(state, self.file_runs_active()).await {
                    emitter.emit(SystemError {
                        error: message.clone(),
                        error_type: "server".to_owned(),
                        recoverable: true,
                        stack: None,
                        error_display: None,
                    });
                }
                (TurnOutcome::Failed, Some(message))
            }
        };
        self.flush().await;
        // The session first: a client that sees the turn end sees the session's final status.
        let status = match outcome {
            TurnOutcome::Completed => SessionStatus::Completed,
            TurnOutcome::Failed => SessionStatus::Failed,
            TurnOutcome::Cancelled => SessionStatus::Cancelled,
        };
        let _ = state.store.set_session_status(&self.id, status).await;
        let _ = state.store.finish_turn(&turn.id, outcome, error).await;
    }

    /// Runs the agent for one turn; an error is a message for the failed turn.
    async fn drive_turn(
        &self,
        state: &AppState,
        turn_id: &str,
        input: &str,
        cancel: &CancellationToken,
    ) -> Result<keel_engine::TurnOutcome, String> {
        let (emitter, generation) = self
            .emitter(state, self.file_runs_active())
            .await
            .map_err(|e| format!("cannot open the event log: {e}"))?;
        let mut agent = self.agent.lock().await;
        if agent.as_ref().is_none_or(|a| a.generation != generation) {
            let session = self
                .build_agent(state, emitter)
                .await
                .map_err(|e| e.message)?;
            *agent = Some(Agent {
                session,
                generation,
            });
        }
        let Some(agent) = agent.as_mut() else {
            return Err("no agent session".to_owned());
        };
        let engine_cancel = agent.session.cancel_handle();
        let relay_cancel = cancel.clone();
        let relay = tokio::spawn(async move {
            relay_cancel.cancelled().await;
            engine_cancel.cancel();
        });
        let outcome = agent
            .session
            .run_turn_with_id(turn_id.to_owned(), input.to_owned())
            .await;
        relay.abort();
        let saved = json!({
            "conversation_id": agent.session.conversation_id(),
            "conversation": agent.session.conversation(),
        });
        self.flush().await;
        if let Err(e) = state.store.save_conversation(&self.id, &saved).await {
            return Err(format!("the conversation could not be saved: {e}"));
        }
        Ok(outcome)
    }

    async fn build_agent(&self, state: &AppState, emitter: Emitter) -> ApiResult<AgentSession> {
        let session = state.store.get_session(&self.id).await?;
        let settings = &state.config.provider;
        let (provider, default_models) =
            build_provider(settings).map_err(ApiError::unprocessable)?;
        let models = match session.model.as_deref() {
            Some(model) if !model.trim().is_empty() => crate::config::split_models(Some(model)),
            _ => default_models,
        };
        let chain = ModelChain::new(models).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let mut config = AgentConfig::new(&session.root, chain);
        config.mode = session
            .mode
            .as_deref()
            .and_then(|m| m.parse::<Mode>().ok())
            .unwrap_or(Mode::Auto);
        config.max_iterations = settings.max_iterations;
        config.approval = settings.approval;
        config.approve_plans = settings.approve_plans;
        if !settings.repo_map {
            config.repo_map = RepoMapConfig::disabled();
        }
        let mut agent = AgentSession::new(config, provider, emitter)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?
            .with_approver(Arc::new(HttpApprover(Arc::clone(&self.interactions))))
            .with_answerer(Arc::new(HttpAnswerer(Arc::clone(&self.interactions))));
        if let Ok(memory) = MemoryStore::for_project(&agent.config().root).load()
            && !memory.is_empty()
        {
            agent = agent.with_memory(memory);
        }
        if let Some(saved) = state.store.load_conversation(&self.id).await?
            && let Some((id, conversation)) = parse_conversation(&saved)
        {
            agent = agent.with_conversation(id, conversation);
        }
        Ok(agent)
    }

    /// Starts a file run of `path` with `args` (argv, no shell) on the session's stream; returns
    /// its run id.
    pub async fn start_file_run(
        self: &Arc<Self>,
        state: &Arc<AppState>,
        root: std::path::PathBuf,
        path: String,
        args: Vec<String>,
    ) -> ApiResult<String> {
        use keel_tools::Workspace;
        use keel_tools::file_run::{FileRun, interpreter_for, run_file};

        let workspace =
            Workspace::new(&root).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let resolved = workspace
            .resolve(&path)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        if !resolved.is_file() {
            return Err(ApiError::unprocessable(format!("`{path}` is not a file")));
        }
        interpreter_for(&resolved, &path).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let request = FileRun::new(root, path).with_args(args);
        let run_id = request.run_id.clone();
        let others = self.others_running();
        let cancel = CancellationToken::new();
        self.file_runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(run_id.clone(), cancel.clone());
        let guard: ProducingGuard = self.channel.producing();
        let (emitter, _) = match self.emitter(state, others).await {
            Ok(e) => e,
            Err(e) => {
                self.file_runs
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&run_id);
                return Err(e.into());
            }
        };
        let live = Arc::clone(self);
        let id = run_id.clone();
        state.producers.spawn(async move {
            if let Err(e) = run_file(&request, &emitter, &cancel).await {
                emitter.emit(SystemError {
                    error: e.to_string(),
                    error_type: "file_run".to_owned(),
                    recoverable: true,
                    stack: None,
                    error_display: None,
                });
            }
            live.flush().await;
            live.touch();
            live.file_runs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            drop(guard);
        });
        Ok(run_id)
    }

    /// Appends a `system.error` for a turn whose process stopped while running it (recovery).
    pub async fn record_interrupted(&self, state: &AppState, turn: &Turn) -> StoreResult<()> {
        let (emitter, _) = self.emitter(state, self.others_running()).await?;
        emitter.set_turn(None);
        let by = match &turn.owner {
            Some(owner) => format!("the server instance `{owner}`"),
            None => "the server".to_owned(),
        };
        emitter.emit(SystemError {
            error: format!(
                "turn `{}` was interrupted: {by} stopped while it was running",
                turn.id
            ),
            error_type: "interrupted".to_owned(),
            recoverable: true,
            stack: None,
            error_display: None,
        });
        self.flush().await;
        Ok(())
    }
}

/// A saved conversation: `{"conversation_id", "conversation"}` (as saved here) or a bare
/// conversation.
fn parse_conversation(saved: &serde_json::Value) -> Option<(String, Conversation)> {
    if let Some(inner) = saved.get("conversation") {
        let conversation: Conversation = serde_json::from_value(inner.clone()).ok()?;
        let id = saved
            .get("conversation_id")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .unwrap_or_else(|| format!("conv_{}", uuid::Uuid::now_v7().simple()));
        return Some((id, conversation));
    }
    let conversation: Conversation = serde_json::from_value(saved.clone()).ok()?;
    Some((
        format!("conv_{}", uuid::Uuid::now_v7().simple()),
        conversation,
    ))
}
