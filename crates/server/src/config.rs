//! Server settings: flags, environment variables and a TOML file, merged into a
//! [`ServerConfig`] (flags and environment win over the file, the file over defaults).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use keel_config::{FileConfig, Layer, Origin, Shape, Warning};
use keel_engine::agent::ToolFormat;
use keel_protocol::{ApprovalPolicy, EditApproval};
use keel_sandbox::SandboxMode;
use serde::Deserialize;

use crate::logging::LogFormat;

/// Default listen address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8787";
/// Default largest request body, in bytes (1 MiB).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
/// Default buffer of each live stream subscriber, in events.
pub const DEFAULT_STREAM_BUFFER: usize = 1024;
/// Default quiet time after each write to an SSE client, in milliseconds.
pub const DEFAULT_STREAM_COALESCE_MS: u64 = 20;
/// Longest quiet time after a write to an SSE client, in milliseconds: a window is a delay,
/// and one past a second would make a stream look stalled.
pub const MAX_STREAM_COALESCE_MS: u64 = 1000;
/// Interval of SSE keep-alive comments and WebSocket pings.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Default lifetime of a stream token, in seconds.
pub const DEFAULT_STREAM_TOKEN_TTL: u64 = 300;
/// Default lease an instance holds on the turns it runs, in seconds: how long after an
/// instance dies another instance fails its turns.
pub const DEFAULT_TURN_LEASE_SECS: u64 = 30;

/// The default of `--drain-secs`.
pub const DEFAULT_DRAIN_SECS: u64 = 10;

/// Why the settings are unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error("cannot read config file `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config file is not valid TOML of the expected shape: an unknown key, a value of
    /// the wrong type (naming file and line).
    #[error(transparent)]
    File(#[from] keel_config::ConfigError),
    /// A value is not valid.
    #[error("invalid {what}: {message}")]
    Invalid {
        /// Which setting.
        what: &'static str,
        /// Why.
        message: String,
    },
}

/// Command-line flags of `keel-server` and `keel serve`; each can also come from the
/// environment variable it names, or from the TOML file given with `--config`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServerArgs {
    /// TOML config file (see the crate documentation for its keys).
    #[arg(long, env = "KEEL_SERVER_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Settings profile: the `[profiles.NAME]` tables of the user's `keel.toml` and of the
    /// config file, each over its file's top level (as `keel --profile`).
    #[arg(long, env = "KEEL_SERVER_PROFILE", value_name = "NAME")]
    pub profile: Option<String>,
    /// Listen address (default 127.0.0.1:8787).
    #[arg(long, env = "KEEL_SERVER_ADDR", value_name = "ADDR")]
    pub addr: Option<String>,
    /// Folder for the server's state (the default SQLite database lives here).
    #[arg(long, env = "KEEL_SERVER_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Database URL: `sqlite://PATH` or `postgres://…` (default: a SQLite file in the data dir).
    #[arg(long, env = "KEEL_DATABASE_URL", value_name = "URL")]
    pub database_url: Option<String>,
    /// Bearer token with access to every project (repeatable; the environment variable takes a
    /// comma-separated list).
    #[arg(
        long = "token",
        env = "KEEL_SERVER_TOKEN",
        value_name = "TOKEN",
        value_delimiter = ','
    )]
    pub tokens: Vec<String>,
    /// Key signing stream tokens; give every instance behind one load balancer the same key
    /// (default: random per process).
    #[arg(
        long,
        env = "KEEL_SERVER_STREAM_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    pub stream_key: Option<String>,
    /// Workspace roots sessions may use when their project has none configured (repeatable;
    /// default: the server's working directory).
    #[arg(
        long = "allow-root",
        env = "KEEL_SERVER_ALLOWED_ROOTS",
        value_name = "DIR",
        value_delimiter = ','
    )]
    pub allowed_roots: Vec<PathBuf>,
    /// Model back end: `openai` or `scripted:FILE`.
    #[arg(long, env = "KEEL_PROVIDER", value_name = "openai|scripted:FILE")]
    pub provider: Option<String>,
    /// Model, or a comma-separated fallback chain.
    #[arg(long, env = "KEEL_MODEL", value_name = "MODEL[,FALLBACK…]")]
    pub model: Option<String>,
    /// Base URL of the OpenAI-compatible API.
    #[arg(long, env = "KEEL_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
    /// Most model calls in one turn (default 25).
    #[arg(long, env = "KEEL_MAX_ITERATIONS", value_name = "N")]
    pub max_iterations: Option<u32>,
    /// When commands need approval: never, on-dangerous, always, deny-dangerous.
    #[arg(long, env = "KEEL_APPROVAL", value_name = "POLICY")]
    pub approval: Option<String>,
    /// Ask (over HTTP) before executing a plan.
    #[arg(long, env = "KEEL_APPROVE_PLANS")]
    pub approve_plans: bool,
    /// File edits put up for approval with their diff before they apply: ask or never.
    #[arg(long, env = "KEEL_APPROVAL_EDITS", value_name = "ask|never")]
    pub approval_edits: Option<String>,
    /// The OS sandbox for commands: read-only, workspace-write (default) or off.
    #[arg(long, env = "KEEL_SANDBOX", value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Largest request body in bytes (default 1 MiB).
    #[arg(long, env = "KEEL_SERVER_BODY_LIMIT", value_name = "BYTES")]
    pub body_limit: Option<usize>,
    /// Event batches (what was stored together) buffered per live stream client before it is
    /// told it lagged (default 1024).
    #[arg(long, env = "KEEL_SERVER_STREAM_BUFFER", value_name = "EVENTS")]
    pub stream_buffer: Option<usize>,
    /// Quiet time after each write to an SSE client, in which what arrives is gathered into
    /// the next write; 0 writes every event at once (default 20, at most 1000).
    #[arg(long, env = "KEEL_SERVER_STREAM_COALESCE_MS", value_name = "MS")]
    pub stream_coalesce_ms: Option<u64>,
    /// Build a repo map for each session's system prompt.
    #[arg(long, env = "KEEL_REPO_MAP")]
    pub repo_map: Option<bool>,
    /// Put the system prompt into every `run.llm.start` event (stored with each model call).
    #[arg(long, env = "KEEL_INCLUDE_SYSTEM_PROMPT")]
    pub include_system_prompt: Option<bool>,
    /// After each turn that changed files, distil its decisions into the project's memory with
    /// one model call (default true).
    #[arg(long, env = "KEEL_MEMORY_DISTILL")]
    pub memory_distill: Option<bool>,
    /// The model's context window in tokens; beats the window the model server reports and
    /// the built-in table.
    #[arg(long, env = "KEEL_CONTEXT_WINDOW", value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Retries of a failed model call (429, 5xx, dropped connections).
    #[arg(long, env = "KEEL_MAX_RETRIES", value_name = "N")]
    pub max_retries: Option<u32>,
    /// Seconds without data from the model before the call fails (and is retried).
    #[arg(long, env = "KEEL_IDLE_TIMEOUT", value_name = "SECS")]
    pub idle_timeout: Option<u64>,
    /// How tools are offered to the model: native or xml.
    #[arg(long, env = "KEEL_TOOL_FORMAT", value_name = "native|xml")]
    pub tool_format: Option<String>,
    /// This instance's name among those sharing the database; keep it across restarts so a
    /// restarted instance fails the turns it left running at once (default: HOST:PORT).
    #[arg(long, env = "KEEL_SERVER_INSTANCE_ID", value_name = "ID")]
    pub instance_id: Option<String>,
    /// Seconds the lease on a running turn holds without renewal: after an instance dies,
    /// the others fail its turns this long after its last renewal (default 30).
    #[arg(long, env = "KEEL_SERVER_TURN_LEASE_SECS", value_name = "SECS")]
    pub turn_lease_secs: Option<u64>,
    /// Seconds a `SIGTERM` (or Ctrl-C) leaves the instance to drain: it stops taking turns,
    /// hands its running turns over to the other instances (which continue them), and exits
    /// within this time (default 10).
    #[arg(long, env = "KEEL_SERVER_DRAIN_SECS", value_name = "SECS")]
    pub drain_secs: Option<u64>,
    /// Log lines on stderr: text or json (default text); `RUST_LOG` sets the level.
    #[arg(
        long,
        env = "KEEL_SERVER_LOG_FORMAT",
        value_enum,
        value_name = "FORMAT"
    )]
    pub log_format: Option<LogFormat>,
}

/// A bearer token and the projects it may see.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// The secret.
    pub token: String,
    /// Projects the token may see; absent: every project.
    #[serde(default)]
    pub projects: Option<Vec<String>>,
}

/// Settings of one project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectConfig {
    /// Workspace roots the project's sessions may use.
    #[serde(default)]
    pub roots: Vec<PathBuf>,
    /// `[projects.P.mcp_servers.NAME]`: MCP servers this project's sessions start, over the
    /// server-wide ones of the same name.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, keel_mcp::ServerConfig>,
    /// `[projects.P] checkpoint_max_mb`: this project's checkpoint bound, over the server-wide one.
    #[serde(default)]
    pub checkpoint_max_mb: Option<u64>,
}

/// The keys the server's file holds besides keel.toml's (which it reads the same way, at the
/// top level or in `[provider]`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerKeys {
    addr: Option<String>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    stream_key: Option<String>,
    #[serde(default)]
    allowed_roots: Vec<PathBuf>,
    body_limit: Option<usize>,
    stream_buffer: Option<usize>,
    stream_coalesce_ms: Option<u64>,
    stream_token_ttl_secs: Option<u64>,
    instance_id: Option<String>,
    turn_lease_secs: Option<u64>,
    drain_secs: Option<u64>,
    log_format: Option<LogFormat>,
    #[serde(default)]
    trust_projects: bool,
    #[serde(default)]
    tokens: Vec<TokenConfig>,
    #[serde(default)]
    projects: BTreeMap<String, ProjectConfig>,
}

/// The top-level keys of [`ServerKeys`].
const SERVER_KEYS: &[&str] = &[
    "addr",
    "data_dir",
    "database_url",
    "stream_key",
    "allowed_roots",
    "body_limit",
    "stream_buffer",
    "stream_coalesce_ms",
    "stream_token_ttl_secs",
    "instance_id",
    "turn_lease_secs",
    "drain_secs",
    "log_format",
    "trust_projects",
    "tokens",
    "projects",
];

/// The server's file: its own keys, and keel.toml's as a layer.
/// A config file's part in the settings: its own keys and its keel.toml layers (the profile's
/// over the top level, highest first).
#[derive(Debug, Default)]
struct ServerFile {
    keys: ServerKeys,
    layers: Vec<Layer>,
    warnings: Vec<Warning>,
    /// Whether it defines the profile asked for.
    has_profile: bool,
    /// The profiles it defines.
    profiles: Vec<String>,
    /// The file, when there is one.
    path: Option<PathBuf>,
}

/// Everything the server runs with.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Listen address.
    pub addr: SocketAddr,
    /// State folder.
    pub data_dir: PathBuf,
    /// Database URL.
    pub database_url: String,
    /// Bearer tokens.
    pub tokens: Vec<TokenConfig>,
    /// Key for stream tokens; `None`: a random one is made at start.
    pub stream_key: Option<Vec<u8>>,
    /// Stream token lifetime in seconds.
    pub stream_token_ttl_secs: u64,
    /// Roots for projects without their own.
    pub default_roots: Vec<PathBuf>,
    /// Per-project settings.
    pub projects: BTreeMap<String, ProjectConfig>,
    /// `[mcp_servers.NAME]`: MCP servers every project's sessions start (only from this
    /// configuration, never from a request or a workspace's own files).
    pub mcp_servers: BTreeMap<String, keel_mcp::ServerConfig>,
    /// The agent's settings: keel.toml's keys from the file, under the flags (keel-config's
    /// layering; the server reads no user or project `keel.toml`).
    pub provider: keel_config::Settings,
    /// Old spellings met in the file, to warn about once logging is set up.
    pub warnings: Vec<Warning>,
    /// Largest request body.
    pub body_limit: usize,
    /// Buffer of each live stream client.
    pub stream_buffer: usize,
    /// Quiet time after each write to an SSE client (zero: none).
    pub stream_coalesce: Duration,
    /// Interval of SSE keep-alive comments and WebSocket pings.
    pub keep_alive: Duration,
    /// This instance's name among those sharing the database; `None`: HOST:PORT of the bound
    /// address.
    pub instance_id: Option<String>,
    /// How long the lease on a running turn holds without renewal (renewed every third of it).
    pub turn_lease: Duration,
    /// How long a drain (on `SIGTERM`) may take before the instance exits.
    pub drain: Duration,
    /// How log lines are written.
    pub log_format: LogFormat,
    /// The user's config folder, whose `rules.toml` holds user-wide approval rules (found as
    /// the terminal finds it, [`keel_host::user_config_dir`], when the server starts; `None`
    /// for [`ServerConfig::new`]: tests and embedding programs read no one's home folder).
    pub user_config_dir: Option<PathBuf>,
    /// OpenTelemetry export: off from [`ServerConfig::new`]; the standard
    /// `OTEL_EXPORTER_OTLP_*` variables when the server starts.
    pub telemetry: keel_telemetry::TelemetryConfig,
    /// `trust_projects = true`: every project's own hooks run (`.claude/settings.json`,
    /// `.codex/hooks.json`, a workspace's `keel.toml`). Off by default: the server has no one to
    /// ask, so only folders in the trusted folders of `user_config_dir` (`keel trust` on this
    /// machine) run theirs.
    pub trust_projects: bool,
}

impl ServerConfig {
    /// Settings for tests and embedding: SQLite in `data_dir`, one all-projects token, the
    /// given roots allowed, a scripted or OpenAI provider as `provider` says.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8787)),
            database_url: sqlite_url(&data_dir),
            data_dir,
            tokens: Vec::new(),
            stream_key: None,
            stream_token_ttl_secs: DEFAULT_STREAM_TOKEN_TTL,
            default_roots: Vec::new(),
            projects: BTreeMap::new(),
            mcp_servers: BTreeMap::new(),
            provider: keel_config::Settings::default(),
            warnings: Vec::new(),
            body_limit: DEFAULT_BODY_LIMIT,
            stream_buffer: DEFAULT_STREAM_BUFFER,
            stream_coalesce: Duration::from_millis(DEFAULT_STREAM_COALESCE_MS),
            keep_alive: DEFAULT_KEEP_ALIVE,
            instance_id: None,
            turn_lease: Duration::from_secs(DEFAULT_TURN_LEASE_SECS),
            drain: Duration::from_secs(DEFAULT_DRAIN_SECS),
            log_format: LogFormat::default(),
            user_config_dir: None,
            telemetry: keel_telemetry::TelemetryConfig::off(),
            trust_projects: false,
        }
    }

    /// Merges flags (and their environment variables) over the config file over the user's
    /// `keel.toml` (in keel-host's user config folder) over defaults.
    pub fn resolve(args: &ServerArgs) -> Result<Self, ConfigError> {
        Self::resolve_in(args, keel_host::user_config_dir())
    }

    /// [`Self::resolve`] with the user config folder given (`None`: no user files).
    pub fn resolve_in(
        args: &ServerArgs,
        user_config_dir: Option<PathBuf>,
    ) -> Result<Self, ConfigError> {
        let file = match &args.config {
            Some(path) => read_file(path, args.profile.as_deref())?,
            None => ServerFile::default(),
        };
        let user = user_layers(user_config_dir.as_deref(), args.profile.as_deref())?;
        if let Some(name) = &args.profile
            && !file.has_profile
            && !user.has_profile
        {
            let searched = args.config.iter().cloned().chain(user.path).collect();
            return Err(keel_config::ConfigError::UnknownProfile {
                name: name.clone(),
                searched,
                known: file.profiles.into_iter().chain(user.profiles).collect(),
            }
            .into());
        }
        let mut file_warnings = file.warnings;
        file_warnings.extend(user.warnings);
        // Highest first: flags (and their variables) > the server's file > the user's keel.toml.
        let mut layers = vec![flag_layer(args)?];
        layers.extend(file.layers);
        layers.extend(user.layers);
        let mut provider = keel_config::Settings::resolve(&layers, user_config_dir.clone());
        let telemetry = keel_telemetry::TelemetryConfig::new(
            provider.otlp_endpoint.clone(),
            provider.capture_content,
        );
        let mcp_servers = std::mem::take(&mut provider.mcp_servers);
        let file = file.keys;
        let data_dir = args
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from(".keel-server"));
        let database_url = args
            .database_url
            .clone()
            .or(file.database_url)
            .unwrap_or_else(|| sqlite_url(&data_dir));
        let default_roots = if args.allowed_roots.is_empty() {
            file.allowed_roots
        } else {
            args.allowed_roots.clone()
        };
        Ok(Self {
            addr: listen_address(args.addr.clone().or(file.addr))?,
            data_dir,
            database_url,
            tokens: tokens(&args.tokens, file.tokens)?,
            stream_key: args
                .stream_key
                .clone()
                .or(file.stream_key)
                .filter(|k| !k.is_empty())
                .map(String::into_bytes),
            stream_token_ttl_secs: file
                .stream_token_ttl_secs
                .unwrap_or(DEFAULT_STREAM_TOKEN_TTL)
                .max(1),
            default_roots,
            projects: file.projects,
            mcp_servers,
            provider,
            warnings: file_warnings,
            body_limit: args
                .body_limit
                .or(file.body_limit)
                .unwrap_or(DEFAULT_BODY_LIMIT),
            stream_buffer: args
                .stream_buffer
                .or(file.stream_buffer)
                .unwrap_or(DEFAULT_STREAM_BUFFER)
                .max(1),
            stream_coalesce: stream_coalesce(args.stream_coalesce_ms.or(file.stream_coalesce_ms))?,
            keep_alive: DEFAULT_KEEP_ALIVE,
            instance_id: instance_id(args.instance_id.clone().or(file.instance_id))?,
            turn_lease: turn_lease(args.turn_lease_secs.or(file.turn_lease_secs))?,
            drain: Duration::from_secs(
                args.drain_secs
                    .or(file.drain_secs)
                    .unwrap_or(DEFAULT_DRAIN_SECS),
            ),
            log_format: args.log_format.or(file.log_format).unwrap_or_default(),
            user_config_dir,
            telemetry,
            trust_projects: file.trust_projects,
        })
    }

    /// The MCP servers a project's sessions start: the project's `mcp_servers` over the
    /// server-wide ones (a name defined for the project wins as a whole).
    pub fn mcp_servers_for(&self, project_id: &str) -> BTreeMap<String, keel_mcp::ServerConfig> {
        let project = self.projects.get(project_id).map(|p| &p.mcp_servers);
        keel_mcp::config::merge_layers(project.into_iter().chain([&self.mcp_servers]))
    }

    /// The checkpoint bound of a project's sessions, in bytes: the project's
    /// `checkpoint_max_mb`, else the server-wide one, else 512 MB.
    pub fn checkpoint_max_bytes(&self, project_id: &str) -> u64 {
        match self
            .projects
            .get(project_id)
            .and_then(|p| p.checkpoint_max_mb)
        {
            Some(mb) => keel_config::checkpoint_max_bytes([Some(mb)]),
            None => self.provider.checkpoint_max_bytes,
        }
    }

    /// The workspace roots a project's sessions may use.
    pub fn roots_for(&self, project_id: &str) -> &[PathBuf] {
        match self.projects.get(project_id) {
            Some(project) if !project.roots.is_empty() => &project.roots,
            _ => &self.default_roots,
        }
    }
}

/// The listen address: `text`, or [`DEFAULT_ADDR`].
fn listen_address(text: Option<String>) -> Result<SocketAddr, ConfigError> {
    let text = text.unwrap_or_else(|| DEFAULT_ADDR.to_owned());
    text.parse::<SocketAddr>()
        .map_err(|e| ConfigError::Invalid {
            what: "listen address",
            message: format!("`{text}`: {e}"),
        })
}

/// The all-projects tokens of the flags (blank ones dropped), then the file's.
fn tokens(flags: &[String], file: Vec<TokenConfig>) -> Result<Vec<TokenConfig>, ConfigError> {
    let mut tokens: Vec<TokenConfig> = flags
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .map(|token| TokenConfig {
            token: token.to_owned(),
            projects: None,
        })
        .collect();
    tokens.extend(file);
    if tokens.iter().any(|t| t.token.trim().is_empty()) {
        return Err(ConfigError::Invalid {
            what: "token",
            message: "a token must not be empty".to_owned(),
        });
    }
    Ok(tokens)
}

/// The flags (and the environment variables standing for them) as the top layer.
fn flag_layer(args: &ServerArgs) -> Result<Layer, ConfigError> {
    fn named<T: std::str::FromStr>(
        text: &Option<String>,
        what: &'static str,
    ) -> Result<Option<T>, ConfigError>
    where
        T::Err: std::fmt::Display,
    {
        text.as_deref()
            .map(|t| {
                t.parse::<T>().map_err(|e| ConfigError::Invalid {
                    what,
                    message: e.to_string(),
                })
            })
            .transpose()
    }
    let at_least_one = |value: Option<u64>, what: &'static str| match value {
        Some(0) => Err(ConfigError::Invalid {
            what,
            message: "must be at least 1".to_owned(),
        }),
        other => Ok(other),
    };
    let config = FileConfig {
        provider: args.provider.clone(),
        model: args.model.as_deref().map(keel_config::split_models),
        base_url: args.base_url.clone(),
        max_iterations: match args.max_iterations {
            Some(0) => {
                return Err(ConfigError::Invalid {
                    what: "max iterations",
                    message: "must be at least 1".to_owned(),
                });
            }
            other => other,
        },
        max_retries: args.max_retries,
        idle_timeout: at_least_one(args.idle_timeout, "idle time-out")?,
        approval: named::<ApprovalPolicy>(&args.approval, "approval policy")?,
        approve_plans: args.approve_plans.then_some(true),
        approval_edits: named::<EditApproval>(&args.approval_edits, "approval_edits")?,
        sandbox: named::<SandboxMode>(&args.sandbox, "sandbox mode")?,
        tool_format: named::<ToolFormat>(&args.tool_format, "tool format")?,
        repo_map: args.repo_map,
        include_system_prompt: args.include_system_prompt,
        context_window: at_least_one(args.context_window, "context window")?,
        memory: args
            .memory_distill
            .map(|distill| keel_config::MemoryConfig {
                distill: Some(distill),
            }),
        ..FileConfig::default()
    };
    Ok(Layer::new(Origin::Flag, config, None))
}

/// The SSE write window: `ms`, or [`DEFAULT_STREAM_COALESCE_MS`]; at most
/// [`MAX_STREAM_COALESCE_MS`].
fn stream_coalesce(ms: Option<u64>) -> Result<Duration, ConfigError> {
    let ms = ms.unwrap_or(DEFAULT_STREAM_COALESCE_MS);
    if ms > MAX_STREAM_COALESCE_MS {
        return Err(ConfigError::Invalid {
            what: "stream coalesce window",
            message: format!("must be at most {MAX_STREAM_COALESCE_MS} ms"),
        });
    }
    Ok(Duration::from_millis(ms))
}

/// The instance id, trimmed; blank is refused.
fn instance_id(id: Option<String>) -> Result<Option<String>, ConfigError> {
    let id = id.map(|id| id.trim().to_owned());
    if id.as_ref().is_some_and(String::is_empty) {
        return Err(ConfigError::Invalid {
            what: "instance id",
            message: "must not be empty".to_owned(),
        });
    }
    Ok(id)
}

/// The turn lease: `secs`, or [`DEFAULT_TURN_LEASE_SECS`]; zero is refused.
fn turn_lease(secs: Option<u64>) -> Result<Duration, ConfigError> {
    let secs = secs.unwrap_or(DEFAULT_TURN_LEASE_SECS);
    if secs == 0 {
        return Err(ConfigError::Invalid {
            what: "turn lease",
            message: "must be at least 1 second".to_owned(),
        });
    }
    Ok(Duration::from_secs(secs))
}

fn read_file(path: &Path, profile: Option<&str>) -> Result<ServerFile, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    let shape = Shape {
        extra_keys: SERVER_KEYS,
        provider_table: true,
        profiles: true,
    };
    let (parsed, extra) = keel_config::parse_shaped(path, &text, shape)?;
    let keys = ServerKeys::deserialize(toml::de::Deserializer::from(extra))
        .map_err(|e| keel_config::invalid(path, &text, &e))?;
    let mut file = ServerFile {
        keys,
        // The server's file names no paths relative to itself.
        ..file_layers(
            Origin::ServerFile(path.to_owned()),
            path,
            None,
            parsed,
            profile,
        )
    };
    file.path = Some(path.to_owned());
    Ok(file)
}

/// The user's `keel.toml` in `user_config_dir` (none when it does not exist), as the CLI reads
/// it: the keel.toml keys a user sets once for every front end.
fn user_layers(
    user_config_dir: Option<&Path>,
    profile: Option<&str>,
) -> Result<ServerFile, ConfigError> {
    let Some(path) = user_config_dir.map(|dir| dir.join(keel_config::CONFIG_FILE)) else {
        return Ok(ServerFile::default());
    };
    if !path.is_file() {
        return Ok(ServerFile::default());
    }
    let parsed = keel_config::read(&path)?;
    let mut file = file_layers(
        Origin::User(path.clone()),
        &path,
        path.parent(),
        parsed,
        profile,
    );
    file.path = Some(path);
    Ok(file)
}

/// A parsed file's layers (relative paths in it taken from `dir`): `profile`'s table (when the
/// file has it) over the top level.
fn file_layers(
    origin: Origin,
    path: &Path,
    dir: Option<&Path>,
    mut parsed: keel_config::Parsed,
    profile: Option<&str>,
) -> ServerFile {
    let mut file = ServerFile {
        profiles: parsed.profiles.keys().cloned().collect(),
        ..ServerFile::default()
    };
    if let Some(name) = profile
        && let Some(config) = parsed.profiles.remove(name)
    {
        file.has_profile = true;
        let origin = Origin::Profile {
            name: name.to_owned(),
            path: path.to_owned(),
        };
        file.layers.push(Layer::new(origin, config, dir));
    }
    file.layers.push(Layer::new(origin, parsed.config, dir));
    file.warnings = parsed.warnings;
    file
}

/// The URL of the default SQLite database in `data_dir`.
pub fn sqlite_url(data_dir: &Path) -> String {
    format!("sqlite://{}", data_dir.join("keel.db").display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_and_the_users_keel_toml_layer_as_in_the_cli() {
        let dir = tempfile::tempdir().unwrap();
        let user_dir = dir.path().join("user");
        std::fs::create_dir_all(&user_dir).unwrap();
        std::fs::write(
            user_dir.join("keel.toml"),
            "max_iterations = 7\ntemperature = 0.1\n[profiles.night]\nmax_retries = 9\n",
        )
        .unwrap();
        let path = dir.path().join("server.toml");
        std::fs::write(
            &path,
            "addr = \"127.0.0.1:9000\"\ntemperature = 0.3\n[provider]\nmodel = \"big\"\n[profiles.fast]\nmodel = \"small\"\n",
        )
        .unwrap();
        let args = ServerArgs {
            config: Some(path.clone()),
            ..ServerArgs::default()
        };
        let plain = ServerConfig::resolve_in(&args, Some(user_dir.clone())).unwrap();
        assert_eq!(plain.provider.models, vec!["big"]);
        assert_eq!(plain.provider.max_iterations, 7, "the user's file");
        assert_eq!(
            plain.provider.sampling.temperature,
            Some(0.3),
            "the server's file wins"
        );
        let fast = ServerConfig::resolve_in(
            &ServerArgs {
                profile: Some("fast".to_owned()),
                ..args.clone()
            },
            Some(user_dir.clone()),
        )
        .unwrap();
        assert_eq!(fast.provider.models, vec!["small"]);
        let night = ServerConfig::resolve_in(
            &ServerArgs {
                profile: Some("night".to_owned()),
                ..args.clone()
            },
            Some(user_dir.clone()),
        )
        .unwrap();
        assert_eq!(night.provider.max_retries, Some(9), "the user's profile");
        assert_eq!(night.provider.models, vec!["big"]);
        let unknown = ServerConfig::resolve_in(
            &ServerArgs {
                profile: Some("fats".to_owned()),
                ..args.clone()
            },
            Some(user_dir.clone()),
        )
        .unwrap_err()
        .to_string();
        assert!(unknown.contains("fats"), "{unknown}");
        assert!(unknown.contains("fast"), "known profiles named: {unknown}");
        assert!(unknown.contains("server.toml"), "{unknown}");
        let no_user = ServerConfig::resolve_in(&args, None).unwrap();
        assert_ne!(no_user.provider.max_iterations, 7);
    }

    #[test]
    fn file_values_apply_below_flags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keel.toml");
        std::fs::write(
            &path,
            r#"
addr = "127.0.0.1:9000"
allowed_roots = ["/srv"]
instance_id = "keel-a"
turn_lease_secs = 12
log_format = "json"
stream_coalesce_ms = 5
[[tokens]]
token = "scoped"
projects = ["p1"]
[projects.p1]
roots = ["/srv/p1"]
[provider]
model = "a, b"
approval = "always"
approval_edits = "ask"
include_system_prompt = true
sandbox = "read-only"
network = true
sandbox_fallback = "warn"
context_window = 32768
instructions_files = ["CLAUDE.md"]
[pricing."local-model"]
input = 0.5
output = 1.5
[images]
model = "gpt-image-1"
[context]
libraries = ["tokio", "serde"]
max_messages = 0
"#,
        )
        .unwrap();
        let args = ServerArgs {
            config: Some(path),
            addr: Some("127.0.0.1:9001".to_owned()),
            tokens: vec!["all".to_owned()],
            ..ServerArgs::default()
        };
        let config = ServerConfig::resolve(&args).unwrap();
        assert_eq!(config.addr.port(), 9001);
        assert_eq!(config.tokens.len(), 2);
        assert_eq!(config.tokens[1].projects, Some(vec!["p1".to_owned()]));
        assert_eq!(config.provider.models, vec!["a", "b"]);
        assert_eq!(config.provider.approval, ApprovalPolicy::Always);
        assert_eq!(config.provider.approval_edits, EditApproval::Ask);
        assert!(config.provider.include_system_prompt);
        assert_eq!(config.provider.context_window, Some(32768));
        assert_eq!(config.provider.instructions_files, vec!["CLAUDE.md"]);
        assert_eq!(
            config
                .provider
                .pricing
                .price("local-model")
                .map(|p| p.output),
            Some(1.5)
        );
        assert_eq!(config.provider.libraries, vec!["tokio", "serde"]);
        assert_eq!(
            config.provider.max_history_messages, None,
            "0: no history limit"
        );
        assert_eq!(config.provider.images.model.as_deref(), Some("gpt-image-1"));
        assert!(config.provider.images.base_url.is_some());
        assert_eq!(config.provider.sandbox.mode, SandboxMode::ReadOnly);
        assert!(config.provider.sandbox.network);
        assert_eq!(
            config.provider.sandbox.fallback,
            keel_sandbox::Fallback::Warn
        );
        let flagged = ServerConfig::resolve(&ServerArgs {
            sandbox: Some("off".to_owned()),
            ..ServerArgs::default()
        })
        .unwrap();
        assert_eq!(flagged.provider.sandbox.mode, SandboxMode::Off);
        let bad = ServerConfig::resolve(&ServerArgs {
            sandbox: Some("strict".to_owned()),
            ..ServerArgs::default()
        })
        .unwrap_err()
        .to_string();
        assert!(bad.contains("unknown sandbox mode `strict`"), "{bad}");
        assert_eq!(config.roots_for("p1"), &[PathBuf::from("/srv/p1")]);
        assert_eq!(config.roots_for("other"), &[PathBuf::from("/srv")]);
        assert_eq!(config.instance_id.as_deref(), Some("keel-a"));
        assert_eq!(config.turn_lease, Duration::from_secs(12));
        assert_eq!(config.stream_coalesce, Duration::from_millis(5));
        assert_eq!(config.log_format, LogFormat::Json);
        let flagged = ServerConfig::resolve(&ServerArgs {
            log_format: Some(LogFormat::Text),
            ..args.clone()
        })
        .unwrap();
        assert_eq!(flagged.log_format, LogFormat::Text);
        let flagged = ServerConfig::resolve(&ServerArgs {
            include_system_prompt: Some(false),
            ..args.clone()
        })
        .unwrap();
        assert!(!flagged.provider.include_system_prompt);
        let defaults = ServerConfig::resolve(&ServerArgs::default()).unwrap();
        assert!(!defaults.provider.include_system_prompt);
        assert_eq!(defaults.provider.max_history_messages, Some(50));
        assert_eq!(
            defaults.stream_coalesce,
            Duration::from_millis(DEFAULT_STREAM_COALESCE_MS)
        );
        assert_eq!(defaults.log_format, LogFormat::Text);
    }

    #[test]
    fn bad_values_are_reported() {
        let args = ServerArgs {
            addr: Some("nowhere".to_owned()),
            ..ServerArgs::default()
        };
        assert!(ServerConfig::resolve(&args).is_err());
        for args in [
            ServerArgs {
                turn_lease_secs: Some(0),
                ..ServerArgs::default()
            },
            ServerArgs {
                instance_id: Some(" ".to_owned()),
                ..ServerArgs::default()
            },
            ServerArgs {
                stream_coalesce_ms: Some(MAX_STREAM_COALESCE_MS + 1),
                ..ServerArgs::default()
            },
            ServerArgs {
                context_window: Some(0),
                ..ServerArgs::default()
            },
            ServerArgs {
                approval_edits: Some("sometimes".to_owned()),
                ..ServerArgs::default()
            },
        ] {
            assert!(matches!(
                ServerConfig::resolve(&args),
                Err(ConfigError::Invalid { .. })
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        for (text, names) in [
            ("unknown_key = 1", "unknown_key"),
            (
                "[provider]\ninstructions_files = [\"../CLAUDE.md\"]",
                "../CLAUDE.md",
            ),
            ("[pricing.m]\ninput = -1\noutput = 1", "US dollars"),
            ("[context]\nlibraries = [\"../x\"]", "is not a library name"),
            ("[images]\nmodle = \"m\"", "unknown key `images.modle` in "),
            ("adr = \"x\"", "did you mean `addr`?"),
        ] {
            std::fs::write(&path, text).unwrap();
            let args = ServerArgs {
                config: Some(path.clone()),
                ..ServerArgs::default()
            };
            let err = ServerConfig::resolve(&args).unwrap_err();
            assert!(matches!(err, ConfigError::File(_)), "{err}");
            assert!(err.to_string().contains(names), "{err}");
        }
        std::fs::write(&path, "[provider]\napproval_edits = \"maybe\"").unwrap();
        let args = ServerArgs {
            config: Some(path.clone()),
            ..ServerArgs::default()
        };
        let err = ServerConfig::resolve(&args).unwrap_err();
        assert!(
            matches!(err, ConfigError::File(_))
                && err.to_string().contains("ask or never")
                && err.to_string().contains("line 2"),
            "{err}"
        );
    }

    #[test]
    fn the_file_takes_every_keel_toml_key_and_warns_of_old_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("server.toml");
        std::fs::write(
            &path,
            "addr = \"127.0.0.1:9002\"\nmax_retries = 5\ntool_format = \"xml\"\n[provider]\nidle_timeout = 40\nmemory_distill = false\n",
        )
        .unwrap();
        let config = ServerConfig::resolve(&ServerArgs {
            config: Some(path.clone()),
            ..ServerArgs::default()
        })
        .unwrap();
        assert_eq!(config.provider.max_retries, Some(5));
        assert_eq!(config.provider.tool_format, ToolFormat::Xml);
        assert_eq!(config.provider.idle_timeout, Some(40));
        assert!(!config.provider.distill_memory);
        let warnings: Vec<String> = config.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("`[provider] memory_distill`")
                && warnings[0].contains(&format!("{} line 6", path.display()))
                && warnings[0].contains("`[memory] distill`"),
            "{warnings:?}"
        );
        // The flags still win.
        let flagged = ServerConfig::resolve(&ServerArgs {
            config: Some(path),
            max_retries: Some(1),
            tool_format: Some("native".to_owned()),
            memory_distill: Some(true),
            ..ServerArgs::default()
        })
        .unwrap();
        assert_eq!(flagged.provider.max_retries, Some(1));
        assert_eq!(flagged.provider.tool_format, ToolFormat::Native);
        assert!(flagged.provider.distill_memory);
    }
}
