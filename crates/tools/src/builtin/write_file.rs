//! `write_file` (alias `write_to_file`): create or overwrite a file.

use async_trait::async_trait;
use keel_events::FileOp;
use schemars::JsonSchema;
use serde::Deserialize;

use super::workspace;
use crate::file_change::{approve_edit, checkpoint_before, emit_edit};
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// Path of the file, relative to the workspace root. Missing parent folders are created.
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// Creates or overwrites a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;

    fn name(&self) -> &'static str {
        "write_file"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["write_to_file"]
    }

    fn description(&self) -> &'static str {
        "Create a file or replace its whole content. Missing parent folders are created. Give the complete content; to change part of an existing file, prefer replace_in_file."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("Create a file, or replace a file's whole content.")
    }

    async fn run(&self, ctx: &ToolContext, args: WriteFileArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let path = match ws.resolve_for_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot write `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&path);
        if path.is_dir() {
            return ToolResult::error(format!("`{rel}` is a folder; give a file path."));
        }
        let before = match tokio::fs::read(&path).await {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return ToolResult::error(format!("Cannot read `{rel}` before writing: {e}")),
        };
        if before.as_deref() == Some(args.content.as_bytes()) {
            return ToolResult::ok(format!(
                "`{rel}` already has this content; nothing changed."
            ));
        }
        let before_shown = before.as_deref().map(String::from_utf8_lossy);
        if let Err(message) = approve_edit(
            ctx,
            &format!("write_file {rel}"),
            &rel,
            before_shown.as_deref(),
            Some(&args.content),
        )
        .await
        {
            return ToolResult::error(message);
        }
        if let Err(message) = checkpoint_before(ctx, &path) {
            return ToolResult::error(message);
        }
        if let Some(parent) = path.parent()
            && let Err(e) = tokio::fs::create_dir_all(parent).await
        {
            return ToolResult::error(format!("Cannot create the folders for `{rel}`: {e}"));
        }
        if let Err(e) = tokio::fs::write(&path, args.content.as_bytes()).await {
            return ToolResult::error(format!("Cannot write `{rel}`: {e}"));
        }
        let before_text = before.as_deref().map(String::from_utf8_lossy);
        let op = if before.is_some() {
            FileOp::Update
        } else {
            FileOp::Create
        };
        let change = emit_edit(
            ctx,
            &rel,
            op,
            before_text.as_deref(),
            Some(&args.content),
            Some(args.content.len() as u64),
        );
        let verb = if before.is_some() {
            "Updated"
        } else {
            "Created"
        };
        ToolResult::ok(format!(
            "{verb} `{rel}` ({} bytes, +{} -{} lines).",
            args.content.len(),
            change.added,
            change.removed
        ))
    }
}
