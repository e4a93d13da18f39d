//! The settings of an agent command: keel-config's layering (defaults < the user's `keel.toml`
//! < the project's < environment < flags, `--profile NAME` over each file's top level) with the
//! flags turned into the top layer, and what only the terminal has (`--json`, `--format`,
//! `--lang`, the project folder).

use std::path::{Path, PathBuf};

use keel_config::{ConfigError, Environment, FileConfig, FileLayers, Layer, Origin, Origins};
use keel_events::Lang;
use keel_events::projection::WireFormat;
use keel_host::AgentSettings;
use keel_host::git::{CommitWhen, GitOptions};
use keel_protocol::Mode;
use keel_sandbox::{SandboxMode, SandboxPolicy};
use keel_tools::builtin::ImageSettings;

use crate::commands::agent_args::AgentArgs;
use keel_render::ColorWhen;

/// The settings an agent command runs with, every source merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Project folder.
    pub root: PathBuf,
    /// Every keel.toml key's effective value.
    pub config: keel_config::Settings,
    /// Where each value came from.
    pub origins: Origins,
    /// Print events as JSON lines.
    pub json: bool,
    /// The wire format of those lines.
    pub format: WireFormat,
    /// Colour: `--color` over the files' `color`.
    pub color: ColorWhen,
    /// The language of the terminal's words: `--lang`, else the locale variables.
    pub lang: Lang,
    /// Git work: `--commit` / `[git] commit`, `--branch`, and `keel run --pr`.
    pub git: GitOptions,
    /// Whether the project's own hooks run: `--trust`, a trusted folder, or a yes at the
    /// terminal's question ([`Settings::ask_trust`]).
    pub trust: bool,
}

impl Settings {
    /// Loads the project's and the user's `keel.toml` (with `--profile`'s tables) and the
    /// project's `.mcp.json`, and merges them under the process environment and the flags.
    /// Old spellings in the files are warned about on stderr.
    pub fn load(args: &AgentArgs) -> Result<Self, ConfigError> {
        let env = Environment::from_process();
        let files = load_files(&args.root, &env, args.profile.as_deref())?;
        for warning in &files.warnings {
            eprintln!("warning: {warning}");
        }
        let mcp_json = mcp_json_layer(&args.root)?;
        let mut settings = Self::resolve(
            args,
            &env,
            Lang::from_env(None),
            &files.layers,
            Some(mcp_json),
        );
        settings.trust = crate::commands::trust::is_trusted(
            &args.root,
            args.trust,
            settings.config.user_config_dir.as_deref(),
        );
        Ok(settings)
    }

    /// In an untrusted folder with hooks of its own, on a terminal and without `--json`: asks
    /// once whether to trust it (a yes is kept).
    pub fn ask_trust(&mut self) {
        if self.trust || self.json {
            return;
        }
        let hooks = crate::commands::trust::project_hooks(&self.root, &self.config.hooks);
        self.trust =
            crate::commands::trust::ask(&self.root, &hooks, self.config.user_config_dir.as_deref());
    }

    /// Merges the sources: flags > environment > the file layers (highest first; the
    /// project's `.mcp.json`, when given, between the project's file and the user's).
    pub fn resolve(
        args: &AgentArgs,
        env: &Environment,
        locale: Lang,
        files: &[Layer],
        mcp_json: Option<Layer>,
    ) -> Self {
        let mut layers = vec![flag_layer(args), env.layer()];
        let mut mcp_json = mcp_json;
        for layer in files {
            layers.push(layer.clone());
            if matches!(layer.origin, Origin::Project(_))
                && let Some(mcp) = mcp_json.take()
            {
                layers.push(mcp);
            }
        }
        layers.extend(mcp_json);
        let (config, origins) =
            keel_config::Settings::resolve_with_origins(&layers, env.user_config_dir());
        Self {
            root: args.root.clone(),
            color: color_when(config.color),
            origins,
            json: args.json,
            format: args.format.unwrap_or_default(),
            lang: args.lang.unwrap_or(locale),
            git: GitOptions {
                commit: config.git_commit == CommitWhen::Turn,
                branch: args.branch.clone(),
                pull_request: false,
            },
            config,
            trust: args.trust,
        }
    }

    /// Where the session's traces go: `[telemetry]`, else the `OTEL_EXPORTER_OTLP_*` variables.
    pub fn telemetry(&self) -> keel_telemetry::TelemetryConfig {
        keel_telemetry::TelemetryConfig::new(
            self.config.otlp_endpoint.clone(),
            self.config.capture_content,
        )
    }

    /// The session's agent settings: keel-config's one mapping, in the terminal's language.
    pub fn agent_settings(&self, root: &Path, models: Vec<String>) -> AgentSettings {
        AgentSettings {
            lang: self.lang,
            trust_project: self.trust,
            ..self.config.agent_settings(root, models)
        }
    }

    /// The `generate_image` settings for the project at `root` without agent flags (what
    /// `keel tool call` uses).
    pub fn images_for(root: &Path) -> Result<ImageSettings, ConfigError> {
        Ok(without_flags(root)?.images)
    }
}

/// The flags as the top layer: a switch that is off sets nothing.
fn flag_layer(args: &AgentArgs) -> Layer {
    let config = FileConfig {
        provider: args.provider.clone(),
        model: args.model.as_deref().map(keel_config::split_models),
        base_url: args.base_url.clone(),
        approval: args.approval,
        mode: args.mode.map(Mode::from),
        max_iterations: args.max_iterations,
        max_retries: args.max_retries,
        idle_timeout: args.idle_timeout,
        approve_plans: args.approve_plans.then_some(true),
        shadow: args.shadow.then_some(true),
        git: args.commit.then_some(keel_config::GitConfig {
            commit: Some(CommitWhen::Turn),
        }),
        tool_format: args.tool_format,
        tool_profile: args.tool_profile,
        temperature: args.temperature,
        top_p: args.top_p,
        test_command: args.test_command.clone(),
        auto_test: args.no_auto_test.then_some(false),
        attempts: args.attempts,
        context_window: args.context_window,
        color: args.color.map(config_color),
        verbose: args.verbose.then_some(true),
        sandbox: args.sandbox,
        ..FileConfig::default()
    };
    Layer::new(Origin::Flag, config, None)
}

/// The project's and the user's `keel.toml`, with `profile`'s tables.
fn load_files(
    root: &Path,
    env: &Environment,
    profile: Option<&str>,
) -> Result<FileLayers, ConfigError> {
    let user = env.user_config_file();
    FileLayers::load(root, user.as_deref(), profile)
}

/// The project's `.mcp.json` as a layer of MCP servers.
fn mcp_json_layer(root: &Path) -> Result<Layer, ConfigError> {
    let path = root.join(keel_mcp::config::MCP_JSON);
    let servers = keel_mcp::config::load_mcp_json(root).map_err(|e| ConfigError::Invalid {
        path: path.clone(),
        line: None,
        text: None,
        message: e.to_string(),
    })?;
    Ok(Layer::new(
        Origin::McpJson(path),
        FileConfig {
            mcp_servers: servers,
            ..FileConfig::default()
        },
        None,
    ))
}

/// The settings of `root`'s and the user's files under the environment, without flags.
fn without_flags(root: &Path) -> Result<keel_config::Settings, ConfigError> {
    let env = Environment::from_process();
    let files = load_files(root, &env, None)?;
    let mut layers = vec![env.layer()];
    layers.extend(files.layers);
    Ok(keel_config::Settings::resolve(
        &layers,
        env.user_config_dir(),
    ))
}

/// The sandbox settings of `root`'s and the user's `keel.toml` under the `--sandbox` flag, for
/// commands that run tools without an agent (`keel tool call`, `keel exec-file`).
pub fn load_sandbox(root: &Path, flag: Option<SandboxMode>) -> Result<SandboxPolicy, ConfigError> {
    let mut policy = without_flags(root)?.sandbox;
    if let Some(mode) = flag {
        policy.mode = mode;
    }
    Ok(policy)
}

/// `checkpoint_max_mb` of `root`'s and the user's `keel.toml` (the project's first) in bytes,
/// or the default: for commands that read checkpoints without an agent.
pub fn load_checkpoint_max_bytes(root: &Path) -> Result<u64, ConfigError> {
    Ok(without_flags(root)?.checkpoint_max_bytes)
}

/// The renderer's colour switch for keel-config's `color`.
fn color_when(color: keel_config::Color) -> ColorWhen {
    match color {
        keel_config::Color::Auto => ColorWhen::Auto,
        keel_config::Color::Always => ColorWhen::Always,
        keel_config::Color::Never => ColorWhen::Never,
    }
}

/// keel-config's `color` for the `--color` flag.
fn config_color(color: ColorWhen) -> keel_config::Color {
    match color {
        ColorWhen::Auto => keel_config::Color::Auto,
        ColorWhen::Always => keel_config::Color::Always,
        ColorWhen::Never => keel_config::Color::Never,
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use keel_engine::agent::ToolFormat;
    use keel_protocol::ApprovalPolicy;

    use super::*;
    use crate::commands::agent_args::ModeArg;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        agent: AgentArgs,
    }

    fn args(flags: &[&str]) -> AgentArgs {
        let mut argv = vec!["keel"];
        argv.extend_from_slice(flags);
        Cli::try_parse_from(argv).unwrap().agent
    }

    fn file(origin: Origin, text: &str) -> Layer {
        let parsed = keel_config::parse(Path::new("/conf/keel.toml"), text).unwrap();
        Layer::new(origin, parsed.config, Some(Path::new("/conf")))
    }

    fn project(text: &str) -> Layer {
        file(Origin::Project(PathBuf::from("/p/keel.toml")), text)
    }

    fn user(text: &str) -> Layer {
        file(Origin::User(PathBuf::from("/u/keel.toml")), text)
    }

    fn resolve(flags: &[&str], env: &Environment, files: &[Layer]) -> Settings {
        Settings::resolve(&args(flags), env, Lang::En, files, None)
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        let s = resolve(&[], &Environment::default(), &[]);
        assert_eq!(s.config.provider, "openai");
        assert!(s.config.models.is_empty());
        assert_eq!(s.config.approval, ApprovalPolicy::OnDangerous);
        assert_eq!(s.config.mode, Mode::Auto);
        assert_eq!(s.config.max_iterations, keel_config::DEFAULT_MAX_ITERATIONS);
        assert_eq!(s.config.tool_format, ToolFormat::Native);
        assert!(!s.config.approve_plans && !s.config.verbose && !s.json);
        assert_eq!(s.color, ColorWhen::Auto);
        assert!(s.config.auto_test);
    }

    #[test]
    fn flags_beat_env_beat_project_beat_user() {
        let env = Environment {
            model: Some("env-a,env-b".to_owned()),
            ..Environment::default()
        };
        let files = [
            project("model = 'project'\nmode = 'plan'\nmax_iterations = 5"),
            user(
                "model = 'user'\nbase_url = 'http://user'\ntool_format = 'xml'\napprove_plans = true\ncolor = 'never'",
            ),
        ];
        let s = Settings::resolve(&args(&[]), &env, Lang::ZhCn, &files, None);
        assert_eq!(s.config.models, ["env-a", "env-b"]);
        assert_eq!((s.config.mode, s.config.max_iterations), (Mode::Plan, 5));
        assert_eq!(s.config.base_url.as_deref(), Some("http://user"));
        assert!(s.config.approve_plans);
        assert_eq!(s.color, ColorWhen::Never);
        assert_eq!(s.lang, Lang::ZhCn, "the locale's language without --lang");
        let s = resolve(
            &[
                "--model",
                "flag",
                "--mode",
                "auto",
                "--max-iterations",
                "3",
                "--tool-format",
                "native",
                "--base-url",
                "http://flag",
                "--color",
                "always",
                "--lang",
                "en",
                "--no-auto-test",
                "-v",
            ],
            &env,
            &files,
        );
        assert_eq!(s.config.models, ["flag"]);
        assert_eq!((s.config.mode, s.config.max_iterations), (Mode::Auto, 3));
        assert_eq!(s.config.tool_format, ToolFormat::Native);
        assert_eq!(s.config.base_url.as_deref(), Some("http://flag"));
        assert_eq!((s.color, s.lang), (ColorWhen::Always, Lang::En));
        assert!(!s.config.auto_test);
        assert!(s.config.verbose && s.config.include_system_prompt);
        assert_eq!(s.origins.of("model"), &Origin::Flag);
    }

    #[test]
    fn mcp_json_lies_between_the_project_and_the_user() {
        let mcp = Layer::new(
            Origin::McpJson(PathBuf::from("/p/.mcp.json")),
            FileConfig {
                mcp_servers: [(
                    "a".to_owned(),
                    keel_mcp::ServerConfig {
                        command: Some("from-json".into()),
                        ..Default::default()
                    },
                )]
                .into(),
                ..FileConfig::default()
            },
            None,
        );
        let files = [
            project("[mcp_servers.b]\ncommand = 'from-project'\n"),
            user("[mcp_servers.a]\ncommand = 'from-user'\n[mcp_servers.c]\ncommand = 'c'\n"),
        ];
        let s = Settings::resolve(
            &args(&[]),
            &Environment::default(),
            Lang::En,
            &files,
            Some(mcp),
        );
        let command = |name: &str| s.config.mcp_servers[name].command.clone().unwrap();
        assert_eq!(command("a"), "from-json");
        assert_eq!(command("b"), "from-project");
        assert_eq!(command("c"), "c");
    }

    /// One keel.toml read as the project's file by the CLI and as the server's file by the
    /// server gives the same agent settings.
    #[test]
    fn the_cli_and_the_server_resolve_one_file_alike() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let text = r#"
provider = "openai"
model = ["m1", "m2"]
base_url = "http://127.0.0.1:9/v1"
approval = "always"
mode = "plan"
max_iterations = 7
max_retries = 4
idle_timeout = 30
approve_plans = true
approval_edits = "ask"
shadow = true
tool_format = "xml"
tool_profile = "compact"
temperature = 0.3
top_p = 0.9
test_command = "make test"
auto_test = false
attempts = 2
context_window = 32768
repo_map = false
include_system_prompt = true
instructions_files = ["CLAUDE.md"]
sandbox = "read-only"
network = true
writable_roots = ["/tmp/shared"]
sandbox_fallback = "warn"
checkpoint_max_mb = 64
[memory]
distill = false
[context]
libraries = ["tokio"]
max_messages = 9
[images]
model = "img"
[pricing.m1]
input = 1
output = 2
"#;
        std::fs::write(root.join("keel.toml"), text).unwrap();
        let user_dir = keel_host::user_config_dir();
        let env = Environment {
            config_dir: user_dir.clone(),
            ..Environment::default()
        };
        let files = FileLayers::load(root, None, None).unwrap();
        let root_flag = root.display().to_string();
        let cli = Settings::resolve(
            &args(&["--root", &root_flag]),
            &env,
            Lang::En,
            &files.layers,
            None,
        );
        let server = keel_server::config::ServerConfig::resolve(&keel_server::config::ServerArgs {
            config: Some(root.join("keel.toml")),
            ..Default::default()
        })
        .unwrap();
        let models = vec!["m1".to_owned(), "m2".to_owned()];
        let from_cli = cli.agent_settings(root, models.clone());
        let from_server = server.provider.agent_settings(root, models);
        assert_eq!(format!("{from_cli:#?}"), format!("{from_server:#?}"));
        assert_eq!(cli.config, server.provider);
        // And the values are the file's, not defaults.
        assert_eq!(from_cli.max_retries, Some(4));
        assert_eq!(from_cli.tool_format, ToolFormat::Xml);
        assert!(!from_cli.repo_map && !from_cli.distill_memory && from_cli.shadow);
        assert_eq!(
            server.provider.provider_spec().idle_timeout,
            Some(std::time::Duration::from_secs(30))
        );
        assert_eq!(server.checkpoint_max_bytes("any"), 64 * 1024 * 1024);
    }

    #[test]
    fn mode_flags_map_to_engine_modes() {
        assert_eq!(Mode::from(ModeArg::Direct), Mode::Direct);
        assert_eq!(Mode::from(ModeArg::Plan), Mode::Plan);
        assert_eq!(Mode::from(ModeArg::Auto), Mode::Auto);
    }

    #[test]
    fn the_agent_settings_carry_the_language() {
        let s = resolve(
            &["--lang", "zh-CN", "--max-retries", "2"],
            &Environment::default(),
            &[],
        );
        let agent = s.agent_settings(Path::new("/p"), vec!["m".to_owned()]);
        assert_eq!(agent.lang, Lang::ZhCn);
        assert_eq!(agent.max_retries, Some(2));
    }
}
