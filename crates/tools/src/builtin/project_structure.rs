//! `get_project_structure`: a compact tree of the workspace honouring ignore files, with
//! each source file's definition count (from the repository map and its cache) and other
//! files' sizes.

use std::collections::BTreeMap;

use async_trait::async_trait;
use keel_repomap::{MapOptions, RepoMap};
use schemars::JsonSchema;
use serde::Deserialize;

use super::workspace;
use crate::tool::{ToolContext, ToolResult, TypedTool};
use crate::walk::walker;

/// Default depth of the tree.
pub const DEFAULT_DEPTH: u32 = 3;
/// Deepest tree shown.
pub const MAX_DEPTH: u32 = 12;
/// Most lines in the tree.
pub const MAX_LINES: usize = 400;

/// Arguments of `get_project_structure`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetProjectStructureArgs {
    /// How many folder levels to expand (default 3); deeper folders are summarised.
    #[serde(default)]
    pub depth: Option<u32>,
}

/// Shows the project's layout.
#[derive(Debug, Clone, Copy, Default)]
pub struct GetProjectStructure;

#[derive(Debug, Default)]
struct Dir {
    dirs: BTreeMap<String, Dir>,
    files: BTreeMap<String, (u64, Option<usize>)>,
    total_files: usize,
    total_symbols: usize,
}

impl Dir {
    fn insert(&mut self, parts: &[&str], size: u64, symbols: Option<usize>) {
        self.total_files += 1;
        self.total_symbols += symbols.unwrap_or(0);
        match parts {
            [] => {}
            [file] => {
                self.files.insert((*file).to_owned(), (size, symbols));
            }
            [dir, rest @ ..] => self
                .dirs
                .entry((*dir).to_owned())
                .or_default()
                .insert(rest, size, symbols),
        }
    }

    fn render(&self, indent: usize, depth_left: u32, out: &mut Vec<String>) {
        let pad = "  ".repeat(indent);
        for (name, dir) in &self.dirs {
            let summary = summary(dir.total_files, dir.total_symbols);
            if depth_left == 0 {
                out.push(format!("{pad}{name}/ ({summary})"));
            } else {
                out.push(format!("{pad}{name}/"));
                dir.render(indent + 1, depth_left - 1, out);
            }
        }
        for (name, (size, symbols)) in &self.files {
            let detail = match symbols {
                Some(n) => format!("{n} symbols"),
                None => human_size(*size),
            };
            out.push(format!("{pad}{name} ({detail})"));
        }
    }
}

fn summary(files: usize, symbols: usize) -> String {
    let files = if files == 1 {
        "1 file".to_owned()
    } else {
        format!("{files} files")
    };
    if symbols > 0 {
        format!("{files}, {symbols} symbols")
    } else {
        files
    }
}

fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

#[async_trait]
impl TypedTool for GetProjectStructure {
    type Args = GetProjectStructureArgs;

    fn name(&self) -> &'static str {
        "get_project_structure"
    }

    fn description(&self) -> &'static str {
        "Show the layout of the workspace as a compact tree (ignored files left out): each source file with its number of definitions, other files with their size, and folders deeper than `depth` (default 3) summarised. Use it first to find your way around an unfamiliar project."
    }

    async fn run(&self, ctx: &ToolContext, args: GetProjectStructureArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let depth = args.depth.unwrap_or(DEFAULT_DEPTH).min(MAX_DEPTH);
        let root = ws.root().to_path_buf();
        let built = tokio::task::spawn_blocking(move || {
            // Symbol counts come from the repository map (cached in .keel/cache/).
            let mut map = RepoMap::open(&root, MapOptions::default())?;
            map.refresh()?;
            // A cache that cannot be written only costs a re-parse next time.
            let _ = map.save();
            let mut tree = Dir::default();
            for entry in walker(&root).build().flatten() {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let Ok(rel) = entry.path().strip_prefix(&root) else {
                    continue;
                };
                let rel = rel.to_string_lossy().replace('\\', "/");
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                let symbols = map.file(&rel).map(|tags| tags.symbols.len());
                let parts: Vec<&str> = rel.split('/').collect();
                tree.insert(&parts, size, symbols);
            }
            Ok::<_, keel_repomap::RepoMapError>(tree)
        })
        .await;
        let tree = match built {
            Ok(Ok(tree)) => tree,
            Ok(Err(e)) => return ToolResult::error(format!("Cannot map the workspace: {e}")),
            Err(e) => return ToolResult::error(format!("Mapping the workspace failed: {e}")),
        };
        let mut lines = Vec::new();
        tree.render(0, depth.saturating_sub(1), &mut lines);
        let truncated = lines.len() > MAX_LINES;
        lines.truncate(MAX_LINES);
        let mut message = format!(
            "{} in the workspace.",
            summary(tree.total_files, tree.total_symbols)
        );
        if truncated {
            message.push_str(&format!(
                " The tree was cut at {MAX_LINES} lines; call again with a smaller depth, or use list_files on a folder."
            ));
        }
        ToolResult::ok_with(message, lines.join("\n") + "\n")
    }
}
