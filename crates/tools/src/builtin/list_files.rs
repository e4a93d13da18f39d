//! `list_files`: the files and folders under a path, honouring ignore files.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{thousands, workspace};
use crate::tool::{ToolContext, ToolResult, TypedTool};
use crate::walk::walker;

/// Most entries listed.
pub const MAX_ENTRIES: usize = 1000;

/// Arguments of `list_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// Folder to list, relative to the workspace root (`.` for the root).
    pub path: String,
    /// List everything below the folder, not just its direct entries (default false).
    #[serde(default)]
    pub recursive: Option<bool>,
}

/// Lists files and folders.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListFiles;

#[async_trait]
impl TypedTool for ListFiles {
    type Args = ListFilesArgs;

    fn name(&self) -> &'static str {
        "list_files"
    }

    fn description(&self) -> &'static str {
        "List the files and folders in a folder of the workspace (folders end with `/`). Set recursive to list everything below it. Files ignored by .gitignore or .ignore are left out."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("List a folder's files (recursive: true for everything below it).")
    }

    async fn run(&self, ctx: &ToolContext, args: ListFilesArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let dir = match ws.resolve(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot list `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&dir);
        if !dir.exists() {
            return ToolResult::error(format!("Folder does not exist: {rel}"));
        }
        if !dir.is_dir() {
            return ToolResult::error(format!(
                "`{rel}` is a file, not a folder; use read_file to read it."
            ));
        }
        let recursive = args.recursive.unwrap_or(false);
        let root = ws.root().to_path_buf();
        let listing = tokio::task::spawn_blocking(move || {
            let mut builder = walker(&dir);
            if !recursive {
                builder.max_depth(Some(1));
            }
            let mut entries = Vec::new();
            let mut errors = 0usize;
            for entry in builder.build() {
                let Ok(entry) = entry else {
                    errors += 1;
                    continue;
                };
                if entry.depth() == 0 {
                    continue;
                }
                let path = entry.path().strip_prefix(&root).unwrap_or(entry.path());
                let mut shown = path.to_string_lossy().replace('\\', "/");
                if entry.file_type().is_some_and(|t| t.is_dir()) {
                    shown.push('/');
                }
                entries.push(shown);
            }
            entries.sort();
            (entries, errors)
        })
        .await;
        let (entries, errors) = match listing {
            Ok(listing) => listing,
            Err(e) => return ToolResult::error(format!("Listing `{rel}` failed: {e}")),
        };
        if entries.is_empty() {
            return ToolResult::ok(format!(
                "`{rel}` is empty (or everything in it is ignored)."
            ));
        }
        let total = entries.len();
        let shown = total.min(MAX_ENTRIES);
        let mut content = entries[..shown].join("\n");
        content.push('\n');
        let mut message = format!("Listed {} entries in `{rel}`", thousands(total));
        if total > shown {
            message = format!(
                "`{rel}` has {} entries; showing the first {MAX_ENTRIES}. List a subfolder to see the rest",
                thousands(total)
            );
            content.push_str(&format!(
                "... [{} more entries not shown]\n",
                thousands(total - shown)
            ));
        }
        message.push_str(if recursive { " (recursive)." } else { "." });
        if errors > 0 {
            message.push_str(&format!(" {errors} entries could not be read."));
        }
        ToolResult::ok_with(message, content)
    }
}
