//! The effective settings: every layer merged key by key (the highest layer that sets a key
//! wins), where each value came from, and the one mapping onto a session's
//! [`keel_host::AgentSettings`] and provider.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use keel_context::InstructionSources;
use keel_engine::agent::{ToolFormat, ToolProfile};
use keel_engine::{DEFAULT_TEMPERATURE, Pricing, ProviderSpec, Sampling};
use keel_host::AgentSettings;
use keel_protocol::{ApprovalPolicy, EditApproval, Mode};
use keel_sandbox::SandboxPolicy;
use keel_tools::builtin::ImageSettings;

use crate::keys::{Color, FileConfig, ImagesConfig};
use crate::source::{Layer, Origin};

/// Default most model calls in one turn.
pub const DEFAULT_MAX_ITERATIONS: u32 = 25;

/// Every keel.toml key's effective value, the layers merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
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
    /// Retries of a failed model call (`None`: the engine's default).
    pub max_retries: Option<u32>,
    /// Idle time-out of a model call in seconds (`None`: the provider's default).
    pub idle_timeout: Option<u64>,
    /// Ask before executing a plan.
    pub approve_plans: bool,
    /// Whether file edits are asked about, with their diff, before they apply.
    pub approval_edits: EditApproval,
    /// Stage changes in a shadow workspace.
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
    /// Whether the model accepts images, when set (else judged from its name).
    pub vision: Option<bool>,
    /// A repo map in the system prompt.
    pub repo_map: bool,
    /// Colour in the terminal.
    pub color: Color,
    /// Verbose rendering.
    pub verbose: bool,
    /// The system prompt in every `run.llm.start`: `include_system_prompt`, or verbose.
    pub include_system_prompt: bool,
    /// Instruction files read besides `AGENTS.md`.
    pub instructions_files: Vec<String>,
    /// Make the end-of-session memory distillation call (`[memory] distill`; by default on,
    /// off for a model server on this machine or a private network).
    pub distill_memory: bool,
    /// When the turns' changes are committed (`[git] commit`).
    pub git_commit: keel_host::git::CommitWhen,
    /// The `task` tool's children (`[subagents] max_parallel`, `max_depth`).
    pub subagents: keel_engine::SubagentSettings,
    /// Where traces go (`[telemetry] otlp_endpoint`; none: the `OTEL_EXPORTER_OTLP_*`
    /// variables decide).
    pub otlp_endpoint: Option<String>,
    /// Content on the spans (`[telemetry] capture_content`).
    pub capture_content: bool,
    /// Model prices: the built-in table with every layer's `[pricing.MODEL]` (the higher
    /// layer's price of a model wins).
    pub pricing: Pricing,
    /// The OS sandbox for commands (`writable_roots` of every layer together).
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
    /// MCP servers by name (a name defined in a higher layer wins as a whole).
    pub mcp_servers: BTreeMap<String, keel_mcp::ServerConfig>,
    /// The language servers by language (`[lsp.LANGUAGE]`; a language's table in a higher
    /// layer wins as a whole).
    pub lsp: keel_lsp::LspTables,
    /// The user's config folder: user-wide instruction files and approval rules.
    pub user_config_dir: Option<PathBuf>,
    /// `[[hooks.EVENT]]` of every layer, the lowest first, each with its file, line and scope
    /// (the user's file and the server's are the user's; the project's run only in a trusted
    /// folder).
    pub hooks: Vec<keel_extensions::Hook>,
}

/// Where each effective value came from, by key (`model`, `memory.distill`,
/// `pricing.gpt-4o`, `mcp_servers.github`); a key not listed is a default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins(BTreeMap<String, Origin>);

impl Origins {
    /// Where `key` came from.
    pub fn of(&self, key: &str) -> &Origin {
        self.0.get(key).unwrap_or(&Origin::Default)
    }

    /// The keys that did not come from a default.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    fn set(&mut self, key: &str, origin: &Origin) {
        self.0.insert(key.to_owned(), origin.clone());
    }
}

/// Picks keys from layers, highest first, noting where each came from.
struct Pick<'a> {
    layers: &'a [Layer],
    origins: Origins,
}

impl Pick<'_> {
    fn first<T>(&mut self, key: &str, get: impl Fn(&FileConfig) -> Option<T>) -> Option<T> {
        for layer in self.layers {
            if let Some(value) = get(&layer.config) {
                self.origins.set(key, &layer.origin);
                return Some(value);
            }
        }
        None
    }
}

impl Settings {
    /// Merges `layers` (highest first: flags, environment, the project's profile, the
    /// project's file, the user's profile, the user's file) over the defaults.
    pub fn resolve(layers: &[Layer], user_config_dir: Option<PathBuf>) -> Self {
        Self::resolve_with_origins(layers, user_config_dir).0
    }

    /// [`Settings::resolve`], and where each value came from.
    pub fn resolve_with_origins(
        layers: &[Layer],
        user_config_dir: Option<PathBuf>,
    ) -> (Self, Origins) {
        let mut p = Pick {
            layers,
            origins: Origins::default(),
        };
        let base_url = p.first("base_url", |c| c.base_url.clone());
        let verbose = p.first("verbose", |c| c.verbose).unwrap_or(false);
        let include_system_prompt = p
            .first("include_system_prompt", |c| c.include_system_prompt)
            .unwrap_or(false);
        let distill_default = base_url
            .clone()
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok());
        let settings = Settings {
            provider: p
                .first("provider", |c| c.provider.clone())
                .unwrap_or_else(|| "openai".to_owned()),
            models: p.first("model", |c| c.model.clone()).unwrap_or_default(),
            approval: p.first("approval", |c| c.approval).unwrap_or_default(),
            mode: p.first("mode", |c| c.mode).unwrap_or(Mode::Auto),
            max_iterations: p
                .first("max_iterations", |c| c.max_iterations)
                .unwrap_or(DEFAULT_MAX_ITERATIONS),
            max_retries: p.first("max_retries", |c| c.max_retries),
            idle_timeout: p.first("idle_timeout", |c| c.idle_timeout),
            approve_plans: p
                .first("approve_plans", |c| c.approve_plans)
                .unwrap_or(false),
            approval_edits: p
                .first("approval_edits", |c| c.approval_edits)
                .unwrap_or_default(),
            shadow: p.first("shadow", |c| c.shadow).unwrap_or(false),
            tool_format: p
                .first("tool_format", |c| c.tool_format)
                .unwrap_or(ToolFormat::Native),
            tool_profile: p
                .first("tool_profile", |c| c.tool_profile)
                .unwrap_or(ToolProfile::Auto),
            sampling: Sampling {
                temperature: Some(
                    p.first("temperature", |c| c.temperature)
                        .unwrap_or(DEFAULT_TEMPERATURE),
                ),
                top_p: p.first("top_p", |c| c.top_p),
            },
            test_command: p.first("test_command", |c| c.test_command.clone()),
            auto_test: p.first("auto_test", |c| c.auto_test).unwrap_or(true),
            attempts: p.first("attempts", |c| c.attempts),
            context_window: p.first("context_window", |c| c.context_window),
            vision: p.first("vision", |c| c.vision),
            repo_map: p.first("repo_map", |c| c.repo_map).unwrap_or(true),
            color: p.first("color", |c| c.color).unwrap_or_default(),
            verbose,
            include_system_prompt: verbose || include_system_prompt,
            instructions_files: p
                .first("instructions_files", |c| c.instructions_files.clone())
                .unwrap_or_default(),
            distill_memory: p
                .first("memory.distill", |c| c.memory.as_ref()?.distill)
                .unwrap_or_else(|| keel_host::distills_by_default(distill_default.as_deref())),
            git_commit: p
                .first("git.commit", |c| c.git.as_ref()?.commit)
                .unwrap_or_default(),
            subagents: {
                let defaults = keel_engine::SubagentSettings::default();
                keel_engine::SubagentSettings {
                    max_parallel: p
                        .first("subagents.max_parallel", |c| {
                            c.subagents.as_ref()?.max_parallel
                        })
                        .map_or(defaults.max_parallel, |n| {
                            usize::try_from(n).unwrap_or(usize::MAX)
                        }),
                    max_depth: p
                        .first("subagents.max_depth", |c| c.subagents.as_ref()?.max_depth)
                        .unwrap_or(defaults.max_depth),
                }
            },
            otlp_endpoint: p.first("telemetry.otlp_endpoint", |c| {
                c.telemetry.as_ref()?.otlp_endpoint.clone()
            }),
            capture_content: p
                .first("telemetry.capture_content", |c| {
                    c.telemetry.as_ref()?.capture_content
                })
                .unwrap_or(false),
            pricing: pricing(&mut p),
            sandbox: SandboxPolicy {
                mode: p.first("sandbox", |c| c.sandbox).unwrap_or_default(),
                network: p.first("network", |c| c.network).unwrap_or(false),
                writable_roots: writable_roots(&mut p),
                fallback: p
                    .first("sandbox_fallback", |c| c.sandbox_fallback)
                    .unwrap_or_default(),
            },
            libraries: p
                .first("context.libraries", |c| {
                    c.context.as_ref()?.libraries.clone()
                })
                .unwrap_or_default(),
            max_history_messages: history_limit(
                p.first("context.max_messages", |c| c.context.as_ref()?.max_messages),
            ),
            checkpoint_max_bytes: checkpoint_max_bytes([
                p.first("checkpoint_max_mb", |c| c.checkpoint_max_mb)
            ]),
            images: ImageSettings::default(),
            mcp_servers: mcp_servers(&mut p),
            lsp: lsp(&mut p),
            hooks: hooks(&mut p, user_config_dir.as_deref()),
            base_url,
            user_config_dir,
        };
        let images = image_settings(&mut p, settings.base_url.clone());
        (Settings { images, ..settings }, p.origins)
    }

    /// The provider these settings name, with the idle time-out.
    pub fn provider_spec(&self) -> ProviderSpec {
        ProviderSpec {
            provider: self.provider.clone(),
            models: self.models.clone(),
            base_url: self.base_url.clone(),
            idle_timeout: self.idle_timeout.map(Duration::from_secs),
        }
    }

    /// A session's agent settings in `root` with the model chain `models`: the one mapping
    /// every front end uses (what is the session's own — its mode, its shadow workspace — the
    /// front end may set on the result).
    pub fn agent_settings(&self, root: &Path, models: Vec<String>) -> AgentSettings {
        AgentSettings {
            mode: self.mode,
            max_iterations: self.max_iterations,
            approval: self.approval,
            sandbox: self.sandbox.clone(),
            approve_plans: self.approve_plans,
            tool_format: self.tool_format,
            max_retries: self.max_retries,
            context_window: self.context_window,
            vision: self.vision,
            repo_map: self.repo_map,
            include_system_prompt: self.include_system_prompt,
            instructions: InstructionSources {
                user_dir: self.user_config_dir.clone(),
                extra_files: self.instructions_files.clone(),
                ..InstructionSources::default()
            },
            distill_memory: self.distill_memory,
            pricing: self.pricing.clone(),
            rules_dir: self.user_config_dir.clone(),
            approval_edits: self.approval_edits,
            libraries: self.libraries.clone(),
            images: self.images.clone(),
            checkpoint_max_bytes: self.checkpoint_max_bytes,
            shadow: self.shadow,
            sampling: self.sampling,
            tool_profile: self.tool_profile,
            test_command: self.test_command.clone(),
            auto_test: self.auto_test,
            attempts: self.attempts,
            max_history_messages: self.max_history_messages,
            hooks: self.hooks.clone(),
            subagents: self.subagents,
            lsp: Some(keel_lsp::LspSettings::from_tables(&self.lsp)),
            ..AgentSettings::new(root, models)
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::resolve(&[], None)
    }
}

/// The built-in prices with every layer's overrides, the lowest layer's first so a higher
/// one's price of the same model wins.
fn pricing(p: &mut Pick<'_>) -> Pricing {
    let mut pricing = Pricing::builtin();
    for layer in p.layers.iter().rev() {
        for (model, price) in &layer.config.pricing {
            pricing = pricing.with_override(model, price.price());
            p.origins.set(&format!("pricing.{model}"), &layer.origin);
        }
    }
    pricing
}

/// Every layer's `writable_roots`, the highest first.
fn writable_roots(p: &mut Pick<'_>) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for layer in p.layers {
        if let Some(more) = &layer.config.writable_roots {
            if roots.is_empty() {
                p.origins.set("writable_roots", &layer.origin);
            }
            roots.extend(more.iter().cloned());
        }
    }
    roots
}

/// The hooks of every layer, the lowest first; a layer's scope is the user's for the user's
/// file (and its profiles) and the server's file, the project's otherwise.
fn hooks(p: &mut Pick<'_>, user_dir: Option<&Path>) -> Vec<keel_extensions::Hook> {
    use keel_extensions::Scope;
    let mut hooks = Vec::new();
    for layer in p.layers.iter().rev() {
        let Some(config) = &layer.config.hooks else {
            continue;
        };
        let (path, scope) = match &layer.origin {
            Origin::User(path) | Origin::ServerFile(path) => (path.clone(), Scope::User),
            Origin::Profile { path, .. } if user_dir.is_some_and(|d| path.starts_with(d)) => {
                (path.clone(), Scope::User)
            }
            Origin::Project(path) | Origin::Profile { path, .. } | Origin::McpJson(path) => {
                (path.clone(), Scope::Project)
            }
            Origin::Default | Origin::Env | Origin::Flag => {
                (PathBuf::from("keel.toml"), Scope::Project)
            }
        };
        p.origins.set("hooks", &layer.origin);
        for (event, entries) in config.events() {
            // Matchers were checked when the file was read.
            hooks.extend(
                entries
                    .iter()
                    .filter_map(|e| e.hook(event, &path, scope).ok()),
            );
        }
    }
    hooks
}

/// The MCP servers of every layer, a name defined higher winning as a whole.
fn mcp_servers(p: &mut Pick<'_>) -> BTreeMap<String, keel_mcp::ServerConfig> {
    for layer in p.layers.iter().rev() {
        for name in layer.config.mcp_servers.keys() {
            p.origins.set(&format!("mcp_servers.{name}"), &layer.origin);
        }
    }
    keel_mcp::config::merge_layers(p.layers.iter().map(|l| &l.config.mcp_servers))
}

/// `[lsp.LANGUAGE]` of every layer, a language's table in a higher layer winning as a whole.
fn lsp(p: &mut Pick<'_>) -> keel_lsp::LspTables {
    let mut tables = keel_lsp::LspTables::default();
    for layer in p.layers.iter().rev() {
        let Some(lsp) = &layer.config.lsp else {
            continue;
        };
        for language in keel_lsp::Language::ALL {
            if let Some(table) = lsp.table(language) {
                *tables.table_mut(language) = Some(table.clone());
                p.origins.set(&format!("lsp.{language}"), &layer.origin);
            }
        }
    }
    tables
}

/// `[images]`, each key from the highest layer setting it, `base_url` defaulting to the chat
/// provider's (`chat`, else `OPENAI_BASE_URL`, else OpenAI's), the key from `OPENAI_API_KEY`.
fn image_settings(p: &mut Pick<'_>, chat: Option<String>) -> ImageSettings {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let images = |c: &FileConfig| c.images.clone();
    let pick = |p: &mut Pick<'_>, key: &str, get: fn(&ImagesConfig) -> Option<String>| {
        p.first(key, |c| images(c).as_ref().and_then(get))
    };
    ImageSettings {
        base_url: pick(p, "images.base_url", |i| i.base_url.clone())
            .or(chat)
            .or_else(|| var("OPENAI_BASE_URL"))
            .or_else(|| Some(keel_engine::openai::DEFAULT_BASE_URL.to_owned())),
        model: pick(p, "images.model", |i| i.model.clone()),
        api_key: var("OPENAI_API_KEY"),
    }
}

/// The history limit `[context] max_messages` sets: `None` for `0` (no limit), the engine's
/// default when unset.
pub fn history_limit(max_messages: Option<usize>) -> Option<usize> {
    match max_messages {
        Some(0) => None,
        Some(max) => Some(max),
        None => Some(keel_engine::DEFAULT_MAX_HISTORY_MESSAGES),
    }
}

/// The checkpoint store's bound in bytes: the first `checkpoint_max_mb` set among `layers`
/// (most specific first), else 512 MB.
pub fn checkpoint_max_bytes(layers: impl IntoIterator<Item = Option<u64>>) -> u64 {
    layers
        .into_iter()
        .flatten()
        .next()
        .map_or(keel_tools::checkpoint::DEFAULT_MAX_BYTES, |mb| {
            mb.saturating_mul(1024 * 1024)
        })
}
