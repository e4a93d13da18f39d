//! The tool-call part of a turn: the tools offered to the model, and running one call of a
//! response — `run.tool.start`, the tool (or the session's own handling of a control tool),
//! its result into the context, `run.tool.end`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use keel_context::TokenCounter;
use keel_events::{
    Emitter, RunCompletionAttempt, RunPlanRespond, RunQuestionAnswer, RunQuestionAsk, RunToolEnd,
    RunToolStart, StatusKind, SystemStatus, ToolStatus,
};
use keel_extensions::{Decision, HookEvent};
use keel_protocol::{ApprovalPolicy, Approver, ToolResult};
use keel_tools::hooks::HookRunner;
use keel_tools::{CheckpointStore, ToolContext, ToolRegistry, ToolSource};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::config::{AgentConfig, ToolFormat};
use super::control_tools::{
    ASK_FOLLOWUP_QUESTION, ATTEMPT_COMPLETION, AskFollowupQuestionArgs, AttemptCompletionArgs,
    CREATE_PLAN, CreatePlanArgs, PLAN_MODE_RESPOND, PlanModeRespondArgs, is_control_tool,
    parse_args,
};
use super::model_context::ModelContext;
use super::summary::{args_summary, result_summary, result_text};
use super::turn_state::{LoopEnd, PendingPlan};
use crate::assemble::{ArgumentsStatus, AssembledToolCall};
use keel_protocol::Mode;
use keel_protocol::{CANNOT_ANSWER, Question, QuestionAnswerer, QuestionKind};

/// The result of a question nobody can answer (the front end is non-interactive).
const NO_ONE_TO_ASK: &str = "No one can answer: this session is non-interactive. Go on with \
your best judgement and say in your final answer which assumption you made, or end the turn \
saying what you need from the user.";

/// How long a cancelled tool gets to stop on its own before it is abandoned.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The tool definitions offered to the model, and their tokens as a request sends them.
#[derive(Debug)]
pub(crate) struct Functions {
    /// OpenAI function definitions.
    pub(crate) definitions: Vec<serde_json::Value>,
    pub(crate) tokens: usize,
}

/// Which planning tools are offered besides the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offer {
    /// `create_plan`.
    pub(crate) planning: bool,
    /// `plan_mode_respond`.
    pub(crate) respond: bool,
    /// Native tool calls: tools offered only natively (one per MCP server tool) are left out
    /// of the XML format.
    pub(crate) native: bool,
    /// The compact profile ([`super::config::ToolProfile::Compact`]): the core tools' compact
    /// definitions, and the tools of the source (MCP servers) whole.
    pub(crate) compact: bool,
    /// The task only asks a question: the compact profile offers only the tools that look
    /// (a small model otherwise "fixes" what it was asked about).
    pub(crate) look_only: bool,
    /// The compact profile on a task whose files are shown: the model writes the files to
    /// change whole in its answer, or answers the question from what it sees, and no tool is
    /// offered (with tools in the prompt, small models write broken calls instead of code).
    pub(crate) no_tools: bool,
}

/// The core tools that only look.
const LOOKING_TOOLS: [&str; 3] = ["read_file", "list_files", "search_files"];

/// The session's tools and the people they may ask: the registry, the checkpoint store, the
/// approver and the answerer.
pub(crate) struct Toolbox {
    /// The tools offered now: `base`, the source's current tools and the control tools.
    tools: ToolRegistry,
    /// The session's own tools, before any from `source`.
    base: ToolRegistry,
    /// Tools that come and go (MCP servers), and the generation last offered.
    source: Option<(Arc<dyn ToolSource>, u64)>,
    /// The names of the source's tools now offered.
    source_names: Vec<&'static str>,
    /// Definitions built so far, by what was offered and the encoding counted in (emptied
    /// when the tools change).
    functions: Vec<((Offer, keel_context::Encoding), Functions)>,
    /// The `skill` tool, when the session has skills.
    skill: Option<keel_tools::builtin::Skill>,
    /// The only tools of `base` and `source` offered (a custom command's `allowed-tools`).
    allowed: Option<Vec<String>>,
    /// The only commands `execute_command` runs (its `Bash(pattern)` entries).
    command_patterns: Option<Vec<String>>,
    pub(crate) checkpoints: Option<Arc<CheckpointStore>>,
    pub(crate) approver: Arc<dyn Approver>,
    pub(crate) answerer: Arc<dyn QuestionAnswerer>,
    /// The session's hooks ([`super::hooks`]).
    pub(crate) hooks: Arc<keel_extensions::Hooks>,
    /// The kinds of subagent `task` may start (`None`: subagents are off).
    pub(crate) roster: Option<super::subagent::SharedRoster>,
    /// How deep this agent runs: 0 for the top agent, 1 for its children, ….
    pub(crate) depth: u32,
    /// The session's language servers: diagnostics after edits and the `diagnostics` tool.
    lsp: Option<keel_lsp::LspManager>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("approver", &self.approver)
            .field("answerer", &self.answerer)
            .finish_non_exhaustive()
    }
}

/// Where the tools of a turn run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolEnv<'a> {
    /// The workspace root.
    pub(crate) root: &'a Path,
    pub(crate) approval: ApprovalPolicy,
    pub(crate) sandbox: &'a keel_tools::process::CommandSandbox,
    pub(crate) rules: &'a Arc<keel_tools::RuleSet>,
    pub(crate) approval_edits: keel_protocol::EditApproval,
    pub(crate) emitter: &'a Emitter,
    pub(crate) cancel: &'a CancellationToken,
    /// Whether `root` is the session's shadow copy.
    pub(crate) shadowed: bool,
    /// The language of the words the seeds fix.
    pub(crate) lang: keel_events::Lang,
    /// Whether the current model accepts images (`read_file` attaches them).
    pub(crate) vision: bool,
}

impl<'a> ToolEnv<'a> {
    /// The tools' environment under `config`, reporting to `emitter`, cancelled by `cancel`.
    pub(crate) fn new(
        config: &'a AgentConfig,
        emitter: &'a Emitter,
        cancel: &'a CancellationToken,
    ) -> Self {
        let (root, sandbox) = match &config.shadow_env {
            Some(shadow) => (shadow.tree.as_path(), &shadow.sandbox),
            None => (config.root.as_path(), &config.sandbox),
        };
        Self {
            root,
            approval: config.approval,
            sandbox,
            rules: &config.rules,
            approval_edits: config.approval_edits,
            emitter,
            cancel,
            shadowed: config.shadow_env.is_some(),
            lang: config.lang,
            vision: crate::vision::accepts_images(config.models.current(), config.vision),
        }
    }
}

/// What one call of a response runs under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallScope<'a> {
    pub(crate) env: ToolEnv<'a>,
    pub(crate) mode: Mode,
    pub(crate) tool_format: ToolFormat,
    /// The plan step the call belongs to.
    pub(crate) step: Option<u32>,
    /// Whether a plan is being executed.
    pub(crate) plan_running: bool,
    /// The compact tool profile is offered: a `write_file` that would cut most of an existing
    /// file is refused ([`super::whole_file::cuts_most_of`]).
    pub(crate) compact: bool,
}

/// How running one call went.
#[derive(Debug)]
pub(crate) enum Ran {
    /// The call ran (or was refused); its result is recorded and `run.tool.end` emitted.
    Finished(Box<FinishedCall>),
    /// `create_plan` made a plan; its result waits until the plan is approved or rejected.
    Plan(PendingPlan),
}

/// A call whose result is recorded.
#[derive(Debug)]
pub(crate) struct FinishedCall {
    /// The arguments as run.
    pub(crate) arguments: serde_json::Value,
    pub(crate) result: ToolResult,
    pub(crate) status: ToolStatus,
    /// Why the loop ends after this call, if it does.
    pub(crate) end: Option<LoopEnd>,
    /// For an edit the language servers checked: the errors now in each file it changed.
    pub(crate) edit_errors: Vec<(String, Vec<String>)>,
}

/// What handling a call gave, before its result is recorded.
pub(crate) enum Handled {
    Result(ToolResult, ToolStatus, Option<LoopEnd>),
    Plan(PendingPlan),
}

/// A call begun ([`Toolbox::begin`]): its arguments as they will run, and whether its
/// `PreToolUse` hooks refused it.
pub(crate) struct Begun {
    pub(crate) arguments: serde_json::Value,
    pub(crate) started: Instant,
    mcp_server: Option<String>,
    hooked: bool,
    /// The result of a call the hooks refused.
    pub(crate) refused: Option<ToolResult>,
}

/// What a call's `PreToolUse` hooks said.
enum Gate {
    /// Run it, with these arguments when the hooks rewrote them.
    Run(Option<serde_json::Value>),
    /// Do not: this is its result.
    Refuse(ToolResult),
}

impl From<(ToolResult, ToolStatus)> for Handled {
    fn from((result, status): (ToolResult, ToolStatus)) -> Self {
        Self::Result(result, status, None)
    }
}

impl Toolbox {
    /// `tools` plus the control tools, asking nobody ([`keel_protocol::CannotAsk`],
    /// [`keel_protocol::CannotAnswer`]) and recording changes in `checkpoints`.
    pub(crate) fn new(tools: ToolRegistry, checkpoints: Option<Arc<CheckpointStore>>) -> Self {
        Self {
            tools: with_control_tools(tools.clone(), None, None),
            base: tools,
            skill: None,
            allowed: None,
            command_patterns: None,
            source: None,
            source_names: Vec::new(),
            functions: Vec::new(),
            checkpoints,
            approver: Arc::new(keel_protocol::CannotAsk),
            answerer: Arc::new(keel_protocol::CannotAnswer),
            hooks: Arc::default(),
            roster: None,
            depth: 0,
            lsp: None,
        }
    }

    /// Asks `lsp` about each successful edit and offers its `diagnostics` tool.
    pub(crate) fn set_lsp(&mut self, lsp: keel_lsp::LspManager) {
        self.lsp = Some(lsp);
        self.rebuild();
    }

    /// Offers `task` over `roster`'s kinds (while this agent's depth is under the limit).
    pub(crate) fn set_roster(&mut self, roster: Option<super::subagent::SharedRoster>) {
        self.roster = roster;
        self.rebuild();
    }

    /// The toolbox of a child at `depth`: this one's tools (only `allowed` among them, when
    /// given), source, checkpoints, approver, answerer, hooks and roster.
    pub(crate) fn for_child(&self, allowed: Option<Vec<String>>, depth: u32) -> Toolbox {
        let mut child = Toolbox::new(self.base.clone(), self.checkpoints.clone());
        child.skill = self.skill.clone();
        child.source = self.source.as_ref().map(|(source, _)| (source.clone(), 0));
        child.approver = self.approver.clone();
        child.answerer = self.answerer.clone();
        child.hooks = self.hooks.clone();
        child.roster = self.roster.clone();
        child.lsp = self.lsp.clone();
        child.depth = depth;
        child.set_allowed(allowed);
        child
    }

    /// Whether `task` is offered: there is a roster and this agent is above the depth limit.
    fn offers_task(&self) -> bool {
        self.roster
            .as_ref()
            .is_some_and(|roster| self.depth < roster.settings.max_depth)
    }

    /// The tools offered to the model.
    pub(crate) fn registry(&self) -> &ToolRegistry {
        &self.tools
    }

    /// Offers `tools` (the control tools are added to them) instead.
    pub(crate) fn set_tools(&mut self, tools: ToolRegistry) {
        self.base = tools;
        self.rebuild();
    }

    /// Offers the `skill` tool over `skills` when there is at least one.
    pub(crate) fn set_skills(&mut self, skills: Arc<keel_extensions::Skills>) {
        self.skill = (!skills.is_empty()).then(|| keel_tools::builtin::Skill::new(skills));
        self.rebuild();
    }

    /// Offers only the tools of `allowed` (Keel's names) besides the session's own, or every
    /// tool again (`None`). Returns the names no tool has.
    pub(crate) fn set_allowed(&mut self, allowed: Option<Vec<String>>) -> Vec<String> {
        self.allowed = allowed;
        self.rebuild();
        match &self.allowed {
            Some(names) => names
                .iter()
                .filter(|name| self.tools.get(name).is_none())
                .cloned()
                .collect(),
            None => Vec::new(),
        }
    }

    /// Lets `execute_command` run only commands one of `patterns` allows (see
    /// keel-extensions' `command_matches`), or any command (`None`).
    pub(crate) fn set_command_patterns(&mut self, patterns: Option<Vec<String>>) {
        self.command_patterns = patterns;
    }

    /// The refusal of a command no pattern of [`Self::set_command_patterns`] allows.
    fn command_refusal(&self, tool: &str, arguments: &serde_json::Value) -> Option<ToolResult> {
        let patterns = self.command_patterns.as_ref()?;
        if tool != "execute_command" {
            return None;
        }
        let command = arguments.get("command")?.as_str()?;
        if patterns
            .iter()
            .any(|p| keel_extensions::command_matches(p, command))
        {
            return None;
        }
        let allowed: Vec<String> = patterns.iter().map(|p| format!("`{p}`")).collect();
        Some(ToolResult::error(format!(
            "not run: this turn's allowed-tools let execute_command run only {}; `{command}` is not one of them",
            allowed.join(", ")
        )))
    }

    /// Also offers the tools of `source`, as they are before each model call.
    pub(crate) fn set_source(&mut self, source: Arc<dyn ToolSource>) {
        self.source = Some((source, 0));
        self.rebuild();
    }

    /// Offers the source's tools again if they changed since they were last offered.
    pub(crate) fn refresh(&mut self) {
        if let Some((source, seen)) = &self.source
            && source.generation() != *seen
        {
            self.rebuild();
        }
    }

    fn rebuild(&mut self) {
        let only = self.allowed.clone();
        let allowed = |name: &str| {
            only.as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
        };
        let mut tools = match &only {
            None => self.base.clone(),
            Some(_) => {
                let mut tools = ToolRegistry::new();
                for tool in self.base.tools().filter(|t| allowed(t.name())) {
                    tools.register_arc(tool.clone());
                }
                tools
            }
        };
        self.source_names.clear();
        if let Some((source, seen)) = &mut self.source {
            *seen = source.generation();
            for tool in source.tools() {
                // The session's own tools keep their names.
                if tools.get(tool.name()).is_none() && allowed(tool.name()) {
                    self.source_names.push(tool.name());
                    tools.register_arc(tool);
                }
            }
        }
        let mut tools = with_control_tools(tools, self.skill.as_ref(), self.lsp.as_ref());
        if self.offers_task()
            && allowed(super::subagent::TASK)
            && let Some(roster) = &self.roster
        {
            tools.register(super::subagent::TaskTool::new(roster));
        }
        self.tools = tools;
        self.functions.clear();
    }

    /// The function definitions offered with `offer`, counted with `counter` (built once per
    /// offer and encoding).
    pub(crate) fn functions(&mut self, offer: Offer, counter: TokenCounter) -> &Functions {
        self.refresh();
        let key = (offer, counter.encoding());
        let index = match self.functions.iter().position(|(k, _)| *k == key) {
            Some(index) => index,
            None => {
                let definitions = self.definitions(offer);
                let tokens =
                    counter.count(&serde_json::Value::Array(definitions.clone()).to_string());
                self.functions.push((
                    key,
                    Functions {
                        definitions,
                        tokens,
                    },
                ));
                self.functions.len() - 1
            }
        };
        &self.functions[index].1
    }

    fn definitions(&self, offer: Offer) -> Vec<serde_json::Value> {
        if offer.compact {
            return self.compact_definitions(offer);
        }
        self.tools
            .openai_functions()
            .into_iter()
            .filter(|f| match f["function"]["name"].as_str() {
                Some(CREATE_PLAN) => offer.planning,
                Some(PLAN_MODE_RESPOND) => offer.respond,
                Some(name) => self
                    .tools
                    .get(name)
                    .is_none_or(|tool| tool.usable() && (offer.native || !tool.native_only())),
                None => true,
            })
            .collect()
    }

    /// The compact profile's definitions: the session's own tools that have a compact form,
    /// then the source's tools (configured MCP servers) whole.
    fn compact_definitions(&self, offer: Offer) -> Vec<serde_json::Value> {
        let mut definitions = Vec::new();
        if offer.no_tools {
            return definitions;
        }
        for name in self.tools.names() {
            let Some(tool) = self.tools.get(name) else {
                continue;
            };
            if !tool.usable() {
                continue;
            }
            let planning = match name {
                CREATE_PLAN => offer.planning,
                PLAN_MODE_RESPOND => offer.respond,
                _ => false,
            };
            if let Some(compact) = keel_tools::compact::compact_function(tool.as_ref()) {
                if !offer.look_only || LOOKING_TOOLS.contains(&name) {
                    definitions.push(compact);
                }
            } else if planning
                || (self.source_names.contains(&name) && (offer.native || !tool.native_only()))
            {
                definitions.push(serde_json::json!({
                    "type": "function",
                    "function": {
                        "name": tool.name(),
                        "description": tool.description(),
                        "parameters": tool.parameters(),
                    }
                }));
            }
        }
        definitions
    }

    /// A context for call `call_id` (of plan step `step`) in `env`.
    pub(crate) fn tool_context(
        &self,
        env: ToolEnv<'_>,
        call_id: &str,
        step: Option<u32>,
    ) -> ToolContext {
        let approver: Arc<dyn Approver> = if self.hooks.has(HookEvent::Notification) {
            Arc::new(super::hooks::NotifyingApprover {
                inner: self.approver.clone(),
                hooks: self.hooks.clone(),
                root: env.root.to_path_buf(),
                sandbox: env.sandbox.clone(),
                emitter: env.emitter.clone(),
                cancel: env.cancel.clone(),
                permission_mode: env.approval.as_str(),
            })
        } else {
            self.approver.clone()
        };
        let mut ctx = ToolContext::new(env.root.to_path_buf(), env.emitter.clone())
            .with_approval(env.approval, approver)
            .with_sandbox(env.sandbox.clone())
            .with_rules(env.rules.clone())
            .with_edit_approval(env.approval_edits)
            .with_lang(env.lang)
            .with_vision(env.vision);
        if let Some(store) = &self.checkpoints {
            ctx = ctx.with_checkpoints(store.clone());
        }
        if let Some(mcp) = self.source.as_ref().and_then(|(s, _)| s.mcp_calls()) {
            ctx = ctx.with_mcp(mcp);
        }
        if env.shadowed {
            ctx = ctx.in_shadow(env.root);
        }
        ctx.call_id = call_id.to_owned();
        ctx.step_id = step;
        ctx.cancel = env.cancel.clone();
        ctx
    }

    /// Runs one call of a response: `run.tool.start`, the tool (or the session's own handling
    /// of a control tool), the result into `context` (conversation and focused files),
    /// `run.tool.end`.
    pub(crate) async fn run_call(
        &self,
        scope: CallScope<'_>,
        context: &mut ModelContext,
        call: &AssembledToolCall,
    ) -> Ran {
        let span = tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id);
        async move {
            let mut begun = self.begin(scope, call).await;
            let handled = match begun.refused.take() {
                Some(result) => (result, ToolStatus::Denied).into(),
                None => {
                    self.handle(scope, call, &begun.arguments, begun.started)
                        .await
                }
            };
            self.finish(scope, context, call, begun, handled).await
        }
        .instrument(span)
        .await
    }

    /// Begins a call: `run.tool.start`, then its `PreToolUse` hooks.
    pub(crate) async fn begin(&self, scope: CallScope<'_>, call: &AssembledToolCall) -> Begun {
        let arguments = call.to_event().arguments;
        let mcp_server = self
            .tools
            .get(&call.name)
            .and_then(|tool| tool.mcp_server(&arguments));
        scope.env.emitter.emit(RunToolStart {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments: arguments.clone(),
            step_id: scope.step,
            mcp_server: mcp_server.clone(),
        });
        let started = Instant::now();
        let hooked = call.is_complete() && !is_control_tool(&call.name);
        let mut begun = Begun {
            arguments,
            started,
            mcp_server,
            hooked,
            refused: None,
        };
        if hooked {
            match self.pre_tool_use(scope, call, &begun.arguments).await {
                Gate::Refuse(result) => begun.refused = Some(result),
                Gate::Run(Some(rewritten)) => begun.arguments = rewritten,
                Gate::Run(None) => {}
            }
        }
        if begun.refused.is_none() {
            begun.refused = self.command_refusal(&call.name, &begun.arguments);
        }
        begun
    }

    /// Ends a call that was handled: its `PostToolUse` hooks, the result into `context`,
    /// `run.tool.end`.
    pub(crate) async fn finish(
        &self,
        scope: CallScope<'_>,
        context: &mut ModelContext,
        call: &AssembledToolCall,
        begun: Begun,
        handled: Handled,
    ) -> Ran {
        let Begun {
            arguments,
            started,
            mcp_server,
            hooked,
            ..
        } = begun;
        let (mut result, status, mut end) = match handled {
            Handled::Result(result, status, end) => (result, status, end),
            Handled::Plan(pending) => return Ran::Plan(pending),
        };
        if status == ToolStatus::Cancelled {
            end = Some(LoopEnd::Cancelled);
        }
        if hooked && matches!(status, ToolStatus::Success | ToolStatus::Error) {
            self.post_tool_use(scope, call, &arguments, &mut result)
                .await;
        }
        let diagnostics = match &self.lsp {
            // A shadowed turn edits a copy the servers do not see.
            Some(lsp) if status == ToolStatus::Success && !scope.env.shadowed => {
                super::diagnostics::after_edit(
                    lsp,
                    scope.env.root,
                    &call.name,
                    &arguments,
                    &mut result,
                )
                .await
            }
            _ => None,
        };
        let edit_errors = diagnostics.as_ref().map_or_else(Vec::new, |d| {
            let edited = super::diagnostics::changed_paths(scope.env.root, &call.name, &arguments);
            super::diagnostics::errors_by_file(&edited, d)
        });
        let text = context.result_for_history(
            &call.name,
            &arguments,
            result.success,
            result_text(&result),
        );
        context.add_result(&call.id, text, result.success);
        context
            .images_to_attach
            .extend(result.images.iter().cloned());
        if status == ToolStatus::Success {
            context.follow_call(scope.env.root, &call.name, &arguments, scope.env.emitter);
        }
        ToolEnd {
            call_id: call.id.clone(),
            tool: &call.name,
            arguments: &arguments,
            result: &result,
            status,
            started,
            step: scope.step,
            mcp_server,
            diagnostics,
        }
        .emit(scope.env.emitter);
        Ran::Finished(Box::new(FinishedCall {
            arguments,
            result,
            status,
            end,
            edit_errors,
        }))
    }

    /// Runs the call: a refusal when its arguments cannot be used, the session's handling of
    /// a control tool, or the workspace tool.
    pub(crate) async fn handle(
        &self,
        scope: CallScope<'_>,
        call: &AssembledToolCall,
        arguments: &serde_json::Value,
        started: Instant,
    ) -> Handled {
        if !call.is_complete() {
            tracing::debug!(status = ?call.status, "tool call not run: its arguments are unusable");
            let message = incomplete_message(call, scope.tool_format);
            return (ToolResult::error(message), ToolStatus::Error).into();
        }
        match call.name.as_str() {
            ATTEMPT_COMPLETION => attempt_completion(scope.env.emitter, call, arguments),
            CREATE_PLAN => create_plan(scope, call, arguments, started),
            ASK_FOLLOWUP_QUESTION => {
                match parse_args::<AskFollowupQuestionArgs>(&call.name, arguments) {
                    Ok(args) => {
                        let question = Question {
                            id: call.id.clone(),
                            kind: QuestionKind::FollowUp,
                            text: args.question,
                            options: args.options,
                        };
                        scope.env.emitter.emit(RunQuestionAsk {
                            question_id: question.id.clone(),
                            question: question.text.clone(),
                            options: question.options.clone(),
                        });
                        self.wait_for_answer(scope.env, &question).await.into()
                    }
                    Err(e) => (ToolResult::error(e), ToolStatus::Error).into(),
                }
            }
            PLAN_MODE_RESPOND => match parse_args::<PlanModeRespondArgs>(&call.name, arguments) {
                Ok(args) => {
                    let question = Question {
                        id: call.id.clone(),
                        kind: QuestionKind::PlanResponse,
                        text: args.response,
                        options: args.options,
                    };
                    scope.env.emitter.emit(RunPlanRespond {
                        response: question.text.clone(),
                        options: question.options.clone(),
                        question_id: question.id.clone(),
                    });
                    self.wait_for_answer(scope.env, &question).await.into()
                }
                Err(e) => (ToolResult::error(e), ToolStatus::Error).into(),
            },
            "write_file" | "write_to_file" if scope.compact => {
                match super::whole_file::cuts_most_of(scope.env.root, arguments) {
                    Some(refusal) => (ToolResult::error(refusal), ToolStatus::Error).into(),
                    None => self.run_tool(scope, call, arguments).await.into(),
                }
            }
            _ => self.run_tool(scope, call, arguments).await.into(),
        }
    }

    /// Asks the answerer, unless the turn is cancelled first. A front end that cannot ask
    /// anyone ([`CANNOT_ANSWER`]) gives the model a result saying so, so that it decides for
    /// itself instead of taking the notice for the user's words.
    async fn wait_for_answer(
        &self,
        env: ToolEnv<'_>,
        question: &Question,
    ) -> (ToolResult, ToolStatus) {
        if self.hooks.has(HookEvent::Notification) {
            let message = format!("Keel is waiting for your answer: {}", question.text);
            self.hook_runner(env)
                .run(
                    HookEvent::Notification,
                    super::hooks::call_with(None, &[("message", message.into())]),
                )
                .await;
        }
        env.emitter.emit(SystemStatus::waiting(
            StatusKind::WaitingForAnswer,
            "waiting for the user's answer",
        ));
        let answer = tokio::select! {
            biased;
            () = env.cancel.cancelled() => None,
            answer = self.answerer.answer(question) => Some(answer),
        };
        match answer {
            Some(answer) => {
                env.emitter.emit(RunQuestionAnswer {
                    question_id: question.id.clone(),
                    answer: answer.clone(),
                });
                let text = if answer == CANNOT_ANSWER {
                    NO_ONE_TO_ASK.to_owned()
                } else {
                    format!("The user answered: {answer}")
                };
                (ToolResult::ok(text), ToolStatus::Success)
            }
            None => (
                ToolResult::error("The turn was cancelled while waiting for the user's answer."),
                ToolStatus::Cancelled,
            ),
        }
    }

    /// The hook runner for calls in `env`.
    pub(crate) fn hook_runner<'a>(&'a self, env: ToolEnv<'a>) -> HookRunner<'a> {
        HookRunner {
            hooks: &self.hooks,
            root: env.root,
            sandbox: env.sandbox,
            emitter: env.emitter,
            cancel: env.cancel,
            permission_mode: env.approval.as_str(),
        }
    }

    /// The `PreToolUse` hooks of a call: refused with their reason, put to the person when one
    /// asks, or run — with the arguments they rewrote, if any.
    async fn pre_tool_use(
        &self,
        scope: CallScope<'_>,
        call: &AssembledToolCall,
        arguments: &serde_json::Value,
    ) -> Gate {
        if !self.hooks.has(HookEvent::PreToolUse) {
            return Gate::Run(None);
        }
        let env = scope.env;
        let input = super::hooks::tool_call(env.root, &call.id, &call.name, arguments, None);
        let outcome = self
            .hook_runner(env)
            .run(HookEvent::PreToolUse, input)
            .await;
        let rewritten = outcome
            .updated_input
            .as_ref()
            .map(|updated| super::hooks::apply_updated_input(env.root, arguments, updated));
        match outcome.decision {
            Decision::Block => Gate::Refuse(ToolResult::error(format!(
                "Refused to run `{}`: a PreToolUse hook blocked it: {}",
                call.name,
                super::hooks::block_reason(HookEvent::PreToolUse, &outcome)
            ))),
            Decision::Ask => {
                let ctx = self.tool_context(env, &call.id, scope.step);
                let subject = format!("{}({})", call.name, rewritten.as_ref().unwrap_or(arguments));
                let reason = outcome
                    .reason
                    .clone()
                    .unwrap_or_else(|| "a PreToolUse hook asks for approval".to_owned());
                let reply = ctx
                    .request_approval(keel_events::ApprovalKind::Tool, subject, reason)
                    .await;
                if reply.decision == keel_events::ApprovalDecision::Reject {
                    Gate::Refuse(ToolResult::error(format!(
                        "The user denied the `{}` call{}.",
                        call.name,
                        reply
                            .reason
                            .filter(|r| !r.trim().is_empty())
                            .map_or_else(String::new, |r| format!(": {r}"))
                    )))
                } else {
                    Gate::Run(rewritten)
                }
            }
            Decision::Continue | Decision::Allow => Gate::Run(rewritten),
        }
    }

    /// The `PostToolUse` hooks of a call that ran: a blocking reason or added context goes
    /// into the result the model reads.
    async fn post_tool_use(
        &self,
        scope: CallScope<'_>,
        call: &AssembledToolCall,
        arguments: &serde_json::Value,
        result: &mut ToolResult,
    ) {
        if !self.hooks.has(HookEvent::PostToolUse) {
            return;
        }
        let env = scope.env;
        let response = serde_json::json!({
            "success": result.success,
            "message": result.message,
            "content": result.content,
        });
        let input =
            super::hooks::tool_call(env.root, &call.id, &call.name, arguments, Some(response));
        let outcome = self
            .hook_runner(env)
            .run(HookEvent::PostToolUse, input)
            .await;
        let mut notes = Vec::new();
        if super::hooks::blocks(&outcome) {
            notes.push(format!(
                "PostToolUse hook: {}",
                super::hooks::block_reason(HookEvent::PostToolUse, &outcome)
            ));
        }
        if let Some(context) = &outcome.additional_context {
            notes.push(format!("PostToolUse hook: {context}"));
        }
        if !notes.is_empty() {
            result.message = format!("{}\n\n{}", result.message, notes.join("\n"));
        }
    }

    /// Runs a workspace tool with the turn's cancellation.
    async fn run_tool(
        &self,
        scope: CallScope<'_>,
        call: &AssembledToolCall,
        arguments: &serde_json::Value,
    ) -> (ToolResult, ToolStatus) {
        debug_assert!(!is_control_tool(&call.name));
        let cancel = scope.env.cancel;
        let ctx = self.tool_context(scope.env, &call.id, scope.step);
        let future = self.tools.call(&ctx, &call.name, arguments.clone());
        tokio::pin!(future);
        let finished = tokio::select! {
            biased;
            result = &mut future => Some(result),
            () = cancel.cancelled() => None,
        };
        let result = match finished {
            Some(result) => result,
            // The tool sees the same token (commands are killed); give it a moment to stop
            // and report, then abandon it.
            None => match tokio::time::timeout(CANCEL_GRACE, &mut future).await {
                Ok(result) => result,
                Err(_) => {
                    tracing::warn!(
                        "cancelled tool did not stop within the grace period; abandoned"
                    );
                    ToolResult::error(
                        "The turn was cancelled; the tool did not stop in time and was abandoned.",
                    )
                }
            },
        };
        let status = if cancel.is_cancelled() {
            ToolStatus::Cancelled
        } else if result.success {
            ToolStatus::Success
        } else if is_denial(&result) {
            ToolStatus::Denied
        } else {
            ToolStatus::Error
        };
        (result, status)
    }
}

/// `attempt_completion`: reports the attempt; the loop ends with its result.
fn attempt_completion(
    emitter: &Emitter,
    call: &AssembledToolCall,
    arguments: &serde_json::Value,
) -> Handled {
    match parse_args::<AttemptCompletionArgs>(&call.name, arguments) {
        Ok(args) => {
            emitter.emit(RunCompletionAttempt {
                result: args.result.clone(),
                command: args.command.clone(),
            });
            Handled::Result(
                ToolResult::ok("Completion recorded: the turn ends."),
                ToolStatus::Success,
                Some(LoopEnd::Completed(args.result)),
            )
        }
        Err(e) => (ToolResult::error(e), ToolStatus::Error).into(),
    }
}

/// `create_plan`: a plan to run next, or a refusal where no plan can run.
fn create_plan(
    scope: CallScope<'_>,
    call: &AssembledToolCall,
    arguments: &serde_json::Value,
    started: Instant,
) -> Handled {
    if scope.mode == Mode::Direct || scope.plan_running || scope.step.is_some() {
        let why = if scope.mode == Mode::Direct {
            "create_plan is not available in direct mode: work directly with the tools."
        } else {
            "A plan is already being executed: carry out the current step instead of planning again."
        };
        return (ToolResult::error(why), ToolStatus::Error).into();
    }
    match parse_args::<CreatePlanArgs>(&call.name, arguments).and_then(CreatePlanArgs::into_plan) {
        Ok(plan) => Handled::Plan(PendingPlan {
            call_id: call.id.clone(),
            arguments: arguments.clone(),
            started,
            plan,
        }),
        Err(e) => (ToolResult::error(e), ToolStatus::Error).into(),
    }
}

/// `run.tool.end` for a finished call.
#[derive(Debug)]
pub(crate) struct ToolEnd<'a> {
    pub(crate) call_id: String,
    pub(crate) tool: &'a str,
    pub(crate) arguments: &'a serde_json::Value,
    pub(crate) result: &'a ToolResult,
    pub(crate) status: ToolStatus,
    pub(crate) started: Instant,
    pub(crate) step: Option<u32>,
    /// The MCP server the tool belongs to.
    pub(crate) mcp_server: Option<String>,
    /// What the language servers said about the files the call edited.
    pub(crate) diagnostics: Option<keel_events::EditDiagnostics>,
}

impl ToolEnd<'_> {
    /// Emits the event.
    pub(crate) fn emit(self, emitter: &Emitter) {
        let (from_path, to_path) = if self.tool == "move_file" {
            let get = |key: &str| {
                self.arguments
                    .get(key)
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            };
            (get("fromPath"), get("toPath"))
        } else {
            (None, None)
        };
        emitter.emit(RunToolEnd {
            call_id: self.call_id,
            tool_name: self.tool.to_owned(),
            status: self.status,
            result: result_text(self.result),
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            args_summary: args_summary(self.tool, self.arguments),
            result_summary: result_summary(self.result),
            step_id: self.step,
            from_path,
            to_path,
            mcp_server: self.mcp_server,
            diagnostics: self.diagnostics,
        });
    }
}

/// `tools` with the tools only a session offers: the control tools, `remember` and, when the
/// session has skills, `skill`.
fn with_control_tools(
    mut tools: ToolRegistry,
    skill: Option<&keel_tools::builtin::Skill>,
    lsp: Option<&keel_lsp::LspManager>,
) -> ToolRegistry {
    use super::control_tools::{
        AskFollowupQuestion, AttemptCompletion, CreatePlan, PlanModeRespond,
    };
    tools
        .register(AttemptCompletion)
        .register(CreatePlan)
        .register(AskFollowupQuestion)
        .register(PlanModeRespond)
        .register(super::remember::Remember);
    if let Some(skill) = skill {
        tools.register(skill.clone());
    }
    if let Some(lsp) = lsp {
        tools.register(keel_lsp::DiagnosticsTool::new(lsp.clone()));
    }
    tools
}

/// The result for a call whose arguments cannot be used.
fn incomplete_message(call: &AssembledToolCall, format: ToolFormat) -> String {
    match &call.status {
        ArgumentsStatus::Truncated if format == ToolFormat::Xml => format!(
            "Your call to `{name}` was not run: its <{name}> block was not closed before your answer ended. Write the call again, complete, ending with </{name}> (and close every parameter tag); if a parameter is long (e.g. a whole file), split the work into smaller calls.",
            name = call.name
        ),
        ArgumentsStatus::Invalid(error) if format == ToolFormat::Xml => format!(
            "Your call to `{}` was not run: its parameters could not be read ({error}). Write each parameter as its own tag inside the tool's tag.",
            call.name
        ),
        ArgumentsStatus::Truncated => format!(
            "Your call to `{}` was not run: its arguments were cut off ({} characters arrived before the response ended). Send the call again, complete; if the arguments are long (e.g. a whole file), split the work into smaller calls.",
            call.name,
            call.arguments.chars().count()
        ),
        ArgumentsStatus::Invalid(error) => format!(
            "Your call to `{}` was not run: its arguments are not valid JSON ({error}). Send them again as one JSON object.",
            call.name
        ),
        ArgumentsStatus::MissingName => {
            "This tool call was not run: it has no tool name. Call a tool by its name.".to_owned()
        }
        ArgumentsStatus::Complete => "This tool call was not run.".to_owned(),
    }
}

/// Whether a failed result means the call was refused (by policy or by the user).
fn is_denial(result: &ToolResult) -> bool {
    result.message.starts_with("The user denied") || result.message.starts_with("Refused to run")
}
