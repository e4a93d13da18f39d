//! Settings of an agent command: flags over environment over the project's `keel.toml` over the
//! user's `keel.toml` over built-in defaults.

mod file;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use keel_engine::Pricing;
use keel_engine::agent::{ToolFormat, ToolProfile};
use keel_engine::{DEFAULT_TEMPERATURE, Sampling};
use keel_events::projection::WireFormat;
use keel_host::distills_by_default;
use keel_protocol::ApprovalPolicy;
use keel_protocol::Mode;
use keel_sandbox::{SandboxMode, SandboxPolicy};
use keel_tools::builtin::ImageSettings;

pub use file::{CONFIG_FILE, ConfigError, FileConfig, split_models};

use crate::commands::agent_args::AgentArgs;
use keel_events::Lang;
use keel_render::ColorWhen;

/// Default most model calls in one turn.
pub const DEFAULT_MAX_ITERATIONS: u32 = 25;

/// The environment variables that take part in the settings (besides `OPENAI_API_KEY` and
/// `OPENAI_BASE_URL`, which the OpenAI provider reads itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `KEEL_MODEL`.
    pub model: Option<String>,
    /// `KEEL_BASE_URL`.
    pub base_url: Option<String>,
    /// `KEEL_CONFIG_DIR`: the folder holding the user's `keel.toml`.
    pub config_dir: Option<PathBuf>,
    /// The language `LC_ALL`, `LC_MESSAGES` or `LANG` names (English when none does).
    pub lang: Lang,
}

impl Environment {
    /// The variables of this process (empty values count as unset).
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self {
            model: var("KEEL_MODEL"),
            base_url: var("KEEL_BASE_URL"),
            config_dir: var("KEEL_CONFIG_DIR").map(PathBuf::from),
            lang: Lang::from_env(None),
        }
    }

    /// The user's config folder: `$KEEL_CONFIG_DIR`, else the platform's (`~/.config/keel` on
    /// Linux). It holds the user's `keel.toml` and user-wide `AGENTS.md`.
    pub fn user_config_dir(&self) -> Option<PathBuf> {
        keel_host::user_config_dir_or(self.config_dir.clone())
    }

    /// Where the user's `keel.toml` is: in [`Self::user_config_dir`].
    pub fn user_config_file(&self) -> Option<PathBuf> {
        self.user_config_dir().map(|dir| dir.join(CONFIG_FILE))
    }
}

/// A loaded `keel.toml` and where it came from.
#[derive(Debug, Clone, Default)]
pub struct Layer {
    /// The folder of the file (relative `scripted:` paths are taken from there).
    pub dir: Option<PathBuf>,
    /// Its settings.
    pub config: FileConfig,
}

impl Layer {
    /// Loads `path` (missing: an empty layer).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Ok(Self {
            dir: path.parent().map(Path::to_owned),
            config: FileConfig::load(path)?,
        })
    }
}

/// The settings an agent command runs with, every source merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Project folder.
    pub root: PathBuf,
    /// `openai` or `scripted:FILE`.
    pub provider: String,
    /// The model chain as configured (empty: the provider's default).
    pub models: Vec<String>,
    /// Base URL of the OpenAI-compatible API, if configured.
    pub base_url: Option<String>,
    /// Approval policy.
    pub approval: ApprovalPolicy,
    /// Planning mode.
    pub mode: Mode,
    /// Most model calls in a turn.
    pub max_iterations: u32,
    /// Retries of a failed model call (None: the engine's default).
    pub max_retries: Option<u32>,
    /// Idle time-out of a model call in seconds (None: the provider's default).
    pub idle_timeout: Option<u64>,
    /// Ask before executing a plan.
    pub approve_plans: bool,
    /// Whether file edits are asked about, with their diff, before they apply.
    pub approval_edits: keel_protocol::EditApproval,
    /// Stage changes in a shadow workspace: `--shadow` over the files' `shadow`.
    pub shadow: bool,
    /// How tools are offered to the model.
    pub tool_format: ToolFormat,
    /// Which tool definitions are offered.
    pub tool_profile: ToolProfile,
    /// How answers are sampled.
    pub sampling: Sampling,
    /// The project's test command.
    pub test_command: Option<String>,
    /// Run the test command after the model's changes.
    pub auto_test: bool,
    /// How many times a failed turn may start over (`None`: the engine's default).
    pub attempts: Option<u32>,
    /// The model's context window, when set (else the server's, else the built-in table).
    pub context_window: Option<u64>,
    /// Print events as JSON lines.
    pub json: bool,
    /// The wire format of those lines.
    pub format: WireFormat,
    /// Verbose rendering.
    pub verbose: bool,
    /// The system prompt in every `run.llm.start`: `include_system_prompt = true`, or verbose.
    pub include_system_prompt: bool,
    /// Colour.
    pub color: ColorWhen,
    /// The language of the terminal's words: `--lang`, else the locale variables.
    pub lang: Lang,
    /// The user's config folder, for user-wide instruction files.
    pub user_config_dir: Option<PathBuf>,
    /// Instruction files read besides `AGENTS.md` (the project's `keel.toml` over the user's).
    pub instructions_files: Vec<String>,
    /// Make the end-of-session memory distillation call (`[memory] distill`).
    pub distill_memory: bool,
    /// Model prices: the built-in table with the `[pricing.MODEL]` overrides of both files
    /// (the project's win).
    pub pricing: Pricing,
    /// The OS sandbox for commands: `--sandbox` over `sandbox`, `network`, `writable_roots` and
    /// `sandbox_fallback` of the files.
    pub sandbox: SandboxPolicy,
    /// Dependencies whose docs are preloaded into the prompt (`[context] libraries`).
    pub libraries: Vec<String>,
    /// Most messages of history a turn opens with (`[context] max_messages`, default 50,
    /// `0`: no limit).
    pub max_history_messages: Option<usize>,
    /// Most bytes `.keel/checkpoints/` may hold (`checkpoint_max_mb`, default 512 MB).
    pub checkpoint_max_bytes: u64,
    /// Where `generate_image` gets images (`[images]`, the chat `base_url`, `OPENAI_API_KEY`).
    pub images: ImageSettings,
    /// MCP servers by name: the project's `keel.toml`, then its `.mcp.json`, then the user's
    /// `keel.toml` (a name defined earlier wins as a whole).
    pub mcp_servers: BTreeMap<String, keel_mcp::ServerConfig>,
    /// OpenTelemetry export (`[telemetry]`, the `OTEL_EXPORTER_OTLP_*` variables).
    pub telemetry: keel_telemetry::TelemetryConfig,
}

impl Settings {
    /// Loads the project's and the user's `keel.toml` and merges them under the flags and the
    /// process environment.
    pub fn load(args: &AgentArgs) -> Result<Self, ConfigError> {
        let env = Environment::from_process();
        let project = Layer::load(&args.root.join(CONFIG_FILE))?;
        let user = match env.user_config_file() {
            Some(path) => Layer::load(&path)?,
            None => Layer::default(),
        };
        let mcp_json =
            keel_mcp::config::load_mcp_json(&args.root).map_err(|e| ConfigError::Invalid {
                path: args.root.join(keel_mcp::config::MCP_JSON),
                line: None,
                text: None,
                message: e.to_string(),
            })?;
        let mut settings = Self::resolve(args, &env, &project, &user);
        settings.mcp_servers = keel_mcp::config::merge_layers([
            &project.config.mcp_servers,
            &mcp_json,
            &user.config.mcp_servers,
        ]);
        Ok(settings)
    }

    /// Merges the sources: flags > environment > project file > user file > defaults.
    pub fn resolve(args: &AgentArgs, env: &Environment, project: &Layer, user: &Layer) -> Self {
        let files = [project, user];
        let provider = match &args.provider {
            Some(provider) => provider.clone(),
            None => files
                .iter()
                .find(|l| l.config.provider.is_some())
                .map_or_else(|| "openai".to_owned(), |l| layer_provider(l)),
        };
        let models = args
            .model
            .as_deref()
            .or(env.model.as_deref())
            .map(split_models)
            .or_else(|| files.iter().find_map(|l| l.config.model.clone()))
            .unwrap_or_default();
        let base_url = args
            .base_url
            .clone()
            .or_else(|| env.base_url.clone())
            .or_else(|| files.iter().find_map(|l| l.config.base_url.clone()));
        macro_rules! pick {
            ($flag:expr, $key:ident, $default:expr) => {
                $flag
                    .or_else(|| files.iter().find_map(|l| l.config.$key))
                    .unwrap_or($default)
            };
        }
        let verbose = pick!(args.verbose.then_some(true), verbose, false);
        let base_url_for_images = base_url.clone();
        let base_url_for_distill = base_url
            .clone()
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok());
        Self {
            root: args.root.clone(),
            provider,
            models,
            base_url,
            approval: pick!(args.approval, approval, ApprovalPolicy::default()),
            mode: pick!(args.mode.map(Mode::from), mode, Mode::Auto),
            max_iterations: pick!(args.max_iterations, max_iterations, DEFAULT_MAX_ITERATIONS),
            max_retries: args
                .max_retries
                .or_else(|| files.iter().find_map(|l| l.config.max_retries)),
            idle_timeout: args
                .idle_timeout
                .or_else(|| files.iter().find_map(|l| l.config.idle_timeout)),
            approve_plans: pick!(args.approve_plans.then_some(true), approve_plans, false),
            approval_edits: files
                .iter()
                .find_map(|l| l.config.approval_edits)
                .unwrap_or_default(),
            shadow: pick!(args.shadow.then_some(true), shadow, false),
            tool_format: pick!(args.tool_format, tool_format, ToolFormat::Native),
            tool_profile: pick!(args.tool_profile, tool_profile, ToolProfile::Auto),
            sampling: Sampling {
                temperature: Some(pick!(args.temperature, temperature, DEFAULT_TEMPERATURE)),
                top_p: args
                    .top_p
                    .or_else(|| files.iter().find_map(|l| l.config.top_p)),
            },
            test_command: args
                .test_command
                .clone()
                .or_else(|| files.iter().find_map(|l| l.config.test_command.clone())),
            auto_test: pick!(args.no_auto_test.then_some(false), auto_test, true),
            attempts: args
                .attempts
                .or_else(|| files.iter().find_map(|l| l.config.attempts)),
            context_window: args
                .context_window
                .or_else(|| files.iter().find_map(|l| l.config.context_window)),
            json: args.json,
            format: args.format.unwrap_or_default(),
            verbose,
            include_system_prompt: verbose
                || files
                    .iter()
                    .find_map(|l| l.config.include_system_prompt)
                    .unwrap_or(false),
            color: pick!(args.color, color, ColorWhen::Auto),
            lang: args.lang.unwrap_or(env.lang),
            telemetry: keel_telemetry::TelemetryConfig::new(
                files.iter().find_map(|l| {
                    l.config
                        .telemetry
                        .as_ref()
                        .and_then(|t| t.otlp_endpoint.clone())
                }),
                files
                    .iter()
                    .find_map(|l| l.config.telemetry.as_ref().and_then(|t| t.capture_content))
                    .unwrap_or(false),
            ),
            user_config_dir: env.user_config_dir(),
            instructions_files: files
                .iter()
                .find_map(|l| l.config.instructions_files.clone())
                .unwrap_or_default(),
            distill_memory: files
                .iter()
                .find_map(|l| l.config.memory.as_ref().and_then(|m| m.distill))
                .unwrap_or_else(|| distills_by_default(base_url_for_distill.as_deref())),
            pricing: pricing(&files),
            sandbox: sandbox_policy(args.sandbox, &files),
            libraries: files
                .iter()
                .find_map(|l| l.config.context.as_ref()?.libraries.clone())
                .unwrap_or_default(),
            max_history_messages: keel_host::ContextConfig::history_limit(
                files
                    .iter()
                    .filter_map(|l| l.config.context.as_ref())
                    .find(|c| c.max_messages.is_some()),
            ),
            images: image_settings(&files, base_url_for_images),
            checkpoint_max_bytes: checkpoint_max_bytes(&files),
            mcp_servers: keel_mcp::config::merge_layers(
                files.iter().map(|l| &l.config.mcp_servers),
            ),
        }
    }

    /// The `generate_image` settings for the project at `root` without agent flags (what
    /// `keel tool call` uses): `[images]` over the chat `base_url` from `KEEL_BASE_URL` or the
    /// files.
    pub fn images_for(root: &Path) -> Result<ImageSettings, ConfigError> {
        let env = Environment::from_process();
        let project = Layer::load(&root.join(CONFIG_FILE))?;
        let user = match env.user_config_file() {
            Some(path) => Layer::load(&path)?,
            None => Layer::default(),
        };
        let files = [&project, &user];
        let chat = env
            .base_url
            .clone()
            .or_else(|| files.iter().find_map(|l| l.config.base_url.clone()));
        Ok(image_settings(&files, chat))
    }
}

/// `[images]` (project over user), its `base_url` defaulting to the chat provider's.
fn image_settings(files: &[&Layer], chat: Option<String>) -> ImageSettings {
    keel_host::image_settings(files.iter().filter_map(|l| l.config.images.as_ref()), chat)
}

/// The sandbox settings of `root`'s and the user's `keel.toml` under the `--sandbox` flag, for
/// commands that run tools without an agent (`keel tool call`, `keel exec-file`).
pub fn load_sandbox(root: &Path, flag: Option<SandboxMode>) -> Result<SandboxPolicy, ConfigError> {
    let env = Environment::from_process();
    let project = Layer::load(&root.join(CONFIG_FILE))?;
    let user = match env.user_config_file() {
        Some(path) => Layer::load(&path)?,
        None => Layer::default(),
    };
    Ok(sandbox_policy(flag, &[&project, &user]))
}

/// `checkpoint_max_mb` of `root`'s and the user's `keel.toml` (the project's first) in bytes,
/// or the default: for commands that read checkpoints without an agent.
pub fn load_checkpoint_max_bytes(root: &Path) -> Result<u64, ConfigError> {
    let env = Environment::from_process();
    let project = Layer::load(&root.join(CONFIG_FILE))?;
    let user = match env.user_config_file() {
        Some(path) => Layer::load(&path)?,
        None => Layer::default(),
    };
    Ok(checkpoint_max_bytes(&[&project, &user]))
}

/// `checkpoint_max_mb` of the files (the project's first) in bytes, or the default.
fn checkpoint_max_bytes(files: &[&Layer]) -> u64 {
    keel_host::checkpoint_max_bytes(files.iter().map(|l| l.config.checkpoint_max_mb))
}

/// `--sandbox` over the files' `sandbox` (default `workspace-write`), and the files' `network`,
/// `writable_roots` (both files' together) and `sandbox_fallback`, the project's first.
fn sandbox_policy(flag: Option<SandboxMode>, files: &[&Layer]) -> SandboxPolicy {
    SandboxPolicy {
        mode: flag
            .or_else(|| files.iter().find_map(|l| l.config.sandbox))
            .unwrap_or_default(),
        network: files.iter().find_map(|l| l.config.network).unwrap_or(false),
        writable_roots: files
            .iter()
            .flat_map(|l| l.config.writable_roots.iter().flatten().cloned())
            .collect(),
        fallback: files
            .iter()
            .find_map(|l| l.config.sandbox_fallback)
            .unwrap_or_default(),
    }
}

/// The built-in prices with the files' overrides, the user's first so the project's win.
fn pricing(files: &[&Layer]) -> Pricing {
    keel_host::pricing_with(files.iter().rev().map(|l| &l.config.pricing))
}

/// A layer's provider, with a relative `scripted:` path taken from the file's folder.
fn layer_provider(layer: &Layer) -> String {
    let provider = layer.config.provider.clone().unwrap_or_default();
    match (provider.strip_prefix("scripted:"), &layer.dir) {
        (Some(file), Some(dir)) if Path::new(file).is_relative() => {
            format!("scripted:{}", dir.join(file).display())
        }
        _ => provider,
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

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

    fn layer(text: &str) -> Layer {
        Layer {
            dir: Some(PathBuf::from("/conf")),
            config: FileConfig::parse(Path::new("/conf/keel.toml"), text).unwrap(),
        }
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        let s = Settings::resolve(
            &args(&[]),
            &Environment::default(),
            &Layer::default(),
            &Layer::default(),
        );
        assert_eq!(s.provider, "openai");
        assert!(s.models.is_empty());
        assert_eq!(s.base_url, None);
        assert_eq!(s.approval, ApprovalPolicy::OnDangerous);
        assert_eq!(s.mode, Mode::Auto);
        assert_eq!(s.max_iterations, DEFAULT_MAX_ITERATIONS);
        assert_eq!(s.tool_format, ToolFormat::Native);
        assert_eq!(s.context_window, None);
        assert!(!s.approve_plans && !s.verbose && !s.json && !s.include_system_prompt);
        assert_eq!(s.color, ColorWhen::Auto);
        assert!(s.distill_memory);
        assert_eq!(s.pricing, Pricing::builtin());
    }

    #[test]
    fn the_history_limit_comes_from_context_max_messages() {
        let none = layer("");
        let s = Settings::resolve(&args(&[]), &Environment::default(), &none, &none);
        assert_eq!(s.max_history_messages, Some(50), "seed 002's 50 by default");
        let user = layer("[context]\nmax_messages = 80\n");
        let s = Settings::resolve(&args(&[]), &Environment::default(), &none, &user);
        assert_eq!(s.max_history_messages, Some(80));
        // The project's wins; 0 means no limit.
        let project = layer("[context]\nmax_messages = 0\n");
        let s = Settings::resolve(&args(&[]), &Environment::default(), &project, &user);
        assert_eq!(s.max_history_messages, None);
    }

    #[test]
    fn images_and_libraries_come_from_the_files() {
        let project = layer("base_url = 'http://chat/v1'\n[context]\nlibraries = ['tokio']\n");
        let user = layer("[images]\nmodel = 'img'\n[context]\nlibraries = ['serde']\n");
        let s = Settings::resolve(&args(&[]), &Environment::default(), &project, &user);
        assert_eq!(s.libraries, ["tokio"]);
        assert_eq!(s.images.model.as_deref(), Some("img"));
        // No `[images] base_url`: the chat provider's.
        assert_eq!(s.images.base_url.as_deref(), Some("http://chat/v1"));
        let project = layer("[images]\nbase_url = 'http://images/v1'\n");
        let s = Settings::resolve(
            &args(&["--base-url", "http://flag/v1"]),
            &Environment::default(),
            &project,
            &user,
        );
        assert_eq!(s.images.base_url.as_deref(), Some("http://images/v1"));
        assert!(s.libraries == ["serde"]);
        let s = Settings::resolve(
            &args(&["--base-url", "http://flag/v1"]),
            &Environment::default(),
            &Layer::default(),
            &Layer::default(),
        );
        assert_eq!(s.images.base_url.as_deref(), Some("http://flag/v1"));
        assert_eq!(s.images.model, None);
    }

    #[test]
    fn memory_and_prices_merge_project_over_user() {
        let project = layer("[pricing.gpt-4o]\ninput = 1\noutput = 2\n");
        let user = layer(
            "[memory]\ndistill = false\n[pricing.gpt-4o]\ninput = 9\noutput = 9\n\
             [pricing.local-llama]\ninput = 0\noutput = 0\n",
        );
        let s = Settings::resolve(&args(&[]), &Environment::default(), &project, &user);
        assert!(!s.distill_memory);
        let price = s.pricing.price("gpt-4o").unwrap();
        assert_eq!(
            (price.input, price.cached_input, price.output),
            (1.0, None, 2.0)
        );
        assert_eq!(s.pricing.price("local-llama").map(|p| p.input), Some(0.0));
        assert!(s.pricing.price("gpt-4o-mini").is_some());
        let project = layer("[memory]\ndistill = true\n");
        let s = Settings::resolve(&args(&[]), &Environment::default(), &project, &user);
        assert!(s.distill_memory);
    }

    #[test]
    fn flags_beat_env_beat_project_beat_user() {
        let project =
            layer("model = 'project'\nmode = 'plan'\nmax_iterations = 5\ncontext_window = 8192");
        let user = layer(
            "model = 'user'\nmode = 'direct'\nmax_iterations = 9\nbase_url = 'http://user'\n\
             tool_format = 'xml'\napprove_plans = true\ncontext_window = 4096",
        );
        let env = Environment {
            model: Some("env-a,env-b".to_owned()),
            base_url: None,
            config_dir: None,
            lang: Lang::ZhCn,
        };
        let s = Settings::resolve(&args(&[]), &env, &project, &user);
        assert_eq!(s.models, ["env-a", "env-b"]);
        assert_eq!(s.mode, Mode::Plan);
        assert_eq!(s.max_iterations, 5);
        assert_eq!(s.lang, Lang::ZhCn, "the locale's language without --lang");
        let s = Settings::resolve(&args(&["--lang", "en"]), &env, &project, &user);
        assert_eq!(s.lang, Lang::En, "--lang wins over the locale");
        assert_eq!(s.base_url.as_deref(), Some("http://user"));
        assert_eq!(s.tool_format, ToolFormat::Xml);
        assert_eq!(s.context_window, Some(8192));
        assert!(s.approve_plans);

        let s = Settings::resolve(
            &args(&[
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
                "--context-window",
                "16000",
            ]),
            &env,
            &project,
            &user,
        );
        assert_eq!(s.models, ["flag"]);
        assert_eq!(s.mode, Mode::Auto);
        assert_eq!(s.max_iterations, 3);
        assert_eq!(s.tool_format, ToolFormat::Native);
        assert_eq!(s.base_url.as_deref(), Some("http://flag"));
        assert_eq!(s.context_window, Some(16000));

        let s = Settings::resolve(&args(&[]), &Environment::default(), &project, &user);
        assert_eq!(s.models, ["project"]);
    }

    #[test]
    fn the_system_prompt_is_included_when_verbose_or_asked_for() {
        let none = Layer::default();
        let env = Environment::default();
        let s = Settings::resolve(&args(&["-v"]), &env, &none, &none);
        assert!(s.verbose && s.include_system_prompt);
        let s = Settings::resolve(&args(&[]), &env, &layer("verbose = true"), &none);
        assert!(s.include_system_prompt);
        let s = Settings::resolve(
            &args(&[]),
            &env,
            &none,
            &layer("include_system_prompt = true"),
        );
        assert!(!s.verbose && s.include_system_prompt);
        // The project's `false` wins over the user's `true`.
        let s = Settings::resolve(
            &args(&[]),
            &env,
            &layer("include_system_prompt = false"),
            &layer("include_system_prompt = true"),
        );
        assert!(!s.include_system_prompt);
    }

    #[test]
    fn a_relative_script_is_taken_from_the_file_folder() {
        let s = Settings::resolve(
            &args(&[]),
            &Environment::default(),
            &layer("provider = 'scripted:demo.json'"),
            &Layer::default(),
        );
        assert_eq!(s.provider, "scripted:/conf/demo.json");
        let s = Settings::resolve(
            &args(&["--provider", "scripted:x.json"]),
            &Environment::default(),
            &layer("provider = 'scripted:demo.json'"),
            &Layer::default(),
        );
        assert_eq!(s.provider, "scripted:x.json");
    }

    #[test]
    fn mode_flags_map_to_engine_modes() {
        assert_eq!(Mode::from(ModeArg::Direct), Mode::Direct);
        assert_eq!(Mode::from(ModeArg::Plan), Mode::Plan);
        assert_eq!(Mode::from(ModeArg::Auto), Mode::Auto);
    }

    #[test]
    fn keel_config_dir_names_the_user_file() {
        let env = Environment {
            config_dir: Some(PathBuf::from("/cfg")),
            ..Environment::default()
        };
        assert_eq!(
            env.user_config_file(),
            Some(PathBuf::from("/cfg/keel.toml"))
        );
        assert_eq!(env.user_config_dir(), Some(PathBuf::from("/cfg")));
        let s = Settings::resolve(&args(&[]), &env, &Layer::default(), &Layer::default());
        assert_eq!(s.user_config_dir, Some(PathBuf::from("/cfg")));
    }

    #[test]
    fn the_project_names_instruction_files_over_the_user() {
        let project = layer("instructions_files = ['CLAUDE.md']");
        let user = layer("instructions_files = ['GEMINI.md', 'CLAUDE.md']");
        let env = Environment::default();
        let s = Settings::resolve(&args(&[]), &env, &project, &user);
        assert_eq!(s.instructions_files, ["CLAUDE.md"]);
        let s = Settings::resolve(&args(&[]), &env, &Layer::default(), &user);
        assert_eq!(s.instructions_files, ["GEMINI.md", "CLAUDE.md"]);
        let s = Settings::resolve(&args(&[]), &env, &Layer::default(), &Layer::default());
        assert!(s.instructions_files.is_empty());
    }
}
