//! The `[rag]` and `[rag_servers.NAME]` sections of `keel.toml`: the embeddings endpoint and
//! named folders to search besides the project.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::embed::EmbeddingSettings;

/// The built-in server: the project itself.
pub const PROJECT_SERVER: &str = "project";

/// `[rag]` in `keel.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RagSection {
    /// An OpenAI-compatible API base serving `/embeddings` (e.g. `http://localhost:11434/v1`).
    pub embeddings_base_url: Option<String>,
    /// The embedding model.
    pub embeddings_model: Option<String>,
    /// The environment variable holding the endpoint's key, if it wants one.
    pub embeddings_api_key_env: Option<String>,
}

/// `[rag_servers.NAME]` in `keel.toml`: another folder to index and search.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RagServer {
    /// The folder (relative to the project root, or absolute).
    pub path: PathBuf,
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

    /// The folder a server searches: the root for `project`, the configured path otherwise.
    pub fn server_root(&self, root: &Path, name: &str) -> Option<PathBuf> {
        if name == PROJECT_SERVER {
            return Some(root.to_path_buf());
        }
        let server = self.rag_servers.get(name)?;
        Some(if server.path.is_absolute() {
            server.path.clone()
        } else {
            root.join(&server.path)
        })
    }

    /// Every server name, `project` first.
    pub fn server_names(&self) -> Vec<String> {
        std::iter::once(PROJECT_SERVER.to_owned())
            .chain(self.rag_servers.keys().cloned())
            .collect()
    }
}
