//! Seed 003's Activity Timeline record: `{id, type, timestamp, taskId, projectId, payload}` with
//! six types and camelCase payloads, exactly as the front end and the `agent_events` table expect.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::payload::{FileOp, LogLevel, RepairResult};

/// One Activity Timeline record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEvent {
    /// Id of the event it was projected from.
    pub id: String,
    /// RFC 3339 timestamp.
    pub timestamp: String,
    /// The turn (seed 003's AI task).
    pub task_id: String,
    /// The project.
    pub project_id: String,
    /// The parent's `task` call, when a subagent produced the event (the envelope's
    /// `parent_call_id`): the page nests the record under that call's row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent_call_id: Option<String>,
    /// Type and payload.
    #[serde(flatten)]
    pub payload: TimelinePayload,
}

/// The six timeline types with their payloads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum TimelinePayload {
    /// The agent entered or left a phase.
    AgentPhase(AgentPhasePayload),
    /// A tool was called.
    ToolCall(ToolCallPayload),
    /// A file was created, updated, deleted or moved.
    FileUpdate(FileUpdatePayload),
    /// A self-repair attempt.
    SelfRepair(SelfRepairPayload),
    /// Anything else worth showing.
    Log(LogPayload),
    /// An error.
    Error(ErrorPayload),
}

impl TimelinePayload {
    /// The timeline type string (`agent_phase`, `tool_call`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::AgentPhase(_) => "agent_phase",
            Self::ToolCall(_) => "tool_call",
            Self::FileUpdate(_) => "file_update",
            Self::SelfRepair(_) => "self_repair",
            Self::Log(_) => "log",
            Self::Error(_) => "error",
        }
    }
}

/// `agent_phase` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentPhasePayload {
    /// Which phase.
    pub phase: AgentPhase,
    /// Entering or leaving it.
    pub action: PhaseAction,
    /// Phase summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<String>,
}

/// The four agent phases of the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum AgentPhase {
    /// Planning (`create_plan`).
    Planner,
    /// The tool loop and plan steps.
    Coder,
    /// Completion checks.
    Reviewer,
    /// Self-repair.
    Debugger,
}

/// Entering or leaving a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum PhaseAction {
    /// The phase begins.
    Enter,
    /// The phase ends.
    Exit,
}

/// `tool_call` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallPayload {
    /// Tool name, e.g. `move_file`.
    pub tool_name: String,
    /// Argument summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub args_summary: Option<String>,
    /// Result summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub result_summary: Option<String>,
    /// Whether the call succeeded.
    pub success: bool,
    /// Duration in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub duration: Option<u64>,
    /// Source path (`move_file` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from_path: Option<String>,
    /// Target path (`move_file` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub to_path: Option<String>,
    /// The MCP server the tool belongs to (MCP tools only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mcp_server: Option<String>,
}

/// `file_update` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileUpdatePayload {
    /// Target path (the new path for a move).
    pub path: String,
    /// What happened.
    pub op: FileOp,
    /// Operation summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<String>,
    /// Source path (`op = move` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from_path: Option<String>,
    /// Target path (`op = move` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub to_path: Option<String>,
    /// File size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub file_size: Option<u64>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mime_type: Option<String>,
}

/// `self_repair` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SelfRepairPayload {
    /// Attempt number (1-3).
    pub attempt_number: u32,
    /// Maximum attempts.
    pub max_attempts: u32,
    /// What triggered the repair.
    pub trigger: String,
    /// Error type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_type: Option<String>,
    /// Error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_message: Option<String>,
    /// Suggested fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suggestion: Option<String>,
    /// Outcome.
    pub result: RepairResult,
}

/// `log` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct LogPayload {
    /// Severity.
    pub level: LogLevel,
    /// The message.
    pub message: String,
    /// Extra data (`{"raw": true}` for unparsed legacy lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, JsonValue>")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `error` payload (seed 003 names the text `message` here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ErrorPayload {
    /// Error type.
    pub error_type: String,
    /// Error message.
    pub message: String,
    /// Stack trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stack: Option<String>,
    /// Whether the run can go on.
    pub recoverable: bool,
}
