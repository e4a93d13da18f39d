//! Plan mode: approving a plan, then running its steps as bounded tool loops with self-repair.

use std::time::Instant;

use keel_events::{
    AgentStatus, ApprovalDecision, Plan, PlanStep, Progress, RepairResult, ResponseMode,
    RunExecutionCancel, RunExecutionEnd, RunExecutionFail, RunExecutionStart, RunPlanComplete,
    RunPlanCreate, RunPlanModify, RunRepairAttempt, RunResponseEnd, RunResponseStart, RunStepEnd,
    RunStepFail, RunStepOutput, RunStepStart, ToolStatus,
};
use keel_protocol::ToolResult;

use super::control_tools::{CREATE_PLAN, CreatePlanArgs, parse_args};
use super::instructions::STEP_RULES;
use super::tool_call::ToolEnd;
use super::tool_loop::TurnRun;
use super::turn_state::{Ending, LoopEnd, PendingPlan};

/// Why a step failed, for its repair.
#[derive(Debug, Clone)]
struct StepFailure {
    trigger: String,
    error_type: String,
    error: String,
    suggestion: String,
}

/// How one run of a step's loop went.
enum StepRun {
    /// The step is done; the model's closing text.
    Done(String),
    /// The model called `attempt_completion`: the step and the whole task are done.
    TaskDone(String),
    /// The step failed (see the module docs of [`super`] for when).
    Failed(StepFailure),
    /// The turn ends for another reason (cancel, limits, stop, provider error).
    Abort(LoopEnd),
}

/// How the steps of a plan that ran to its end finished.
#[derive(Debug, Default)]
struct StepsDone {
    /// The closing text of the last step.
    last_text: String,
    /// The result of `attempt_completion`, when a step called it.
    completion: Option<String>,
}

/// The turn's file changes from the start of the plan: all of the turn's.
const PLAN_CHANGES_FROM: usize = 0;

impl TurnRun<'_> {
    /// Runs the plan `pending` carries, from `run.plan.create` to `run.execution.end`.
    pub(crate) async fn execute_plan(&mut self, pending: PendingPlan) -> Ending {
        let PendingPlan {
            call_id,
            arguments,
            started,
            plan,
        } = pending;
        self.answer_in_plan_mode();
        self.emitter.emit(RunPlanCreate { plan: plan.clone() });
        let plan = match self.approve(&call_id, plan).await {
            Ok(plan) => plan,
            Err(reason) => {
                let result = format!("plan rejected: {reason}");
                let refused = ToolResult::error(&result);
                self.finish_plan_call(&call_id, &arguments, refused, ToolStatus::Denied, started);
                return Ending::new(AgentStatus::Cancelled, result);
            }
        };
        let total = plan.steps.len();
        let accepted = ToolResult::ok(match self.config.lang {
            // Seed 002 §6's words.
            keel_events::Lang::ZhCn => format!("计划已创建，共 {total} 个步骤"),
            keel_events::Lang::En => format!(
                "Plan accepted ({total} steps). You will now be asked to carry out each step in turn."
            ),
        });
        self.finish_plan_call(&call_id, &arguments, accepted, ToolStatus::Success, started);
        self.state.plan = Some(plan.clone());
        self.emitter.emit(RunExecutionStart {
            plan: plan.clone(),
            message: format!("Executing {total} steps: {}", plan.goal),
        });
        match self.run_steps(&plan).await {
            Ok(done) => self.complete_plan(&plan, done),
            Err(ending) => ending,
        }
    }

    /// Switches the turn's response to plan mode: announces it when no mode was (auto mode's
    /// first answer is a plan), or `run.response.end{direct}` + `run.response.start{plan}`
    /// when direct mode had started.
    fn answer_in_plan_mode(&mut self) {
        if !self.state.response.open {
            self.state
                .response
                .announce(self.emitter, ResponseMode::Plan);
        } else if self.state.response.mode == ResponseMode::Direct {
            self.emitter.emit(RunResponseEnd {
                mode: ResponseMode::Direct,
            });
            self.emitter.emit(RunResponseStart {
                mode: ResponseMode::Plan,
            });
            self.state.response.mode = ResponseMode::Plan;
        }
    }

    /// The plan to run, once the approver agreed (when plans need approval), or why it was
    /// rejected.
    async fn approve(&mut self, call_id: &str, plan: Plan) -> Result<Plan, String> {
        if !self.config.approve_plans {
            return Ok(plan);
        }
        let ctx = self.tools.tool_context(self.tool_env(), call_id, None);
        let reply = ctx
            .request_plan_approval(
                &plan,
                plan_subject(&plan),
                "plans need approval before they run (approve_plans is on)",
            )
            .await;
        match reply.decision {
            ApprovalDecision::Approve => Ok(plan),
            ApprovalDecision::Reject => Err(reply
                .reason
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| "no reason given".to_owned())),
            ApprovalDecision::Modify => match modified_plan(reply.modified.as_ref()) {
                Ok(modified) => {
                    self.emitter.emit(RunPlanModify {
                        plan: modified.clone(),
                    });
                    Ok(modified)
                }
                Err(e) => {
                    tracing::debug!(error = %e, "modified plan unusable; taken as a rejection");
                    Err(format!("the modified plan could not be used: {e}"))
                }
            },
        }
    }

    /// Runs the steps in order until one fails, the turn ends, or a step completes the task.
    async fn run_steps(&mut self, plan: &Plan) -> Result<StepsDone, Ending> {
        let total = u32::try_from(plan.steps.len()).unwrap_or(u32::MAX);
        let mut done = StepsDone::default();
        for step in &plan.steps {
            let progress = Progress {
                current: step.index,
                total,
            };
            self.emitter.emit(RunStepStart {
                step_id: step.index,
                title: step.title.clone(),
                description: step.description.clone(),
                progress,
            });
            let step_changes_from = self.changes.count();
            self.context
                .conversation
                .push_note(step_message(step, total, &plan.goal));
            match self.run_step_with_repairs(step).await {
                StepRun::Done(text) => done.last_text = text,
                StepRun::TaskDone(result) => done.completion = Some(result),
                StepRun::Failed(failure) => {
                    return Err(self.step_failed(plan, step, progress, &failure));
                }
                StepRun::Abort(end) => return Err(self.plan_aborted(plan, step, progress, end)),
            }
            self.emitter.emit(RunStepEnd {
                step_id: step.index,
                title: step.title.clone(),
                files_changed: self.changes.since(step_changes_from),
                progress,
            });
            if done.completion.is_some() {
                break;
            }
        }
        Ok(done)
    }

    /// One step's loop, then its repairs when it failed.
    async fn run_step_with_repairs(&mut self, step: &PlanStep) -> StepRun {
        match self.run_step(step.index).await {
            StepRun::Failed(failure) => self.repair(step, failure).await,
            run => run,
        }
    }

    /// `run.plan.complete{success: true}` and `run.execution.end`; the turn completed.
    fn complete_plan(&self, plan: &Plan, done: StepsDone) -> Ending {
        let summary = match done.completion {
            Some(result) => result,
            None if !done.last_text.trim().is_empty() => done.last_text,
            None => format!("Completed all {} steps: {}", plan.steps.len(), plan.goal),
        };
        self.emitter.emit(RunPlanComplete {
            success: true,
            summary: summary.clone(),
            files_changed: self.changes.since(PLAN_CHANGES_FROM),
        });
        self.emitter.emit(RunExecutionEnd {
            plan: plan.clone(),
            message: format!("All steps done: {}", plan.goal),
            summary: summary.clone(),
        });
        Ending::new(AgentStatus::Completed, summary)
    }

    /// Gives the `create_plan` call its result and `run.tool.end`.
    fn finish_plan_call(
        &mut self,
        call_id: &str,
        arguments: &serde_json::Value,
        result: ToolResult,
        status: ToolStatus,
        started: Instant,
    ) {
        self.context
            .add_result(call_id, result.message.clone(), result.success);
        ToolEnd {
            call_id: call_id.to_owned(),
            tool: CREATE_PLAN,
            arguments,
            result: &result,
            status,
            started,
            step: None,
            mcp_server: None,
            diagnostics: None,
        }
        .emit(self.emitter);
    }

    /// `run.step.output`: the text a response of step `step_id` produced (none when it only
    /// called tools). Its deltas were streamed as `run.llm.delta` already; this is the step's
    /// text as a whole, under its step id.
    pub(crate) fn report_step_output(&self, step_id: u32, text: &str) {
        if !text.trim().is_empty() {
            self.emitter.emit(RunStepOutput {
                step_id,
                content: text.to_owned(),
            });
        }
    }

    /// One run of a step's tool loop, classified.
    async fn run_step(&mut self, step_id: u32) -> StepRun {
        self.state.last_failure = None;
        self.state.detector.start_step();
        match self.tool_loop(Some(step_id)).await {
            LoopEnd::Answered(text) => match self.state.last_failure.take() {
                Some((tool, error)) if !text.contains("RESOLVED") => StepRun::Failed(StepFailure {
                    trigger: format!("the last tool call of the step (`{tool}`) failed"),
                    error_type: "tool_error".to_owned(),
                    error,
                    suggestion: "Read the error, fix its cause, and finish the step.".to_owned(),
                }),
                _ => StepRun::Done(text),
            },
            LoopEnd::Completed(result) => StepRun::TaskDone(result),
            LoopEnd::StepCap => StepRun::Failed(StepFailure {
                trigger: "step iteration limit".to_owned(),
                error_type: "step_iteration_limit".to_owned(),
                error: format!(
                    "the step did not finish within {} model calls",
                    self.config.step_iterations
                ),
                suggestion:
                    "Narrow the work down to what the step needs and finish it with fewer calls."
                        .to_owned(),
            }),
            other => StepRun::Abort(other),
        }
    }

    /// Up to `max_repairs` self-repair attempts of a failed step.
    async fn repair(&mut self, step: &PlanStep, mut failure: StepFailure) -> StepRun {
        let max = self.config.max_repairs;
        for attempt in 1..=max {
            tracing::warn!(step = step.index, attempt, max, trigger = %failure.trigger, error = %failure.error, "step failed; repairing");
            let report = |result: RepairResult, failure: &StepFailure| RunRepairAttempt {
                step_id: Some(step.index),
                attempt_number: attempt,
                max_attempts: max,
                trigger: failure.trigger.clone(),
                error_type: Some(failure.error_type.clone()),
                error_message: Some(failure.error.clone()),
                suggestion: Some(failure.suggestion.clone()),
                result,
            };
            self.emitter.emit(report(RepairResult::Pending, &failure));
            self.context.conversation.push_note(format!(
                "Step {} ({}) failed: {}\nError: {}\nRepair attempt {attempt}/{max}: {} Then reply with a short summary without calling tools.",
                step.index, step.title, failure.trigger, failure.error, failure.suggestion
            ));
            match self.run_step(step.index).await {
                done @ (StepRun::Done(_) | StepRun::TaskDone(_)) => {
                    self.emitter.emit(report(RepairResult::Success, &failure));
                    return done;
                }
                StepRun::Failed(next) => {
                    self.emitter.emit(report(RepairResult::Failed, &failure));
                    failure = next;
                }
                StepRun::Abort(end) => {
                    if !matches!(end, LoopEnd::Cancelled) {
                        self.emitter.emit(report(RepairResult::Failed, &failure));
                    }
                    return StepRun::Abort(end);
                }
            }
        }
        StepRun::Failed(failure)
    }

    /// `run.step.fail` for a step whose repairs did not help, then the plan fails.
    fn step_failed(
        &self,
        plan: &Plan,
        step: &PlanStep,
        progress: Progress,
        failure: &StepFailure,
    ) -> Ending {
        self.emitter.emit(RunStepFail {
            step_id: step.index,
            title: step.title.clone(),
            error: failure.error.clone(),
            progress,
        });
        let error = format!(
            "step {} ({}) failed: {}",
            step.index, step.title, failure.error
        );
        self.plan_failed(plan, Some(step.index), error)
    }

    /// `run.execution.fail` and `run.plan.complete{success: false}`; the turn failed.
    fn plan_failed(&self, plan: &Plan, step_id: Option<u32>, error: String) -> Ending {
        self.emitter.emit(RunExecutionFail {
            plan: Some(plan.clone()),
            step_id,
            error: error.clone(),
            message: execution_failed_message(plan, step_id),
        });
        self.emitter.emit(RunPlanComplete {
            success: false,
            summary: error.clone(),
            files_changed: self.changes.since(PLAN_CHANGES_FROM),
        });
        Ending::new(AgentStatus::Failed, error)
    }

    /// The plan stopped inside a step for a reason other than the step failing.
    fn plan_aborted(
        &self,
        plan: &Plan,
        step: &PlanStep,
        progress: Progress,
        end: LoopEnd,
    ) -> Ending {
        match end {
            LoopEnd::Cancelled => {
                self.emitter.emit(RunExecutionCancel {
                    message: format!("cancelled during step {} of {}", step.index, progress.total),
                    step_id: Some(step.index),
                });
                Ending::new(AgentStatus::Cancelled, "cancelled")
            }
            LoopEnd::TurnCap => {
                let error = format!(
                    "the iteration limit ({}) was reached during step {}",
                    self.config.max_iterations, step.index
                );
                let mut ending = self.plan_failed(plan, Some(step.index), error);
                ending.status = AgentStatus::MaxIterations;
                ending
            }
            LoopEnd::Failed(provider_error) => {
                let error = self.provider_failed(&provider_error);
                self.plan_failed(plan, Some(step.index), error)
            }
            LoopEnd::Stopped(message) => {
                self.emitter.emit(RunStepFail {
                    step_id: step.index,
                    title: step.title.clone(),
                    error: message.clone(),
                    progress,
                });
                self.plan_failed(plan, Some(step.index), message)
            }
            other => self.plan_failed(
                plan,
                Some(step.index),
                format!("the step ended unexpectedly: {other:?}"),
            ),
        }
    }
}

/// The user message that starts step `step`.
fn step_message(step: &PlanStep, total: u32, goal: &str) -> String {
    let tools = if step.expected_tools.is_empty() {
        String::new()
    } else {
        format!("\nExpected tools: {}.", step.expected_tools.join(", "))
    };
    format!(
        "Plan goal: {goal}\nStep {}/{total}: {}\n{}{tools}\n\n{STEP_RULES}",
        step.index, step.title, step.description
    )
}

/// The approval subject of a plan: its goal and numbered steps.
fn plan_subject(plan: &Plan) -> String {
    let mut text = plan.goal.clone();
    for step in &plan.steps {
        text.push_str(&format!("\n{}. {}", step.index, step.title));
    }
    text
}

/// A plan from an approver's `modified` value: a plan object, or its JSON text.
fn modified_plan(modified: Option<&serde_json::Value>) -> Result<Plan, String> {
    let value = modified.ok_or("no modified plan was given")?;
    parse_args::<CreatePlanArgs>(CREATE_PLAN, value)?.into_plan()
}

/// `run.execution.fail`'s status line: which step of which plan failed.
fn execution_failed_message(plan: &Plan, step_id: Option<u32>) -> String {
    let step = step_id.and_then(|id| plan.steps.iter().find(|s| s.index == id));
    match step {
        Some(step) => format!(
            "Plan execution failed at step {} of {} ({}): {}",
            step.index,
            plan.steps.len(),
            step.title,
            plan.goal
        ),
        None => format!("Plan execution failed: {}", plan.goal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_plans_are_parsed_from_objects_and_text() {
        let value = serde_json::json!({"goal": "g", "estimated_complexity": "medium",
            "steps": [{"title": "a", "description": "b"}]});
        assert_eq!(modified_plan(Some(&value)).unwrap().steps[0].index, 1);
        let text = serde_json::Value::String(value.to_string());
        assert_eq!(modified_plan(Some(&text)).unwrap().goal, "g");
        assert!(modified_plan(None).is_err());
        assert!(modified_plan(Some(&serde_json::json!({"goal": "g"}))).is_err());
    }
}
