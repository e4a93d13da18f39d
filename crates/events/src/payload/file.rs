//! `run.file.change`: the agent changed a file in the workspace.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `run.file.change`: one file was created, updated, deleted or moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunFileChange {
    /// Workspace-relative path (the target path for a move).
    pub path: String,
    /// What happened.
    pub op: FileOp,
    /// Source path of a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from_path: Option<String>,
    /// Target path of a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub to_path: Option<String>,
    /// One-line description.
    pub summary: String,
    /// Lines added.
    pub lines_added: u64,
    /// Lines removed.
    pub lines_removed: u64,
    /// Size in bytes after the change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub size: Option<u64>,
    /// MIME type guessed from the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mime_type: Option<String>,
    /// Unified diff of the change, when it is text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub diff: Option<String>,
    /// True when the change was made in a shadow workspace (`--shadow`) and waits there for
    /// `keel shadow apply`; absent for changes made to the real tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub staged: Option<bool>,
}

/// Kind of file change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum FileOp {
    /// A new file.
    Create,
    /// An existing file's content changed.
    Update,
    /// A file was removed.
    Delete,
    /// A file was moved or renamed.
    Move,
}
