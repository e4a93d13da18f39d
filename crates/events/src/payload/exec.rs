//! `exec.file.*`: a user-started run of one script file, outside the agent loop.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `exec.file.start`: the script started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ExecFileStart {
    /// Id shared by all events of this run.
    pub run_id: String,
    /// Workspace-relative path of the script.
    pub file: String,
    /// The command line used (interpreter and file).
    pub command: Vec<String>,
}

/// `exec.file.stdout`: a piece of the script's standard output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ExecFileStdout {
    /// Id of the run.
    pub run_id: String,
    /// The text.
    pub content: String,
}

/// `exec.file.stderr`: a piece of the script's standard error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ExecFileStderr {
    /// Id of the run.
    pub run_id: String,
    /// The text.
    pub content: String,
}

/// `exec.file.exit`: the script ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ExecFileExit {
    /// Id of the run.
    pub run_id: String,
    /// Workspace-relative path of the script.
    pub file: String,
    /// Exit code; absent when a signal or time-out ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exit_code: Option<i32>,
    /// Wall time.
    pub duration_ms: u64,
    /// True when the run was ended by its time-out.
    #[serde(default)]
    pub timed_out: bool,
}
