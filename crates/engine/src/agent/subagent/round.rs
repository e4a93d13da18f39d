//! A round of `task` calls in one response: each begun (`run.tool.start`, its `PreToolUse`
//! hooks) and its child run, at most `max_parallel` at once; then, in the response's order,
//! each finished (`PostToolUse`, its result into the conversation, `run.tool.end`) and the
//! children's tokens added to the parent's turn and session.

use std::pin::Pin;

use futures::StreamExt;
use keel_events::{ToolStatus, Usage};

use super::Spawner;
use crate::agent::tool_call::{Begun, CallScope, FinishedCall, Handled, Ran, ToolEnv, Toolbox};
use crate::agent::tool_loop::TurnRun;
use crate::agent::turn_state::LoopEnd;
use crate::assemble::AssembledToolCall;

impl TurnRun<'_> {
    /// Runs `calls` (all `task` calls, consecutive in their response); returns why the loop
    /// ends, if it does.
    pub(crate) async fn run_tasks(
        &mut self,
        calls: &[AssembledToolCall],
        step: Option<u32>,
    ) -> Option<LoopEnd> {
        crate::agent::shadow::before_call(self.config, self.emitter);
        let scope = CallScope {
            env: ToolEnv::new(self.config, self.emitter, &self.state.cancel),
            mode: self.config.mode,
            tool_format: self.config.tool_format,
            step,
            plan_running: self.state.plan.is_some(),
            compact: self.state.compact,
        };
        let tools: &Toolbox = self.tools;
        let spawner = Spawner {
            config: self.config,
            provider: self.model.shared_provider(),
            tools,
            emitter: self.emitter,
            cancel: &self.state.cancel,
            changes: self.changes,
            compact: self.state.compact,
        };
        let limit = tools
            .roster
            .as_ref()
            .map_or(1, |roster| roster.settings.max_parallel.max(1));
        let spawner = &spawner;
        // Boxed as `Send` one by one: a closure's future here would not be `Send` for every
        // lifetime the compiler asks about.
        let pending: Vec<Pin<Box<dyn Future<Output = Round> + Send + '_>>> = calls
            .iter()
            .map(|call| Box::pin(one_task(tools, spawner, scope, call)) as Pin<Box<_>>)
            .collect();
        let rounds: Vec<Round> = futures::stream::iter(pending)
            .buffered(limit)
            .collect()
            .await;
        let mut finished: Vec<(&AssembledToolCall, FinishedCall)> = Vec::new();
        for (call, (begun, handled, usage)) in calls.iter().zip(rounds) {
            self.state.usage.accumulate(&usage);
            self.model.add_usage(&usage);
            if let Ran::Finished(done) = tools
                .finish(scope, self.context, call, begun, handled)
                .await
            {
                finished.push((call, *done));
            }
        }
        let mut end = None;
        for (call, done) in finished {
            let ended = self.record_call(call, done, step);
            end = end.or(ended);
        }
        end
    }
}

/// A `task` call begun and handled, with the tokens its child used.
type Round = (Begun, Handled, Usage);

/// Begins `call` and runs its child (unless its hooks refused it or its arguments are cut).
async fn one_task(
    tools: &Toolbox,
    spawner: &Spawner<'_>,
    scope: CallScope<'_>,
    call: &AssembledToolCall,
) -> Round {
    let mut begun = tools.begin(scope, call).await;
    if let Some(result) = begun.refused.take() {
        let handled = (result, ToolStatus::Denied).into();
        return (begun, handled, Usage::default());
    }
    if !call.is_complete() {
        let handled = tools
            .handle(scope, call, &begun.arguments, begun.started)
            .await;
        return (begun, handled, Usage::default());
    }
    let child = spawner.run(&call.id, &begun.arguments).await;
    let handled = Handled::Result(child.result, child.status, None);
    (begun, handled, child.usage)
}
