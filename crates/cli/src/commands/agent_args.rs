//! The flags `keel run`, `keel chat` and `keel sessions resume` share.
//!
//! Every setting is an `Option` (or an off-by-default switch) so that an absent flag leaves the
//! value to the environment, `keel.toml` or the built-in default (see [`crate::config`]).

use std::path::PathBuf;

use keel_engine::agent::{ToolFormat, ToolProfile};
use keel_events::projection::WireFormat;
use keel_protocol::ApprovalPolicy;
use keel_protocol::Mode;
use keel_sandbox::SandboxMode;

use keel_render::ColorWhen;

/// Planning mode flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// The model decides whether to plan.
    Auto,
    /// Never plan.
    Direct,
    /// Plan first.
    Plan,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Auto => Mode::Auto,
            ModeArg::Direct => Mode::Direct,
            ModeArg::Plan => Mode::Plan,
        }
    }
}

/// Agent settings given on the command line. Unset flags fall back to `KEEL_MODEL` /
/// `KEEL_BASE_URL`, then `<root>/keel.toml`, then the user's `keel.toml`
/// (`$KEEL_CONFIG_DIR/keel.toml`, else `~/.config/keel/keel.toml`), then the defaults shown.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AgentArgs {
    /// Model back end: `openai` (any OpenAI-compatible endpoint; needs OPENAI_API_KEY) or
    /// `scripted:FILE` (replays a script of model turns, offline) [default: openai].
    #[arg(long, value_name = "openai|scripted:FILE")]
    pub provider: Option<String>,
    /// Model, or a comma-separated fallback chain (`gpt-4o,gpt-4o-mini`) [env: KEEL_MODEL]
    /// [default for openai: gpt-4o-mini].
    #[arg(long, value_name = "MODEL[,FALLBACK…]")]
    pub model: Option<String>,
    /// Base URL of the OpenAI-compatible API [env: KEEL_BASE_URL] [default: OPENAI_BASE_URL,
    /// else api.openai.com].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Project folder the agent works in (its `keel.toml` and `.keel/keel.db` are used).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// Settings profile: the `[profiles.NAME]` tables of the user's and the project's
    /// `keel.toml`, each over its file's top level.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// When commands need approval: never, on-dangerous, always, deny-dangerous
    /// [default: on-dangerous].
    #[arg(long, value_parser = parse_policy, value_name = "POLICY")]
    pub approval: Option<ApprovalPolicy>,
    /// The OS sandbox for commands: read-only, workspace-write or off
    /// [default: workspace-write].
    #[arg(long, value_parser = parse_sandbox, value_name = "MODE")]
    pub sandbox: Option<SandboxMode>,
    /// auto (the model decides), direct (never plan) or plan (plan first) [default: auto].
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Most model calls in one turn [default: 25].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_iterations: Option<u32>,
    /// Retries of a failed model call (429, 5xx, dropped connections).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Seconds without data from the model before the call fails (and is retried).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: Option<u64>,
    /// Ask before executing a plan.
    #[arg(long)]
    pub approve_plans: bool,
    /// Trust the project folder for this run: its own hooks (`.claude/settings.json`,
    /// `.codex/hooks.json`, the project's `[[hooks.*]]`) run. `keel trust` makes it lasting;
    /// on a terminal Keel asks once.
    #[arg(long)]
    pub trust: bool,
    /// Stage every change in a shadow workspace (`.keel/shadow/<session>/`): the real tree is
    /// untouched until `keel shadow apply` [default: keel.toml's `shadow`, else off].
    #[arg(long)]
    pub shadow: bool,
    /// After each turn that changed files, commit exactly those files (never a file you had
    /// changed before the turn) with a message the model writes [default: keel.toml's
    /// `[git] commit`, else off].
    #[arg(long)]
    pub commit: bool,
    /// Work on a new branch NAME, made at HEAD before the first turn (an existing branch only
    /// when it is checked out or at HEAD's commit).
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// How tools are offered to the model: native (tool calling; calls the server returns as
    /// text in the model's template format are read too) or xml (tags in the text)
    /// [default: native].
    #[arg(long, value_parser = parse_tool_format, value_name = "native|xml")]
    pub tool_format: Option<ToolFormat>,
    /// Which tool definitions the model is offered: auto (compact for a context window of
    /// 32k tokens or less), full, or compact (the core tools, one-line descriptions)
    /// [default: auto].
    #[arg(long, value_parser = parse_tool_profile, value_name = "auto|full|compact")]
    pub tool_profile: Option<ToolProfile>,
    /// Sampling temperature, 0–2 [default: 0].
    #[arg(long, value_parser = parse_temperature, value_name = "T")]
    pub temperature: Option<f32>,
    /// Nucleus sampling, above 0 and at most 1 [default: the server's].
    #[arg(long, value_parser = parse_top_p, value_name = "P")]
    pub top_p: Option<f32>,
    /// The project's test command: named to the model, and run by Keel after each answer that
    /// changed files, failures given back to the model (up to 3 times).
    #[arg(long = "test-cmd", value_name = "CMD")]
    pub test_command: Option<String>,
    /// Do not run the test command after the model's changes (it is still named to the model).
    #[arg(long)]
    pub no_auto_test: bool,
    /// How many times a turn whose work failed (tests still failing, nothing changed) may start
    /// over with a fresh conversation [default: 3 with the compact tool profile and a test
    /// command, else 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub attempts: Option<u32>,
    /// The model's context window in tokens [default: what the server reports (vLLM,
    /// llama.cpp, Ollama), else Keel's table for the model].
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
    pub context_window: Option<u64>,
    /// Print the events as JSON lines instead of rendering them.
    #[arg(long)]
    pub json: bool,
    /// The JSON lines' wire format: keel (Keel's events), v1 (the legacy flat dicts) or paths
    /// (`{"path": "/agent/edit/…", "event": …}`) [default: keel].
    #[arg(long, requires = "json", value_parser = parse_wire_format, value_name = "keel|v1|paths")]
    pub format: Option<WireFormat>,
    /// Show thinking, tool output and model-call detail.
    #[arg(long, short)]
    pub verbose: bool,
    /// Colour: auto, always or never [default: auto].
    #[arg(long, value_enum)]
    pub color: Option<ColorWhen>,
    /// Language of the terminal's words: en or zh-CN [default: from LC_ALL, LC_MESSAGES or
    /// LANG, else en].
    #[arg(long, value_name = "en|zh-CN")]
    pub lang: Option<keel_events::Lang>,
}

fn parse_policy(s: &str) -> Result<ApprovalPolicy, String> {
    s.parse::<ApprovalPolicy>().map_err(|e| e.to_string())
}

/// A `--sandbox` value.
pub fn parse_sandbox(s: &str) -> Result<SandboxMode, String> {
    s.parse::<SandboxMode>().map_err(|e| e.to_string())
}

fn parse_wire_format(s: &str) -> Result<WireFormat, String> {
    s.parse::<WireFormat>().map_err(|e| e.to_string())
}

fn parse_tool_format(s: &str) -> Result<ToolFormat, String> {
    s.parse::<ToolFormat>().map_err(|e| e.to_string())
}

fn parse_tool_profile(s: &str) -> Result<ToolProfile, String> {
    s.parse::<ToolProfile>().map_err(|e| e.to_string())
}

fn parse_temperature(s: &str) -> Result<f32, String> {
    let value = s
        .trim()
        .parse::<f32>()
        .map_err(|e| format!("not a number: {e}"))?;
    keel_engine::Sampling::temperature(value).map_err(|e| e.to_string())
}

fn parse_top_p(s: &str) -> Result<f32, String> {
    let value = s
        .trim()
        .parse::<f32>()
        .map_err(|e| format!("not a number: {e}"))?;
    keel_engine::Sampling::top_p(value).map_err(|e| e.to_string())
}
