//! `keel_task`: the request, its report, and the [`TaskRunner`] a front end supplies to run it.

use std::sync::Arc;

use async_trait::async_trait;
use keel_events::{AgentStatus, EventHandler};
use keel_protocol::Approver;
use keel_protocol::Mode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// The arguments of a `keel_task` call as the client sends them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskArgs {
    /// The task for the agent, in plain words.
    pub task: String,
    /// `auto` (the model decides whether to plan), `direct` (never plan) or `plan` (plan
    /// first). Default: the server's setting.
    #[serde(default)]
    pub mode: Option<String>,
}

/// One agent turn to run for an MCP client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRequest {
    /// The task, in plain words.
    pub task: String,
    /// The planning mode, when the client chose one.
    pub mode: Option<Mode>,
}

/// What a finished turn reports back to the client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskReport {
    /// How the turn ended.
    pub status: AgentStatus,
    /// The final answer, or what went wrong.
    pub answer: String,
    /// Workspace-relative paths the turn changed.
    pub files_changed: Vec<String>,
    /// The session the turn was stored under (`keel sessions show ID`).
    pub session_id: String,
}

/// What the runner gets besides the request.
pub struct TaskContext {
    /// Receives every event of the turn (progress notifications are made from them).
    pub events: Box<dyn EventHandler>,
    /// Asks for approvals the turn needs.
    pub approver: Arc<dyn Approver>,
    /// Cancelled when the client cancels the call.
    pub cancel: CancellationToken,
}

impl std::fmt::Debug for TaskContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskContext")
            .field("approver", &self.approver)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// Why a turn could not be run at all (bad settings, no provider): shown to the client as a
/// failed tool result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TaskError(pub String);

/// Runs one whole agent turn (the front end's session host).
#[async_trait]
pub trait TaskRunner: Send + Sync + 'static {
    /// Runs `request` to its end, handing every event to `context.events`.
    async fn run(
        &self,
        request: TaskRequest,
        context: TaskContext,
    ) -> Result<TaskReport, TaskError>;
}
