//! `[lsp.LANGUAGE]` of `keel.toml`: which command serves a language, whether it is on, and how
//! long an edit waits for diagnostics.

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::language::Language;

/// How long an edit waits for a warm server's diagnostics unless configured.
pub const DEFAULT_WAIT: Duration = Duration::from_millis(1500);

/// How long the first edit after a server starts waits (start-up and first analysis included).
pub const DEFAULT_START_WAIT: Duration = Duration::from_secs(10);

/// One `[lsp.LANGUAGE]` table (`python`, `typescript`, `rust`, `go`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The server's command and arguments, speaking LSP over standard input and output
    /// (default: pyright-langserver --stdio, else basedpyright-langserver --stdio;
    /// typescript-language-server --stdio; rust-analyzer; gopls).
    pub command: Option<Vec<String>>,
    /// Whether the server is started at all (default true).
    pub enabled: Option<bool>,
    /// Most milliseconds an edit waits for the warm server's diagnostics (default 1500).
    pub wait_ms: Option<u64>,
    /// Most milliseconds the first edit waits while the server starts (default 10000).
    pub start_wait_ms: Option<u64>,
}

/// `[lsp]`: one table per language (an unknown language is an unknown key, named with its file
/// and line by keel-config).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LspTables {
    /// `[lsp.python]`: pyright-langserver, else basedpyright-langserver.
    pub python: Option<ServerConfig>,
    /// `[lsp.typescript]`: typescript-language-server (TypeScript and JavaScript).
    pub typescript: Option<ServerConfig>,
    /// `[lsp.rust]`: rust-analyzer.
    pub rust: Option<ServerConfig>,
    /// `[lsp.go]`: gopls.
    pub go: Option<ServerConfig>,
}

impl LspTables {
    /// The table of `language`, if set.
    pub fn table(&self, language: Language) -> Option<&ServerConfig> {
        match language {
            Language::Python => self.python.as_ref(),
            Language::TypeScript => self.typescript.as_ref(),
            Language::Rust => self.rust.as_ref(),
            Language::Go => self.go.as_ref(),
        }
    }

    /// The table of `language`, to set.
    pub fn table_mut(&mut self, language: Language) -> &mut Option<ServerConfig> {
        match language {
            Language::Python => &mut self.python,
            Language::TypeScript => &mut self.typescript,
            Language::Rust => &mut self.rust,
            Language::Go => &mut self.go,
        }
    }
}

/// The servers of a session: each language's settings, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LspSettings {
    servers: BTreeMap<Language, ServerConfig>,
}

/// A `[lsp.NAME]` table that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The table's name is no language Keel knows.
    #[error("[lsp.{0}]: unknown language (known: python, typescript, rust, go)")]
    UnknownLanguage(String),
    /// `command = []`.
    #[error("[lsp.{0}] command: give the server's command, not an empty list")]
    EmptyCommand(String),
}

impl LspSettings {
    /// The settings of `tables` (`[lsp.NAME]` by name), every table checked.
    pub fn new(tables: &BTreeMap<String, ServerConfig>) -> Result<Self, ConfigError> {
        let mut servers = BTreeMap::new();
        for (name, config) in tables {
            let language = Language::from_name(name)
                .ok_or_else(|| ConfigError::UnknownLanguage(name.clone()))?;
            if config.command.as_ref().is_some_and(Vec::is_empty) {
                return Err(ConfigError::EmptyCommand(name.clone()));
            }
            servers.insert(language, config.clone());
        }
        Ok(Self { servers })
    }

    /// The settings of `[lsp]` (an empty `command` is refused when the server would start).
    pub fn from_tables(tables: &LspTables) -> Self {
        let servers = Language::ALL
            .into_iter()
            .filter_map(|l| Some((l, tables.table(l)?.clone())))
            .collect();
        Self { servers }
    }

    fn of(&self, language: Language) -> Option<&ServerConfig> {
        self.servers.get(&language)
    }

    /// Whether `language`'s server may be started.
    pub fn enabled(&self, language: Language) -> bool {
        self.of(language).and_then(|c| c.enabled).unwrap_or(true)
    }

    /// The commands to try for `language`, in order: the configured one alone, else the
    /// defaults.
    pub fn commands(&self, language: Language) -> Vec<Vec<String>> {
        match self.of(language).and_then(|c| c.command.clone()) {
            Some(command) => vec![command],
            None => language
                .default_commands()
                .iter()
                .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
                .collect(),
        }
    }

    /// How long an edit waits for `language`'s warm server.
    pub fn wait(&self, language: Language) -> Duration {
        self.of(language)
            .and_then(|c| c.wait_ms)
            .map_or(DEFAULT_WAIT, Duration::from_millis)
    }

    /// How long the first edit after `language`'s server starts waits.
    pub fn start_wait(&self, language: Language) -> Duration {
        self.of(language)
            .and_then(|c| c.start_wait_ms)
            .map_or(DEFAULT_START_WAIT, Duration::from_millis)
    }
}
