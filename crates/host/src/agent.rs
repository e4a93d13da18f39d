//! Building a session's agent from settings, the same way in every front end.

use std::path::PathBuf;
use std::sync::Arc;

use keel_context::{InstructionSources, MemoryStore};
use keel_engine::agent::ToolProfile;
use keel_engine::{
    AgentConfig, AgentSession, ModelChain, Pricing, Provider, RepoMapConfig, Sampling, ToolFormat,
};
use keel_events::Emitter;
use keel_protocol::Approver;
use keel_protocol::Mode;
use keel_protocol::QuestionAnswerer;
use keel_protocol::{ApprovalPolicy, EditApproval};
use keel_tools::builtin::ImageSettings;
use keel_tools::{RuleSet, ToolRegistry};

use crate::error::HostError;
use crate::saved::SavedConversation;

/// What a session's agent is built from (flags and `keel.toml` in the CLI, the server's settings
/// and the session row in the server).
#[derive(Debug, Clone)]
pub struct AgentSettings {
    /// The workspace root (canonicalised when built).
    pub root: PathBuf,
    /// The model chain, first choice first.
    pub models: Vec<String>,
    /// Direct, plan or auto.
    pub mode: Mode,
    /// Most model calls per turn.
    pub max_iterations: u32,
    /// Command approval policy.
    pub approval: ApprovalPolicy,
    /// The OS sandbox for commands (mode, network, writable roots, fallback).
    pub sandbox: keel_sandbox::SandboxPolicy,
    /// Execute plans without asking.
    pub approve_plans: bool,
    /// Native or XML tool calls.
    pub tool_format: ToolFormat,
    /// Retries of a failed model call (`None`: the engine's default).
    pub max_retries: Option<u32>,
    /// The model's context window (`None`: what the server reports, else the engine's table).
    pub context_window: Option<u64>,
    /// Whether the models accept images (`None`: judged from each model's name).
    pub vision: Option<bool>,
    /// The repo map in the system prompt.
    pub repo_map: bool,
    /// The system prompt in every `run.llm.start`.
    pub include_system_prompt: bool,
    /// Where project instruction files are looked up besides the root and its folders (the
    /// user-wide folder, extra names), and their token cap.
    pub instructions: InstructionSources,
    /// Make the end-of-session memory distillation call when the front end asks for it.
    pub distill_memory: bool,
    /// Model prices, for the cost of each call.
    pub pricing: Pricing,
    /// The user's config folder whose `rules.toml` holds user-wide approval rules (the
    /// project's `.keel/rules.toml` is always read).
    pub rules_dir: Option<PathBuf>,
    /// Whether file edits are asked about, with their diff, before they apply.
    pub approval_edits: EditApproval,
    /// Dependencies whose documentation digests are preloaded into the prompt as background.
    pub libraries: Vec<String>,
    /// Where `generate_image` gets images (unconfigured by default: it says which keys to set).
    pub images: ImageSettings,
    /// Most bytes the workspace's checkpoints may hold before the oldest are pruned.
    pub checkpoint_max_bytes: u64,
    /// Stage every change in a shadow workspace until it is applied (`--shadow`, `shadow = true`).
    pub shadow: bool,
    /// How answers are sampled (`temperature`, `top_p`).
    pub sampling: Sampling,
    /// Which tool definitions the model is offered (`tool_profile`).
    pub tool_profile: ToolProfile,
    /// The project's test command (`test_command`, `--test-cmd`).
    pub test_command: Option<String>,
    /// Run the test command after answers that changed files (`auto_test`, default on).
    pub auto_test: bool,
    /// How many times a turn whose work failed may start over (`attempts`; `None`: the
    /// engine's default).
    pub attempts: Option<u32>,
    /// Most messages of history a turn opens with (`[context] max_messages`; `None`: no
    /// limit).
    pub max_history_messages: Option<usize>,
    /// The language of the words the seeds fix in Chinese (`--lang`, the locale).
    pub lang: keel_events::Lang,
    /// Hooks configured in `keel.toml` (`[[hooks.EVENT]]`), each with its origin; those of
    /// Claude Code's and Codex's files are found by the engine.
    pub hooks: Vec<keel_extensions::Hook>,
    /// Whether the project's own hooks run: the folder is trusted (`keel trust`, `--trust`,
    /// the terminal's question, the server's `trust_projects`).
    pub trust_project: bool,
    /// The `task` tool's children (`[subagents]`).
    pub subagents: keel_engine::SubagentSettings,
    /// The language servers whose diagnostics follow each edit (`[lsp.LANGUAGE]`); `None`:
    /// none started.
    pub lsp: Option<keel_lsp::LspSettings>,
}

impl AgentSettings {
    /// Defaults for a workspace and a model chain.
    pub fn new(root: impl Into<PathBuf>, models: Vec<String>) -> Self {
        Self {
            root: root.into(),
            models,
            mode: Mode::Auto,
            max_iterations: 25,
            approval: ApprovalPolicy::default(),
            sandbox: keel_sandbox::SandboxPolicy::off(),
            approve_plans: false,
            tool_format: ToolFormat::default(),
            max_retries: None,
            context_window: None,
            vision: None,
            repo_map: true,
            include_system_prompt: false,
            instructions: InstructionSources::default(),
            distill_memory: true,
            pricing: Pricing::builtin(),
            rules_dir: None,
            approval_edits: EditApproval::Never,
            libraries: Vec::new(),
            images: ImageSettings::default(),
            checkpoint_max_bytes: keel_tools::checkpoint::DEFAULT_MAX_BYTES,
            shadow: false,
            sampling: Sampling::default(),
            tool_profile: ToolProfile::default(),
            test_command: None,
            auto_test: true,
            attempts: None,
            max_history_messages: Some(keel_engine::DEFAULT_MAX_HISTORY_MESSAGES),
            lang: keel_events::Lang::En,
            hooks: Vec::new(),
            trust_project: false,
            subagents: keel_engine::SubagentSettings::default(),
            lsp: None,
        }
    }

    /// The engine configuration these settings describe.
    pub fn config(&self) -> Result<AgentConfig, HostError> {
        let chain =
            ModelChain::new(self.models.clone()).map_err(|e| HostError::Settings(e.to_string()))?;
        let root = self.root.canonicalize().map_err(|e| {
            HostError::Settings(format!("workspace root `{}`: {e}", self.root.display()))
        })?;
        let mut config = AgentConfig::new(root, chain);
        config.mode = self.mode;
        config.max_iterations = self.max_iterations;
        config.approval = self.approval;
        config.sandbox =
            keel_tools::process::CommandSandbox::resolve(self.sandbox.clone(), &config.root);
        config.approve_plans = self.approve_plans;
        config.tool_format = self.tool_format;
        config.include_system_prompt = self.include_system_prompt;
        config.context_window = self.context_window;
        config.vision = self.vision;
        config.instructions = self.instructions.clone();
        if let Some(retries) = self.max_retries {
            config.retry.max_attempts = retries.saturating_add(1);
        }
        if !self.repo_map {
            config.repo_map = RepoMapConfig::disabled();
        }
        config.distill_memory = self.distill_memory;
        config.pricing = self.pricing.clone();
        // A rules file that does not parse stops the session before anything runs, naming
        // the file and line.
        let rules = RuleSet::load(Some(&config.root), self.rules_dir.as_deref())
            .map_err(|e| HostError::Settings(format!("approval rules: {e}")))?;
        config.rules = Arc::new(rules);
        config.approval_edits = self.approval_edits;
        config.libraries = self.libraries.clone();
        config.checkpoint_max_bytes = self.checkpoint_max_bytes;
        config.shadow = self.shadow;
        config.sampling = self.sampling;
        config.tool_profile = self.tool_profile;
        config.test_command = self
            .test_command
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        config.auto_test = self.auto_test;
        config.attempts = self.attempts;
        config.max_history_messages = self.max_history_messages;
        config.lang = self.lang;
        config.hooks = self.hooks.clone();
        config.trust_project = self.trust_project;
        config.subagents = self.subagents;
        config.lsp = self.lsp.clone();
        Ok(config)
    }

    /// The agent session: on `emitter`, talking to `provider`, continuing `saved` when given,
    /// with the project's memory. Approvals and questions are the front end's to attach.
    pub fn build(
        &self,
        provider: Arc<dyn Provider>,
        emitter: Emitter,
        saved: Option<SavedConversation>,
    ) -> Result<AgentSession, HostError> {
        let config = self.config()?;
        let memory = MemoryStore::for_project(&config.root).load();
        let mut agent = AgentSession::new(config, provider, emitter)
            .map_err(|e| HostError::Settings(e.to_string()))?
            .with_tools(
                ToolRegistry::builtin()
                    .with_images(self.images.clone())
                    .with_network(self.sandbox.is_off() || self.sandbox.network),
            );
        match memory {
            Ok(memory) if !memory.is_empty() => agent = agent.with_memory(memory),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "project memory not used"),
        }
        if let Some(saved) = saved {
            agent = agent.with_conversation(saved.conversation_id, saved.conversation);
        }
        Ok(agent)
    }

    /// [`AgentSettings::build`], the agent asking `interaction` for approvals and answers.
    pub fn build_wired(
        &self,
        provider: Arc<dyn Provider>,
        emitter: Emitter,
        saved: Option<SavedConversation>,
        interaction: Interaction,
    ) -> Result<AgentSession, HostError> {
        Ok(self
            .build(provider, emitter, saved)?
            .with_approver(interaction.approver)
            .with_answerer(interaction.answerer))
    }
}

/// Who a session's agent asks: approvals and questions, as the front end answers them.
#[derive(Debug, Clone)]
pub struct Interaction {
    /// Asked before a command, edit or tool call the policy does not settle.
    pub approver: Arc<dyn Approver>,
    /// Asked the model's questions.
    pub answerer: Arc<dyn QuestionAnswerer>,
}

/// The conversation of `agent`, to save after a turn.
pub fn saved_conversation(agent: &AgentSession) -> SavedConversation {
    SavedConversation::new(agent.conversation_id(), agent.conversation().clone())
}

/// Whether the end-of-session memory distillation is made when the settings do not say:
/// not for a model served on this machine or the local network (llama.cpp, Ollama, LM Studio,
/// vLLM on a workstation), where the call would be one more full prompt prefill after the
/// turn, minutes on a laptop; `[memory] distill = true` turns it on there.
pub fn distills_by_default(base_url: Option<&str>) -> bool {
    !base_url.is_some_and(is_local_endpoint)
}

/// Whether `base_url`'s host is this machine or a private network address.
pub fn is_local_endpoint(base_url: &str) -> bool {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    }
    .to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") || host.ends_with(".local") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => ip.is_loopback() || ip.is_unique_local(),
        Err(_) => false,
    }
}

/// The models of a comma-separated chain (`--model`, `KEEL_MODEL`, `model =`, a session's
/// model), trimmed, empty names dropped — read the same way by every front end.
pub fn split_models(chain: &str) -> Vec<String> {
    chain
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_endpoints_are_recognised() {
        for local in [
            "http://127.0.0.1:8012/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://192.168.1.20:1234/v1",
            "http://10.0.0.5/v1",
            "http://gpu-box.local:8000/v1",
        ] {
            assert!(is_local_endpoint(local), "{local}");
            assert!(!distills_by_default(Some(local)), "{local}");
        }
        for remote in [
            "https://api.openai.com/v1",
            "https://openrouter.ai/api/v1",
            "http://8.8.8.8/v1",
        ] {
            assert!(!is_local_endpoint(remote), "{remote}");
        }
        assert!(distills_by_default(None));
    }
}
