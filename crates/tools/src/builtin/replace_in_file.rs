//! `replace_in_file`: targeted edits as SEARCH/REPLACE blocks, applied all or nothing.

use async_trait::async_trait;
use keel_events::FileOp;
use schemars::JsonSchema;
use serde::Deserialize;

use super::workspace;
use crate::file_change::{approve_edit, checkpoint_before, emit_edit};
use crate::file_text::looks_binary;
use crate::search_replace::{Strategy, apply};
use crate::tool::{ToolContext, ToolResult, TypedTool};

const BOM: &str = "\u{FEFF}";

/// Arguments of `replace_in_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceInFileArgs {
    /// Path of the file to edit, relative to the workspace root.
    pub path: String,
    /// One or more SEARCH/REPLACE blocks:
    /// `<<<<<<< SEARCH`, the exact lines to find, `=======`, the lines to put instead,
    /// `>>>>>>> REPLACE`. Blocks apply in file order.
    pub diff: String,
}

/// Edits part of a file with SEARCH/REPLACE blocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplaceInFile;

#[async_trait]
impl TypedTool for ReplaceInFile {
    type Args = ReplaceInFileArgs;

    fn name(&self) -> &'static str {
        "replace_in_file"
    }

    fn description(&self) -> &'static str {
        "Edit part of a file with one or more SEARCH/REPLACE blocks:\n<<<<<<< SEARCH\n[exact lines from the file]\n=======\n[lines to put instead]\n>>>>>>> REPLACE\nEach SEARCH must match whole lines of the current file (whitespace and indentation differences are tolerated; the replacement is re-indented to fit). List blocks in file order and keep them short: a few lines of context around each change. All blocks apply or none do. An empty SEARCH only creates content in an empty or missing file."
    }

    fn brief(&self) -> Option<&'static str> {
        Some(
            "Change part of a file. diff holds one or more blocks, each: a line `<<<<<<< SEARCH`, the lines to change copied exactly from the file, a line `=======`, the new lines, a line `>>>>>>> REPLACE`.",
        )
    }

    async fn run(&self, ctx: &ToolContext, args: ReplaceInFileArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let path = match ws.resolve_for_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot edit `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&path);
        if path.is_dir() {
            return ToolResult::error(format!("`{rel}` is a folder; give a file path."));
        }
        let before = match tokio::fs::read(&path).await {
            Ok(bytes) => {
                if looks_binary(&bytes) {
                    return ToolResult::error(format!(
                        "`{rel}` is a binary file; replace_in_file only edits text."
                    ));
                }
                match String::from_utf8(bytes) {
                    Ok(text) => Some(text),
                    Err(_) => {
                        return ToolResult::error(format!(
                            "`{rel}` is not valid UTF-8; replace_in_file would corrupt it, so it was not changed."
                        ));
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return ToolResult::error(format!("Cannot read `{rel}`: {e}")),
        };
        let (bom, body) = match before.as_deref() {
            Some(text) => match text.strip_prefix(BOM) {
                Some(rest) => (BOM, Some(rest)),
                None => ("", Some(text)),
            },
            None => ("", None),
        };
        let applied = match apply(body, &args.diff) {
            Ok(applied) => applied,
            Err(e) => {
                let missing = if before.is_none() {
                    format!(" (`{rel}` does not exist yet.)")
                } else {
                    String::new()
                };
                return ToolResult::error(format!("Cannot edit `{rel}`: {e}{missing}"));
            }
        };
        let after = format!("{bom}{}", applied.text);
        if before.as_deref() == Some(after.as_str()) {
            return ToolResult::ok(format!(
                "The SEARCH and REPLACE lines are the same; `{rel}` is unchanged."
            ));
        }
        if let Err(message) = approve_edit(
            ctx,
            &format!("replace_in_file {rel}"),
            &rel,
            before.as_deref(),
            Some(&after),
        )
        .await
        {
            return ToolResult::error(message);
        }
        if let Err(message) = checkpoint_before(ctx, &path) {
            return ToolResult::error(message);
        }
        if before.is_none()
            && let Some(parent) = path.parent()
            && let Err(e) = tokio::fs::create_dir_all(parent).await
        {
            return ToolResult::error(format!("Cannot create the folders for `{rel}`: {e}"));
        }
        if let Err(e) = tokio::fs::write(&path, after.as_bytes()).await {
            return ToolResult::error(format!("Cannot write `{rel}`: {e}"));
        }
        let op = if before.is_some() {
            FileOp::Update
        } else {
            FileOp::Create
        };
        let change = emit_edit(
            ctx,
            &rel,
            op,
            before.as_deref(),
            Some(&after),
            Some(after.len() as u64),
        );
        let blocks = applied.strategies.len();
        let tolerant: Vec<String> = applied
            .strategies
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Some(s) if *s != Strategy::Exact => {
                    Some(format!("block {} matched {}", i + 1, s.describe()))
                }
                _ => None,
            })
            .collect();
        let note = if tolerant.is_empty() {
            String::new()
        } else {
            format!(" Note: {}.", tolerant.join("; "))
        };
        let plural = if blocks == 1 { "" } else { "s" };
        ToolResult {
            success: true,
            message: format!(
                "Applied {blocks} block{plural} to `{rel}` (+{} -{} lines).{note}",
                change.added, change.removed
            ),
            content: change.diff,
            summary: None,
            images: Vec::new(),
        }
    }
}
