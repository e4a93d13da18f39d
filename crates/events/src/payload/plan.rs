//! `run.plan.*`, `run.execution.*`, `run.step.*`, `run.repair.*`, `run.anomaly.*`: plan mode.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Plan, Progress};

/// `run.plan.create`: the model produced a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunPlanCreate {
    /// The plan.
    pub plan: Plan,
}

/// `run.plan.modify`: the plan was changed (by the user or a replan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunPlanModify {
    /// The plan as it now stands.
    pub plan: Plan,
}

/// `run.plan.replan`: the execution is drifting and should be re-planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunPlanReplan {
    /// Warning for the user.
    pub message: String,
    /// What triggered it.
    pub reason: String,
}

/// `run.plan.complete`: every step of the plan has run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunPlanComplete {
    /// Whether the plan succeeded.
    pub success: bool,
    /// What was done.
    pub summary: String,
    /// Workspace-relative paths changed by the plan.
    #[serde(default)]
    pub files_changed: Vec<String>,
}

/// `run.plan.respond`: a read-only planning reply (`plan_mode_respond`) that waits for the
/// user's reaction. It is answered like `run.question.ask`: the answer quotes `question_id`
/// (`POST …/questions/{question_id}` on the server) and is recorded as `run.question.answer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunPlanRespond {
    /// The reply.
    pub response: String,
    /// Choices offered to the user.
    #[serde(default)]
    pub options: Vec<String>,
    /// Id the answer must quote (the tool call's id). Streams recorded before it existed lack
    /// it; they read as empty.
    #[serde(default)]
    pub question_id: String,
}

/// `run.execution.start`: plan execution begins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunExecutionStart {
    /// The plan being executed.
    pub plan: Plan,
    /// Status line.
    pub message: String,
}

/// `run.execution.end`: plan execution finished successfully.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunExecutionEnd {
    /// The plan that ran.
    pub plan: Plan,
    /// Status line.
    pub message: String,
    /// What was done.
    pub summary: String,
}

/// `run.execution.fail`: plan execution stopped on an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunExecutionFail {
    /// The plan that was running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub plan: Option<Plan>,
    /// Step that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<u32>,
    /// What went wrong.
    pub error: String,
    /// Status line (seed 000's `PlanExecutionFailedEvent` is a message event). Empty in events
    /// recorded before it was reported.
    #[serde(default)]
    pub message: String,
}

/// `run.execution.cancel`: plan execution was cancelled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunExecutionCancel {
    /// Status line.
    pub message: String,
    /// Step that was running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<u32>,
}

/// `run.step.start`: a plan step begins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunStepStart {
    /// The step's index in the plan.
    pub step_id: u32,
    /// Short title.
    pub title: String,
    /// What the step does.
    pub description: String,
    /// Position in the plan.
    pub progress: Progress,
}

/// `run.step.output`: text produced while a step runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunStepOutput {
    /// The step's index in the plan.
    pub step_id: u32,
    /// The text.
    pub content: String,
}

/// `run.step.end`: a plan step finished successfully.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunStepEnd {
    /// The step's index in the plan.
    pub step_id: u32,
    /// Short title.
    pub title: String,
    /// Workspace-relative paths the step changed.
    #[serde(default)]
    pub files_changed: Vec<String>,
    /// Position in the plan.
    pub progress: Progress,
}

/// `run.step.fail`: a plan step failed (after any repair attempts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunStepFail {
    /// The step's index in the plan.
    pub step_id: u32,
    /// Short title.
    pub title: String,
    /// What went wrong.
    pub error: String,
    /// Position in the plan.
    pub progress: Progress,
}

/// `run.repair.attempt`: a self-repair attempt on a failing step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunRepairAttempt {
    /// Step being repaired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<u32>,
    /// 1-based attempt.
    pub attempt_number: u32,
    /// Attempts allowed.
    pub max_attempts: u32,
    /// What triggered the repair.
    pub trigger: String,
    /// Kind of error being repaired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_type: Option<String>,
    /// The error being repaired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_message: Option<String>,
    /// What the agent will try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suggestion: Option<String>,
    /// Outcome so far.
    pub result: RepairResult,
}

/// Outcome of a self-repair attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum RepairResult {
    /// The attempt is under way.
    Pending,
    /// The step now passes.
    Success,
    /// The attempt did not fix it.
    Failed,
}

/// `run.anomaly.detect`: the loop shows a pattern that suggests it is stuck.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunAnomalyDetect {
    /// Step in which it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<u32>,
    /// Which pattern.
    pub anomaly: AnomalyKind,
    /// Details for the user.
    pub message: String,
}

/// Patterns the anomaly detector knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum AnomalyKind {
    /// The same tool call with the same arguments, repeatedly.
    RepeatedCall,
    /// Several tool failures in a row.
    ConsecutiveFailures,
    /// Many iterations without a file change.
    NoProgress,
}
