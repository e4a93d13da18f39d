//! `run.tool.*`, `run.approval.*`: tool calls and the approvals that gate them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{EditDiagnostics, Plan};

/// `run.tool.start`: a tool is about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunToolStart {
    /// The model's call id.
    pub call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// Arguments as given (free-form JSON).
    #[ts(type = "JsonValue")]
    pub arguments: serde_json::Value,
    /// Plan step this call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<u32>,
    /// The MCP server the tool belongs to (absent for Keel's own tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mcp_server: Option<String>,
}

/// `run.tool.output`: a piece of a running tool's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunToolOutput {
    /// The model's call id.
    pub call_id: String,
    /// Which stream it came from.
    pub stream: OutputStream,
    /// The text.
    pub content: String,
}

/// Standard output or standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// `run.tool.end`: a tool finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunToolEnd {
    /// The model's call id.
    pub call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// How it ended.
    pub status: ToolStatus,
    /// The result text given back to the model.
    pub result: String,
    /// Wall time.
    pub duration_ms: u64,
    /// One-line summary of the arguments, for timelines.
    pub args_summary: String,
    /// One-line summary of the result, for timelines.
    pub result_summary: String,
    /// Plan step this call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<u32>,
    /// Source path of a `move_file` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from_path: Option<String>,
    /// Target path of a `move_file` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub to_path: Option<String>,
    /// The MCP server the tool belongs to (absent for Keel's own tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mcp_server: Option<String>,
    /// What the project's language servers said about the files a successful edit changed
    /// (absent when no server covers them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub diagnostics: Option<EditDiagnostics>,
}

/// Outcome of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool did what was asked.
    Success,
    /// The tool ran and failed, or its arguments were invalid.
    Error,
    /// The approval policy or the user refused it.
    Denied,
    /// The turn was cancelled while it ran.
    Cancelled,
}

/// `run.approval.request`: the agent waits for a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunApprovalRequest {
    /// Id the decision must quote.
    pub approval_id: String,
    /// What is to be approved.
    pub kind: ApprovalKind,
    /// The plan goal, command line or tool call in question.
    pub subject: String,
    /// Why approval is needed.
    pub reason: String,
    /// The plan itself, for an approval of kind `plan` (seed 000's `PlanAwaitingApprovalEvent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub plan: Option<Plan>,
}

/// What an approval is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    /// A plan from `create_plan`.
    Plan,
    /// A shell command.
    Command,
    /// Any other tool call.
    Tool,
}

/// `run.approval.resolve`: the decision on an approval request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunApprovalResolve {
    /// Id of the request.
    pub approval_id: String,
    /// The decision.
    pub decision: ApprovalDecision,
    /// What was approved (copied from the request), so consumers need not look the request up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub kind: Option<ApprovalKind>,
    /// Why, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
    /// The replacement (a plan or command) for `modify` (free-form JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "JsonValue")]
    pub modified: Option<serde_json::Value>,
}

/// A decision on an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Go ahead as proposed.
    Approve,
    /// Do not do it.
    Reject,
    /// Go ahead with `modified` instead.
    Modify,
}
