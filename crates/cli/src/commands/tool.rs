//! `keel tool`: list the built-in tools, or call one with JSON arguments.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Subcommand;
use keel_events::{Bus, Emitter, Sequencer};
use keel_index::{RagConfig, ServerSource};
use keel_mcp::{McpManager, ServerSpec};
use keel_protocol::{ApprovalPolicy, CannotAsk};
use keel_sandbox::SandboxMode;
use keel_sandbox::SandboxPolicy;
use keel_tools::process::CommandSandbox;
use keel_tools::{CheckpointStore, RuleSet, ToolContext, ToolRegistry};

use super::EXIT_USAGE;
use super::agent_args::AgentArgs;
use crate::config::Settings;

/// `keel tool` subcommands.
#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    /// List the built-in tools with a one-line description each.
    List,
    /// Call one tool and print its result `{success, message, content}` as JSON.
    ///
    /// Exit status: 0 when the tool succeeds, 1 when it reports failure, 2 for usage errors.
    Call {
        /// Tool name (or alias), e.g. `read_file`.
        name: String,
        /// Arguments as a JSON object, or `-` to read them from standard input (default `{}`).
        arguments: Option<String>,
        /// Workspace root the tool is confined to.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Approval policy for commands: never, on-dangerous, always, deny-dangerous.
        #[arg(long, default_value = "on-dangerous")]
        approval: String,
        /// The OS sandbox for commands: read-only, workspace-write or off [default: the root's
        /// keel.toml `sandbox`, else workspace-write].
        #[arg(long, value_parser = super::agent_args::parse_sandbox, value_name = "MODE")]
        sandbox: Option<SandboxMode>,
    },
}

/// Runs `keel tool …`.
pub fn run(command: ToolCommand) -> ExitCode {
    match command {
        ToolCommand::List => {
            let registry = ToolRegistry::builtin();
            let summaries = registry.summaries();
            let width = summaries.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
            for (name, summary) in summaries {
                println!("{name:<width$}  {summary}");
            }
            ExitCode::SUCCESS
        }
        ToolCommand::Call {
            name,
            arguments,
            root,
            approval,
            sandbox,
        } => match call(&name, arguments.as_deref(), root, &approval, sandbox) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("keel tool call: {message}");
                ExitCode::from(EXIT_USAGE)
            }
        },
    }
}

/// Calls the tool; `Err` is a usage error.
fn call(
    name: &str,
    arguments: Option<&str>,
    root: PathBuf,
    approval: &str,
    sandbox: Option<SandboxMode>,
) -> Result<ExitCode, String> {
    let images = crate::config::Settings::images_for(&root).map_err(|e| e.to_string())?;
    let registry = ToolRegistry::builtin().with_images(images);
    if registry.get(name).is_none() {
        return Err(format!(
            "unknown tool `{name}` (available: {})",
            registry.names().join(", ")
        ));
    }
    let policy: ApprovalPolicy = approval.parse().map_err(|e| format!("--approval: {e}"))?;
    let text = match arguments {
        None => "{}".to_owned(),
        Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the arguments from standard input: {e}"))?;
            text
        }
        Some(text) => text.to_owned(),
    };
    let arguments: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("the arguments are not valid JSON: {e}"))?;
    if !arguments.is_object() {
        return Err(
            "the arguments must be a JSON object, e.g. '{\"path\": \"src/main.rs\"}'".to_owned(),
        );
    }
    if !root.is_dir() {
        return Err(format!("--root `{}` is not a folder", root.display()));
    }
    let root = root
        .canonicalize()
        .map_err(|e| format!("--root `{}`: {e}", root.display()))?;
    let checkpoints = CheckpointStore::open(&root).map_err(|e| format!("--root: {e}"))?;
    let sandbox = crate::config::load_sandbox(&root, sandbox).map_err(|e| e.to_string())?;
    let emitter = Emitter::new(
        Sequencer::new(format!("cli-{}", std::process::id()), "cli"),
        Bus::default(),
    );
    let root_for_sandbox = root.clone();
    let user_dir = keel_config::Environment::from_process().user_config_dir();
    let rules = RuleSet::load(Some(&root), user_dir.as_deref())
        .map_err(|e| format!("approval rules: {e}"))?;
    let ctx = ToolContext::new(root, emitter)
        .with_approval(policy, Arc::new(CannotAsk))
        .with_checkpoints(Arc::new(checkpoints))
        .with_sandbox(CommandSandbox::resolve(sandbox.clone(), &root_for_sandbox))
        .with_rules(Arc::new(rules));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let result = runtime.block_on(async {
        let mcp = rag_mcp_server(&ctx.root, &sandbox, name, &arguments).await?;
        let ctx = match &mcp {
            Some(manager) => ctx.with_mcp(Arc::new(manager.clone())),
            None => ctx,
        };
        let result = registry.call(&ctx, name, arguments).await;
        if let Some(manager) = mcp {
            manager.shutdown().await;
        }
        Ok::<_, String>(result)
    })?;
    let json = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())?;
    println!("{json}");
    Ok(if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// For `use_rag_tool` with a server backed by an MCP tool (`[rag_servers.NAME] mcp_server`):
/// that MCP server, started as a session would start it (in the sandbox); `None` for any
/// other call. A server that does not start is left for the tool to report.
async fn rag_mcp_server(
    root: &Path,
    sandbox: &SandboxPolicy,
    name: &str,
    arguments: &serde_json::Value,
) -> Result<Option<McpManager>, String> {
    if name != keel_tools::builtin::use_rag_tool::USE_RAG_TOOL {
        return Ok(None);
    }
    let Some(server) = arguments.get("server_name").and_then(|v| v.as_str()) else {
        return Ok(None);
    };
    // An unusable keel.toml is the tool's to report.
    let Ok(config) = RagConfig::load(root) else {
        return Ok(None);
    };
    let Some(ServerSource::McpTool { mcp_server, .. }) = config.server(root, server.trim()) else {
        return Ok(None);
    };
    let args = AgentArgs {
        root: root.to_owned(),
        ..AgentArgs::default()
    };
    let configs = Settings::load(&args)
        .map(|s| s.config.mcp_servers)
        .map_err(|e| e.to_string())?;
    let Some(config) = configs.get(mcp_server) else {
        return Ok(None);
    };
    let spec = ServerSpec::new(mcp_server, config).map_err(|e| e.to_string())?;
    let manager = McpManager::new(root, vec![spec]);
    manager.confine(sandbox.clone());
    // A failure to start is kept as the server's status, which the tool reports.
    let _ = manager.start_one(mcp_server).await;
    Ok(Some(manager))
}
