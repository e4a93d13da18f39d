//! `[mcp_servers.NAME]` in `keel.toml` and `.mcp.json`: what each server is and how Keel
//! treats it, and the checked form a session starts from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{Glob, GlobSet, GlobSetBuilder};
use keel_sandbox::{SandboxMode, SandboxPolicy};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::ConfigError;

/// The project file other agents write: `{"mcpServers": {NAME: {...}}}` in the project root.
pub const MCP_JSON: &str = ".mcp.json";

/// Default seconds a server has to start and list its tools.
pub const DEFAULT_STARTUP_TIMEOUT_SECS: u64 = 20;

/// Default seconds one tool call may take.
pub const DEFAULT_TOOL_TIMEOUT_SECS: u64 = 120;

/// When a call of a server's tool needs a person's yes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerApproval {
    /// Never ask.
    Never,
    /// Ask unless the tool says it is read-only (`readOnlyHint`) and not destructive.
    OnDangerous,
    /// Ask before every call.
    Always,
}

impl ServerApproval {
    /// The name as written in `keel.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::OnDangerous => "on-dangerous",
            Self::Always => "always",
        }
    }
}

impl std::str::FromStr for ServerApproval {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "never" => Ok(Self::Never),
            "on-dangerous" => Ok(Self::OnDangerous),
            "always" => Ok(Self::Always),
            _ => Err(format!(
                "unknown approval `{s}` (expected one of: never, on-dangerous, always)"
            )),
        }
    }
}

impl<'de> Deserialize<'de> for ServerApproval {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// One `[mcp_servers.NAME]` table, as written. Either `command` (a stdio server) or `url` (a
/// streamable HTTP server).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The program of a stdio server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment; `$VAR` and `${VAR}` are taken from Keel's environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Its working folder, relative to the project root (default: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The endpoint of a streamable HTTP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP headers sent with every request (`$VAR` expanded).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The environment variable holding a bearer token for the HTTP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_env_var: Option<String>,
    /// Seconds to start and list tools (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_secs: Option<u64>,
    /// Seconds one tool call may take (default 120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_timeout_secs: Option<u64>,
    /// `false` keeps the server configured but not started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Globs of the tool names offered (default all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_tools: Option<Vec<String>>,
    /// Globs of tool names never offered (wins over `enabled_tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_tools: Option<Vec<String>>,
    /// When calls need approval: never, on-dangerous (default) or always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ServerApprovalName>")]
    pub approval: Option<ServerApproval>,
    /// Per-tool approval, over `approval`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(with = "BTreeMap<String, ServerApprovalName>")]
    pub tool_approval: BTreeMap<String, ServerApproval>,
    /// The OS sandbox of a stdio server: read-only, workspace-write or off (default: the
    /// session's mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<SandboxModeName>")]
    pub sandbox: Option<SandboxMode>,
    /// Whether a sandboxed stdio server may use the network (default true: most servers
    /// reach an API).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
}

/// The names `approval` takes, for the JSON Schema of `keel.toml`.
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum ServerApprovalName {
    Never,
    OnDangerous,
    Always,
}

/// The names `sandbox` takes, for the JSON Schema of `keel.toml`.
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum SandboxModeName {
    ReadOnly,
    WorkspaceWrite,
    Off,
}

/// One entry of `.mcp.json`: `{command, args, env}` or `{url, headers}` (a `type` is accepted
/// and ignored; other keys are ignored too, as other agents write their own).
#[derive(Debug, Clone, Default, Deserialize)]
struct McpJsonEntry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
struct McpJson {
    #[serde(default, rename = "mcpServers")]
    mcp_servers: BTreeMap<String, McpJsonEntry>,
}

/// Reads `.mcp.json` in `root` (missing: no servers).
pub fn load_mcp_json(root: &Path) -> Result<BTreeMap<String, ServerConfig>, ConfigError> {
    let path = root.join(MCP_JSON);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let parsed: McpJson = serde_json::from_str(&text).map_err(|e| ConfigError::Invalid {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(parsed
        .mcp_servers
        .into_iter()
        .map(|(name, entry)| {
            let config = ServerConfig {
                command: entry.command,
                args: entry.args,
                env: entry.env,
                cwd: entry.cwd,
                url: entry.url,
                headers: entry.headers,
                ..ServerConfig::default()
            };
            (name, config)
        })
        .collect())
}

/// Merges server tables, first layer first (e.g. project `keel.toml`, `.mcp.json`, user
/// `keel.toml`): a name defined in an earlier layer wins as a whole.
pub fn merge_layers<'a>(
    layers: impl IntoIterator<Item = &'a BTreeMap<String, ServerConfig>>,
) -> BTreeMap<String, ServerConfig> {
    let mut merged = BTreeMap::new();
    for layer in layers {
        for (name, config) in layer {
            merged.entry(name.clone()).or_insert_with(|| config.clone());
        }
    }
    merged
}

/// How Keel reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on its standard input and output.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment, not yet expanded.
        env: BTreeMap<String, String>,
        /// Working folder (absolute, or relative to the project root).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The URL.
        url: String,
        /// Headers, not yet expanded.
        headers: BTreeMap<String, String>,
        /// Where the bearer token is.
        bearer_token_env_var: Option<String>,
    },
}

/// A server's checked settings.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// Its name in the configuration.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// Time to start and list tools.
    pub startup_timeout: Duration,
    /// Time one call may take.
    pub tool_timeout: Duration,
    /// Whether it is started.
    pub enabled: bool,
    enabled_tools: Option<GlobSet>,
    disabled_tools: Option<GlobSet>,
    /// Approval for its calls.
    pub approval: Option<ServerApproval>,
    /// Approval per tool.
    pub tool_approval: BTreeMap<String, ServerApproval>,
    /// Its own sandbox mode (`None`: the session's).
    pub sandbox: Option<SandboxMode>,
    /// Its own network setting (`None`: allowed).
    pub network: Option<bool>,
}

impl ServerSpec {
    /// Checks `config` for server `name`.
    pub fn new(name: &str, config: &ServerConfig) -> Result<Self, ConfigError> {
        let bad = |message: String| ConfigError::Server {
            server: name.to_owned(),
            message,
        };
        if name.trim().is_empty() {
            return Err(bad("a server needs a name".to_owned()));
        }
        let transport = match (&config.command, &config.url) {
            (Some(command), None) => {
                if command.trim().is_empty() {
                    return Err(bad("`command` is empty".to_owned()));
                }
                Transport::Stdio {
                    command: command.clone(),
                    args: config.args.clone(),
                    env: config.env.clone(),
                    cwd: config.cwd.clone(),
                }
            }
            (None, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(bad(format!(
                        "`url` must be http:// or https://, not `{url}`"
                    )));
                }
                Transport::Http {
                    url: url.clone(),
                    headers: config.headers.clone(),
                    bearer_token_env_var: config.bearer_token_env_var.clone(),
                }
            }
            (Some(_), Some(_)) => {
                return Err(bad(
                    "set either `command` (stdio) or `url` (HTTP), not both".to_owned(),
                ));
            }
            (None, None) => {
                return Err(bad(
                    "set `command` (a stdio server) or `url` (a streamable HTTP server)".to_owned(),
                ));
            }
        };
        let globs =
            |key: &str, patterns: &Option<Vec<String>>| -> Result<Option<GlobSet>, ConfigError> {
                let Some(patterns) = patterns else {
                    return Ok(None);
                };
                let mut builder = GlobSetBuilder::new();
                for pattern in patterns {
                    let glob = Glob::new(pattern)
                        .map_err(|e| bad(format!("`{key}`: bad glob `{pattern}`: {e}")))?;
                    builder.add(glob);
                }
                builder
                    .build()
                    .map(Some)
                    .map_err(|e| bad(format!("`{key}`: {e}")))
            };
        let secs = |value: Option<u64>, default: u64, key: &str| match value {
            Some(0) => Err(bad(format!("`{key}` must be at least 1"))),
            Some(secs) => Ok(Duration::from_secs(secs)),
            None => Ok(Duration::from_secs(default)),
        };
        Ok(Self {
            name: name.to_owned(),
            transport,
            startup_timeout: secs(
                config.startup_timeout_secs,
                DEFAULT_STARTUP_TIMEOUT_SECS,
                "startup_timeout_secs",
            )?,
            tool_timeout: secs(
                config.tool_timeout_secs,
                DEFAULT_TOOL_TIMEOUT_SECS,
                "tool_timeout_secs",
            )?,
            enabled: config.enabled.unwrap_or(true),
            enabled_tools: globs("enabled_tools", &config.enabled_tools)?,
            disabled_tools: globs("disabled_tools", &config.disabled_tools)?,
            approval: config.approval,
            tool_approval: config.tool_approval.clone(),
            sandbox: config.sandbox,
            network: config.network,
        })
    }

    /// The sandbox a stdio server runs in under the session's `session` policy: the server's
    /// own `sandbox` mode over the session's, the network allowed unless its `network = false`,
    /// the session's writable roots and fallback.
    pub fn sandbox_policy(&self, session: &SandboxPolicy) -> SandboxPolicy {
        SandboxPolicy {
            mode: self.sandbox.unwrap_or(session.mode),
            network: self.network.unwrap_or(true),
            writable_roots: session.writable_roots.clone(),
            fallback: session.fallback,
        }
    }

    /// Whether tool `tool` is offered (`enabled_tools` and `disabled_tools`).
    pub fn offers(&self, tool: &str) -> bool {
        let enabled = self
            .enabled_tools
            .as_ref()
            .is_none_or(|set| set.is_match(tool));
        let disabled = self
            .disabled_tools
            .as_ref()
            .is_some_and(|set| set.is_match(tool));
        enabled && !disabled
    }

    /// One line saying how the server is reached (for listings).
    pub fn describe(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => {
                let mut line = command.clone();
                for arg in args {
                    line.push(' ');
                    line.push_str(arg);
                }
                line
            }
            Transport::Http { url, .. } => url.clone(),
        }
    }
}

/// Expands `$VAR` and `${VAR}` in `value` from `lookup`; `$$` is a literal `$`. A variable that
/// is not set is an error naming it.
pub fn expand_vars(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        let name: String = match chars.peek() {
            Some((_, '$')) => {
                chars.next();
                out.push('$');
                continue;
            }
            Some((_, '{')) => {
                chars.next();
                let mut name = String::new();
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    name.push(c);
                }
                if !closed {
                    return Err(format!("`${{{name}` is not closed with `}}`"));
                }
                name
            }
            _ => {
                let mut name = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        name.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if name.is_empty() {
                    out.push('$');
                    continue;
                }
                name
            }
        };
        match lookup(&name) {
            Some(v) => out.push_str(&v),
            None => return Err(format!("environment variable `{name}` is not set")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("abc".to_owned()),
            _ => None,
        }
    }

    #[test]
    fn expands_both_forms_and_keeps_the_rest() {
        assert_eq!(expand_vars("$TOKEN", env).as_deref(), Ok("abc"));
        assert_eq!(
            expand_vars("Bearer ${TOKEN}!", env).as_deref(),
            Ok("Bearer abc!")
        );
        assert_eq!(
            expand_vars("5$ and $$TOKEN", env).as_deref(),
            Ok("5$ and $TOKEN")
        );
        assert!(
            expand_vars("$MISSING", env)
                .unwrap_err()
                .contains("`MISSING` is not set")
        );
        assert!(expand_vars("${TOKEN", env).is_err());
    }

    #[test]
    fn a_server_needs_exactly_one_transport() {
        let none = ServerSpec::new("x", &ServerConfig::default()).unwrap_err();
        assert!(none.to_string().contains("set `command`"), "{none}");
        let both = ServerConfig {
            command: Some("a".into()),
            url: Some("http://h".into()),
            ..Default::default()
        };
        assert!(ServerSpec::new("x", &both).is_err());
    }

    #[test]
    fn tool_globs_filter() {
        let config = ServerConfig {
            command: Some("srv".into()),
            enabled_tools: Some(vec!["get_*".into(), "echo".into()]),
            disabled_tools: Some(vec!["get_secret".into()]),
            ..Default::default()
        };
        let spec = ServerSpec::new("s", &config).unwrap();
        assert!(spec.offers("echo"));
        assert!(spec.offers("get_weather"));
        assert!(!spec.offers("get_secret"));
        assert!(!spec.offers("delete"));
    }

    #[test]
    fn a_server_takes_the_session_sandbox_with_the_network_unless_it_says_otherwise() {
        let session = SandboxPolicy {
            writable_roots: vec![PathBuf::from("out")],
            ..SandboxPolicy::new(SandboxMode::ReadOnly)
        };
        let plain: ServerConfig = toml_like(r#"{"command": "srv"}"#);
        let policy = ServerSpec::new("s", &plain)
            .unwrap()
            .sandbox_policy(&session);
        assert_eq!(policy.mode, SandboxMode::ReadOnly);
        assert!(policy.network);
        assert_eq!(policy.writable_roots, vec![PathBuf::from("out")]);
        let own: ServerConfig =
            toml_like(r#"{"command": "srv", "sandbox": "workspace-write", "network": false}"#);
        let policy = ServerSpec::new("s", &own).unwrap().sandbox_policy(&session);
        assert_eq!(policy.mode, SandboxMode::WorkspaceWrite);
        assert!(!policy.network);
        let bad = serde_json::from_str::<ServerConfig>(r#"{"command": "srv", "sandbox": "loose"}"#)
            .unwrap_err();
        assert!(bad.to_string().contains("unknown variant `loose`"), "{bad}");
    }

    fn toml_like(json: &str) -> ServerConfig {
        serde_json::from_str(json).unwrap()
    }
}
