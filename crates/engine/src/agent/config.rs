//! How an agent session behaves: models, mode, limits, retries, approval.

use std::path::PathBuf;
use std::str::FromStr;

use keel_context::InstructionSources;
use keel_protocol::{ApprovalPolicy, Mode};

use super::anomaly::AnomalyLimits;
use crate::fallback::ModelChain;
use crate::pricing::Pricing;
use crate::retry::RetryPolicy;

/// How tools are offered to the model and how its calls come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolFormat {
    /// The provider's native tool calling: tools go in the request's `tools`, calls come back
    /// as structured tool-call deltas — or as text in the model's chat-template format when the
    /// server did not parse them, which is read as the same calls
    /// ([`text_tool_calls`](crate::text_tool_calls)).
    #[default]
    Native,
    /// The XML convention (seed 004 §2.2) for models without native tool calling: tools are
    /// described in the system prompt and the model writes calls as XML tags in its text.
    Xml,
}

impl ToolFormat {
    /// The format's name (`native`, `xml`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolFormat::Native => "native",
            ToolFormat::Xml => "xml",
        }
    }
}

impl std::fmt::Display for ToolFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool format name that is not `native` or `xml`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool format `{0}` (expected native or xml)")]
pub struct UnknownToolFormat(pub String);

impl FromStr for ToolFormat {
    type Err = UnknownToolFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "native" => Ok(ToolFormat::Native),
            "xml" => Ok(ToolFormat::Xml),
            _ => Err(UnknownToolFormat(s.to_owned())),
        }
    }
}

/// Which tool definitions a model is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolProfile {
    /// Compact for a model whose window is at most [`COMPACT_WINDOW`] tokens (small local
    /// models, whose every prompt token costs prefill time), full otherwise.
    #[default]
    Auto,
    /// Every usable tool with its whole description.
    Full,
    /// The core tools (read, write, edit, list, search, run, move, delete) with one-line
    /// descriptions and bare schemas, no planning or memory tools: about a fifth of the full
    /// definitions' tokens. MCP servers' tools, when configured, are offered whole.
    Compact,
}

/// The largest context window [`ToolProfile::Auto`] offers the compact tools to.
pub const COMPACT_WINDOW: u64 = 32_768;

impl ToolProfile {
    /// The profile's name (`auto`, `full`, `compact`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolProfile::Auto => "auto",
            ToolProfile::Full => "full",
            ToolProfile::Compact => "compact",
        }
    }

    /// Whether the compact tools are offered to a model with a `window`-token context.
    pub fn compact_for(self, window: u64) -> bool {
        match self {
            ToolProfile::Auto => window <= COMPACT_WINDOW,
            ToolProfile::Full => false,
            ToolProfile::Compact => true,
        }
    }
}

impl std::fmt::Display for ToolProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool profile name that is not `auto`, `full` or `compact`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool profile `{0}` (expected auto, full or compact)")]
pub struct UnknownToolProfile(pub String);

impl FromStr for ToolProfile {
    type Err = UnknownToolProfile;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(ToolProfile::Auto),
            "full" => Ok(ToolProfile::Full),
            "compact" => Ok(ToolProfile::Compact),
            _ => Err(UnknownToolProfile(s.to_owned())),
        }
    }
}

/// Repo-map settings: whether each turn's system prompt carries a ranked map of the
/// repository's definitions, and how large it may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoMapConfig {
    /// Build and include the map (default on).
    pub enabled: bool,
    /// Most tokens the rendered map may take (default 1,024).
    pub token_budget: usize,
}

impl Default for RepoMapConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            token_budget: 1024,
        }
    }
}

impl RepoMapConfig {
    /// No repo map.
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }
}

/// Most messages the history carries into a turn unless configured (seed 002 §3.2).
pub const DEFAULT_MAX_HISTORY_MESSAGES: usize = 50;

/// Settings of an [`AgentSession`](super::AgentSession).
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Workspace root every tool works in.
    pub root: PathBuf,
    /// Models to use, with fallbacks.
    pub models: ModelChain,
    /// Planning mode.
    pub mode: Mode,
    /// Most model calls in one turn, plan steps and repairs included (default 25).
    pub max_iterations: u32,
    /// Most model calls for one plan step (or one repair attempt of it) (default 8).
    pub step_iterations: u32,
    /// Self-repair attempts for a failed plan step (default 3).
    pub max_repairs: u32,
    /// Retries of model calls.
    pub retry: RetryPolicy,
    /// How answers are sampled (default: temperature [`DEFAULT_TEMPERATURE`](crate::DEFAULT_TEMPERATURE), the server's `top_p`).
    pub sampling: crate::provider::Sampling,
    /// When commands need approval.
    pub approval: ApprovalPolicy,
    /// The OS sandbox commands run in (default: off; front ends resolve the configured mode).
    pub sandbox: keel_tools::process::CommandSandbox,
    /// Approval rules (`.keel/rules.toml`, the user's `rules.toml`), checked before
    /// `approval` (default: none).
    pub rules: std::sync::Arc<keel_tools::RuleSet>,
    /// Whether file edits are put up for approval with their diff before they apply
    /// (`approval_edits = "ask"`; default: never).
    pub approval_edits: keel_protocol::EditApproval,
    /// Ask the approver before executing a plan.
    pub approve_plans: bool,
    /// Anomaly thresholds.
    pub anomalies: AnomalyLimits,
    /// Name reported as `agent_name`.
    pub agent_name: String,
    /// The model's context window in tokens. `None`: the window the server reports for the
    /// model (asked once per session, see [`Provider::context_window`](crate::Provider::context_window)),
    /// else keel-context's table.
    pub context_window: Option<u64>,
    /// Whether the models accept images (`None`: judged from each model's name, see
    /// [`crate::vision`]).
    pub vision: Option<bool>,
    /// Where the project instruction files (`AGENTS.md` and the names added) are looked up,
    /// and how many tokens they may take. The root's and nested ones are always looked up; the
    /// user-wide folder and extra names are the front end's to set.
    pub instructions: InstructionSources,
    /// Whether the model writes the summary when older turns must be compacted (default on);
    /// the session's summariser stands in when that call fails, or writes it when this is off.
    pub model_summaries: bool,
    /// How tools are offered and called (default [`ToolFormat::Native`]).
    pub tool_format: ToolFormat,
    /// Which tool definitions are offered (default [`ToolProfile::Auto`]).
    pub tool_profile: ToolProfile,
    /// The repo map in the system prompt (default on, 1,024 tokens).
    pub repo_map: RepoMapConfig,
    /// Put the system prompt into every `run.llm.start` (`system_prompt`; default off: it is
    /// large, and stored with every model call).
    pub include_system_prompt: bool,
    /// Make the one model call that distils a session's decisions into project memory when
    /// the front end asks ([`AgentSession::distill_memory`](super::AgentSession::distill_memory));
    /// default on. A provider may still decline ([`Provider::distills_memory`](crate::Provider::distills_memory)).
    pub distill_memory: bool,
    /// Model prices, for the cost in `run.usage.report` (default: the built-in table).
    pub pricing: Pricing,
    /// Dependencies whose documentation digests (at the locked versions) are preloaded into
    /// the system prompt as background (`[context] libraries`; default none).
    pub libraries: Vec<String>,
    /// Most bytes the workspace's checkpoints may hold before the oldest are pruned
    /// (`checkpoint_max_mb`; default 512 MB).
    pub checkpoint_max_bytes: u64,
    /// Work in a shadow workspace (`--shadow`, `shadow = true`): file tools and commands change
    /// a copy of the tree under `.keel/shadow/<session>/`, and each turn ends with the staged
    /// batch for `keel shadow apply|discard` (default off).
    pub shadow: bool,
    /// The project's test command (`test_command`, `--test-cmd`): named to the model, and run
    /// by Keel after an answer that changed files when [`Self::auto_test`] is on.
    pub test_command: Option<String>,
    /// Run [`Self::test_command`] after each answer that changed files and give a failure back
    /// to the model (default on).
    pub auto_test: bool,
    /// Most times failing tests are given back to the model in one turn (default 3).
    pub test_rounds: u32,
    /// How many times a turn may start over from its beginning when its work failed (the tests
    /// still fail, or nothing changed where changes were asked for), each attempt with a fresh
    /// conversation and sampled more freely (`None`: 3 with the compact profile and a test
    /// command, else 1).
    pub attempts: Option<u32>,
    /// Most messages the history carries into a turn (seed 002 §3.2; `[context] max_messages`,
    /// default [`DEFAULT_MAX_HISTORY_MESSAGES`]): when a turn opens over it, the oldest are
    /// folded into the summary of earlier turns by the session's summariser (no model call)
    /// and reported by `run.context.compress`. `None`: no limit. A turn itself is never cut.
    pub max_history_messages: Option<usize>,
    /// The language of the words the seeds fix in Chinese — `move_file`'s messages and
    /// summaries (seed 003 §5.3, §6) — (default English; the CLI passes the locale's).
    pub lang: keel_events::Lang,
    /// Hooks configured in `keel.toml` (the user's and the project's, each with its origin);
    /// those of Claude Code's and Codex's files are found when the session is built.
    pub hooks: Vec<keel_extensions::Hook>,
    /// Whether the project's own hooks run (the folder is trusted; default false: only the
    /// user's run, and the project's are named in a `system.log`).
    pub trust_project: bool,
    /// `[subagents]`: how many `task` calls run at once and how deep subagents nest.
    pub subagents: super::subagent::SubagentSettings,
    /// The project's language servers (`[lsp.LANGUAGE]`): diagnostics after each successful
    /// edit and the `diagnostics` tool. `None` (the default for library users): none started;
    /// front ends set the configured settings.
    pub lsp: Option<keel_lsp::LspSettings>,
    /// The shadow copy the running session's tools use, once made.
    pub(crate) shadow_env: Option<ShadowEnv>,
}

/// Where a shadowed session's tools run: the copy, and the sandbox rooted there.
#[derive(Debug, Clone)]
pub(crate) struct ShadowEnv {
    pub(crate) tree: PathBuf,
    pub(crate) sandbox: keel_tools::process::CommandSandbox,
}

impl AgentConfig {
    /// Defaults for a workspace `root` and a model chain.
    pub fn new(root: impl Into<PathBuf>, models: ModelChain) -> Self {
        Self {
            root: root.into(),
            models,
            mode: Mode::Auto,
            max_iterations: 25,
            step_iterations: 8,
            max_repairs: 3,
            retry: RetryPolicy::default(),
            sampling: crate::provider::Sampling::default(),
            approval: ApprovalPolicy::default(),
            sandbox: keel_tools::process::CommandSandbox::Off,
            rules: std::sync::Arc::default(),
            approval_edits: keel_protocol::EditApproval::Never,
            approve_plans: false,
            anomalies: AnomalyLimits::default(),
            agent_name: "keel".to_owned(),
            context_window: None,
            vision: None,
            instructions: InstructionSources::default(),
            model_summaries: true,
            tool_format: ToolFormat::Native,
            tool_profile: ToolProfile::Auto,
            repo_map: RepoMapConfig::default(),
            include_system_prompt: false,
            distill_memory: true,
            pricing: Pricing::builtin(),
            libraries: Vec::new(),
            checkpoint_max_bytes: keel_tools::checkpoint::DEFAULT_MAX_BYTES,
            shadow: false,
            test_command: None,
            auto_test: true,
            test_rounds: 3,
            attempts: None,
            max_history_messages: Some(DEFAULT_MAX_HISTORY_MESSAGES),
            lang: keel_events::Lang::En,
            hooks: Vec::new(),
            trust_project: false,
            subagents: super::subagent::SubagentSettings::default(),
            lsp: None,
            shadow_env: None,
        }
    }

    /// The same settings in another mode.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse() {
        assert_eq!("Plan".parse::<Mode>(), Ok(Mode::Plan));
        assert_eq!(" direct ".parse::<Mode>(), Ok(Mode::Direct));
        assert!("fast".parse::<Mode>().is_err());
    }

    #[test]
    fn tool_profiles_parse_and_decide() {
        assert_eq!("Compact".parse::<ToolProfile>(), Ok(ToolProfile::Compact));
        assert!("small".parse::<ToolProfile>().is_err());
        assert!(ToolProfile::Auto.compact_for(32_768));
        assert!(!ToolProfile::Auto.compact_for(128_000));
        assert!(!ToolProfile::Full.compact_for(4_096));
        assert!(ToolProfile::Compact.compact_for(1_000_000));
    }

    #[test]
    fn tool_formats_parse_and_serialise() {
        assert_eq!("XML".parse::<ToolFormat>(), Ok(ToolFormat::Xml));
        assert_eq!(" native ".parse::<ToolFormat>(), Ok(ToolFormat::Native));
        assert!("json".parse::<ToolFormat>().is_err());
        assert_eq!(ToolFormat::default(), ToolFormat::Native);
        assert_eq!(serde_json::to_string(&ToolFormat::Xml).unwrap(), "\"xml\"");
        assert_eq!(
            serde_json::from_str::<ToolFormat>("\"native\"").unwrap(),
            ToolFormat::Native
        );
        assert_eq!(ToolFormat::Xml.as_str(), "xml");
    }
}
