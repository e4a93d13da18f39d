//! The tool loop: ask the model, run the tools it calls, feed the results back, repeat.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use keel_context::{Budget, PromptBuilder, PromptSources, TokenCounter, ToolCallRequest};
use keel_events::{
    AgentStatus, FinishReason, Plan, ResponseMode, RunAnomalyDetect, RunCompletionAttempt,
    RunLlmEnd, RunLlmStart, RunPlanReplan, RunPlanRespond, RunQuestionAnswer, RunQuestionAsk,
    RunToolEnd, RunToolStart, RunUsageReport, SystemError, ToolStatus, Usage,
};
use keel_tools::{ToolContext, ToolResult, Workspace};
use tokio_util::sync::CancellationToken;

use super::anomaly::{Anomaly, AnomalyDetector};
use super::config::{Mode, ToolFormat};
use super::control_tools::{
    ASK_FOLLOWUP_QUESTION, ATTEMPT_COMPLETION, AskFollowupQuestionArgs, AttemptCompletionArgs,
    CREATE_PLAN, CreatePlanArgs, PLAN_MODE_RESPOND, PlanModeRespondArgs, is_control_tool,
    parse_args,
};
use super::instructions::instructions;
use super::observer::EventObserver;
use super::question::{Question, QuestionKind};
use super::session::AgentSession;
use super::summary::{args_summary, result_summary, result_text};
use super::xml_format::{XmlProvider, to_xml_messages, tool_catalogue};
use crate::assemble::{ArgumentsStatus, AssembledResponse, AssembledToolCall};
use crate::error::ProviderError;
use crate::provider::{ChatRequest, Provider};

/// How long a cancelled tool gets to stop on its own before it is abandoned.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// Files over this many lines are not focused after a whole read (the model reads ranges).
const MAX_FOCUS_LINES: usize = 2_000;

/// State of the running turn.
#[derive(Debug)]
pub(crate) struct Turn {
    pub(crate) cancel: CancellationToken,
    pub(crate) response: ResponseMode,
    pub(crate) usage: Usage,
    pub(crate) iterations: u32,
    pub(crate) detector: AnomalyDetector,
    /// The plan being executed.
    pub(crate) plan: Option<Plan>,
    /// Messages for the model to add once the current round of tool results is complete.
    pub(crate) hints: Vec<String>,
    /// The latest tool call of the current step, when it failed: (tool, result).
    pub(crate) last_failure: Option<(String, String)>,
    /// Plan mode: the model was reminded to call `create_plan`.
    pub(crate) nudged: bool,
}

/// The function definitions offered for one combination of allowed control tools.
#[derive(Debug)]
pub(crate) struct FunctionsCache {
    /// Whether `create_plan` and `plan_mode_respond` are offered, and the encoding counted in.
    key: (bool, bool, keel_context::Encoding),
    functions: Vec<serde_json::Value>,
    tokens: usize,
}

/// How a turn ends (`agent.end`'s status and result).
#[derive(Debug, Clone)]
pub(crate) struct Ending {
    pub(crate) status: AgentStatus,
    pub(crate) result: String,
}

impl Ending {
    pub(crate) fn new(status: AgentStatus, result: impl Into<String>) -> Self {
        Self {
            status,
            result: result.into(),
        }
    }
}

/// Why a tool loop stopped.
#[derive(Debug)]
pub(crate) enum LoopEnd {
    /// The model answered without calling tools.
    Answered(String),
    /// The model called `attempt_completion`.
    Completed(String),
    /// The model called `create_plan`; the call (whose result is still pending) and the plan.
    PlanRequested(PendingPlan),
    /// The step's iteration cap was reached.
    StepCap,
    /// The turn's iteration limit was reached.
    TurnCap,
    /// The anomaly detector stopped the turn.
    Stopped(String),
    /// The turn was cancelled.
    Cancelled,
    /// The model could not be reached (after retries and fallbacks).
    Failed(ProviderError),
}

/// A `create_plan` call waiting for its result.
#[derive(Debug)]
pub(crate) struct PendingPlan {
    pub(crate) call_id: String,
    pub(crate) arguments: serde_json::Value,
    pub(crate) started: Instant,
    pub(crate) plan: Plan,
}

/// What running one call did to the loop.
enum Effect {
    Continue,
    End(LoopEnd),
}

impl AgentSession {
    /// The turn after `run.response.start`: the main tool loop, and a plan if one is made.
    pub(crate) async fn drive(&mut self, turn: &mut Turn) -> Ending {
        loop {
            let end = self.tool_loop(turn, None).await;
            match end {
                LoopEnd::Answered(_)
                    if self.config.mode == Mode::Plan && !turn.nudged && turn.plan.is_none() =>
                {
                    turn.nudged = true;
                    self.conversation.push_user(
                        "Plan mode: call create_plan now with the goal and ordered steps before doing anything else.",
                    );
                }
                LoopEnd::PlanRequested(pending) => return self.execute_plan(turn, pending).await,
                other => return self.direct_ending(turn, other),
            }
        }
    }

    /// The ending of a turn whose main loop stopped (no plan running).
    fn direct_ending(&mut self, turn: &Turn, end: LoopEnd) -> Ending {
        match end {
            LoopEnd::Answered(text) | LoopEnd::Completed(text) => {
                Ending::new(AgentStatus::Completed, text)
            }
            LoopEnd::TurnCap | LoopEnd::StepCap => Ending::new(
                AgentStatus::MaxIterations,
                format!(
                    "stopped after {} model calls: the iteration limit ({}) was reached",
                    turn.iterations, self.config.max_iterations
                ),
            ),
            LoopEnd::Stopped(message) => Ending::new(AgentStatus::Failed, message),
            LoopEnd::Cancelled => Ending::new(AgentStatus::Cancelled, "cancelled"),
            LoopEnd::Failed(error) => {
                Ending::new(AgentStatus::Failed, self.provider_failed(&error))
            }
            LoopEnd::PlanRequested(_) => Ending::new(
                AgentStatus::Failed,
                "a plan was requested where none can run",
            ),
        }
    }

    /// Reports a provider error that ended the turn; returns the turn's result text.
    pub(crate) fn provider_failed(&self, error: &ProviderError) -> String {
        self.emitter.emit(SystemError {
            error: error.to_string(),
            error_type: "provider".to_owned(),
            recoverable: true,
            stack: None,
            error_display: Some(format!("{error:?}")),
        });
        format!("the model could not be reached: {error}")
    }

    /// One bounded tool loop: the main loop (`step` = `None`) or a plan step's.
    pub(crate) async fn tool_loop(&mut self, turn: &mut Turn, step: Option<u32>) -> LoopEnd {
        let mut local = 0u32;
        loop {
            if turn.cancel.is_cancelled() {
                return LoopEnd::Cancelled;
            }
            if turn.iterations >= self.config.max_iterations {
                return LoopEnd::TurnCap;
            }
            if step.is_some() && local >= self.config.step_iterations.max(1) {
                return LoopEnd::StepCap;
            }
            turn.iterations += 1;
            local += 1;

            let mut response = match self.call_model(turn).await {
                Ok(response) => response,
                Err(ProviderError::Cancelled) => return LoopEnd::Cancelled,
                Err(error) => return LoopEnd::Failed(error),
            };
            unique_call_ids(&mut response, turn.iterations);
            let requests = response
                .tool_calls
                .iter()
                .map(|call| {
                    // A cut-off argument text is not valid JSON: providers may refuse it in
                    // history, and the result explains what happened.
                    let arguments = if call.is_complete() {
                        call.arguments.clone()
                    } else {
                        "{}".to_owned()
                    };
                    ToolCallRequest::new(call.id.clone(), call.name.clone(), arguments)
                })
                .collect();
            if let Err(error) = self
                .conversation
                .push_assistant(response.text.clone(), requests)
            {
                // Ids were made unique and non-empty above, so this cannot happen; keep the
                // conversation valid anyway.
                self.conversation
                    .push_assistant(response.text.clone(), Vec::new())
                    .ok();
                return LoopEnd::Stopped(format!("the response could not be recorded: {error}"));
            }
            if response.tool_calls.is_empty() {
                return LoopEnd::Answered(response.text);
            }

            let changes_before = self.change_count();
            let mut end = None;
            for call in &response.tool_calls {
                if turn.cancel.is_cancelled() {
                    end = Some(LoopEnd::Cancelled);
                }
                if end.is_some() {
                    break;
                }
                if let Effect::End(e) = self.run_call(turn, call, step).await {
                    end = Some(e);
                }
            }
            self.close_unrun(end.as_ref());
            for hint in std::mem::take(&mut turn.hints) {
                if end.is_none() {
                    self.conversation.push_user(hint);
                }
            }
            if let Some(end) = end {
                return end;
            }
            if turn.cancel.is_cancelled() {
                return LoopEnd::Cancelled;
            }
            if step.is_some() {
                let changed = self.change_count() > changes_before;
                if let Some(anomaly) = turn.detector.record_step_iteration(changed)
                    && let Some(stop) = self.report_anomaly(turn, anomaly, step)
                {
                    return LoopEnd::Stopped(stop);
                }
                for hint in std::mem::take(&mut turn.hints) {
                    self.conversation.push_user(hint);
                }
            }
        }
    }

    /// Gives every call of the latest response that did not run a "not run" result (a pending
    /// `create_plan` keeps waiting for its result).
    fn close_unrun(&mut self, end: Option<&LoopEnd>) {
        let reason = match end {
            None => return,
            Some(LoopEnd::Completed(_)) => "attempt_completion ended the turn before this call ran",
            Some(LoopEnd::PlanRequested(_)) => {
                "a plan was created; its steps run next, so this call was not run"
            }
            Some(LoopEnd::Cancelled) => "the turn was cancelled before this call ran",
            Some(_) => "the turn stopped before this call ran",
        };
        let plan_call = match end {
            Some(LoopEnd::PlanRequested(pending)) => Some(pending.call_id.clone()),
            _ => None,
        };
        let unrun: Vec<String> = self
            .conversation
            .pending_calls()
            .into_iter()
            .filter(|c| Some(&c.id) != plan_call.as_ref())
            .map(|c| c.id.clone())
            .collect();
        for id in unrun {
            self.conversation
                .add_tool_result(&id, format!("[not run: {reason}]"), false, &self.retention)
                .ok();
        }
    }

    /// The function definitions offered now, and their tokens as the request sends them
    /// (built once per set of tools offered).
    fn functions(&mut self, turn: &Turn, counter: TokenCounter) -> (Vec<serde_json::Value>, usize) {
        let planning_allowed = self.config.mode != Mode::Direct && turn.plan.is_none();
        let respond_allowed = self.config.mode == Mode::Plan && turn.plan.is_none();
        let key = (planning_allowed, respond_allowed, counter.encoding());
        if let Some(cached) = self.functions_cache.iter().find(|c| c.key == key) {
            return (cached.functions.clone(), cached.tokens);
        }
        let functions: Vec<serde_json::Value> = self
            .tools
            .openai_functions()
            .into_iter()
            .filter(|f| match f["function"]["name"].as_str() {
                Some(CREATE_PLAN) => planning_allowed,
                Some(PLAN_MODE_RESPOND) => respond_allowed,
                _ => true,
            })
            .collect();
        let tokens = counter.count(&serde_json::Value::Array(functions.clone()).to_string());
        self.functions_cache.push(FunctionsCache {
            key,
            functions: functions.clone(),
            tokens,
        });
        (functions, tokens)
    }

    /// Builds the prompt and asks the model, streaming its response as events.
    async fn call_model(&mut self, turn: &mut Turn) -> Result<AssembledResponse, ProviderError> {
        let model = self.config.models.current().to_owned();
        let xml = self.config.tool_format == ToolFormat::Xml;
        let builder = PromptBuilder::for_model(&model);
        let (functions, function_tokens) = self.functions(turn, builder.counter());
        // Native: the definitions travel beside the messages. XML: they are in the system
        // prompt, where the builder counts them.
        let tool_tokens = if xml { 0 } else { function_tokens };
        let budget = match self.config.context_window {
            Some(window) => Budget::new(window),
            None => builder.budget(),
        };
        let builder = builder.with_budget(budget.with_extra_tokens(tool_tokens as u64));
        let mut instructions =
            instructions(self.config.mode, self.config.extra_instructions.as_deref());
        if xml {
            instructions.push_str("\n\n");
            instructions.push_str(&tool_catalogue(&functions));
        }
        let sources = PromptSources {
            instructions: &instructions,
            memory: self.memory.as_ref(),
            repo_map: self.repo_map.as_deref(),
            focused: &self.focused,
        };
        let built = builder
            .build_cached(
                sources,
                &mut self.conversation,
                self.summarizer.as_ref(),
                &mut self.prompt_cache,
            )
            .await;
        self.emitter.emit(built.window.clone());
        if let Some(compression) = built.compression.clone() {
            self.emitter.emit(compression);
        }
        let (messages, xml_provider) = if xml {
            let provider = XmlProvider::new(self.provider.as_ref(), &functions);
            (to_xml_messages(built.messages), Some(provider))
        } else {
            (built.messages, None)
        };
        self.emitter.emit(RunLlmStart {
            model: model.clone(),
            iteration: turn.iterations,
            message_count: u32::try_from(messages.len()).unwrap_or(u32::MAX),
            system_prompt: None,
        });
        let request = if xml {
            ChatRequest::new(model, messages)
        } else {
            ChatRequest::new(model, messages).with_tools(functions)
        };
        let provider: &dyn Provider = match &xml_provider {
            Some(wrapper) => wrapper,
            None => self.provider.as_ref(),
        };
        let mut observer = EventObserver::new(self.emitter.clone(), self.config.agent_name.clone());
        let result = self
            .config
            .models
            .complete(
                provider,
                &request,
                &self.config.retry,
                &self.emitter,
                &turn.cancel,
                &mut observer,
            )
            .await;
        drop(xml_provider);
        if !xml {
            // The next request starts from this one's unchanged history instead of copying it.
            self.prompt_cache.recycle(request.messages);
        }
        match result {
            Ok((mut response, _model)) => {
                observer.close_thinking();
                if xml {
                    self.number_xml_calls(&mut response);
                }
                self.emitter.emit(RunLlmEnd {
                    llm_output: response.text.clone(),
                    tool_calls: response.tool_calls.iter().map(|c| c.to_event()).collect(),
                    finish_reason: response.finish(),
                    usage: response.usage,
                });
                if let Some(usage) = response.usage {
                    turn.usage.accumulate(&usage);
                    self.usage.accumulate(&usage);
                    self.emitter.emit(RunUsageReport {
                        prompt_tokens: usage.prompt_tokens,
                        completion_tokens: usage.completion_tokens,
                        total_tokens: usage.total_tokens,
                        cached_tokens: usage.cached_tokens,
                        cumulative: self.usage,
                    });
                }
                Ok(response)
            }
            Err(error) => {
                observer.fail_thinking(&error.to_string());
                if matches!(error, ProviderError::Cancelled) {
                    self.emitter.emit(RunLlmEnd {
                        llm_output: String::new(),
                        tool_calls: Vec::new(),
                        finish_reason: FinishReason::Cancelled,
                        usage: None,
                    });
                }
                Err(error)
            }
        }
    }

    /// A context for one tool call of this turn.
    pub(crate) fn tool_context(
        &self,
        turn: &Turn,
        call_id: &str,
        step: Option<u32>,
    ) -> ToolContext {
        let mut ctx = ToolContext::new(self.config.root.clone(), self.emitter.clone())
            .with_approval(self.config.approval, self.approver.clone());
        if let Some(store) = &self.checkpoints {
            ctx = ctx.with_checkpoints(store.clone());
        }
        ctx.call_id = call_id.to_owned();
        ctx.step_id = step;
        ctx.cancel = turn.cancel.clone();
        ctx
    }

    /// Runs one call of a response: `run.tool.start`, the tool (or the session's own handling
    /// of a control tool), the result into the conversation and focused files, `run.tool.end`.
    async fn run_call(
        &mut self,
        turn: &mut Turn,
        call: &AssembledToolCall,
        step: Option<u32>,
    ) -> Effect {
        let arguments = call.to_event().arguments;
        self.emitter.emit(RunToolStart {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments: arguments.clone(),
            step_id: step,
        });
        let started = Instant::now();
        let mut effect = Effect::Continue;
        let (result, status) = if !call.is_complete() {
            (
                ToolResult::error(incomplete_message(call, self.config.tool_format)),
                ToolStatus::Error,
            )
        } else {
            match call.name.as_str() {
                ATTEMPT_COMPLETION => {
                    match parse_args::<AttemptCompletionArgs>(&call.name, &arguments) {
                        Ok(args) => {
                            self.emitter.emit(RunCompletionAttempt {
                                result: args.result.clone(),
                                command: args.command.clone(),
                            });
                            effect = Effect::End(LoopEnd::Completed(args.result));
                            (
                                ToolResult::ok("Completion recorded: the turn ends."),
                                ToolStatus::Success,
                            )
                        }
                        Err(e) => (ToolResult::error(e), ToolStatus::Error),
                    }
                }
                CREATE_PLAN => {
                    if self.config.mode == Mode::Direct || turn.plan.is_some() || step.is_some() {
                        let why = if self.config.mode == Mode::Direct {
                            "create_plan is not available in direct mode: work directly with the tools."
                        } else {
                            "A plan is already being executed: carry out the current step instead of planning again."
                        };
                        (ToolResult::error(why), ToolStatus::Error)
                    } else {
                        match parse_args::<CreatePlanArgs>(&call.name, &arguments)
                            .and_then(CreatePlanArgs::into_plan)
                        {
                            Ok(plan) => {
                                return Effect::End(LoopEnd::PlanRequested(PendingPlan {
                                    call_id: call.id.clone(),
                                    arguments,
                                    started,
                                    plan,
                                }));
                            }
                            Err(e) => (ToolResult::error(e), ToolStatus::Error),
                        }
                    }
                }
                ASK_FOLLOWUP_QUESTION => {
                    match parse_args::<AskFollowupQuestionArgs>(&call.name, &arguments) {
                        Ok(args) => {
                            let question = Question {
                                id: call.id.clone(),
                                kind: QuestionKind::FollowUp,
                                text: args.question,
                                options: args.options,
                            };
                            self.emitter.emit(RunQuestionAsk {
                                question_id: question.id.clone(),
                                question: question.text.clone(),
                                options: question.options.clone(),
                            });
                            self.wait_for_answer(turn, &question).await
                        }
                        Err(e) => (ToolResult::error(e), ToolStatus::Error),
                    }
                }
                PLAN_MODE_RESPOND => {
                    match parse_args::<PlanModeRespondArgs>(&call.name, &arguments) {
                        Ok(args) => {
                            let question = Question {
                                id: call.id.clone(),
                                kind: QuestionKind::PlanResponse,
                                text: args.response,
                                options: args.options,
                            };
                            self.emitter.emit(RunPlanRespond {
                                response: question.text.clone(),
                                options: question.options.clone(),
                            });
                            self.wait_for_answer(turn, &question).await
                        }
                        Err(e) => (ToolResult::error(e), ToolStatus::Error),
                    }
                }
                _ => self.run_tool(turn, call, &arguments, step).await,
            }
        };
        if status == ToolStatus::Cancelled {
            effect = Effect::End(LoopEnd::Cancelled);
        }
        let text = result_text(&result);
        self.conversation
            .add_tool_result(&call.id, text.clone(), result.success, &self.retention)
            .ok();
        if status == ToolStatus::Success {
            self.update_focus(&call.name, &arguments);
        }
        self.emit_tool_end(
            call.id.clone(),
            &call.name,
            &arguments,
            &result,
            status,
            started,
            step,
        );

        if !matches!(call.name.as_str(), ATTEMPT_COMPLETION | CREATE_PLAN) {
            if result.success {
                turn.last_failure = None;
            } else {
                turn.last_failure = Some((call.name.clone(), result.message.clone()));
            }
            if let Some(anomaly) =
                turn.detector
                    .record_call(&call.name, &arguments, status == ToolStatus::Success)
                && let Some(stop) = self.report_anomaly(turn, anomaly, step)
                && matches!(effect, Effect::Continue)
            {
                effect = Effect::End(LoopEnd::Stopped(stop));
            }
        }
        effect
    }

    /// Emits `run.tool.end` for a finished call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn emit_tool_end(
        &self,
        call_id: String,
        tool: &str,
        arguments: &serde_json::Value,
        result: &ToolResult,
        status: ToolStatus,
        started: Instant,
        step: Option<u32>,
    ) {
        let (from_path, to_path) = if tool == "move_file" {
            let get = |key: &str| {
                arguments
                    .get(key)
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            };
            (get("fromPath"), get("toPath"))
        } else {
            (None, None)
        };
        self.emitter.emit(RunToolEnd {
            call_id,
            tool_name: tool.to_owned(),
            status,
            result: result_text(result),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            args_summary: args_summary(tool, arguments),
            result_summary: result_summary(result),
            step_id: step,
            from_path,
            to_path,
        });
    }

    /// Asks the answerer, unless the turn is cancelled first.
    async fn wait_for_answer(&self, turn: &Turn, question: &Question) -> (ToolResult, ToolStatus) {
        let answer = tokio::select! {
            biased;
            () = turn.cancel.cancelled() => None,
            answer = self.answerer.answer(question) => Some(answer),
        };
        match answer {
            Some(answer) => {
                self.emitter.emit(RunQuestionAnswer {
                    question_id: question.id.clone(),
                    answer: answer.clone(),
                });
                (
                    ToolResult::ok(format!("The user answered: {answer}")),
                    ToolStatus::Success,
                )
            }
            None => (
                ToolResult::error("The turn was cancelled while waiting for the user's answer."),
                ToolStatus::Cancelled,
            ),
        }
    }

    /// Runs a workspace tool with the turn's cancellation.
    async fn run_tool(
        &self,
        turn: &Turn,
        call: &AssembledToolCall,
        arguments: &serde_json::Value,
        step: Option<u32>,
    ) -> (ToolResult, ToolStatus) {
        debug_assert!(!is_control_tool(&call.name));
        let ctx = self.tool_context(turn, &call.id, step);
        let future = self.tools.call(&ctx, &call.name, arguments.clone());
        tokio::pin!(future);
        let finished = tokio::select! {
            biased;
            result = &mut future => Some(result),
            () = turn.cancel.cancelled() => None,
        };
        let result = match finished {
            Some(result) => result,
            // The tool sees the same token (commands are killed); give it a moment to stop
            // and report, then abandon it.
            None => match tokio::time::timeout(CANCEL_GRACE, &mut future).await {
                Ok(result) => result,
                Err(_) => ToolResult::error(
                    "The turn was cancelled; the tool did not stop in time and was abandoned.",
                ),
            },
        };
        let status = if turn.cancel.is_cancelled() {
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

    /// Keeps the focused files in step with a successful call: whole reads and writes focus
    /// the file's current content (writes pin it while the turn edits it), deletes and moves
    /// follow the file.
    fn update_focus(&mut self, tool: &str, arguments: &serde_json::Value) {
        let text = |key: &str| {
            arguments
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        match tool {
            "read_file" => {
                let ranged = arguments.get("start_line").is_some_and(|v| !v.is_null())
                    || arguments.get("end_line").is_some_and(|v| !v.is_null());
                if let (false, Some(path)) = (ranged, text("path"))
                    && let Some(content) = self.current_content(&path)
                    && content.lines().count() <= MAX_FOCUS_LINES
                {
                    self.focused.upsert(path, content, false);
                }
            }
            "write_file" | "write_to_file" | "replace_in_file" => {
                if let Some(path) = text("path")
                    && let Some(content) = self.current_content(&path)
                {
                    self.focused.upsert(path, content, true);
                }
            }
            "delete_file" => {
                if let Some(path) = text("path") {
                    self.focused.remove(&path);
                }
            }
            "move_file" => {
                if let (Some(from), Some(to)) = (text("fromPath"), text("toPath")) {
                    self.focused.rename(&from, &to);
                }
            }
            _ => {}
        }
    }

    /// The current text of a workspace file, if it is inside the root and readable as UTF-8.
    fn current_content(&self, path: &str) -> Option<String> {
        let workspace = Workspace::new(&self.config.root).ok()?;
        let resolved = workspace.resolve(path).ok()?;
        std::fs::read_to_string(resolved).ok()
    }

    /// Reports an anomaly: `run.anomaly.detect`, then a stop message when it came after a
    /// warning, else a hint for the model (and `run.plan.replan` while a plan runs).
    pub(crate) fn report_anomaly(
        &self,
        turn: &mut Turn,
        anomaly: Anomaly,
        step: Option<u32>,
    ) -> Option<String> {
        self.emitter.emit(RunAnomalyDetect {
            step_id: step,
            anomaly: anomaly.kind,
            message: anomaly.message.clone(),
        });
        if anomaly.stop {
            return Some(format!(
                "stopped: {} (after an earlier warning in this turn)",
                anomaly.message
            ));
        }
        if turn.plan.is_some() {
            self.emitter.emit(RunPlanReplan {
                message: "The execution looks stuck; the model was told to change its approach for the rest of the plan.".to_owned(),
                reason: anomaly.message.clone(),
            });
        }
        turn.hints.push(format!(
            "Warning: {}. You seem to be stuck. Do not repeat what did not work: change your approach (read the error, look at the files again, try another tool), or finish and explain what blocks you. If this happens again the turn will be stopped.",
            anomaly.message
        ));
        None
    }
}

impl AgentSession {
    /// Gives the calls parsed from XML text ids that are stable and unique in the session
    /// (`xml_1`, `xml_2`, …), continuing after any such id already in the conversation.
    fn number_xml_calls(&mut self, response: &mut AssembledResponse) {
        if self.xml_calls == 0 {
            self.xml_calls = self
                .conversation
                .messages()
                .iter()
                .flat_map(|m| m.tool_calls())
                .filter_map(|c| c.id.strip_prefix("xml_")?.parse::<u64>().ok())
                .max()
                .unwrap_or(0);
        }
        for call in &mut response.tool_calls {
            self.xml_calls += 1;
            call.id = format!("xml_{}", self.xml_calls);
        }
    }
}

/// Gives calls without an id, or with an id used twice, a unique one.
fn unique_call_ids(response: &mut AssembledResponse, iteration: u32) {
    let mut seen = HashSet::new();
    for call in &mut response.tool_calls {
        if call.id.is_empty() || !seen.insert(call.id.clone()) {
            call.id = format!("call_{iteration}_{}", call.index);
            seen.insert(call.id.clone());
        }
    }
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
