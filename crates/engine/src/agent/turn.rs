//! One turn after `run.response.start`: the main tool loop, then the plan when the model makes
//! one, and how the turn ends.

use keel_events::{AgentStatus, LogLevel, SystemLog};

use super::hooks::{self, MAX_STOP_CONTINUATIONS};
use super::tool_call::ToolEnv;

use super::tool_loop::TurnRun;
use super::turn_state::{Ending, LoopEnd};
use keel_protocol::Mode;

/// `agent.end`'s warning when the task asked for changes and the turn made none.
pub(crate) const NO_CHANGE_WARNING: &str = "the task asked for changes, but no file was changed";

/// Reminder for a model in plan mode that answered without planning.
const PLAN_NUDGE: &str =
    "Plan mode: call create_plan now with the goal and ordered steps before doing anything else.";

impl TurnRun<'_> {
    /// The turn after `run.response.start`: the main tool loop, and a plan if one is made.
    pub(crate) async fn drive(&mut self) -> Ending {
        self.documented_first().await;
        self.rename_first().await;
        self.move_first().await;
        self.test_before_start().await;
        loop {
            let end = self.tool_loop(None).await;
            match end {
                LoopEnd::Answered(_)
                    if self.config.mode == Mode::Plan
                        && !self.state.nudged
                        && self.state.plan.is_none() =>
                {
                    self.state.nudged = true;
                    self.context.conversation.push_note(PLAN_NUDGE);
                }
                LoopEnd::PlanRequested(pending) => return self.execute_plan(pending).await,
                LoopEnd::Answered(_) | LoopEnd::Completed(_) if self.tests_to_rerun().await => {}
                LoopEnd::Answered(_) | LoopEnd::Completed(_) if self.rename_leftovers().await => {}
                LoopEnd::Answered(_) | LoopEnd::Completed(_) if self.undocumented_leftovers() => {}
                LoopEnd::Answered(text) | LoopEnd::Completed(text) if self.review_parts(&text) => {}
                LoopEnd::Answered(ref text) | LoopEnd::Completed(ref text)
                    if self.stop_hooks_continue(text).await => {}
                other if self.start_over(&other).await => {}
                other => {
                    let end = self.after_parts_review(other);
                    return self.direct_ending(end);
                }
            }
        }
    }

    /// The `Stop` hooks of an answer that would end the turn: when one blocks, its reason is
    /// given to the model as a note and the turn goes on — at most
    /// [`MAX_STOP_CONTINUATIONS`] times a turn, then the turn ends with a `system.log`.
    async fn stop_hooks_continue(&mut self, answer: &str) -> bool {
        let event = self.state.stop_event;
        if !self.tools.hooks.has(event) || self.state.cancel.is_cancelled() {
            return false;
        }
        let active = self.state.stop_continuations > 0;
        let env = ToolEnv::new(self.config, self.emitter, &self.state.cancel);
        let outcome = self
            .tools
            .hook_runner(env)
            .run(
                event,
                hooks::call_with(
                    None,
                    &[
                        ("stop_hook_active", active.into()),
                        ("last_assistant_message", answer.into()),
                    ],
                ),
            )
            .await;
        if !hooks::blocks(&outcome) {
            return false;
        }
        if self.state.stop_continuations >= MAX_STOP_CONTINUATIONS {
            self.emitter.emit(SystemLog {
                level: LogLevel::Warn,
                message: format!(
                    "a {} hook blocked the end of the turn again; the turn ends after \
                     {MAX_STOP_CONTINUATIONS} continuations ({})",
                    event.as_str(),
                    hooks::block_reason(event, &outcome)
                ),
                metadata: None,
            });
            return false;
        }
        self.state.stop_continuations += 1;
        self.context.conversation.push_note(format!(
            "A {} hook asks you to go on before ending your turn: {}",
            event.as_str(),
            hooks::block_reason(event, &outcome)
        ));
        true
    }

    /// The ending of a turn whose main loop stopped (no plan running).
    pub(crate) fn direct_ending(&self, end: LoopEnd) -> Ending {
        match end {
            LoopEnd::Answered(text) | LoopEnd::Completed(text) => {
                let ending = Ending::new(AgentStatus::Completed, self.said_of_done(text));
                match self.unfinished_warning() {
                    Some(warning) => ending.warned(warning),
                    None => ending,
                }
            }
            LoopEnd::TurnCap | LoopEnd::StepCap => Ending::new(
                AgentStatus::MaxIterations,
                format!(
                    "stopped after {} model calls: the iteration limit ({}) was reached",
                    self.state.iterations, self.config.max_iterations
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

    /// The turn's answer, where the model's is a bare "DONE" (its reply to a check): what
    /// Keel did for it and the files the turn changed.
    fn said_of_done(&self, answer: String) -> String {
        let bare = answer.trim().trim_end_matches('.');
        if !bare.eq_ignore_ascii_case("done") {
            return answer;
        }
        let changed = self.changes.since(0);
        if self.state.done_by_keel.is_empty() && changed.is_empty() {
            return answer;
        }
        let mut said = self.state.done_by_keel.clone();
        if !changed.is_empty() {
            let files: Vec<String> = changed.iter().map(|p| format!("`{p}`")).collect();
            said.push(format!("Changed {}.", files.join(", ")));
        }
        said.join(" ")
    }
}
