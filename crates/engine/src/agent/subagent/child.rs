//! Running one `task` call: the child's settings, tools and fresh context, its loop (the same
//! [`TurnRun`] a turn drives), `run.subagent.start`/`.end`, and its report as the call's result.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use keel_events::{AgentStatus, Emitter, ResponseMode, RunSubagentEnd, RunSubagentStart, Usage};
use keel_extensions::HookEvent;
use keel_protocol::{Mode, ToolResult};
use tokio_util::sync::CancellationToken;

use super::{Kind, TASK, TaskArgs};
use crate::agent::config::{AgentConfig, RepoMapConfig};
use crate::agent::control_tools::parse_args;
use crate::agent::model_call::ModelCaller;
use crate::agent::model_context::ModelContext;
use crate::agent::tap::ChangeLog;
use crate::agent::tool_call::Toolbox;
use crate::agent::tool_loop::TurnRun;
use crate::agent::turn_state::TurnState;
use crate::provider::Provider;
use keel_events::ToolStatus;

/// What a `task` call gave: its result for the parent, and the tokens the child used.
#[derive(Debug)]
pub(crate) struct ChildRun {
    pub(crate) result: ToolResult,
    pub(crate) status: ToolStatus,
    pub(crate) usage: Usage,
}

impl ChildRun {
    fn refused(message: String) -> Self {
        Self {
            result: ToolResult::error(message),
            status: ToolStatus::Error,
            usage: Usage::default(),
        }
    }
}

/// What a parent lends its children: borrowed for the round of `task` calls.
pub(crate) struct Spawner<'a> {
    pub(crate) config: &'a AgentConfig,
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) tools: &'a Toolbox,
    pub(crate) emitter: &'a Emitter,
    pub(crate) cancel: &'a CancellationToken,
    /// The turn's file changes (a child's are the turn's too).
    pub(crate) changes: &'a ChangeLog,
    /// The parent's latest call offered the compact tool profile (which has no `task`).
    pub(crate) compact: bool,
}

impl Spawner<'_> {
    /// Runs the `task` call `call_id` with `arguments`: refused when `task` is not offered
    /// here (beyond the depth limit, under the compact profile) or its arguments are bad,
    /// else a child runs to its end and its report is the result.
    ///
    /// Boxed: a child's loop may start children of its own, so this future holds itself.
    pub(crate) fn run<'b>(
        &'b self,
        call_id: &'b str,
        arguments: &'b serde_json::Value,
    ) -> Pin<Box<dyn Future<Output = ChildRun> + Send + 'b>> {
        Box::pin(self.start(call_id, arguments))
    }

    async fn start(&self, call_id: &str, arguments: &serde_json::Value) -> ChildRun {
        let args = match parse_args::<TaskArgs>(TASK, arguments) {
            Ok(args) => args,
            Err(message) => return ChildRun::refused(message),
        };
        let Some(roster) = self.tools.roster.as_ref() else {
            return ChildRun::refused(format!(
                "`{TASK}` is not available in this session. Do the job yourself with your tools."
            ));
        };
        let depth = self.tools.depth + 1;
        if depth > roster.settings.max_depth {
            return ChildRun::refused(format!(
                "Refused: a subagent at depth {} may not start another (the limit is \
                 `[subagents] max_depth = {}`). Do the job yourself with your tools.",
                self.tools.depth, roster.settings.max_depth
            ));
        }
        if self.compact {
            return ChildRun::refused(format!(
                "`{TASK}` is not offered with the compact tool profile. Do the job yourself \
                 with your tools."
            ));
        }
        let Some(kind) = roster.get(&args.subagent_type) else {
            return ChildRun::refused(format!(
                "There is no subagent type `{}`. The types are {}.",
                args.subagent_type,
                roster.names()
            ));
        };
        self.run_kind(call_id, kind, &args, depth).await
    }

    async fn run_kind(&self, call_id: &str, kind: &Kind, args: &TaskArgs, depth: u32) -> ChildRun {
        let started = Instant::now();
        let emitter = self.emitter.child(call_id);
        let mut config = child_config(self.config);
        if let Some(model) = &kind.model {
            match crate::ModelChain::new([model.clone()]) {
                Ok(chain) => config.models = chain,
                Err(e) => {
                    return ChildRun::refused(format!(
                        "The subagent type `{}` names a model that cannot be used: {e}",
                        kind.name
                    ));
                }
            }
        }
        let model_name = config.models.current().to_owned();
        emitter.emit(RunSubagentStart {
            call_id: call_id.to_owned(),
            subagent_type: kind.name.clone(),
            description: args.description.clone(),
            depth,
            model: model_name.clone(),
        });
        // Names no tool has were reported when the session was built (`unknown_tools`).
        let mut tools = self.tools.for_child(kind.tools.clone(), depth);
        let mut context = ModelContext {
            retention: keel_context::RetentionPolicy::default().with_lang(config.lang),
            skills: kind.instructions.clone(),
            ..ModelContext::default()
        };
        context.turn_prompt.start_turn(
            &config.root,
            None,
            &config.instructions,
            keel_context::TokenCounter::for_model(config.models.current()),
            &emitter,
        );
        context.conversation.push_user(args.prompt.clone());
        let cancel = self.cancel.child_token();
        let mut state = TurnState::new(cancel.clone(), ResponseMode::Direct, config.anomalies);
        // A child's answer is its report, not a response the person is shown.
        state.response.open = true;
        state.task = args.prompt.clone();
        state.asks_for_change = crate::agent::task_intent::asks_for_change(&args.prompt);
        state.only_asks = crate::agent::task_intent::only_asks(&args.prompt);
        state.stop_event = HookEvent::SubagentStop;
        if state.asks_for_change {
            state.stamps = Some(crate::agent::stamps::Stamps::take(&config.root));
        }
        let mut model = ModelCaller::new(Arc::clone(&self.provider));
        let mut run = TurnRun {
            config: &mut config,
            emitter: &emitter,
            model: &mut model,
            tools: &mut tools,
            context: &mut context,
            changes: self.changes,
            state,
        };
        let ending = run.drive().await;
        let iterations = run.state.iterations;
        let usage = model.usage();
        let status = if cancel.is_cancelled() {
            AgentStatus::Cancelled
        } else {
            ending.status
        };
        emitter.emit(RunSubagentEnd {
            call_id: call_id.to_owned(),
            subagent_type: kind.name.clone(),
            status,
            report_chars: ending.result.chars().count() as u64,
            iterations,
            usage,
            cost_usd: self.config.pricing.cost(&model_name, &usage),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        let (result, status) = match status {
            AgentStatus::Completed => (ToolResult::ok(ending.result), ToolStatus::Success),
            AgentStatus::Cancelled => (
                ToolResult::error("The subagent was cancelled."),
                ToolStatus::Cancelled,
            ),
            AgentStatus::Failed | AgentStatus::MaxIterations => (
                ToolResult::error(format!(
                    "The {} subagent did not finish: {}",
                    kind.name, ending.result
                )),
                ToolStatus::Error,
            ),
        };
        ChildRun {
            result,
            status,
            usage,
        }
    }
}

/// The parent's settings as a child runs under them: direct mode, no repo map, no test runs
/// or new attempts of its own (the parent's turn has them), the parent's shadow view as it is.
fn child_config(parent: &AgentConfig) -> AgentConfig {
    let mut config = parent.clone();
    config.mode = Mode::Direct;
    config.repo_map = RepoMapConfig::disabled();
    config.test_command = None;
    config.auto_test = false;
    config.attempts = Some(1);
    config.shadow = false;
    config.libraries = Vec::new();
    config
}
