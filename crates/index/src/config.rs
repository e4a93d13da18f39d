//! The `[rag]` and `[rag_servers.NAME]` sections of `keel.toml`: the embeddings endpoint, and
//! named servers to search besides the project — another folder (`path`) or a tool of an MCP
//! server that searches (`mcp_server` + `tool`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::embed::EmbeddingSettings;

/// The built-in server: the project itself.
pub const PROJECT_SERVER: &str = "project";

/// `[rag]` in `keel.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RagSection {
    /// An OpenAI-compatible API base serving `/embeddings` (e.g. `http://localhost:11434/v1`).
    pub embeddings_base_url: Option<String>,
    /// The embedding model.
    pub embeddings_model: Option<String>,
    /// The environment variable holding the endpoint's key, if it wants one.
    pub embeddings_api_key_env: Option<String>,
}

/// The default of `query_argument`: the MCP tool's argument the query goes in.
pub const DEFAULT_QUERY_ARGUMENT: &str = "query";

/// `[rag_servers.NAME]` in `keel.toml`: another folder to index and search (`path = "…"`), or
/// an MCP server's search tool to call (`mcp_server = "…"`, `tool = "…"`, optionally
/// `query_argument = "…"` and fixed `arguments = { … }`). The two are mutually exclusive.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RagServerTable")]
pub enum RagServer {
    /// A folder, indexed into `.keel/index/servers/NAME`.
    Folder {
        /// The folder (relative to the project root, or absolute).
        path: PathBuf,
    },
    /// A tool of one of the session's MCP servers (`[mcp_servers.NAME]`, `.mcp.json`).
    McpTool {
        /// The MCP server's name.
        mcp_server: String,
        /// The tool that searches.
        tool: String,
        /// The argument the query is passed in (default `query`).
        query_argument: String,
        /// Other arguments passed with every call (a JSON object).
        arguments: serde_json::Map<String, serde_json::Value>,
    },
}

impl schemars::JsonSchema for RagServer {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RagServer".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RagServerTable::json_schema(generator)
    }
}

/// `[rag_servers.NAME]` as written, before its keys are checked together.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RagServerTable {
    /// A folder to index and search (relative to the project root, or absolute).
    path: Option<PathBuf>,
    /// The MCP server whose search tool is called (instead of `path`).
    mcp_server: Option<String>,
    /// That server's search tool.
    tool: Option<String>,
    /// The tool's argument the query goes in (default `query`).
    query_argument: Option<String>,
    /// Other arguments passed with every call.
    arguments: Option<serde_json::Map<String, serde_json::Value>>,
}

impl TryFrom<RagServerTable> for RagServer {
    type Error = String;

    fn try_from(table: RagServerTable) -> Result<Self, String> {
        let RagServerTable {
            path,
            mcp_server,
            tool,
            query_argument,
            arguments,
        } = table;
        match (path, mcp_server) {
            (Some(_), Some(_)) => Err("`path` and `mcp_server` are mutually exclusive: a RAG server either indexes a folder or calls an MCP server's search tool".to_owned()),
            (None, None) => Err("a RAG server needs `path` (a folder to index) or `mcp_server` and `tool` (an MCP server tool that searches)".to_owned()),
            (Some(path), None) => {
                let mcp_only = [
                    ("tool", tool.is_some()),
                    ("query_argument", query_argument.is_some()),
                    ("arguments", arguments.is_some()),
                ];
                match mcp_only.iter().find(|(_, set)| *set) {
                    Some((key, _)) => Err(format!(
                        "`{key}` belongs with `mcp_server`, not with `path`"
                    )),
                    None if path.as_os_str().is_empty() => Err("`path` is empty".to_owned()),
                    None => Ok(RagServer::Folder { path }),
                }
            }
            (None, Some(mcp_server)) => {
                let tool = tool.ok_or_else(|| {
                    "`tool` is missing: name the tool of MCP server `".to_owned()
                        + &mcp_server
                        + "` that searches"
                })?;
                let query_argument =
                    query_argument.unwrap_or_else(|| DEFAULT_QUERY_ARGUMENT.to_owned());
                let arguments = arguments.unwrap_or_default();
                for (key, value) in [
                    ("mcp_server", &mcp_server),
                    ("tool", &tool),
                    ("query_argument", &query_argument),
                ] {
                    if value.trim().is_empty() {
                        return Err(format!("`{key}` is empty"));
                    }
                }
                if arguments.contains_key(&query_argument) {
                    return Err(format!(
                        "`arguments` sets `{query_argument}`, which is where the query goes"
                    ));
                }
                Ok(RagServer::McpTool {
                    mcp_server,
                    tool,
                    query_argument,
                    arguments,
                })
            }
        }
    }
}

/// Where a named server's results come from (see [`RagConfig::server`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSource<'a> {
    /// A folder to index and search (the project root for `project`).
    Folder(PathBuf),
    /// An MCP server's search tool.
    McpTool {
        /// The MCP server's name.
        mcp_server: &'a str,
        /// The tool that searches.
        tool: &'a str,
        /// The argument the query is passed in.
        query_argument: &'a str,
        /// Other arguments passed with every call.
        arguments: &'a serde_json::Map<String, serde_json::Value>,
    },
}

/// What `use_rag_tool` reads from a project's `keel.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RagConfig {
    /// `[rag]`.
    #[serde(default)]
    pub rag: RagSection,
    /// `[rag_servers.NAME]`.
    #[serde(default)]
    pub rag_servers: BTreeMap<String, RagServer>,
}

impl RagSection {
    /// The embeddings endpoint, when both its URL and model are set.
    pub fn embeddings(&self) -> Option<EmbeddingSettings> {
        let base_url = self.embeddings_base_url.clone()?;
        let model = self.embeddings_model.clone()?;
        let api_key = self
            .embeddings_api_key_env
            .as_ref()
            .and_then(|name| std::env::var(name).ok());
        Some(EmbeddingSettings {
            base_url,
            model,
            api_key,
        })
    }
}

impl RagConfig {
    /// The sections of `root/keel.toml` (other keys are ignored; no file means defaults).
    pub fn load(root: &Path) -> Result<Self, String> {
        let path = root.join("keel.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Where server `name` searches: the root for `project`, the configured folder or MCP
    /// tool otherwise; `None` when no server has that name.
    pub fn server(&self, root: &Path, name: &str) -> Option<ServerSource<'_>> {
        if name == PROJECT_SERVER {
            return Some(ServerSource::Folder(root.to_path_buf()));
        }
        Some(match self.rag_servers.get(name)? {
            RagServer::Folder { path } if path.is_absolute() => ServerSource::Folder(path.clone()),
            RagServer::Folder { path } => ServerSource::Folder(root.join(path)),
            RagServer::McpTool {
                mcp_server,
                tool,
                query_argument,
                arguments,
            } => ServerSource::McpTool {
                mcp_server,
                tool,
                query_argument,
                arguments,
            },
        })
    }

    /// Every server name, `project` first.
    pub fn server_names(&self) -> Vec<String> {
        std::iter::once(PROJECT_SERVER.to_owned())
            .chain(self.rag_servers.keys().cloned())
            .collect()
    }
}
