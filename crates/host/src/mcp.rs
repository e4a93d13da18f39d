//! A session's MCP servers: the checked specs from configured tables, started together and
//! attached to the agent, the same way for every front end.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use keel_engine::AgentSession;
use keel_events::{Emitter, LogLevel, SystemLog};
use keel_mcp::{McpManager, ServerConfig, ServerSpec};
use keel_sandbox::SandboxPolicy;

/// The servers of `configs` that can be used; each one that cannot is a `system.log` warning
/// on `emitter` naming it and saying why, and the others go on.
pub fn server_specs(
    configs: &BTreeMap<String, ServerConfig>,
    emitter: &Emitter,
) -> Vec<ServerSpec> {
    configs
        .iter()
        .filter_map(|(name, config)| match ServerSpec::new(name, config) {
            Ok(spec) => Some(spec),
            Err(error) => {
                let mut metadata = serde_json::Map::new();
                metadata.insert("mcp_server".to_owned(), name.clone().into());
                emitter.emit(SystemLog {
                    level: LogLevel::Warn,
                    message: format!("{error}; the session goes on without it"),
                    metadata: Some(metadata),
                });
                None
            }
        })
        .collect()
}

/// Starts the servers of `configs` for a project at `root` (all at once, each within its
/// start-up time; failures reported on `emitter`) and offers their tools to `agent`. Stdio
/// servers run in the session's `sandbox` (each server's `sandbox`/`network` keys over it,
/// the network allowed by default). `None` when no server is configured.
pub async fn attach_mcp(
    agent: AgentSession,
    root: &Path,
    configs: &BTreeMap<String, ServerConfig>,
    sandbox: &SandboxPolicy,
    emitter: &Emitter,
) -> (AgentSession, Option<McpManager>) {
    if configs.is_empty() {
        return (agent, None);
    }
    let manager = McpManager::new(root, server_specs(configs, emitter));
    manager.confine(sandbox.clone());
    manager.report_to(emitter.clone());
    manager.start_all().await;
    let agent = agent.with_tool_source(Arc::new(manager.clone()));
    (agent, Some(manager))
}
