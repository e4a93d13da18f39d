//! `move_file`: move or rename a file (seed 003 §5: four outcomes, four messages — the seed's
//! own words under the Chinese locale).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use keel_events::Lang;

use super::workspace;
use crate::file_change::{approve_edit, checkpoint_before, emit_move};
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Arguments of `move_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveFileArgs {
    /// Source file path, relative to the project root.
    #[serde(rename = "fromPath")]
    pub from_path: String,
    /// Target file path, relative to the project root.
    #[serde(rename = "toPath")]
    pub to_path: String,
    /// Whether to overwrite the target if it already exists (default false).
    #[serde(default)]
    pub overwrite: Option<bool>,
}

/// Moves or renames a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct MoveFile;

/// `move_file`'s four messages (seed 003 §5.3), in the session's language.
struct Words(Lang);

impl Words {
    fn no_source(&self, from: &str) -> ToolResult {
        ToolResult::error(match self.0 {
            Lang::En => format!("Source file does not exist: {from}"),
            Lang::ZhCn => format!("源文件不存在: {from}"),
        })
    }

    fn target_exists(&self, to: &str) -> ToolResult {
        ToolResult::error(match self.0 {
            Lang::En => format!("Target file already exists: {to}"),
            Lang::ZhCn => format!("目标文件已存在: {to}"),
        })
    }

    fn failed(&self, error: impl std::fmt::Display) -> ToolResult {
        ToolResult::error(match self.0 {
            Lang::En => format!("Failed to move file: {error}"),
            Lang::ZhCn => format!("移动文件失败: {error}"),
        })
    }

    /// Success, with seed 003 §6.1's summary (`文件已移动`).
    fn moved(&self, from: &str, to: &str) -> ToolResult {
        let (message, summary) = match self.0 {
            Lang::En => (format!("File moved: {from} → {to}"), "File moved"),
            Lang::ZhCn => (format!("文件已移动: {from} → {to}"), "文件已移动"),
        };
        ToolResult::ok(message).with_summary(summary)
    }
}

#[async_trait]
impl TypedTool for MoveFile {
    type Args = MoveFileArgs;

    fn name(&self) -> &'static str {
        "move_file"
    }

    fn description(&self) -> &'static str {
        "Move or rename a file. Moves the file from one path to another (paths relative to the project root); missing target folders are created. Fails if the target exists unless overwrite is true."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("Move or rename a file.")
    }

    async fn run(&self, ctx: &ToolContext, args: MoveFileArgs) -> ToolResult {
        let words = Words(ctx.lang);
        let failed = |e: &dyn std::fmt::Display| words.failed(e);
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let from = match ws.resolve_for_write(&args.from_path) {
            Ok(path) => path,
            Err(e) => return failed(&e),
        };
        let to = match ws.resolve_for_write(&args.to_path) {
            Ok(path) => path,
            Err(e) => return failed(&e),
        };
        match tokio::fs::symlink_metadata(&from).await {
            Ok(meta) if meta.is_dir() => {
                return failed(&format!(
                    "{} is a folder; move_file moves files",
                    args.from_path
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return words.no_source(&args.from_path);
            }
            Err(e) => return failed(&e),
        }
        if from == to {
            return words.target_exists(&args.to_path);
        }
        match tokio::fs::symlink_metadata(&to).await {
            Ok(meta) if meta.is_dir() => {
                return failed(&format!("{} is a folder", args.to_path));
            }
            Ok(_) if !args.overwrite.unwrap_or(false) => {
                return words.target_exists(&args.to_path);
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return failed(&e),
        }
        let (from_rel, to_rel) = (ws.relative(&from), ws.relative(&to));
        if let Err(message) = approve_edit(
            ctx,
            &format!("move_file {from_rel} -> {to_rel}"),
            &from_rel,
            None,
            None,
        )
        .await
        {
            return ToolResult::error(message);
        }
        if let Err(message) = checkpoint_before(ctx, &from) {
            return failed(&message);
        }
        if let Err(message) = checkpoint_before(ctx, &to) {
            return failed(&message);
        }
        if let Some(parent) = to.parent()
            && let Err(e) = tokio::fs::create_dir_all(parent).await
        {
            return failed(&e);
        }
        if tokio::fs::rename(&from, &to).await.is_err() {
            // Across file systems rename fails: copy, then remove the source.
            if let Err(e) = tokio::fs::copy(&from, &to).await {
                return failed(&e);
            }
            if let Err(e) = tokio::fs::remove_file(&from).await {
                let _ = tokio::fs::remove_file(&to).await;
                return failed(&e);
            }
        }
        let size = tokio::fs::metadata(&to).await.ok().map(|m| m.len());
        emit_move(ctx, &ws.relative(&from), &ws.relative(&to), size);
        words.moved(&args.from_path, &args.to_path)
    }
}
