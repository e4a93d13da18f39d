//! Plan mode: approving a plan, then running its steps as bounded tool loops with self-repair.

use keel_events::{
    AgentStatus, ApprovalDecision, ApprovalKind, Plan, PlanStep, Progress, RepairResult,
    ResponseMode, RunExecutionCancel, RunExecutionEnd, RunExecutionFail, RunExecutionStart,
    RunPlanComplete, RunPlanCreate, RunPlanModify, RunRepairAttempt, RunResponseEnd,
    RunResponseStart, RunStepEnd, RunStepFail, RunStepStart, ToolStatus,
};
use keel_tools::ToolResult;

use super::control_tools::{CREATE_PLAN, CreatePlanArgs, parse_args};
use super::instructions::STEP_RULES;
use super::session::AgentSession;
use super::turn::{Ending, LoopEnd, PendingPlan, Turn};

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

impl AgentSession {
    /// Runs the plan `pending` carries, from `run.plan.create` to `run.execution.end`.
    pub(crate) async fn execute_plan(&mut self, turn: &mut Turn, pending: PendingPlan) -> Ending {
        let PendingPlan {
            call_id,
            arguments,
            started,
            mut plan,
        } = pending;
        if turn.response == ResponseMode::Direct {
            self.emitter.emit(RunResponseEnd {
                mode: ResponseMode::Direct,
            });
            self.emitter.emit(RunResponseStart {
                mode: ResponseMode::Plan,
            });
            turn.response = ResponseMode::Plan;
        }
        self.emitter.emit(RunPlanCreate { plan: plan.clone() });

        if self.config.approve_plans {
            let ctx = self.tool_context(turn, &call_id, None);
            let reply = ctx
                .request_approval(
                    ApprovalKind::Plan,
                    plan_subject(&plan),
                    "plans need approval before they run (approve_plans is on)",
                )
                .await;
            let rejection = match reply.decision {
                ApprovalDecision::Approve => None,
                ApprovalDecision::Reject => Some(
                    reply
                        .reason
                        .filter(|r| !r.trim().is_empty())
                        .unwrap_or_else(|| "no reason given".to_owned()),
                ),
                ApprovalDecision::Modify => match modified_plan(reply.modified.as_ref()) {
                    Ok(modified) => {
                        plan = modified;
                        self.emitter.emit(RunPlanModify { plan: plan.clone() });
                        None
                    }
                    Err(e) => Some(format!("the modified plan could not be used: {e}")),
                },
            };
            if let Some(reason) = rejection {
                let result = format!("plan rejected: {reason}");
                self.finish_plan_call(
                    &call_id,
                    &arguments,
                    ToolResult::error(&result),
                    ToolStatus::Denied,
                    started,
                );
                return Ending::new(AgentStatus::Cancelled, result);
            }
        }
        let total = plan.steps.len();
        self.finish_plan_call(
            &call_id,
            &arguments,
            ToolResult::ok(format!(
                "Plan accepted ({total} steps). You will now be asked to carry out each step in turn."
            )),
            ToolStatus::Success,
            started,
        );
        turn.plan = Some(plan.clone());
        self.emitter.emit(RunExecutionStart {
            plan: plan.clone(),
            message: format!("Executing {total} steps: {}", plan.goal),
        });

        let plan_changes_from = 0;
        let mut last_text = String::new();
        let mut completion = None;
        let total_u32 = u32::try_from(total).unwrap_or(u32::MAX);
        for step in &plan.steps {
            let progress = Progress {
                current: step.index,
                total: total_u32,
            };
            self.emitter.emit(RunStepStart {
                step_id: step.index,
                title: step.title.clone(),
                description: step.description.clone(),
                progress,
            });
            let step_changes_from = self.change_count();
            self.conversation
                .push_user(step_message(step, total_u32, &plan.goal));
            let mut run = self.run_step(turn, step.index).await;
            if let StepRun::Failed(failure) = run {
                run = self.repair(turn, step, failure).await;
            }
            match run {
                StepRun::Done(text) => {
                    last_text = text;
                }
                StepRun::TaskDone(result) => {
                    completion = Some(result);
                }
                StepRun::Failed(failure) => {
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
                    return self.plan_failed(&plan, Some(step.index), error, plan_changes_from);
                }
                StepRun::Abort(end) => {
                    return self.plan_aborted(&plan, step, progress, end, plan_changes_from);
                }
            }
            self.emitter.emit(RunStepEnd {
                step_id: step.index,
                title: step.title.clone(),
                files_changed: self.files_changed_since(step_changes_from),
                progress,
            });
            if completion.is_some() {
                break;
            }
        }

        let summary = match completion {
            Some(result) => result,
            None if !last_text.trim().is_empty() => last_text,
            None => format!("Completed all {total} steps: {}", plan.goal),
        };
        self.emitter.emit(RunPlanComplete {
            success: true,
            summary: summary.clone(),
            files_changed: self.files_changed_since(plan_changes_from),
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
        started: std::time::Instant,
    ) {
        self.conversation
            .add_tool_result(
                call_id,
                result.message.clone(),
                result.success,
                &self.retention,
            )
            .ok();
        self.emit_tool_end(
            call_id.to_owned(),
            CREATE_PLAN,
            arguments,
            &result,
            status,
            started,
            None,
        );
    }

    /// One run of a step's tool loop, classified.
    async fn run_step(&mut self, turn: &mut Turn, step_id: u32) -> StepRun {
        turn.last_failure = None;
        turn.detector.start_step();
        match self.tool_loop(turn, Some(step_id)).await {
            LoopEnd::Answered(text) => match turn.last_failure.take() {
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
    async fn repair(
        &mut self,
        turn: &mut Turn,
        step: &PlanStep,
        mut failure: StepFailure,
    ) -> StepRun {
        let max = self.config.max_repairs;
        for attempt in 1..=max {
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
            self.conversation.push_user(format!(
                "Step {} ({}) failed: {}\nError: {}\nRepair attempt {attempt}/{max}: {} Then reply with a short summary without calling tools.",
                step.index, step.title, failure.trigger, failure.error, failure.suggestion
            ));
            match self.run_step(turn, step.index).await {
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

    /// `run.execution.fail` and `run.plan.complete{success: false}`; the turn failed.
    fn plan_failed(
        &self,
        plan: &Plan,
        step_id: Option<u32>,
        error: String,
        changes_from: usize,
    ) -> Ending {
        self.emitter.emit(RunExecutionFail {
            plan: Some(plan.clone()),
            step_id,
            error: error.clone(),
        });
        self.emitter.emit(RunPlanComplete {
            success: false,
            summary: error.clone(),
            files_changed: self.files_changed_since(changes_from),
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
        changes_from: usize,
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
                let mut ending = self.plan_failed(plan, Some(step.index), error, changes_from);
                ending.status = AgentStatus::MaxIterations;
                ending
            }
            LoopEnd::Failed(provider_error) => {
                let error = self.provider_failed(&provider_error);
                self.plan_failed(plan, Some(step.index), error, changes_from)
            }
            LoopEnd::Stopped(message) => {
                self.emitter.emit(RunStepFail {
                    step_id: step.index,
                    title: step.title.clone(),
                    error: message.clone(),
                    progress,
                });
                self.plan_failed(plan, Some(step.index), message, changes_from)
            }
            other => self.plan_failed(
                plan,
                Some(step.index),
                format!("the step ended unexpectedly: {other:?}"),
                changes_from,
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
