//! Every key of `keel.toml`, defined once: the top-level keys (each mirrors the `keel run` flag
//! of the same name, `_` for `-`) and the tables (`[memory]`, `[context]`, `[images]`,
//! `[pricing.MODEL]`, `[mcp_servers.NAME]`, `[lsp.LANGUAGE]`, `[rag]`, `[rag_servers.NAME]`, `[git]`,
//! `[subagents]`). The server's file
//! holds the same keys beside its own.

use std::collections::BTreeMap;
use std::path::PathBuf;

use keel_engine::ModelPrice;
use keel_engine::agent::{ToolFormat, ToolProfile};
use keel_host::git::CommitWhen;
use keel_protocol::{ApprovalPolicy, EditApproval, Mode};
use keel_sandbox::{Fallback, SandboxMode};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::values;

/// One `keel.toml` (or the shared part of the server's file). Every key is optional; an unknown
/// key is an error naming file, line and the nearest known key.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "keel.toml")]
pub struct FileConfig {
    /// `openai` or `scripted:FILE` (a relative FILE is taken from the file's folder).
    pub provider: Option<String>,
    /// A model, or a fallback chain as a list (or a comma-separated string).
    #[serde(default, deserialize_with = "values::model_list")]
    #[schemars(schema_with = "values::model_list_schema")]
    pub model: Option<Vec<String>>,
    /// Base URL of the OpenAI-compatible API.
    pub base_url: Option<String>,
    /// When commands need approval: never, on-dangerous, always, deny-dangerous.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::approval_schema")]
    pub approval: Option<ApprovalPolicy>,
    /// auto, direct or plan.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::mode_schema")]
    pub mode: Option<Mode>,
    /// Most model calls in a turn (at least 1; default 25).
    #[serde(default, deserialize_with = "values::at_least_one")]
    #[schemars(range(min = 1))]
    pub max_iterations: Option<u32>,
    /// Retries of a failed model call (429, 5xx, dropped connections).
    pub max_retries: Option<u32>,
    /// Seconds without data from the model before the call fails (at least 1).
    #[serde(default, deserialize_with = "values::at_least_one_u64")]
    #[schemars(range(min = 1))]
    pub idle_timeout: Option<u64>,
    /// Ask before executing a plan.
    pub approve_plans: Option<bool>,
    /// `ask`: show every file edit's diff for approval before it applies; `never` (default).
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::approval_edits_schema")]
    pub approval_edits: Option<EditApproval>,
    /// Stage every change in a shadow workspace until `keel shadow apply`.
    pub shadow: Option<bool>,
    /// native or xml: how tools are offered to the model.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::tool_format_schema")]
    pub tool_format: Option<ToolFormat>,
    /// auto, full or compact: which tool definitions the model is offered.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::tool_profile_schema")]
    pub tool_profile: Option<ToolProfile>,
    /// Sampling temperature, 0–2 (default 0).
    #[serde(default, deserialize_with = "values::temperature")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f32>,
    /// Nucleus sampling, above 0 and at most 1 (default: the server's).
    #[serde(default, deserialize_with = "values::top_p")]
    #[schemars(range(max = 1.0))]
    pub top_p: Option<f32>,
    /// The project's test command, named to the model and run after its changes.
    pub test_command: Option<String>,
    /// Run `test_command` after each answer that changed files (default true).
    pub auto_test: Option<bool>,
    /// How many times a turn whose work failed may start over (at least 1; default 3 with the
    /// compact tool profile and a test command, else 1).
    #[serde(default, deserialize_with = "values::at_least_one")]
    #[schemars(range(min = 1))]
    pub attempts: Option<u32>,
    /// The model's context window in tokens (at least 1); beats the window the server reports
    /// and the built-in table.
    #[serde(default, deserialize_with = "values::at_least_one_u64")]
    #[schemars(range(min = 1))]
    pub context_window: Option<u64>,
    /// Whether the model accepts images (`keel run --image`, `read_file` on an image). Default:
    /// from the model's name — GPT-4o, GPT-4.1, GPT-5, o1/o3/o4-mini, Claude 3 and later,
    /// Gemini, LLaVA, Qwen-VL, Pixtral, Llama 3.2 Vision, MiniCPM-V and other `vision`/`-vl`
    /// names do; others do not, and a turn with images is refused naming the model.
    pub vision: Option<bool>,
    /// Build a repo map for the system prompt (default true).
    pub repo_map: Option<bool>,
    /// auto, always or never: colour in the terminal.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::color_schema")]
    pub color: Option<Color>,
    /// Show thinking, tool output and model-call detail.
    pub verbose: Option<bool>,
    /// Put the system prompt into every `run.llm.start` event (also on with `verbose`).
    pub include_system_prompt: Option<bool>,
    /// Instruction files read besides `AGENTS.md` (e.g. `["CLAUDE.md"]`), looked up in the
    /// user's config folder, the project root and the folders of the files a turn touches:
    /// relative paths that stay inside the folder they are looked up in.
    #[serde(default, deserialize_with = "values::instruction_files")]
    pub instructions_files: Option<Vec<String>>,
    /// The OS sandbox for commands: read-only, workspace-write (default) or off.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::sandbox_schema")]
    pub sandbox: Option<SandboxMode>,
    /// Whether sandboxed commands may use the network (default false).
    pub network: Option<bool>,
    /// Extra paths sandboxed commands may write under (relative ones: to the project root);
    /// the user's and the project's together.
    pub writable_roots: Option<Vec<PathBuf>>,
    /// When the sandbox mode cannot be enforced here: refuse (default) or warn.
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::fallback_schema")]
    pub sandbox_fallback: Option<Fallback>,
    /// Most megabytes `.keel/checkpoints/` may hold (at least 1; default 512): past it the
    /// oldest checkpoints are pruned.
    #[serde(default, deserialize_with = "values::at_least_one_u64")]
    #[schemars(range(min = 1))]
    pub checkpoint_max_mb: Option<u64>,
    /// `[memory]`: project memory.
    pub memory: Option<MemoryConfig>,
    /// `[git]`: commits of the turns' changes.
    pub git: Option<GitConfig>,
    /// `[subagents]`: the `task` tool's children (see docs/subagents.md).
    pub subagents: Option<SubagentsConfig>,
    /// `[telemetry]`: OpenTelemetry export.
    pub telemetry: Option<TelemetryConfig>,
    /// `[context]`: what the prompt carries as background.
    pub context: Option<ContextConfig>,
    /// `[images]`: where `generate_image` gets images.
    pub images: Option<ImagesConfig>,
    /// `[pricing.MODEL]`: a model's price, over the built-in table (`[pricing."gpt-4.1"]` for a
    /// name with a dot).
    #[serde(default)]
    pub pricing: BTreeMap<String, PriceConfig>,
    /// `[mcp_servers.NAME]`: MCP tool servers started with each session.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, keel_mcp::ServerConfig>,
    /// `[lsp.LANGUAGE]` (`python`, `typescript`, `rust`, `go`): the language servers whose
    /// diagnostics follow each edit (each on by default when installed).
    pub lsp: Option<keel_lsp::LspTables>,
    /// `[rag]`: the embeddings endpoint `use_rag_tool` and `keel search` fuse with BM25.
    pub rag: Option<keel_index::RagSection>,
    /// `[rag_servers.NAME]`: other folders or MCP search tools `use_rag_tool` can search.
    #[serde(default)]
    pub rag_servers: BTreeMap<String, keel_index::RagServer>,
    /// `[[hooks.EVENT]]`: commands run at points of a session (Claude Code's events and
    /// semantics; see docs/hooks.md). The user's file's and the project's together; the
    /// project's run only in a trusted folder.
    pub hooks: Option<HooksConfig>,
}

/// `[hooks]`: one list of hooks per event (`[[hooks.PreToolUse]]`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HooksConfig {
    /// The session's first turn, before the model is asked (matcher: `startup`, `resume`).
    #[serde(rename = "SessionStart", default)]
    pub session_start: Vec<HookEntry>,
    /// The person's prompt, before the model sees it.
    #[serde(rename = "UserPromptSubmit", default)]
    pub user_prompt_submit: Vec<HookEntry>,
    /// A tool call, before it runs (matcher: the tool's name, Keel's or Claude Code's).
    #[serde(rename = "PreToolUse", default)]
    pub pre_tool_use: Vec<HookEntry>,
    /// A tool call, after it ran (matcher: the tool's name).
    #[serde(rename = "PostToolUse", default)]
    pub post_tool_use: Vec<HookEntry>,
    /// Before older history is summarised (matcher: `auto`).
    #[serde(rename = "PreCompact", default)]
    pub pre_compact: Vec<HookEntry>,
    /// When Keel waits for an approval or an answer.
    #[serde(rename = "Notification", default)]
    pub notification: Vec<HookEntry>,
    /// An answer that would end the turn.
    #[serde(rename = "Stop", default)]
    pub stop: Vec<HookEntry>,
    /// A subagent finished (Keel has no subagents yet: never run).
    #[serde(rename = "SubagentStop", default)]
    pub subagent_stop: Vec<HookEntry>,
}

impl HooksConfig {
    /// Each event's entries, in the order of a session.
    pub fn events(&self) -> [(keel_extensions::HookEvent, &[HookEntry]); 8] {
        use keel_extensions::HookEvent as E;
        [
            (E::SessionStart, &self.session_start),
            (E::UserPromptSubmit, &self.user_prompt_submit),
            (E::PreToolUse, &self.pre_tool_use),
            (E::PostToolUse, &self.post_tool_use),
            (E::PreCompact, &self.pre_compact),
            (E::Notification, &self.notification),
            (E::Stop, &self.stop),
            (E::SubagentStop, &self.subagent_stop),
        ]
    }
}

/// One `[[hooks.EVENT]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookEntry {
    /// A regular expression matched against the whole name (`Bash`, `Edit|Write`,
    /// `execute_command`; `*` or absent: every run).
    pub matcher: Option<String>,
    /// The command line, run by the shell in the project root with the event as JSON on
    /// standard input.
    #[schemars(with = "String")]
    pub command: toml::Spanned<String>,
    /// Seconds it may run before it is killed (at least 1; default 60).
    #[serde(default, deserialize_with = "values::at_least_one_u64")]
    #[schemars(range(min = 1))]
    pub timeout: Option<u64>,
    /// The line of its `command` in the file (set when the file is read).
    #[serde(skip)]
    #[schemars(skip)]
    pub line: usize,
}

impl HooksConfig {
    /// Every entry, mutably.
    pub(crate) fn entries_mut(&mut self) -> impl Iterator<Item = &mut HookEntry> {
        [
            &mut self.session_start,
            &mut self.user_prompt_submit,
            &mut self.pre_tool_use,
            &mut self.post_tool_use,
            &mut self.pre_compact,
            &mut self.notification,
            &mut self.stop,
            &mut self.subagent_stop,
        ]
        .into_iter()
        .flatten()
    }
}

impl HookEntry {
    /// The hook this entry configures at `event`, from the file `path` of `scope`.
    pub fn hook(
        &self,
        event: keel_extensions::HookEvent,
        path: &std::path::Path,
        scope: keel_extensions::Scope,
    ) -> Result<keel_extensions::Hook, keel_extensions::MatcherError> {
        keel_extensions::Hook::new(
            event,
            self.matcher.clone(),
            self.command.get_ref().clone(),
            self.timeout.map(std::time::Duration::from_secs),
            keel_extensions::HookOrigin {
                path: path.to_path_buf(),
                line: self.line.max(1),
                scope,
            },
        )
    }
}

/// When to colour the terminal's output (`color`, `--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Color {
    /// When standard output is a terminal (and the environment does not say otherwise).
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl Color {
    /// The name in `keel.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Color::Auto => "auto",
            Color::Always => "always",
            Color::Never => "never",
        }
    }
}

/// A `color` value that is not auto, always or never.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown colour setting `{0}` (expected auto, always or never)")]
pub struct UnknownColor(pub String);

impl std::str::FromStr for Color {
    type Err = UnknownColor;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Color::Auto),
            "always" => Ok(Color::Always),
            "never" => Ok(Color::Never),
            _ => Err(UnknownColor(s.to_owned())),
        }
    }
}

/// `[memory]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryConfig {
    /// Make the end-of-session call that distils decisions into `.keel/memory.json` (default
    /// true, false for a model server on this machine or a private network).
    pub distill: Option<bool>,
}

/// `[git]`: git as part of the work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitConfig {
    /// `turn`: after each turn that changed files, commit exactly those files with a message
    /// the model writes (the `--commit` flag); `off` (default).
    #[serde(default, deserialize_with = "values::from_name")]
    #[schemars(schema_with = "values::commit_when_schema")]
    pub commit: Option<CommitWhen>,
}

/// `[subagents]`: the children the `task` tool starts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubagentsConfig {
    /// How many `task` calls of one response run at once (at least 1; default 3).
    #[serde(default, deserialize_with = "values::at_least_one_u64")]
    #[schemars(range(min = 1))]
    pub max_parallel: Option<u64>,
    /// How deep subagents nest: 1 lets the top agent start children only, 2 (default) lets
    /// them start their own; 0 turns the `task` tool off.
    pub max_depth: Option<u32>,
}

/// `[telemetry]`: traces over OTLP/HTTP (off unless an endpoint is named here or in
/// `OTEL_EXPORTER_OTLP_ENDPOINT`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// The collector's base URL (`http://localhost:4318`; traces go to `/v1/traces` under it).
    pub otlp_endpoint: Option<String>,
    /// Record prompts, answers, tool arguments and results on the spans (default false).
    pub capture_content: Option<bool>,
}

/// `[context]`: what is preloaded into the prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextConfig {
    /// Dependencies whose documentation digest is preloaded into the prompt as background
    /// (e.g. `["tokio"]`), at the versions the project locks.
    #[serde(default, deserialize_with = "values::library_names")]
    pub libraries: Option<Vec<String>>,
    /// Most messages of history a turn opens with (seed 002 §3.2; default 50, `0`: no
    /// limit); older whole turns are folded into the summary.
    pub max_messages: Option<usize>,
}

/// `[images]`: where `generate_image` asks for pictures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImagesConfig {
    /// Base URL of the OpenAI-compatible images API (default: the chat provider's `base_url`).
    pub base_url: Option<String>,
    /// The image model (`generate_image` is unconfigured without it).
    pub model: Option<String>,
}

/// `[pricing.MODEL]`: US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceConfig {
    /// Prompt tokens.
    #[serde(deserialize_with = "values::dollars")]
    #[schemars(range(min = 0.0))]
    pub input: f64,
    /// Prompt tokens served from the provider's cache (default: the input price).
    #[serde(default, deserialize_with = "values::some_dollars")]
    #[schemars(range(min = 0.0))]
    pub cached_input: Option<f64>,
    /// Completion tokens.
    #[serde(deserialize_with = "values::dollars")]
    #[schemars(range(min = 0.0))]
    pub output: f64,
}

impl PriceConfig {
    /// The engine's price.
    pub fn price(&self) -> ModelPrice {
        ModelPrice {
            input: self.input,
            cached_input: self.cached_input,
            output: self.output,
        }
    }
}
