//! Sessions with work running in this process: one event producer per session (an [`Emitter`]
//! whose bus stores every event through an [`EventWriter`] before broadcasting it), the
//! [`AgentSession`] that runs its turns, its file runs and its parked approvals and questions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use keel_context::InstructionSources;
use keel_engine::{AgentSession, Mode};
use keel_events::{Emitter, LogLevel, SystemError, SystemLog};
use keel_host::{
    AgentSettings, EventLog, HostError, SavedConversation, TurnEnd, finish_turn, open_session,
    saved_conversation,
};
use keel_mcp::McpManager;
use keel_store::{NewTurn, SessionStatus, StoreResult, Turn, WriterOptions};
use tokio_util::sync::CancellationToken;

use crate::error::{ApiError, ApiResult};
use crate::hub::{Channel, ProducingGuard};
use crate::interaction::{HttpAnswerer, HttpApprover, Interactions};
use crate::provider::build_provider;
use crate::state::AppState;

/// The event producer of a session: stamping, storing, then broadcasting.
#[derive(Debug)]
struct Producer {
    log: EventLog,
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
    /// The MCP servers of the current agent session (stopped when it is rebuilt or this
    /// session is dropped).
    mcp: Mutex<Option<McpManager>>,
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

/// Why a rewind did not happen (nothing was changed).
#[derive(Debug)]
pub enum RewindFailure {
    /// A turn runs here.
    Running,
    /// The checkpoint or the session refused it.
    Rewind(keel_host::RewindError),
    /// The store failed.
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
            mcp: Mutex::new(None),
        }
    }

    /// The MCP servers of the agent session, once a turn has built it.
    pub fn mcp(&self) -> Option<McpManager> {
        self.mcp.lock().unwrap_or_else(|p| p.into_inner()).clone()
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
                return Ok((current.log.emitter().clone(), current.generation));
            }
            // Events still queued would make the store look behind.
            let _ = current.log.flush().await;
            let stored = state.store.last_seq(&self.id).await?;
            if stored == current.log.last_seq() {
                return Ok((current.log.emitter().clone(), current.generation));
            }
        }
        let generation = producer.as_ref().map_or(0, |p| p.generation + 1);
        if let Some(old) = producer.take() {
            let _ = old.log.close().await;
        }
        let session = state.store.get_session(&self.id).await?;
        let last = state.store.last_seq(&self.id).await?;
        let log = {
            // The writer runs on the producer runtime, with the work that feeds it.
            let _producers = state.producers.handle().enter();
            EventLog::open(
                Arc::clone(&state.store),
                &self.id,
                &session.project_id,
                last,
                WriterOptions {
                    forward: Some(self.channel.sender()),
                    // Commit at once; what queues meanwhile makes the next batch (group commit).
                    max_delay: std::time::Duration::ZERO,
                    ..WriterOptions::default()
                },
            )?
        };
        let emitter = log.emitter().clone();
        *producer = Some(Producer { log, generation });
        Ok((emitter, generation))
    }

    /// Emits `event` on the session's stored log outside any turn (e.g. a shadow apply's
    /// conflict warning) and waits until it is stored.
    pub async fn emit_outside_turn(
        &self,
        state: &AppState,
        event: impl Into<keel_events::EventKind>,
    ) -> StoreResult<()> {
        let (emitter, _) = self.emitter(state, self.others_running()).await?;
        emitter.emit(event);
        self.flush().await;
        Ok(())
    }

    /// Waits until every event emitted so far is stored (and so broadcast).
    async fn flush(&self) {
        if let Some(producer) = self.producer.lock().await.as_ref()
            && producer.log.flush().await.is_ok()
        {
            self.channel.mark_local(producer.log.last_seq());
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
        let (end, saved) = match self.drive_turn(state, &turn.id, &input, &cancel).await {
            Ok((outcome, saved)) => (TurnEnd::finished(&outcome), Some(saved)),
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
                (TurnEnd::Failed(message), None)
            }
        };
        self.flush().await;
        if let Err(error) = finish_turn(
            state.store.as_ref(),
            &self.id,
            Some(&turn.id),
            &end,
            saved.as_ref(),
        )
        .await
        {
            tracing::warn!(session_id = self.id, turn_id = turn.id, %error, "cannot store the end of the turn");
        }
    }

    /// Runs the agent for one turn; an error is a message for the failed turn.
    async fn drive_turn(
        &self,
        state: &AppState,
        turn_id: &str,
        input: &str,
        cancel: &CancellationToken,
    ) -> Result<(keel_engine::TurnOutcome, SavedConversation), String> {
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
        // A server session has no end: each turn that changed files is distilled into project
        // memory after its agent.end, while the turn still holds the session (its events carry
        // no turn id; a failure is a warning). Nothing to do when no file changed.
        agent.session.distill_memory().await;
        relay.abort();
        Ok((outcome, saved_conversation(&agent.session)))
    }

    /// The session's agent, built by the session host from the server's settings and the
    /// session row, continuing its saved conversation.
    async fn build_agent(&self, state: &AppState, emitter: Emitter) -> ApiResult<AgentSession> {
        let opened = open_session(state.store.as_ref(), &self.id)
            .await
            .map_err(|e| match e {
                HostError::Store(e) => ApiError::from(e),
                other => ApiError::unprocessable(other.to_string()),
            })?;
        let session = &opened.session;
        let settings = &state.config.provider;
        let (provider, default_models) =
            build_provider(settings).map_err(ApiError::unprocessable)?;
        let models = match session.model.as_deref() {
            Some(model) if !model.trim().is_empty() => crate::config::split_models(Some(model)),
            _ => default_models,
        };
        let mcp_servers = state.config.mcp_servers_for(&session.project_id);
        let agent = AgentSettings {
            mode: session
                .mode
                .as_deref()
                .and_then(|m| m.parse::<Mode>().ok())
                .unwrap_or(Mode::Auto),
            max_iterations: settings.max_iterations,
            approval: settings.approval,
            sandbox: settings.sandbox.clone(),
            approve_plans: settings.approve_plans,
            approval_edits: settings.approval_edits,
            repo_map: settings.repo_map,
            include_system_prompt: settings.include_system_prompt,
            distill_memory: settings.memory_distill,
            context_window: settings.context_window,
            instructions: InstructionSources {
                extra_files: settings.instructions_files.clone(),
                ..InstructionSources::default()
            },
            pricing: keel_host::pricing_with([&settings.pricing]),
            libraries: settings.libraries.clone(),
            images: settings.images.clone(),
            checkpoint_max_bytes: state.config.checkpoint_max_bytes(&session.project_id),
            sampling: settings.sampling,
            tool_profile: settings.tool_profile,
            rules_dir: crate::routes::rules::user_rules_dir(),
            shadow: session.metadata.get(crate::api::SHADOW_KEY)
                == Some(&serde_json::Value::Bool(true)),
            ..AgentSettings::new(&session.root, models)
        };
        let built = agent
            .build(provider, emitter.clone(), opened.saved)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?
            .with_approver(Arc::new(HttpApprover(Arc::clone(&self.interactions))))
            .with_answerer(Arc::new(HttpAnswerer(Arc::clone(&self.interactions))));
        // The previous agent's servers stop before this one's start.
        let previous = self.mcp.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(previous) = previous {
            previous.shutdown().await;
        }
        let (built, mcp) = keel_host::attach_mcp(
            built,
            &session.root,
            &mcp_servers,
            &settings.sandbox,
            &emitter,
        )
        .await;
        *self.mcp.lock().unwrap_or_else(|p| p.into_inner()) = mcp;
        Ok(built)
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
        let resolved = workspace.resolve(&path).map_err(|e| match e {
            // No file can have such a name, or be reached that way: there is none to run.
            keel_tools::PathError::TooLong { .. }
            | keel_tools::PathError::ComponentTooLong { .. }
            | keel_tools::PathError::Io { .. } => {
                ApiError::not_found(format!("no file `{path}` in the session's root ({e})"))
            }
            other => ApiError::unprocessable(other.to_string()),
        })?;
        if !resolved.exists() {
            return Err(ApiError::not_found(format!(
                "no file `{path}` in the session's root"
            )));
        }
        if !resolved.is_file() {
            return Err(ApiError::unprocessable(format!("`{path}` is not a file")));
        }
        interpreter_for(&resolved, &path).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        // File runs are confined like the session's commands (the server's sandbox settings).
        let policy = &state.config.provider.sandbox;
        let sandbox = if policy.is_off() {
            None
        } else {
            let sandbox = keel_tools::sandbox::Sandbox::new(policy.clone(), &root)
                .map_err(|e| ApiError::unprocessable(format!("`{path}` was not run: {e}")))?;
            Some(Arc::new(sandbox))
        };
        let warning = sandbox.as_ref().and_then(|s| s.warning());
        let request = FileRun::new(root, path)
            .with_args(args)
            .with_sandbox(sandbox);
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
            if let Some(warning) = warning {
                emitter.emit(SystemLog {
                    level: LogLevel::Warn,
                    message: warning,
                    metadata: None,
                });
            }
            match run_file(&request, &emitter, &cancel).await {
                Ok(outcome) => {
                    if let Some(blocked) = outcome.blocked {
                        emitter.emit(SystemLog {
                            level: LogLevel::Warn,
                            message: format!("{}: {blocked}", outcome.file),
                            metadata: None,
                        });
                    }
                }
                Err(e) => {
                    emitter.emit(SystemError {
                        error: e.to_string(),
                        error_type: "file_run".to_owned(),
                        recoverable: true,
                        stack: None,
                        error_display: None,
                    });
                }
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

    /// Rewinds the session to before checkpoint `checkpoint`'s turn ([`keel_host::rewind`]),
    /// holding it as a turn would so none starts meanwhile (refused with `turn_running` while
    /// one runs). Its `run.checkpoint.rewind` goes through this session's producer; the agent
    /// kept between turns is dropped, so the next turn continues the rewound history.
    pub async fn rewind(
        &self,
        state: &AppState,
        checkpoints: &keel_tools::CheckpointStore,
        checkpoint: &str,
        scope: keel_events::RewindScope,
    ) -> Result<keel_host::RewindReport, RewindFailure> {
        if self.claim().is_none() {
            return Err(RewindFailure::Running);
        }
        let result = async {
            let report = keel_host::rewind(
                state.store.as_ref(),
                checkpoints,
                &self.id,
                checkpoint,
                scope,
            )
            .await
            .map_err(RewindFailure::Rewind)?;
            *self.agent.lock().await = None;
            let (emitter, _) = self
                .emitter(state, true)
                .await
                .map_err(|e| RewindFailure::Api(e.into()))?;
            emitter.set_turn(None);
            emitter.emit(report.event.clone());
            self.flush().await;
            Ok(report)
        }
        .await;
        self.release();
        result
    }

    /// Appends `error`, the record of an interrupted turn, through this session's producer (so
    /// it continues the seq of whatever else runs here and reaches its stream clients).
    pub async fn record_interrupted(
        &self,
        state: &AppState,
        error: SystemError,
    ) -> StoreResult<()> {
        let (emitter, _) = self.emitter(state, self.others_running()).await?;
        emitter.set_turn(None);
        emitter.emit(error);
        self.flush().await;
        Ok(())
    }
}
