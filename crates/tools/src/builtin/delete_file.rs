//! `delete_file`: remove a file.

use async_trait::async_trait;
use keel_events::FileOp;
use schemars::JsonSchema;
use serde::Deserialize;

use super::workspace;
use crate::file_change::{approve_edit, checkpoint_before, emit_edit};
use crate::file_text::{FileText, decode};
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Arguments of `delete_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteFileArgs {
    /// Path of the file to delete, relative to the workspace root.
    pub path: String,
}

/// Deletes a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeleteFile;

#[async_trait]
impl TypedTool for DeleteFile {
    type Args = DeleteFileArgs;

    fn name(&self) -> &'static str {
        "delete_file"
    }

    fn description(&self) -> &'static str {
        "Delete a file in the workspace (not a folder). The deletion is recorded in the turn's checkpoint and can be rolled back."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("Delete a file.")
    }

    async fn run(&self, ctx: &ToolContext, args: DeleteFileArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let path = match ws.resolve_for_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot delete `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&path);
        if path.is_dir() {
            return ToolResult::error(format!(
                "`{rel}` is a folder; delete_file only deletes files."
            ));
        }
        let bytes = match tokio::fs::read(&path).await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return ToolResult::error(format!("File does not exist: {rel}"));
            }
            Err(e) => return ToolResult::error(format!("Cannot delete `{rel}`: {e}")),
        };
        let shown = String::from_utf8_lossy(&bytes).into_owned();
        if let Err(message) =
            approve_edit(ctx, &format!("delete_file {rel}"), &rel, Some(&shown), None).await
        {
            return ToolResult::error(message);
        }
        if let Err(message) = checkpoint_before(ctx, &path) {
            return ToolResult::error(message);
        }
        if let Err(e) = tokio::fs::remove_file(&path).await {
            return ToolResult::error(format!("Cannot delete `{rel}`: {e}"));
        }
        let text = match decode(bytes) {
            FileText::Text { text, .. } => Some(text),
            FileText::Binary => None,
        };
        emit_edit(ctx, &rel, FileOp::Delete, text.as_deref(), None, Some(0));
        ToolResult::ok(format!("Deleted `{rel}`."))
    }
}
