//! The catalogue: every event type string and the payload it carries.
//!
//! One macro invocation lists each entry once; the enum, the list of type strings and the
//! type-directed payload parser are all generated from it, so they cannot drift apart.

use schemars::JsonSchema;
use serde::Serialize;
use ts_rs::TS;

use crate::payload::*;

/// Why a payload could not be read for a known type.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// The `type` string is not in the catalogue.
    #[error("unknown event type `{0}`")]
    UnknownType(String),
    /// The payload does not have the shape its type requires.
    #[error("invalid `{event_type}` payload at `{path}`: {message}")]
    Invalid {
        /// The event type whose payload failed.
        event_type: &'static str,
        /// Path of the offending field inside the payload (`.` for the payload itself).
        path: String,
        /// What serde reported.
        message: String,
    },
}

fn parse_payload<T: serde::de::DeserializeOwned>(
    event_type: &'static str,
    json: &str,
) -> Result<T, PayloadError> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        PayloadError::Invalid {
            event_type,
            path,
            message: e.into_inner().to_string(),
        }
    })
}

macro_rules! catalogue {
    ($( $(#[$doc:meta])* $variant:ident($payload:ty) = $name:literal, )*) => {
        /// An event's `type` with its payload: one variant per catalogue entry.
        ///
        /// Serialises adjacently tagged, as `{"type": "…", "payload": {…}}`.
        #[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, TS)]
        #[serde(tag = "type", content = "payload")]
        pub enum EventKind {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($payload), )*
        }

        impl EventKind {
            /// Every type string in the catalogue, in catalogue order.
            pub const TYPES: &'static [&'static str] = &[$($name),*];

            /// The `phase.domain.action` type string of this event.
            pub fn type_name(&self) -> &'static str {
                match self { $( Self::$variant(_) => $name, )* }
            }

            /// Reads a payload for the given type string.
            pub fn from_parts(event_type: &str, payload_json: &str) -> Result<Self, PayloadError> {
                match event_type {
                    $( $name => parse_payload::<$payload>($name, payload_json).map(Self::$variant), )*
                    other => Err(PayloadError::UnknownType(other.to_owned())),
                }
            }
        }

        $(
            impl From<$payload> for EventKind {
                fn from(payload: $payload) -> Self { Self::$variant(payload) }
            }
        )*
    };
}

catalogue! {
    /// The agent was handed a task.
    AgentStart(AgentStart) = "agent.start",
    /// The turn ended.
    AgentEnd(AgentEnd) = "agent.end",
    /// The model that will answer was chosen.
    PrepareModelSelect(PrepareModelSelect) = "prepare.model.select",
    /// A conversation was created or resumed.
    PrepareConversationOpen(PrepareConversationOpen) = "prepare.conversation.open",
    /// History was loaded.
    PrepareHistoryLoad(PrepareHistoryLoad) = "prepare.history.load",
    /// The repository map was built.
    PrepareRepomapBuild(PrepareRepomapBuild) = "prepare.repomap.build",
    /// Project instruction files were loaded into the system prompt.
    PrepareInstructionsLoad(PrepareInstructionsLoad) = "prepare.instructions.load",
    /// The answer starts, in direct or plan mode.
    RunResponseStart(RunResponseStart) = "run.response.start",
    /// The answer ends.
    RunResponseEnd(RunResponseEnd) = "run.response.end",
    /// A model request is about to be sent.
    RunLlmStart(RunLlmStart) = "run.llm.start",
    /// Streamed answer text.
    RunLlmDelta(RunLlmDelta) = "run.llm.delta",
    /// The model's response is complete.
    RunLlmEnd(RunLlmEnd) = "run.llm.end",
    /// A failed model call will be retried.
    RunLlmRetry(RunLlmRetry) = "run.llm.retry",
    /// Reasoning began.
    RunThinkingStart(RunThinkingStart) = "run.thinking.start",
    /// Streamed reasoning text.
    RunThinkingDelta(RunThinkingDelta) = "run.thinking.delta",
    /// Reasoning finished.
    RunThinkingEnd(RunThinkingEnd) = "run.thinking.end",
    /// Reasoning broke off.
    RunThinkingFail(RunThinkingFail) = "run.thinking.fail",
    /// A tool is about to run.
    RunToolStart(RunToolStart) = "run.tool.start",
    /// Output of a running tool.
    RunToolOutput(RunToolOutput) = "run.tool.output",
    /// A tool finished.
    RunToolEnd(RunToolEnd) = "run.tool.end",
    /// The agent waits for an approval.
    RunApprovalRequest(RunApprovalRequest) = "run.approval.request",
    /// An approval was decided.
    RunApprovalResolve(RunApprovalResolve) = "run.approval.resolve",
    /// The model produced a plan.
    RunPlanCreate(RunPlanCreate) = "run.plan.create",
    /// The plan was changed.
    RunPlanModify(RunPlanModify) = "run.plan.modify",
    /// The execution should be re-planned.
    RunPlanReplan(RunPlanReplan) = "run.plan.replan",
    /// Every step of the plan has run.
    RunPlanComplete(RunPlanComplete) = "run.plan.complete",
    /// A read-only planning reply.
    RunPlanRespond(RunPlanRespond) = "run.plan.respond",
    /// Plan execution begins.
    RunExecutionStart(RunExecutionStart) = "run.execution.start",
    /// Plan execution finished.
    RunExecutionEnd(RunExecutionEnd) = "run.execution.end",
    /// Plan execution failed.
    RunExecutionFail(RunExecutionFail) = "run.execution.fail",
    /// Plan execution was cancelled.
    RunExecutionCancel(RunExecutionCancel) = "run.execution.cancel",
    /// A plan step begins.
    RunStepStart(RunStepStart) = "run.step.start",
    /// Text produced by a step.
    RunStepOutput(RunStepOutput) = "run.step.output",
    /// A plan step finished.
    RunStepEnd(RunStepEnd) = "run.step.end",
    /// A plan step failed.
    RunStepFail(RunStepFail) = "run.step.fail",
    /// A self-repair attempt.
    RunRepairAttempt(RunRepairAttempt) = "run.repair.attempt",
    /// The loop looks stuck.
    RunAnomalyDetect(RunAnomalyDetect) = "run.anomaly.detect",
    /// A file changed.
    RunFileChange(RunFileChange) = "run.file.change",
    /// History was summarised.
    RunContextCompress(RunContextCompress) = "run.context.compress",
    /// How full the context window is.
    RunContextWindow(RunContextWindow) = "run.context.window",
    /// Token usage of the latest call.
    RunUsageReport(RunUsageReport) = "run.usage.report",
    /// Project memory was written.
    RunMemoryUpdate(RunMemoryUpdate) = "run.memory.update",
    /// A follow-up question for the user.
    RunQuestionAsk(RunQuestionAsk) = "run.question.ask",
    /// The answer to a follow-up question.
    RunQuestionAnswer(RunQuestionAnswer) = "run.question.answer",
    /// The model declares the task done.
    RunCompletionAttempt(RunCompletionAttempt) = "run.completion.attempt",
    /// The session was taken back to before a checkpoint's turn (files, history or both).
    RunCheckpointRewind(RunCheckpointRewind) = "run.checkpoint.rewind",
    /// A hook (a command configured for a point of the session) is started.
    RunHookStart(RunHookStart) = "run.hook.start",
    /// A hook finished, was killed or could not start: its decision, duration and error.
    RunHookEnd(RunHookEnd) = "run.hook.end",
    /// A `task` call started a subagent.
    RunSubagentStart(RunSubagentStart) = "run.subagent.start",
    /// A subagent ended: its status, report length, usage and cost.
    RunSubagentEnd(RunSubagentEnd) = "run.subagent.end",
    /// A user-started script run began.
    ExecFileStart(ExecFileStart) = "exec.file.start",
    /// Standard output of a script run.
    ExecFileStdout(ExecFileStdout) = "exec.file.stdout",
    /// Standard error of a script run.
    ExecFileStderr(ExecFileStderr) = "exec.file.stderr",
    /// A script run ended.
    ExecFileExit(ExecFileExit) = "exec.file.exit",
    /// A status line.
    SystemStatus(SystemStatus) = "system.status",
    /// A log record.
    SystemLog(SystemLog) = "system.log",
    /// An error.
    SystemError(SystemError) = "system.error",
    /// A display-only line.
    SystemCliDisplay(SystemCliDisplay) = "system.cli_display",
}

impl EventKind {
    /// True for events only a person reads (`system.cli_display`): JSONL and stores skip them.
    pub fn is_display_only(&self) -> bool {
        matches!(self, Self::SystemCliDisplay(_))
    }
}
