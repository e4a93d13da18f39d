//! Keel's HTTP server: sessions, turns, approvals, file runs and the Activity Timeline over
//! axum, with live event streams (SSE and WebSocket) fed from the store.
//!
//! Every event a session produces is stored before it is broadcast to that session's stream
//! clients, so a client resuming by seq (`Last-Event-ID`, `?after=`) from the store never
//! misses or repeats one. Instances sharing one PostgreSQL database relay each other's
//! sessions through the store's append notices, and approvals, answers and cancels for turns
//! another instance runs through its control messages ([`relay`]). The contract is `docs/server-api.md`; the
//! OpenAPI document is [`openapi_json`].
//!
//! # Configuration
//!
//! Flags (see [`ServerArgs`]) and their environment variables win over the TOML file given
//! with `--config`, which wins over the user's `keel.toml` (in keel-host's user config folder),
//! which wins over defaults; `--profile NAME` layers each file's `[profiles.NAME]` over its top
//! level. A project's own `keel.toml` is not read. The file holds every `keel.toml` key (read by
//! keel-config, as the CLI reads them: at the top level, or in `[provider]` as before) and the
//! server's own keys; an unknown key names file, line and the nearest known one. The keys:
//!
//! ```toml
//! addr = "127.0.0.1:8787"            # listen address
//! data_dir = "/var/lib/keel"         # the default SQLite database lives here
//! database_url = "postgres://…"      # or sqlite://…; default: data_dir/keel.db
//! stream_key = "…"                   # signs stream tokens; share it between instances
//! stream_token_ttl_secs = 300
//! allowed_roots = ["/srv/work"]      # roots for projects without their own
//! body_limit = 1048576               # bytes
//! stream_buffer = 1024               # event batches buffered per stream client
//! stream_coalesce_ms = 20            # SSE: quiet time after a write; what arrives, goes together
//! instance_id = "keel-1"             # unique per instance on one database; default HOST:PORT
//! turn_lease_secs = 30               # a dead instance's turns move this long after it
//! drain_secs = 10                    # SIGTERM: hand running turns over, exit within this
//! log_format = "text"                # or "json": one JSON object per log line (stderr)
//! checkpoint_max_mb = 512            # each root's checkpoints; past it the oldest are pruned
//!
//! [[tokens]]
//! token = "…"                        # bearer token
//! projects = ["p1"]                  # optional: only these projects
//!
//! [projects.p1]
//! roots = ["/srv/work/p1"]           # workspace roots this project's sessions may use
//! checkpoint_max_mb = 64             # this project's checkpoint bound, over the one above
//!
//! [mcp_servers.everything]           # MCP servers every session starts, as in keel.toml
//! command = "mcp-server-everything"  # (stdio servers run in the [provider] sandbox mode,
//!                                    # network allowed unless `network = false`)
//! [projects.p1.mcp_servers.github]   # one project's own, over the server-wide ones
//! url = "https://…/mcp"
//! bearer_token_env_var = "GITHUB_TOKEN"
//!
//! [provider]                         # keel.toml's keys (or at the top level)
//! provider = "openai"                # or "scripted:FILE"
//! model = "gpt-4o,gpt-4o-mini"       # fallback chain
//! base_url = "https://…/v1"
//! max_iterations = 25
//! approval = "on-dangerous"          # never | on-dangerous | always | deny-dangerous
//! approve_plans = false
//! approval_edits = "never"           # ask: each file edit is put up for approval with its diff
//! repo_map = true
//! include_system_prompt = false     # the system prompt in every run.llm.start event
//! context_window = 32768             # beats what the model server reports and the table
//! instructions_files = ["CLAUDE.md"] # read besides AGENTS.md in each session's root and folders
//! max_retries = 3                    # and every other keel.toml key: tool_format, idle_timeout…
//!
//! [memory]                           # (`[provider] memory_distill`, its old spelling, is read
//! distill = true                     # with a warning) after each turn that changed files: one
//!                                    # call distils its decisions into .keel/memory.json
//!
//! [pricing."gpt-4.1"]                # US dollars per million tokens, over the built-in table
//! input = 2.0
//! cached_input = 0.5
//! output = 8.0
//!
//! [images]                           # generate_image, as in keel.toml
//! base_url = "http://localhost:9000/v1" # default: the provider's base_url
//! model = "gpt-image-1"              # unset: generate_image says which keys to set
//!
//! [context]
//! libraries = ["tokio"]              # docs preloaded into each session's prompt
//! ```

pub mod api;
pub mod assets;
pub mod auth;
pub mod config;
pub mod error;
pub mod frame;
pub mod hub;
pub mod interaction;
pub mod lease;
pub mod live;
pub mod logging;
pub mod openapi;
pub mod producers;
pub mod provider;
pub mod relay;
pub mod routes;
pub mod server;
pub mod sse_body;
pub mod state;
pub mod stream;
pub mod wire;

pub use config::{ConfigError, ServerArgs, ServerConfig, TokenConfig};
pub use error::{ApiError, ErrorCode, ServerError};
pub use logging::LogFormat;
pub use openapi::openapi_json;
pub use server::Server;

/// Resolves `args`, installs the log subscriber ([`logging`]), binds and serves until Ctrl-C or
/// SIGTERM; returns a message for the user on failure. Used by the `keel-server` binary and
/// `keel serve`. Start-up notices (the address, a generated token, provider warnings) are logged.
pub async fn run_from_args(args: ServerArgs) -> Result<(), String> {
    let mut config = ServerConfig::resolve(&args).map_err(|e| e.to_string())?;
    logging::init(config.log_format).map_err(|e| e.to_string())?;
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    if config.tokens.is_empty() {
        let token = auth::random_token();
        tracing::warn!(
            %token,
            "no token configured (--token / KEEL_SERVER_TOKEN): using a generated token"
        );
        config.tokens.push(TokenConfig {
            token,
            projects: None,
        });
    }
    if let Err(e) = provider::check_provider(&config.provider) {
        tracing::warn!("turns will fail until this is fixed: {e}");
    }
    let server = Server::bind(config).await.map_err(|e| e.to_string())?;
    if server.recovered_turns() > 0 {
        tracing::info!(
            turns = server.recovered_turns(),
            "recovered interrupted turns: marked failed"
        );
    }
    let addr = server.local_addr();
    // The line ends with the URL: scripts and tests that start the server read it from there.
    tracing::info!("keel-server listening on http://{addr}");
    tracing::info!("the Activity Timeline page: http://{addr}/#token=YOUR_TOKEN");
    server
        .run(shutdown_signal())
        .await
        .map_err(|e| e.to_string())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
