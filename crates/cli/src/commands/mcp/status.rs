//! `keel mcp list` and `keel mcp test`: the configured servers, started, with their status and
//! tools.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use keel_mcp::{McpManager, ServerConfig, ServerReport, ServerSpec, ServerStatus};

use super::{ListArgs, TestArgs};
use crate::commands::EXIT_USAGE;
use crate::commands::agent_args::AgentArgs;
use crate::config::Settings;

/// The servers configured for the project at `root`, every source merged.
fn configured(root: &Path) -> Result<BTreeMap<String, ServerConfig>, String> {
    let args = AgentArgs {
        root: root.to_owned(),
        ..AgentArgs::default()
    };
    Settings::load(&args)
        .map(|s| s.config.mcp_servers)
        .map_err(|e| e.to_string())
}

/// `keel mcp list`.
pub async fn list(args: ListArgs) -> ExitCode {
    let configs = match configured(&args.root) {
        Ok(configs) => configs,
        Err(e) => {
            eprintln!("keel mcp list: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut specs = Vec::new();
    let mut invalid = Vec::new();
    for (name, config) in &configs {
        match ServerSpec::new(name, config) {
            Ok(spec) => specs.push(spec),
            Err(e) => invalid.push(ServerReport {
                name: name.clone(),
                transport: String::new(),
                status: ServerStatus::Failed(e.to_string()),
                tools: Vec::new(),
            }),
        }
    }
    let manager = McpManager::new(&args.root, specs);
    manager.start_all().await;
    let mut reports = manager.reports();
    manager.shutdown().await;
    reports.extend(invalid);
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    if args.json {
        match serde_json::to_string_pretty(&serde_json::json!({ "servers": reports })) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("keel mcp list: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", render(&reports));
    }
    ExitCode::SUCCESS
}

/// The text listing.
pub(super) fn render(reports: &[ServerReport]) -> String {
    if reports.is_empty() {
        return "No MCP servers are configured (add one with `keel mcp add NAME -- COMMAND`).\n"
            .to_owned();
    }
    let mut out = String::new();
    for report in reports {
        let status = match &report.status {
            ServerStatus::Running => format!("running, {} tools", report.tools.len()),
            ServerStatus::Disabled => "disabled".to_owned(),
            ServerStatus::Stopped => "stopped".to_owned(),
            ServerStatus::Failed(reason) => format!("failed: {reason}"),
        };
        let _ = writeln!(out, "{}  ({})  {status}", report.name, report.transport);
        for tool in &report.tools {
            let offered = tool
                .offered_as
                .as_deref()
                .map_or_else(|| " (not offered)".to_owned(), |_| String::new());
            let description = tool.description.lines().next().unwrap_or_default();
            let _ = writeln!(out, "  {}{offered}  {description}", tool.name);
        }
    }
    out
}

/// `keel mcp test NAME`.
pub async fn test(args: TestArgs) -> ExitCode {
    let configs = match configured(&args.root) {
        Ok(configs) => configs,
        Err(e) => {
            eprintln!("keel mcp test: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Some(config) = configs.get(&args.name) else {
        let names: Vec<_> = configs.keys().map(|k| format!("`{k}`")).collect();
        let known = if names.is_empty() {
            "none is configured".to_owned()
        } else {
            format!("configured: {}", names.join(", "))
        };
        eprintln!(
            "keel mcp test: no MCP server named `{}` ({known})",
            args.name
        );
        return ExitCode::FAILURE;
    };
    let spec = match ServerSpec::new(&args.name, config) {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("keel mcp test: {e}");
            return ExitCode::FAILURE;
        }
    };
    let manager = McpManager::new(&args.root, vec![spec]);
    let outcome = manager.start_one(&args.name).await;
    let reports = manager.reports();
    manager.shutdown().await;
    match outcome {
        Ok(()) => {
            print!("{}", render(&reports));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("keel mcp test: {e}");
            ExitCode::FAILURE
        }
    }
}
