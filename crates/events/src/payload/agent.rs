//! `agent.*`: the lifetime of one agent run (a turn).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::Usage;

/// `agent.start`: the agent was handed a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct AgentStart {
    /// Name of the agent (e.g. `keel`).
    pub agent_name: String,
    /// The user's request, verbatim.
    pub task_input: String,
    /// The mode the caller asked for, when it asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode_hint: Option<ModeHint>,
    /// The images the request carried (what they were, not their bytes: the bytes stay in
    /// the conversation the session saves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub images: Option<Vec<ImageInfo>>,
}

/// What an image given to the model was: its name, type and size (never its bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ImageInfo {
    /// The file's name, or what the front end called it (`image 1`, `pasted.png`).
    pub name: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`, from the bytes themselves.
    pub media_type: String,
    /// Its size in bytes.
    pub size: u64,
}

/// Mode requested by the caller before the model has chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ModeHint {
    /// Let the model decide whether to plan.
    Auto,
    /// Never plan.
    Direct,
    /// Always plan first.
    Plan,
}

/// `agent.end`: the turn is over, however it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct AgentEnd {
    /// How the turn ended.
    pub status: AgentStatus,
    /// The final answer, or what went wrong.
    pub result: String,
    /// Workspace-relative paths changed during the turn.
    #[serde(default)]
    pub files_changed: Vec<String>,
    /// Tokens used over the whole turn.
    #[serde(default)]
    pub usage: Usage,
    /// Why the result may not be what was asked, when Keel can tell (e.g. the task asked for
    /// changes and no file changed, or the project's tests still fail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub warning: Option<String>,
}

/// Final status of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// The task was done.
    Completed,
    /// An error stopped the turn.
    Failed,
    /// The user cancelled.
    Cancelled,
    /// The iteration limit was reached first.
    MaxIterations,
}
