//! `use_rag_tool`: search by meaning. The server `project` searches the workspace's index in
//! `.keel/index` (built on first use, then kept current for the session by the repo map's
//! watcher, changed files only; without a watcher refreshed by a walk on every call); a server
//! named in `keel.toml` as `[rag_servers.NAME] path = "…"` searches that folder, indexed into
//! `.keel/index/servers/NAME`; one named as `[rag_servers.NAME] mcp_server = "…"` and
//! `tool = "…"` calls that tool of the session's MCP server with the query (in the argument
//! `query_argument`, default `query`) and returns its text, budgeted like the index's hits.
//! With `[rag] embeddings_base_url` and `embeddings_model` set, dense vectors are fused with
//! the lexical ranking.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use keel_index::{
    INDEX_DIR, IndexOptions, LiveIndex, MAX_QUERY_BYTES, PROJECT_SERVER, ProjectIndex, RagConfig,
    SearchRequest, ServerSource, WATCH_DEBOUNCE, budget_text, render_hits, truncate_query,
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

/// Runs one search of a folder: opens (or reuses) the server's index, brings it up to date,
/// searches.
fn search(
    open: &Mutex<HashMap<PathBuf, LiveIndex>>,
    root: PathBuf,
    config: RagConfig,
    folder: PathBuf,
    args: UseRagToolArgs,
) -> ToolResult {
    let server = args.server_name.trim();
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
        "Search by meaning: find the code and docs that answer a question in words (\"where is the session cookie signed?\"), when you do not know the names to grep for. Returns the best chunks (a function, class or doc section) as `path:start-end` with a score and the start of the text. server_name is `project` for this workspace, or a server named in keel.toml's [rag_servers] (another folder, or an MCP server's search tool)."
    }

    async fn run(&self, ctx: &ToolContext, args: UseRagToolArgs) -> ToolResult {
        if args.query.trim().is_empty() {
            return ToolResult::error("Nothing to search for: `query` is empty.");
        }
        let root = ctx.root.clone();
        let config = match RagConfig::load(&root) {
            Ok(config) => config,
            Err(e) => return ToolResult::error(format!("keel.toml is unusable: {e}")),
        };
        let server = args.server_name.trim().to_owned();
        match config.server(&root, &server) {
            None => ToolResult::error(format!(
                "No RAG server `{server}`. Available: {}. Name others in keel.toml as [rag_servers.NAME] with path = \"…\" (a folder) or mcp_server = \"…\" and tool = \"…\" (an MCP search tool).",
                config.server_names().join(", ")
            )),
            Some(ServerSource::McpTool {
                mcp_server,
                tool,
                query_argument,
                arguments,
            }) => {
                let call = McpSearch {
                    server: &server,
                    mcp_server,
                    tool,
                    query_argument,
                    arguments,
                };
                call.run(ctx, &args.query).await
            }
            Some(ServerSource::Folder(folder)) => {
                let open = self.open.clone();
                match tokio::task::spawn_blocking(move || search(&open, root, config, folder, args))
                    .await
                {
                    Ok(result) => result,
                    Err(e) => ToolResult::error(format!("The search failed: {e}")),
                }
            }
        }
    }
}

/// One search by a RAG server backed by an MCP server's tool.
struct McpSearch<'a> {
    /// The RAG server's name.
    server: &'a str,
    mcp_server: &'a str,
    tool: &'a str,
    query_argument: &'a str,
    arguments: &'a serde_json::Map<String, serde_json::Value>,
}

impl McpSearch<'_> {
    /// Calls the tool with the (truncated) query; its text, budgeted, or why it failed.
    async fn run(&self, ctx: &ToolContext, query: &str) -> ToolResult {
        let Self {
            server,
            mcp_server,
            tool,
            ..
        } = self;
        let unreachable = |why: String| {
            ToolResult::error(format!(
                "RAG server `{server}` searches with tool `{tool}` of MCP server `{mcp_server}`, but {why}."
            ))
        };
        let Some(mcp) = &ctx.mcp else {
            return unreachable(format!(
                "no MCP server is connected here (name it in keel.toml as [mcp_servers.{mcp_server}])"
            ));
        };
        match mcp.server_tools(mcp_server) {
            Err(why) => return unreachable(lower_first(&why)),
            Ok(tools) if !tools.iter().any(|t| t == tool) => {
                return unreachable(format!(
                    "that server has no tool `{tool}` (its tools: {})",
                    if tools.is_empty() {
                        "none".to_owned()
                    } else {
                        tools.join(", ")
                    }
                ));
            }
            Ok(_) => {}
        }
        let mut notes = Vec::new();
        let searched = truncate_query(query, MAX_QUERY_BYTES);
        if searched.len() < query.len() {
            notes.push(format!(
                "the query was {} bytes; only its first {} were searched",
                query.len(),
                searched.len()
            ));
        }
        let mut arguments = self.arguments.clone();
        arguments.insert(
            self.query_argument.to_owned(),
            serde_json::Value::String(searched.to_owned()),
        );
        let answer = mcp
            .call_tool(
                mcp_server,
                tool,
                serde_json::Value::Object(arguments),
                &ctx.cancel,
            )
            .await;
        let text = answer.content.unwrap_or_default();
        let (text, cut) = budget_text(text.trim(), TOKEN_BUDGET);
        notes.extend(cut);
        let mut content = String::new();
        for note in &notes {
            content.push_str(&format!("Note: {note}\n"));
        }
        content.push_str(&text);
        if !answer.success {
            let message = format!(
                "RAG server `{server}` failed: {}",
                lower_first(&answer.message)
            );
            return if content.is_empty() {
                ToolResult::error(message)
            } else {
                ToolResult {
                    success: false,
                    message,
                    content: Some(content),
                    summary: None,
                    images: Vec::new(),
                }
            };
        }
        if text.is_empty() {
            return ToolResult::ok_with(
                format!(
                    "Nothing in `{server}` matches the query (tool `{tool}` of MCP server `{mcp_server}` returned no text)."
                ),
                content,
            );
        }
        ToolResult::ok_with(
            format!("Results of `{server}` (tool `{tool}` of MCP server `{mcp_server}`)."),
            content,
        )
    }
}

/// `text` with its first letter in lower case, to continue a sentence (an acronym such as
/// "MCP" is kept).
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if !second.is_uppercase() => first
            .to_lowercase()
            .chain(std::iter::once(second))
            .chain(chars)
            .collect(),
        _ => text.to_owned(),
    }
}
