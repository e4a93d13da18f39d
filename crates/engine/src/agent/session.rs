//! [`AgentSession`]: the state of one agent conversation and its turn driver.

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use futures::Stream;
use keel_context::{Conversation, FocusedFiles, Memory, RetentionPolicy, Summarizer};
use keel_events::{
    AgentEnd, AgentStart, AgentStatus, ConversationAction, Emitter, Event, LogLevel,
    PrepareConversationOpen, PrepareHistoryLoad, ResponseMode, RunResponseEnd, RunResponseStart,
    SystemLog, Usage,
};
use keel_protocol::{Approver, TurnInput};
use keel_tools::{CheckpointError, CheckpointStore, ToolRegistry};
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::config::AgentConfig;
use super::distill::{Distillation, Distiller, TurnNote, keep_note};
use super::model_call::ModelCaller;
use super::model_context::ModelContext;
use super::repo_map::RepoMapBuilder;
use super::tap::ChangeLog;
use super::tool_call::Toolbox;
use super::tool_loop::TurnRun;
use super::turn_state::{Ending, TurnState};
use crate::provider::Provider;
use keel_protocol::Mode;
use keel_protocol::QuestionAnswerer;

mod resume;
mod side_call;

pub use resume::ResumedTurn;
pub use side_call::{MAX_SIDE_TOKENS, SideCallError};

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
    /// Why the result may not be what was asked, when Keel can tell (as in `agent.end`).
    pub warning: Option<String>,
}

/// One agent conversation: the model, the tools, the context, and the turn loop (seed 004's
/// SDK runner). See the [module documentation](super) for what a turn does and emits.
pub struct AgentSession {
    config: AgentConfig,
    emitter: Emitter,
    /// The line to the model.
    model: ModelCaller,
    /// The tools, and who approves and answers for them.
    tools: Toolbox,
    /// What the model sees.
    context: ModelContext,
    repo_map: RepoMapBuilder,
    /// The running turn's file changes, and where `run()` streams events.
    changes: ChangeLog,
    conversation_id: String,
    cancel: CancellationToken,
    turns: u64,
    resumed: bool,
    last_outcome: Option<TurnOutcome>,
    /// The turns that changed files since the last memory distillation.
    notes: Vec<TurnNote>,
    /// Skill files skipped when the session was built, reported at its first turn.
    skill_warnings: Vec<keel_extensions::Warning>,
    /// Agent files skipped and tools they name that Keel does not have, reported at the
    /// first turn.
    agent_warnings: Vec<keel_extensions::Warning>,
    /// Hook files skipped and untrusted hooks not run, reported at the first turn.
    hook_logs: Vec<keel_events::SystemLog>,
    /// The session's model chain while a turn runs on another model
    /// ([`Self::apply_overrides`]).
    session_models: Option<crate::ModelChain>,
}

impl std::fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession")
            .field("root", &self.config.root)
            .field("mode", &self.config.mode)
            .field("conversation_id", &self.conversation_id)
            .field("messages", &self.context.conversation.len())
            .field("turns", &self.turns)
            .finish_non_exhaustive()
    }
}

impl AgentSession {
    /// A session on `config.root` talking to `provider`, reporting to `emitter`: every built-in
    /// tool plus the control tools, a new conversation, checkpoints under the root, and a
    /// front end that can neither approve ([`keel_protocol::CannotAsk`]) nor answer
    /// ([`super::CannotAnswer`]).
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
        let checkpoints = Arc::new(
            CheckpointStore::open(&config.root)?.with_max_bytes(config.checkpoint_max_bytes),
        );
        let changes = ChangeLog::attach(emitter.bus());
        let mut context = ModelContext {
            retention: RetentionPolicy::default().with_lang(config.lang),
            ..ModelContext::default()
        };
        if !config.libraries.is_empty() {
            let preloaded = keel_tools::builtin::preload(
                &config.root,
                &config.libraries,
                keel_tools::builtin::library_docs::PRELOAD_TOKENS,
            );
            context.libraries = (!preloaded.is_empty()).then_some(preloaded);
        }
        let (skills, skill_warnings) =
            super::skills::discover(&config.root, config.instructions.user_dir.as_deref());
        context.skills = super::skills::section(&skills);
        let (hooks, hook_logs) = super::hooks::discover(
            &config.root,
            config.instructions.user_dir.as_deref(),
            &config.hooks,
            config.trust_project,
        );
        let mut tools = Toolbox::new(ToolRegistry::builtin(), Some(checkpoints));
        tools.set_skills(skills);
        tools.hooks = hooks;
        let (agents, mut agent_warnings) = super::subagent::discover(
            &config.root,
            config.instructions.user_dir.as_deref(),
            config.trust_project,
        );
        // The language servers first: their `diagnostics` tool is one an agent file may name.
        if let Some(settings) = &config.lsp {
            let lsp =
                keel_lsp::LspManager::new(&config.root, settings.clone(), config.sandbox.clone());
            lsp.report_to(emitter.clone());
            tools.set_lsp(lsp);
        }
        if config.subagents.max_depth > 0 {
            let roster = super::subagent::Roster::new(&agents, config.subagents);
            agent_warnings.extend(roster.unknown_tools(tools.registry()));
            tools.set_roster(Some(Arc::new(roster)));
        }
        Ok(Self {
            config,
            model: ModelCaller::new(provider),
            tools,
            context,
            repo_map: RepoMapBuilder::default(),
            emitter,
            changes,
            conversation_id: format!("conv_{}", uuid::Uuid::now_v7().simple()),
            cancel: CancellationToken::new(),
            turns: 0,
            resumed: false,
            last_outcome: None,
            notes: Vec::new(),
            skill_warnings,
            agent_warnings,
            hook_logs,
            session_models: None,
        })
    }

    /// Uses these tools (the control tools are added to them).
    pub fn with_tools(mut self, tools: ToolRegistry) -> Self {
        self.tools.set_tools(tools);
        self
    }

    /// Also offers the tools of `source` (e.g. the session's MCP servers), as they are before
    /// each model call.
    pub fn with_tool_source(mut self, source: Arc<dyn keel_tools::ToolSource>) -> Self {
        self.tools.set_source(source);
        self
    }

    /// Continues a stored conversation under its id (`prepare.conversation.open` says
    /// `resume`, and `prepare.history.load` follows when it has messages).
    pub fn with_conversation(mut self, id: impl Into<String>, conversation: Conversation) -> Self {
        self.conversation_id = id.into();
        self.context.conversation = conversation;
        self.turns = 0;
        self.resumed = true;
        self
    }

    /// Starts with these focused files (e.g. restored with the conversation).
    pub fn with_focused_files(mut self, focused: FocusedFiles) -> Self {
        self.context.focused = focused;
        self
    }

    /// Shows this project memory to the model.
    pub fn with_memory(mut self, memory: Memory) -> Self {
        self.context.memory = Some(memory);
        self
    }

    /// Shows this rendered repository map to the model, instead of the map the session
    /// would build at each turn (see [`AgentConfig::repo_map`]).
    pub fn with_repo_map(mut self, repo_map: impl Into<String>) -> Self {
        self.context.repo_map = Some(repo_map.into());
        self.repo_map.fix();
        self
    }

    /// Asks `approver` when a command or plan needs approval.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.tools.approver = approver;
        self
    }

    /// Asks `answerer` the model's questions.
    pub fn with_answerer(mut self, answerer: Arc<dyn QuestionAnswerer>) -> Self {
        self.tools.answerer = answerer;
        self
    }

    /// Summarises old turns with `summarizer` when the prompt is over budget and the model
    /// cannot (or, with [`AgentConfig::model_summaries`] off, instead of the model).
    pub fn with_summarizer(mut self, summarizer: Arc<dyn Summarizer>) -> Self {
        self.context.summarizer = summarizer;
        self
    }

    /// Records file changes in `store` (`None`: not recorded, no rollback).
    pub fn with_checkpoints(mut self, store: Option<Arc<CheckpointStore>>) -> Self {
        self.tools.checkpoints = store;
        self
    }

    /// The settings.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &Conversation {
        &self.context.conversation
    }

    /// The conversation's id.
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// The focused files.
    pub fn focused_files(&self) -> &FocusedFiles {
        &self.context.focused
    }

    /// The tools offered to the model.
    pub fn tools(&self) -> &ToolRegistry {
        self.tools.registry()
    }

    /// Runs the next turns with `overrides` (a custom command's `model` and `allowed-tools`)
    /// until [`Self::clear_overrides`]. Returns what could not be applied: an empty model
    /// name, or tool names no offered tool has (the others still apply).
    pub fn apply_overrides(&mut self, overrides: &super::TurnOverrides) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(model) = &overrides.model {
            match crate::ModelChain::new([model.clone()]) {
                Ok(chain) => {
                    let session = std::mem::replace(&mut self.config.models, chain);
                    self.session_models.get_or_insert(session);
                }
                Err(e) => problems.push(e.to_string()),
            }
        }
        if let Some(tools) = &overrides.tools {
            let names: Vec<String> = tools
                .iter()
                .flat_map(|t| keel_extensions::allowed_keel_tools(t))
                .map(str::to_owned)
                .collect();
            problems.extend(
                self.tools
                    .set_allowed(Some(names))
                    .into_iter()
                    .map(|name| format!("no tool `{name}`")),
            );
            self.tools
                .set_command_patterns(keel_extensions::command_patterns(tools));
        }
        problems
    }

    /// Back to the session's own model and tools after [`Self::apply_overrides`].
    pub fn clear_overrides(&mut self) {
        if let Some(models) = self.session_models.take() {
            self.config.models = models;
        }
        self.tools.set_allowed(None);
        self.tools.set_command_patterns(None);
    }

    /// Where events go.
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// The checkpoint store, if changes are recorded.
    pub fn checkpoints(&self) -> Option<&Arc<CheckpointStore>> {
        self.tools.checkpoints.as_ref()
    }

    /// Tokens used by the session so far.
    pub fn usage(&self) -> Usage {
        self.model.usage()
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
    pub async fn run_turn(&mut self, input: impl Into<TurnInput>) -> TurnOutcome {
        self.run_turn_with_id(new_turn_id(), input).await
    }

    /// Runs one turn for `input` whose events carry `turn_id` (e.g. the id a store gave the
    /// turn), so the caller's record of the turn and its events share one id.
    pub async fn run_turn_with_id(
        &mut self,
        turn_id: impl Into<String>,
        input: impl Into<TurnInput>,
    ) -> TurnOutcome {
        let turn_id = turn_id.into();
        let span = tracing::info_span!(
            "turn",
            session = %self.emitter.sequencer().session_id(),
            conversation = %self.conversation_id,
            turn = %turn_id,
        );
        self.turn(turn_id, input.into()).instrument(span).await
    }

    /// Runs one turn for `input` and yields every event it emits, in order, none lost; the
    /// stream ends after `agent.end`. The outcome is then in [`AgentSession::last_outcome`].
    /// Dropping the stream abandons the turn (the next turn repairs the conversation).
    pub fn run(
        &mut self,
        input: impl Into<TurnInput>,
    ) -> impl Stream<Item = Arc<Event>> + Send + '_ {
        self.run_with_id(new_turn_id(), input)
    }

    /// [`AgentSession::run`] for a turn whose events carry `turn_id` (see
    /// [`AgentSession::run_turn_with_id`]).
    pub fn run_with_id(
        &mut self,
        turn_id: impl Into<String>,
        input: impl Into<TurnInput>,
    ) -> impl Stream<Item = Arc<Event>> + Send + '_ {
        let turn_id = turn_id.into();
        let input = input.into();
        let (tx, mut rx) = unbounded_channel();
        self.changes.forward(Some(tx));
        let changes = self.changes.clone();
        let mut turn: Option<Pin<Box<dyn Future<Output = ()> + Send + '_>>> =
            Some(Box::pin(async move {
                self.run_turn_with_id(turn_id, input).await;
                changes.forward(None);
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

    /// A turn: opened, prepared (model, repo map, input), driven, closed.
    async fn turn(&mut self, turn_id: String, input: TurnInput) -> TurnOutcome {
        let TurnInput {
            text: input,
            images,
        } = input;
        let cancel = self.cancel.clone();
        let marked = match &self.tools.checkpoints {
            Some(store) => super::turn_mark::mark_turn(
                store,
                &self.emitter,
                &turn_id,
                &self.conversation_id,
                &self.context.conversation,
            ),
            None => Ok(()),
        };
        self.open_turn(turn_id, &input, &images);
        if let Err(message) = marked {
            self.emitter.emit(SystemLog {
                level: LogLevel::Warn,
                message,
                metadata: None,
            });
        }
        self.config.models.announce(&self.emitter);
        let model = self.config.models.current();
        if !images.is_empty() && !crate::vision::accepts_images(model, self.config.vision) {
            // Refused before anything is sent: never a request without the images.
            let refusal = crate::vision::refusal(model, images.len());
            let state = TurnState::new(cancel, ResponseMode::Direct, self.config.anomalies);
            return self.close_turn(Ending::new(AgentStatus::Failed, refusal), &state, input);
        }
        self.prepare_turn_context(&input).await;
        let task = input.clone();
        self.focus_task_files(&input).await;
        self.context.turn_focus = self.context.focused.clone();
        self.context.turn_notes.clear();
        self.note_task_excerpts(&input).await;
        super::history_limit::fold_history(
            &mut self.context,
            self.config.max_history_messages,
            keel_context::TokenCounter::for_model(self.config.models.current()),
            &self.emitter,
        )
        .await;
        let blocked = self.prompt_hooks(&input).await;
        let turn_start = self.context.conversation.len();
        if blocked.is_none() {
            self.context
                .conversation
                .push_user_with_images(input, images);
        }

        let mode = match self.config.mode {
            Mode::Plan => ResponseMode::Plan,
            Mode::Auto | Mode::Direct => ResponseMode::Direct,
        };
        let mut state = TurnState::new(cancel.clone(), mode, self.config.anomalies);
        // Auto mode: the model's first answer says whether it plans (see `tool_loop`).
        if self.config.mode != Mode::Auto {
            state.response.announce(&self.emitter, mode);
        }
        state.asks_for_change = super::task_intent::asks_for_change(&task);
        state.only_asks = super::task_intent::only_asks(&task);
        state.keeps_tests = super::task_intent::keeps_tests(&task);
        state.task = task.clone();
        state.turn_start = turn_start;
        if state.asks_for_change {
            state.stamps = Some(super::stamps::Stamps::take(&self.config.root));
        }
        if let Some(reason) = blocked {
            return self.close_turn(Ending::new(AgentStatus::Failed, reason), &state, task);
        }
        if self.config.shadow
            && let Err(result) = super::shadow::prepare(&mut self.config, &self.emitter)
        {
            return self.close_turn(Ending::new(AgentStatus::Failed, result), &state, task);
        }
        let mut run = TurnRun {
            config: &mut self.config,
            emitter: &self.emitter,
            model: &mut self.model,
            tools: &mut self.tools,
            context: &mut self.context,
            changes: &self.changes,
            state,
        };
        let ending = run.drive().await;
        let state = run.state;
        if self.config.shadow {
            super::shadow::announce(&self.config, &self.emitter, &self.changes);
        }
        let outcome = self.close_turn(ending, &state, task);
        if cancel.is_cancelled() {
            self.cancel = CancellationToken::new();
        }
        outcome
    }

    /// Starts turn `turn_id`: `agent.start`, and on the session's first turn
    /// `prepare.conversation.open` (+ `prepare.history.load`).
    /// The turn's context before its first call, for a new turn and a continued one alike:
    /// the repo map for `input`, the environment and project instructions.
    pub(super) async fn prepare_turn_context(&mut self, input: &str) {
        self.repo_map
            .prepare(
                &self.config.repo_map,
                &self.config.root,
                &self.emitter,
                &mut self.context,
                input,
            )
            .await;
        super::skills::report(&std::mem::take(&mut self.skill_warnings), &self.emitter);
        super::skills::report(&std::mem::take(&mut self.agent_warnings), &self.emitter);
        super::hooks::report(std::mem::take(&mut self.hook_logs), &self.emitter);
        self.context.turn_prompt.start_turn(
            &self.config.root,
            self.config.test_command.as_deref(),
            &self.config.instructions,
            keel_context::TokenCounter::for_model(self.config.models.current()),
            &self.emitter,
        );
    }

    /// The `SessionStart` hooks (the session's first turn here) and the `UserPromptSubmit`
    /// hooks of `input`: what they add joins the turn's notes; a prompt hook that blocks
    /// gives the reason the turn ends with (the prompt is not kept).
    async fn prompt_hooks(&mut self, input: &str) -> Option<String> {
        use keel_extensions::HookEvent;
        let hooks = self.tools.hooks.clone();
        if hooks.is_empty() {
            return None;
        }
        let env = super::tool_call::ToolEnv::new(&self.config, &self.emitter, &self.cancel);
        let runner = self.tools.hook_runner(env);
        let mut notes = Vec::new();
        if self.turns == 1 && hooks.has(HookEvent::SessionStart) {
            let source = if self.resumed { "resume" } else { "startup" };
            let outcome = runner
                .run(
                    HookEvent::SessionStart,
                    super::hooks::call_with(Some(source), &[("source", source.into())]),
                )
                .await;
            notes.extend(outcome.additional_context);
        }
        let mut blocked = None;
        if hooks.has(HookEvent::UserPromptSubmit) {
            let outcome = runner
                .run(
                    HookEvent::UserPromptSubmit,
                    super::hooks::call_with(None, &[("prompt", input.into())]),
                )
                .await;
            if super::hooks::blocks(&outcome) {
                blocked = Some(format!(
                    "a UserPromptSubmit hook blocked the prompt: {}",
                    super::hooks::block_reason(HookEvent::UserPromptSubmit, &outcome)
                ));
            }
            notes.extend(outcome.additional_context);
        }
        for note in notes {
            self.context
                .turn_notes
                .push(format!("Context from hooks:\n{note}"));
        }
        blocked
    }

    fn open_turn(&mut self, turn_id: String, input: &str, images: &[keel_protocol::Image]) {
        self.turns += 1;
        self.emitter.set_turn(Some(turn_id));
        self.changes.clear();
        self.emitter.emit(AgentStart {
            agent_name: self.config.agent_name.clone(),
            task_input: input.to_owned(),
            mode_hint: Some(self.config.mode.hint()),
            images: (!images.is_empty())
                .then(|| images.iter().map(keel_protocol::Image::info).collect()),
        });
        if self.turns == 1 {
            self.open_conversation();
        }
    }

    /// `prepare.conversation.open`, and `prepare.history.load` when resuming a non-empty one.
    fn open_conversation(&self) {
        let resume = self.resumed;
        self.emitter.emit(PrepareConversationOpen {
            conversation_id: self.conversation_id.clone(),
            action: if resume {
                ConversationAction::Resume
            } else {
                ConversationAction::New
            },
        });
        let conversation = &self.context.conversation;
        if resume && !conversation.is_empty() {
            let users = conversation
                .messages()
                .iter()
                .filter(|m| m.is_user())
                .count() as u64;
            self.emitter.emit(PrepareHistoryLoad {
                start_turn: users + 1,
                action_history_len: conversation.len() as u64,
                pending_tool_count: conversation.pending_calls().len() as u64,
            });
        }
    }

    /// With the compact tool profile, focuses the files `input` is about before the model is
    /// asked (see [`super::auto_focus`]).
    async fn focus_task_files(&mut self, input: &str) {
        let model = self.config.models.current().to_owned();
        let window = self
            .model
            .window(
                &model,
                self.config.context_window,
                &self.cancel,
                &self.emitter,
            )
            .await;
        if !self.config.tool_profile.compact_for(window) {
            return;
        }
        let Some(map) = self.repo_map.map() else {
            return;
        };
        let counter = keel_context::TokenCounter::for_model(&model);
        let files = super::auto_focus::task_files(map, &self.config.root, input, counter);
        if files.is_empty() {
            return;
        }
        let names: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
        self.emitter.emit(SystemLog {
            level: LogLevel::Info,
            message: format!("focused the files the task is about: {}", names.join(", ")),
            metadata: None,
        });
        for (path, content) in files {
            self.context.focused.upsert(path, content, false);
        }
    }

    /// With the compact tool profile, the definitions `input` names that live in files too
    /// large to focus, as an excerpt section of the turn's context.
    async fn note_task_excerpts(&mut self, input: &str) {
        let model = self.config.models.current().to_owned();
        let window = self
            .model
            .window(
                &model,
                self.config.context_window,
                &self.cancel,
                &self.emitter,
            )
            .await;
        if !self.config.tool_profile.compact_for(window) {
            return;
        }
        let Some(map) = self.repo_map.map() else {
            return;
        };
        let shown: Vec<String> = self
            .context
            .turn_focus
            .iter()
            .map(|f| f.path().to_owned())
            .collect();
        let counter = keel_context::TokenCounter::for_model(&model);
        let question = super::task_intent::only_asks(input);
        if let Some(excerpts) = super::auto_focus::task_excerpts(
            map,
            &self.config.root,
            input,
            question,
            &shown,
            counter,
        ) {
            self.context.turn_notes.push(excerpts);
        }
    }

    fn close_turn(&mut self, ending: Ending, state: &TurnState, task: String) -> TurnOutcome {
        let unanswered = self.context.conversation.pending_calls().len();
        if unanswered > 0 {
            tracing::debug!(unanswered, "closing tool calls left without a result");
        }
        self.context.conversation.close_pending();
        self.context.focused.release_all();
        if !state.response.open {
            // No answer came (the model failed, or the turn stopped before it answered).
            self.emitter.emit(RunResponseStart {
                mode: state.response.mode,
            });
        }
        self.emitter.emit(RunResponseEnd {
            mode: state.response.mode,
        });
        let outcome = TurnOutcome {
            status: ending.status,
            result: ending.result,
            files_changed: self.changes.since(0),
            usage: state.usage,
            mode: state.response.mode,
            iterations: state.iterations,
            warning: ending.warning,
        };
        tracing::info!(status = ?outcome.status, iterations = outcome.iterations, "turn ended");
        self.emitter.emit(AgentEnd {
            status: outcome.status,
            result: outcome.result.clone(),
            files_changed: outcome.files_changed.clone(),
            usage: outcome.usage,
            warning: outcome.warning.clone(),
        });
        self.emitter.set_turn(None);
        keep_note(
            &mut self.notes,
            TurnNote {
                task,
                status: outcome.status,
                files_changed: outcome.files_changed.clone(),
                result: outcome.result.clone(),
            },
        );
        self.last_outcome = Some(outcome.clone());
        outcome
    }

    /// Distils the decisions of the turns that changed files since the last call (at most the
    /// latest five) into the project's memory with one model call, between turns: see
    /// [`Distillation`] for what can happen. Front ends call it where a session ends (`keel
    /// run`, leaving `keel chat`) or, on the server, after each turn; its events
    /// (`run.usage.report`, `run.memory.update`, or a `system.log` warning) belong to no turn.
    /// Cancelled with the session's [`cancel_handle`](Self::cancel_handle).
    pub async fn distill_memory(&mut self) -> Distillation {
        let notes = std::mem::take(&mut self.notes);
        let distiller = Distiller {
            config: &mut self.config,
            emitter: &self.emitter,
            model: &mut self.model,
            context: &mut self.context,
            cancel: &self.cancel,
        };
        let span = tracing::info_span!("distill_memory", turns = notes.len());
        let result = distiller.run(notes).instrument(span).await;
        if self.cancel.is_cancelled() {
            self.cancel = CancellationToken::new();
        }
        result
    }
}

/// A fresh turn id, `turn_<uuid v7>`, as [`AgentSession::run_turn`] stamps on its events.
pub fn new_turn_id() -> String {
    format!("turn_{}", uuid::Uuid::now_v7().simple())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Mutex;

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

    /// Records the names and fields of the spans opened (a minimal `tracing` subscriber).
    #[derive(Clone, Default)]
    struct Spans(Arc<Mutex<Vec<String>>>);

    impl tracing::Subscriber for Spans {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            struct Fields<'a>(&'a mut String);
            impl tracing::field::Visit for Fields<'_> {
                fn record_debug(
                    &mut self,
                    field: &tracing::field::Field,
                    value: &dyn std::fmt::Debug,
                ) {
                    self.0.push_str(&format!(" {}={value:?}", field.name()));
                }
            }
            let mut line = span.metadata().name().to_owned();
            span.record(&mut Fields(&mut line));
            let mut spans = self.0.lock().unwrap();
            spans.push(line);
            tracing::span::Id::from_u64(spans.len() as u64)
        }

        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

        fn event(&self, _: &tracing::Event<'_>) {}

        fn enter(&self, _: &tracing::span::Id) {}

        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[tokio::test(flavor = "current_thread")]
    async fn turns_model_calls_and_tool_calls_open_spans() {
        let dir = tempfile::tempdir().unwrap();
        let mut agent = session(dir.path());
        let spans = Spans::default();
        // While one dispatcher is registered, tracing-core judges a callsite first reached on
        // another thread (another test running a turn) by that thread's default — none — and
        // caches "never" for every thread. A second live dispatcher turns that shortcut off.
        let _second = tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default());
        let _guard = tracing::subscriber::set_default(spans.clone());

        agent.run_turn_with_id("turn_traced", "finish").await;
        let spans = spans.0.lock().unwrap().clone();
        let find = |name: &str| {
            spans
                .iter()
                .find(|s| s.split(' ').next() == Some(name))
                .cloned()
                .unwrap_or_default()
        };
        let turn = find("turn");
        assert!(turn.contains("session=s"), "{spans:?}");
        assert!(turn.contains("turn=turn_traced"), "{spans:?}");
        assert!(
            find("model_call").contains("model=scripted-model"),
            "{spans:?}"
        );
        assert!(find("attempt").contains("attempt=1"), "{spans:?}");
        let tool = find("tool_call");
        assert!(tool.contains("tool=attempt_completion"), "{spans:?}");
        assert!(tool.contains("call_id=c1"), "{spans:?}");
    }
}
