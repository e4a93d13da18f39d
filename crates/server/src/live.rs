//! Sessions with work running in this process: one event producer per session (an [`Emitter`]
//! whose bus stores every event through an [`EventWriter`] before broadcasting it), the
//! [`AgentSession`] that runs its turns, its file runs and its parked approvals and questions.
//!
//! Work here writes a session only under its writer claim ([`keel_store::WriterClaim`]): taken
//! when the work begins (refused, naming the holder, while another instance writes the
//! session), quoted by every append and by the end of the turn, given up when the work ends.
//! A writer whose claim the store refuses, or that cannot store an event, stops the work on the
//! session at once; a turn ends failed, visibly, unless another instance took it over — then
//! this instance writes nothing more.
//!
//! [`EventWriter`]: keel_store::EventWriter

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use keel_engine::AgentSession;
use keel_events::{Emitter, LogLevel, SystemError, SystemLog};
use keel_host::{
    Continuation, EndRecorded, EventLog, HostError, Interaction, SavedConversation, TurnEnd,
    open_session, saved_conversation,
};
use keel_mcp::McpManager;
use keel_protocol::Mode;
use keel_store::{
    SharedClaim, StoreError, StoreResult, Turn, TurnHandover, WriterClaim, WriterOptions,
};
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
    /// The writer claim its appends quote: held while work runs here, empty between.
    claim: SharedClaim,
    /// Cancelled when the writer could not store an event; the work on it stops.
    stop: CancellationToken,
    /// Why it stopped.
    fault: Arc<Mutex<Option<WriteFault>>>,
}

/// Why a session's writer stopped storing events.
#[derive(Debug, Clone)]
pub struct WriteFault {
    /// The store refused the claim: another instance took the session over, so nothing of
    /// this work's end is recorded here.
    pub fenced: bool,
    /// The first failure.
    pub message: String,
}

/// A producer handed to a piece of work.
#[derive(Debug, Clone)]
struct Produced {
    emitter: Emitter,
    generation: u64,
    /// Cancelled when the writer stops storing events.
    stop: CancellationToken,
    fault: Arc<Mutex<Option<WriteFault>>>,
    claim: SharedClaim,
}

impl Produced {
    /// Why the writer stopped, if it did.
    fn fault(&self) -> Option<WriteFault> {
        self.fault.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// An agent session and the producer generation it was built on.
struct Agent {
    session: AgentSession,
    generation: u64,
    /// The session's git work (`[git] commit`, the `pull_request` option), when asked for.
    git: Option<keel_host::git::GitWork>,
}

/// A turn running here.
#[derive(Debug, Clone)]
struct RunningTurn {
    cancel: CancellationToken,
    /// Set once the turn's row is stored.
    turn_id: Option<String>,
    /// Set when the instance drains: the turn was given to another instance, so its end is
    /// not recorded here.
    handed_over: bool,
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
    /// The instance is draining: it takes no new turns.
    Draining,
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

impl Producer {
    fn produced(&self) -> Produced {
        Produced {
            emitter: self.log.emitter().clone(),
            generation: self.generation,
            stop: self.stop.clone(),
            fault: Arc::clone(&self.fault),
            claim: self.claim.clone(),
        }
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
            handed_over: false,
        });
        Some(cancel)
    }

    /// Whether the running turn was handed over to another instance (drain).
    fn handed_over(&self) -> bool {
        self.turn
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|turn| turn.handed_over)
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

    /// Cancels the session's file runs; true if any ran.
    pub fn cancel_file_runs(&self) -> bool {
        let mut any = false;
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

    /// Cancels the running turn and file runs; true if there was anything to cancel.
    pub fn cancel(&self) -> bool {
        let mut any = false;
        if let Some(turn) = &*self.turn.lock().unwrap_or_else(|p| p.into_inner()) {
            turn.cancel.cancel();
            any = true;
        }
        self.cancel_file_runs() || any
    }

    /// The session's producer for a piece of work, under this instance's writer claim: with
    /// other work running here, theirs; otherwise the claim is taken now (refused with
    /// [`StoreError::WriterHeld`] while another instance writes the session) and the producer
    /// kept from earlier work when nobody else wrote since, else rebuilt on the stored seq.
    async fn emitter(&self, state: &AppState, others_running: bool) -> StoreResult<Produced> {
        let mut producer = self.producer.lock().await;
        if let Some(current) = producer.as_ref()
            && !current.stop.is_cancelled()
        {
            if others_running && current.claim.get().is_some() {
                return Ok(current.produced());
            }
            let claim = state.host.claim_writer(&self.id).await?;
            // Events still queued would make the store look behind.
            let _ = current.log.flush().await;
            let stored = state.store.last_seq(&self.id).await?;
            if stored == current.log.last_seq() {
                current.claim.set(claim);
                return Ok(current.produced());
            }
            return self.rebuild(state, &mut producer, claim).await;
        }
        let claim = state.host.claim_writer(&self.id).await?;
        self.rebuild(state, &mut producer, claim).await
    }

    /// A new producer continuing the stored seq under `claim` (the old one closed).
    async fn rebuild(
        &self,
        state: &AppState,
        producer: &mut Option<Producer>,
        claim: WriterClaim,
    ) -> StoreResult<Produced> {
        let generation = producer.as_ref().map_or(0, |p| p.generation + 1);
        if let Some(old) = producer.take() {
            old.claim.take();
            let _ = old.log.close().await;
        }
        let session = state.store.get_session(&self.id).await?;
        // Under the claim nobody else appends: the stored end is where this producer goes on.
        let last = state.store.last_seq(&self.id).await?;
        let stop = CancellationToken::new();
        let fault: Arc<Mutex<Option<WriteFault>>> = Arc::default();
        let cell = SharedClaim::new(Some(claim));
        let on_failure = {
            let stop = stop.clone();
            let fault = Arc::clone(&fault);
            let session_id = self.id.clone();
            Arc::new(move |error: &StoreError| {
                let mut first = fault.lock().unwrap_or_else(|p| p.into_inner());
                if first.is_none() {
                    if error.is_fenced() {
                        tracing::warn!(session_id, %error, "this instance may no longer write the session: its work there stops");
                    } else {
                        tracing::error!(session_id, %error, "an event could not be stored: the work on the session stops");
                    }
                    *first = Some(WriteFault {
                        fenced: error.is_fenced(),
                        message: error.to_string(),
                    });
                }
                stop.cancel();
            })
        };
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
                    claim: Some(cell.clone()),
                    on_failure: Some(on_failure),
                    ..WriterOptions::default()
                },
            )?
        };
        if let Some(telemetry) = &state.telemetry {
            log.emitter().bus().add_handler(telemetry.spans());
        }
        let built = Producer {
            log,
            generation,
            claim: cell,
            stop,
            fault,
        };
        let produced = built.produced();
        *producer = Some(built);
        Ok(produced)
    }

    /// After a piece of work here ended: when no other runs, the claim is given up (what the
    /// work emitted stored first), and the session's stream clients are caught up with what
    /// other instances appended meanwhile.
    async fn work_done(&self, state: &AppState) {
        {
            let mut producer = self.producer.lock().await;
            if self.others_running() {
                return;
            }
            if let Some(current) = producer.as_ref() {
                if current.log.flush().await.is_ok() {
                    self.channel.mark_local(current.log.last_seq());
                }
                if let Some(claim) = current.claim.take()
                    && let Err(error) = state.host.release_writer(&claim).await
                {
                    // It lapses by itself; until then other instances wait for it.
                    tracing::warn!(session_id = self.id, %error, "cannot give up the session's writer claim");
                }
                if current.stop.is_cancelled()
                    && let Some(old) = producer.take()
                {
                    let _ = old.log.close().await;
                }
            }
        }
        state.hub.catch_up(&self.id).await;
    }

    /// Waits until every event emitted so far is stored (and so broadcast).
    async fn flush(&self) {
        if let Some(producer) = self.producer.lock().await.as_ref()
            && producer.log.flush().await.is_ok()
        {
            self.channel.mark_local(producer.log.last_seq());
        }
    }

    /// The claim this session's producer holds now, for judging a renewal.
    pub fn held_claim(&self) -> Option<WriterClaim> {
        self.producer
            .try_lock()
            .ok()
            .and_then(|p| p.as_ref().and_then(|p| p.claim.get()))
    }

    /// The renewal of this instance's writer claims no longer covers `claim`: another instance
    /// took the session over (this one stalled past its claim). The work here stops and writes
    /// nothing more.
    pub fn claim_lost(&self, claim: &WriterClaim) {
        let Ok(producer) = self.producer.try_lock() else {
            // Busy: the writer itself finds out at its next append.
            return;
        };
        if let Some(current) = producer.as_ref()
            && current.claim.get().as_ref() == Some(claim)
        {
            tracing::warn!(
                session_id = self.id,
                epoch = claim.epoch,
                "the session's writer claim was taken over: stopping the work here"
            );
            current.claim.take();
            let mut fault = current.fault.lock().unwrap_or_else(|p| p.into_inner());
            fault.get_or_insert(WriteFault {
                fenced: true,
                message: format!(
                    "instance `{}` lost its writer claim on session `{}`",
                    claim.owner, claim.session_id
                ),
            });
            current.stop.cancel();
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

    /// Whether a turn or a file run works on the session here.
    pub fn is_busy(&self) -> bool {
        self.others_running()
    }

    /// Starts a turn: idempotent by `request_id`, refused while another turn runs (here or on
    /// another instance) or while another instance writes the session.
    pub async fn start_turn(
        self: &Arc<Self>,
        state: &Arc<AppState>,
        request_id: String,
        input: keel_protocol::TurnInput,
    ) -> Result<(Turn, bool), StartError> {
        if let Some(turn) = state
            .host
            .turn_by_request_id(&self.id, &request_id)
            .await
            .map_err(ApiError::from)?
        {
            if turn.input == input.text {
                return Ok((turn, false));
            }
            return Err(StartError::Api(ApiError::conflict(format!(
                "request `{request_id}` already started turn `{}` with a different input",
                turn.id
            ))));
        }
        if state.is_draining() {
            return Err(StartError::Draining);
        }
        let Some(cancel) = self.claim() else {
            return Err(StartError::Running);
        };
        let begun = self.begin(state, request_id, input.text.clone()).await;
        let (start, produced) = match begun {
            Ok(Some((start, produced))) => (start, produced),
            Ok(None) => {
                self.release();
                self.work_done(state).await;
                return Err(StartError::Running);
            }
            Err(e) => {
                self.release();
                self.work_done(state).await;
                return Err(StartError::Api(e));
            }
        };
        if !start.created {
            self.release();
            self.work_done(state).await;
            return Ok((start.turn, false));
        }
        self.set_running_turn_id(&start.turn.id);
        let live = Arc::clone(self);
        let state = Arc::clone(state);
        let turn = start.turn.clone();
        state.producers.clone().spawn(async move {
            let guard = live.channel.producing();
            live.run_turn(&state, turn, input, cancel, produced).await;
            live.release();
            drop(guard);
            live.work_done(&state).await;
        });
        Ok((start.turn, true))
    }

    /// Begins the turn row under this instance's lease and writer claim; `None` when a turn
    /// already runs in the store.
    async fn begin(
        &self,
        state: &AppState,
        request_id: String,
        input: String,
    ) -> ApiResult<Option<(keel_store::TurnStart, Produced)>> {
        if state.host.running_turn(&self.id).await?.is_some() {
            return Ok(None);
        }
        let produced = self
            .emitter(state, self.file_runs_active())
            .await
            .map_err(writer_error)?;
        let start = state.host.begin_turn(&self.id, request_id, input).await?;
        Ok(Some((start, produced)))
    }

    /// Runs turn `turn` to its end and records the end under the writer claim — unless the
    /// turn was handed over (drain) or the session taken over by another instance: then this
    /// instance records nothing.
    async fn run_turn(
        &self,
        state: &AppState,
        turn: Turn,
        input: keel_protocol::TurnInput,
        cancel: CancellationToken,
        produced: Produced,
    ) {
        let driven = self
            .drive_with(
                state,
                &cancel,
                &produced,
                None,
                Some(input.text.as_str()),
                |agent| Box::pin(agent.run_turn_with_id(turn.id.clone(), input.clone())),
            )
            .await;
        self.end_turn(state, &turn.id, driven, &produced, None)
            .await;
    }

    /// Records how the turn driven here ended: a turn the engine could not run as a
    /// `system.error` and an `agent.end{failed}` (`committed`, its work so far, then saved for
    /// the next turn), then the conversation, the session's status and the turn row under the
    /// writer claim.
    async fn end_turn(
        &self,
        state: &AppState,
        turn_id: &str,
        driven: Result<(keel_engine::TurnOutcome, SavedConversation), String>,
        produced: &Produced,
        committed: Option<SavedConversation>,
    ) {
        if self.handed_over() {
            tracing::info!(
                session_id = self.id,
                turn_id,
                "turn handed over to another instance"
            );
            return;
        }
        let (mut end, mut saved) = match driven {
            Ok((outcome, saved)) => (TurnEnd::finished(&outcome), Some(saved)),
            Err(message) => {
                produced.emitter.set_turn(Some(turn_id.to_owned()));
                produced.emitter.emit(SystemError {
                    error: message.clone(),
                    error_type: "server".to_owned(),
                    recoverable: true,
                    stack: None,
                    error_display: None,
                });
                produced.emitter.emit(keel_events::AgentEnd {
                    status: keel_events::AgentStatus::Failed,
                    result: message.clone(),
                    files_changed: Vec::new(),
                    usage: keel_events::Usage::default(),
                    warning: None,
                });
                produced.emitter.set_turn(None);
                if committed.is_some() {
                    // The next turn continues the conversation as saved here.
                    *self.agent.lock().await = None;
                }
                (TurnEnd::Failed(message), committed)
            }
        };
        self.flush().await;
        match produced.fault() {
            Some(fault) if fault.fenced => {
                tracing::warn!(
                    session_id = self.id,
                    turn_id,
                    reason = fault.message,
                    "the session was taken over by another instance: this instance records nothing more of the turn"
                );
                return;
            }
            Some(fault) => {
                // Events were lost: the turn fails, saying so; its conversation is not saved
                // (what the store holds is the truth).
                let message = format!("events of the turn could not be stored: {}", fault.message);
                tracing::error!(session_id = self.id, turn_id, "{message}");
                end = TurnEnd::Failed(message);
                saved = None;
            }
            None => {}
        }
        let Some(claim) = produced.claim.get() else {
            tracing::warn!(
                session_id = self.id,
                turn_id,
                "the turn's end is not recorded: this instance gave the session's writer claim up"
            );
            return;
        };
        match state
            .host
            .end_turn(&claim, turn_id, &end, saved.as_ref())
            .await
        {
            EndRecorded::Stored => {}
            EndRecorded::Fenced(error) => {
                tracing::warn!(session_id = self.id, turn_id, %error, "the session was taken over: the turn's end is not recorded here");
            }
            EndRecorded::Failed(error) => {
                tracing::error!(session_id = self.id, turn_id, %error, "cannot store the end of the turn");
            }
        }
    }

    /// Runs the agent for one turn with `run`, built on `conversation` when given (a continued
    /// turn); an error is a message for the failed turn. The turn stops when it is cancelled
    /// or its writer stops storing events. A new turn (`task` given) is committed after its
    /// `agent.end` when the session's git work says so, and with `pull_request` its branch is
    /// then pushed and its pull request opened; a continued turn is not (its start was
    /// another process's).
    async fn drive_with(
        &self,
        state: &AppState,
        cancel: &CancellationToken,
        produced: &Produced,
        conversation: Option<SavedConversation>,
        task: Option<&str>,
        run: impl FnOnce(
            &mut AgentSession,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = keel_engine::TurnOutcome> + Send + '_>,
        >,
    ) -> Result<(keel_engine::TurnOutcome, SavedConversation), String> {
        let mut agent = self.agent.lock().await;
        let rebuild = conversation.is_some()
            || agent
                .as_ref()
                .is_none_or(|a| a.generation != produced.generation);
        if rebuild {
            *agent = None;
            let session = self
                .build_agent(state, produced.emitter.clone(), conversation)
                .await
                .map_err(|e| e.message)?;
            let git = self.git_work(state, &session).await?;
            *agent = Some(Agent {
                session,
                generation: produced.generation,
                git,
            });
        }
        let Some(agent) = agent.as_mut() else {
            return Err("no agent session".to_owned());
        };
        let engine_cancel = agent.session.cancel_handle();
        let relay_cancel = cancel.clone();
        let stop = produced.stop.clone();
        let relay = tokio::spawn(async move {
            tokio::select! {
                () = relay_cancel.cancelled() => {}
                () = stop.cancelled() => {}
            }
            engine_cancel.cancel();
        });
        if task.is_some()
            && let Some(git) = agent.git.as_mut()
        {
            git.before_turn(&agent.session).await;
        }
        let outcome = run(&mut agent.session).await;
        if !produced.stop.is_cancelled()
            && !self.handed_over()
            && let (Some(git), Some(task)) = (agent.git.as_mut(), task)
            && git.after_turn(&mut agent.session, task).await.is_some()
            && git.options().pull_request
        {
            // Refusals and failures are on the stream; the turn's own outcome stands.
            let _ = git.open_pull_request(&mut agent.session).await;
        }
        // A server session has no end: each turn that changed files is distilled into project
        // memory after its agent.end, while the turn still holds the session (its events carry
        // no turn id; a failure is a warning). Nothing to do when no file changed.
        if !produced.stop.is_cancelled() && !self.handed_over() {
            agent.session.distill_memory().await;
        }
        relay.abort();
        Ok((outcome, saved_conversation(&agent.session)))
    }

    /// Continues turn `handover.turn`, handed to this instance after the instance running it
    /// stopped (see [`keel_host::plan_continuation`]); false when the session is busy here or
    /// its writer is held elsewhere (the next sweep tries again).
    pub async fn continue_turn(
        self: &Arc<Self>,
        state: &Arc<AppState>,
        handover: TurnHandover,
    ) -> bool {
        let Some(cancel) = self.claim() else {
            return false;
        };
        let produced = match self.emitter(state, self.file_runs_active()).await {
            Ok(produced) => produced,
            Err(error) => {
                tracing::info!(session_id = self.id, turn_id = handover.turn.id, %error, "cannot continue the turn yet");
                self.release();
                self.work_done(state).await;
                return false;
            }
        };
        self.set_running_turn_id(&handover.turn.id);
        let live = Arc::clone(self);
        let state = Arc::clone(state);
        state.producers.clone().spawn(async move {
            let guard = live.channel.producing();
            live.carry_on(&state, handover, cancel, produced).await;
            live.release();
            drop(guard);
            live.work_done(&state).await;
        });
        true
    }

    /// The continuation of a handed-over turn, under the writer claim in `produced`.
    async fn carry_on(
        &self,
        state: &AppState,
        handover: TurnHandover,
        cancel: CancellationToken,
        produced: Produced,
    ) {
        let turn_id = handover.turn.id.clone();
        let plan = state.host.plan_continuation(&handover).await;
        let claim_now = || produced.claim.get();
        match plan {
            Ok(Continuation::Ended {
                status,
                result,
                saved,
            }) => {
                let end = TurnEnd::Finished { status, result };
                if let Some(claim) = claim_now()
                    && let Some(error) = state
                        .host
                        .end_turn(&claim, &turn_id, &end, Some(&saved))
                        .await
                        .error()
                {
                    tracing::warn!(session_id = self.id, turn_id, %error, "cannot record the end of a handed-over turn");
                }
            }
            Ok(Continuation::Fail { saved, error, end }) => {
                let message = end.result.clone();
                produced.emitter.set_turn(Some(turn_id.clone()));
                produced.emitter.emit(error);
                produced.emitter.emit(end);
                produced.emitter.set_turn(None);
                self.flush().await;
                // The next turn continues the conversation as saved here: the agent kept in
                // memory has not seen it.
                *self.agent.lock().await = None;
                if let Some(claim) = claim_now()
                    && let Some(error) = state
                        .host
                        .end_turn(&claim, &turn_id, &TurnEnd::Failed(message), Some(&saved))
                        .await
                        .error()
                {
                    tracing::warn!(session_id = self.id, turn_id, %error, "cannot record the end of an interrupted turn");
                }
            }
            Ok(Continuation::Resume {
                saved,
                resume,
                notice,
            }) => {
                tracing::info!(session_id = self.id, turn_id, from = ?handover.previous_owner, "continuing a handed-over turn");
                produced.emitter.set_turn(Some(turn_id.clone()));
                produced.emitter.emit(notice);
                produced.emitter.set_turn(None);
                let mut closed = saved.clone();
                closed.conversation.close_pending();
                let driven = self
                    .drive_with(state, &cancel, &produced, Some(saved), None, |agent| {
                        Box::pin(agent.resume_turn_with_id(resume))
                    })
                    .await;
                self.end_turn(state, &turn_id, driven, &produced, Some(closed))
                    .await;
            }
            Err(error) => {
                let message = format!("the handed-over turn cannot be read back: {error}");
                tracing::error!(session_id = self.id, turn_id, "{message}");
                self.end_turn(state, &turn_id, Err(message), &produced, None)
                    .await;
            }
        }
    }

    /// Drain: gives the turn running here to the other instances. Its events so far are
    /// stored, the writer claim given up (so nothing of its cancellation is written), its
    /// lease let go (the next sweep elsewhere continues it), then its run here is cancelled.
    pub async fn hand_over(&self, state: &AppState) -> Option<String> {
        let turn_id = {
            let mut turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
            let running = turn.as_mut()?;
            running.handed_over = true;
            running.turn_id.clone()
        };
        {
            let producer = self.producer.lock().await;
            if let Some(current) = producer.as_ref() {
                let _ = current.log.flush().await;
                if let Some(claim) = current.claim.take() {
                    let _ = state.host.release_writer(&claim).await;
                }
            }
        }
        if let Some(turn_id) = &turn_id
            && let Err(error) = state.host.release_turn_lease(turn_id).await
        {
            tracing::warn!(session_id = self.id, turn_id, %error, "cannot let the turn's lease go: it moves once it lapses");
        }
        if let Some(turn) = &*self.turn.lock().unwrap_or_else(|p| p.into_inner()) {
            turn.cancel.cancel();
        }
        for cancel in self
            .file_runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
        {
            cancel.cancel();
        }
        turn_id
    }

    /// The session's git work: `[git] commit` of the server's settings and the session's
    /// `pull_request` option; a refusal (see [`keel_host::git::GitWork::prepare`]) is the
    /// turn's failure.
    async fn git_work(
        &self,
        state: &AppState,
        session: &AgentSession,
    ) -> Result<Option<keel_host::git::GitWork>, String> {
        let stored = state
            .store
            .get_session(&self.id)
            .await
            .map_err(|e| e.to_string())?;
        let options = keel_host::git::GitOptions {
            commit: state.config.provider.git_commit == keel_host::git::CommitWhen::Turn,
            branch: None,
            pull_request: stored.metadata.get(crate::api::PULL_REQUEST_KEY)
                == Some(&serde_json::Value::Bool(true)),
        };
        keel_host::git::GitWork::prepare(&session.config().root, options)
            .await
            .map_err(|e| format!("git: {e}"))
    }

    /// The session's agent, built by the session host from the server's settings and the
    /// session row, continuing its saved conversation (or `conversation`, when given).
    async fn build_agent(
        &self,
        state: &AppState,
        emitter: Emitter,
        conversation: Option<SavedConversation>,
    ) -> ApiResult<AgentSession> {
        let mut opened =
            open_session(state.store.as_ref(), &self.id)
                .await
                .map_err(|e| match e {
                    HostError::Store(e) => ApiError::from(e),
                    other => ApiError::unprocessable(other.to_string()),
                })?;
        if conversation.is_some() {
            opened.saved = conversation;
        }
        let session = &opened.session;
        let settings = &state.config.provider;
        let (provider, default_models) =
            build_provider(settings).map_err(ApiError::unprocessable)?;
        let models = match session.model.as_deref() {
            Some(model) if !model.trim().is_empty() => keel_host::split_models(model),
            _ => default_models,
        };
        let mcp_servers = state.config.mcp_servers_for(&session.project_id);
        // keel-config's one mapping; what is the session's own (its mode, its shadow
        // workspace, its project's checkpoint bound) over it.
        let mut agent = settings.agent_settings(&session.root, models);
        if let Some(mode) = session.mode.as_deref().and_then(|m| m.parse::<Mode>().ok()) {
            agent.mode = mode;
        }
        agent.checkpoint_max_bytes = state.config.checkpoint_max_bytes(&session.project_id);
        agent.rules_dir = crate::routes::rules::user_rules_dir(state);
        agent.shadow =
            session.metadata.get(crate::api::SHADOW_KEY) == Some(&serde_json::Value::Bool(true));
        // No one to ask over HTTP: the server's `trust_projects`, or the trusted folders of
        // its user config folder.
        agent.trust_project = state.config.trust_projects
            || state.config.user_config_dir.as_deref().is_some_and(|dir| {
                keel_extensions::TrustedFolders::load(dir)
                    .is_ok_and(|trusted| trusted.is_trusted(&session.root))
            });
        let interaction = Interaction {
            approver: Arc::new(HttpApprover(Arc::clone(&self.interactions))),
            answerer: Arc::new(HttpAnswerer(Arc::clone(&self.interactions))),
        };
        let built = agent
            .build_wired(provider, emitter.clone(), opened.saved, interaction)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
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
        let sandbox = keel_host::file_run_sandbox(&state.config.provider.sandbox, &root)
            .map_err(|e| ApiError::unprocessable(format!("`{path}` was not run: {e}")))?;
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
        let produced = match self.emitter(state, others).await {
            Ok(produced) => produced,
            Err(e) => {
                self.file_runs
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&run_id);
                self.work_done(state).await;
                return Err(writer_error(e));
            }
        };
        let guard: ProducingGuard = self.channel.producing();
        let emitter = produced.emitter.clone();
        let live = Arc::clone(self);
        let state = Arc::clone(state);
        let id = run_id.clone();
        state.producers.clone().spawn(async move {
            // The run stops when its writer stops storing events.
            let stop = produced.stop.clone();
            let stopper = cancel.clone();
            let watch = tokio::spawn(async move {
                stop.cancelled().await;
                stopper.cancel();
            });
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
            watch.abort();
            live.flush().await;
            if let Some(fault) = produced.fault() {
                tracing::warn!(
                    session_id = live.id,
                    run_id = id,
                    reason = fault.message,
                    "the file run's events were not all stored"
                );
            }
            live.touch();
            live.file_runs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            drop(guard);
            live.work_done(&state).await;
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
            // The writer first: nothing changes while another instance writes the session.
            let produced = self
                .emitter(state, self.file_runs_active())
                .await
                .map_err(|e| RewindFailure::Api(writer_error(e)))?;
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
            produced.emitter.set_turn(None);
            produced.emitter.emit(report.event.clone());
            self.flush().await;
            Ok(report)
        }
        .await;
        self.release();
        self.work_done(state).await;
        result
    }

    /// Runs `work` (an action on the session between turns, e.g. a shadow apply) holding the
    /// session as a turn would (refused with `turn_running` while one runs here) and under its
    /// writer claim (refused with 409 naming the instance that writes it); `work`'s events
    /// are stored before this returns.
    pub async fn between_turns<T>(
        &self,
        state: &AppState,
        work: impl std::future::Future<Output = ApiResult<(T, Vec<keel_events::EventKind>)>>,
    ) -> ApiResult<T> {
        if self.claim().is_none() {
            return Err(ApiError::new(
                crate::error::ErrorCode::TurnRunning,
                "a turn is running in this session; wait for it to end",
            ));
        }
        let result = async {
            let produced = self
                .emitter(state, self.file_runs_active())
                .await
                .map_err(writer_error)?;
            let (value, events) = work.await?;
            produced.emitter.set_turn(None);
            for event in events {
                produced.emitter.emit(event);
            }
            self.flush().await;
            Ok(value)
        }
        .await;
        self.release();
        self.work_done(state).await;
        result
    }
}

/// The API error of a producer that could not start: 409 naming the instance that writes the
/// session, or the store's error.
fn writer_error(error: StoreError) -> ApiError {
    match &error {
        StoreError::WriterHeld { holder, .. } => ApiError::conflict(format!(
            "{error}: instance `{holder}` runs work on it; send this request there or wait for \
             it to end"
        )),
        _ => error.into(),
    }
}
