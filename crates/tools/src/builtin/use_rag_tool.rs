//! `use_rag_tool`: search by meaning. The server `project` searches the workspace's index in
//! `.keel/index` (built on first use, then kept current for the session by the repo map's
//! watcher, changed files only; without a watcher refreshed by a walk on every call); a server
//! named in `keel.toml` as `[rag_servers.NAME] path = "…"` searches that folder, indexed into
//! `.keel/index/servers/NAME`. With `[rag] embeddings_base_url` and `embeddings_model` set,
//! dense vectors are fused with the lexical ranking.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use keel_index::{
    INDEX_DIR, IndexOptions, LiveIndex, PROJECT_SERVER, ProjectIndex, RagConfig, SearchRequest,
    WATCH_DEBOUNCE, render_hits,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tool::{ToolContext, ToolResult, TypedTool};

/// The tool's name.
pub const USE_RAG_TOOL: &str = "use_rag_tool";
/// Tokens the results may take.
const TOKEN_BUDGET: usize = 2000;
/// Chunks returned by default and at most.
const DEFAULT_LIMIT: usize = 8;
const MAX_LIMIT: usize = 30;

/// Arguments of `use_rag_tool`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UseRagToolArgs {
    /// `project` for this workspace, or a server named in keel.toml's `[rag_servers]`.
    pub server_name: String,
    /// What to find, in words: a question or a description ("where is a forged cross-site
    /// POST rejected?").
    pub query: String,
    /// Chunks to return (default 8, at most 30).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Searches an index by meaning; open indexes, and the watchers keeping them current, are
/// kept between calls for as long as the tool (the session's registry) lives.
#[derive(Debug, Clone, Default)]
pub struct UseRagTool {
    open: Arc<Mutex<HashMap<PathBuf, LiveIndex>>>,
}

/// Runs one search: opens (or reuses) the server's index, brings it up to date, searches.
fn search(
    open: &Mutex<HashMap<PathBuf, LiveIndex>>,
    root: PathBuf,
    args: UseRagToolArgs,
) -> ToolResult {
    let config = match RagConfig::load(&root) {
        Ok(config) => config,
        Err(e) => return ToolResult::error(format!("keel.toml is unusable: {e}")),
    };
    let server = args.server_name.trim();
    let Some(folder) = config.server_root(&root, server) else {
        return ToolResult::error(format!(
            "No RAG server `{server}`. Available: {}. Name others in keel.toml as [rag_servers.NAME] path = \"…\".",
            config.server_names().join(", ")
        ));
    };
    if !folder.is_dir() {
        return ToolResult::error(format!(
            "RAG server `{server}` points at {}, which is not a folder.",
            folder.display()
        ));
    }
    let index_dir =
        (server != PROJECT_SERVER).then(|| root.join(INDEX_DIR).join("servers").join(server));
    let key = index_dir.clone().unwrap_or_else(|| root.join(INDEX_DIR));
    let mut open = match open.lock() {
        Ok(open) => open,
        Err(poisoned) => poisoned.into_inner(),
    };
    if !open.contains_key(&key) {
        let options = IndexOptions {
            index_dir,
            embeddings: config.rag.embeddings(),
            ..IndexOptions::default()
        };
        let live = ProjectIndex::open(&folder, options)
            .and_then(|index| LiveIndex::start(index, WATCH_DEBOUNCE));
        match live {
            Ok(live) => {
                open.insert(key.clone(), live);
            }
            Err(e) => return ToolResult::error(format!("The index cannot be opened: {e}")),
        }
    }
    let Some(index) = open.get_mut(&key) else {
        return ToolResult::error("The index cannot be opened.");
    };
    let request = SearchRequest {
        query: args.query,
        limit: args.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT),
        token_budget: TOKEN_BUDGET,
    };
    let (mut outcome, currency) = match index.search(&request) {
        Ok(found) => found,
        Err(e) => return ToolResult::error(format!("The search failed: {e}")),
    };
    let mut notes = currency.warnings;
    notes.append(&mut outcome.notes);
    outcome.notes = notes;
    let reindexed: u64 = currency.updates.iter().map(|u| u.indexed + u.removed).sum();
    let kept = if currency.watched {
        "kept current by the file watcher"
    } else {
        "refreshed by a walk"
    };
    let state = format!(
        "{} files indexed, {reindexed} re-indexed since the last search, {kept}",
        currency.files
    );
    let message = if outcome.hits.is_empty() {
        format!("Nothing in `{server}` matches the query ({state}).")
    } else {
        format!(
            "{} chunks from `{server}` ({state}; {} search), best first.",
            outcome.hits.len(),
            outcome.mode
        )
    };
    ToolResult::ok_with(message, render_hits(&outcome))
}

#[async_trait]
impl TypedTool for UseRagTool {
    type Args = UseRagToolArgs;

    fn name(&self) -> &'static str {
        USE_RAG_TOOL
    }

    fn description(&self) -> &'static str {
        "Search by meaning: find the code and docs that answer a question in words (\"where is the session cookie signed?\"), when you do not know the names to grep for. Returns the best chunks (a function, class or doc section) as `path:start-end` with a score and the start of the text. server_name is `project` for this workspace, or a folder named in keel.toml's [rag_servers]."
    }

    async fn run(&self, ctx: &ToolContext, args: UseRagToolArgs) -> ToolResult {
        if args.query.trim().is_empty() {
            return ToolResult::error("Nothing to search for: `query` is empty.");
        }
        let open = self.open.clone();
        let root = ctx.root.clone();
        match tokio::task::spawn_blocking(move || search(&open, root, args)).await {
            Ok(result) => result,
            Err(e) => ToolResult::error(format!("The search failed: {e}")),
        }
    }
}
