//! What the MCP tests share: our rmcp test server, the npm "everything" server, managers and
//! a tool context whose events can be read.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use keel_events::{Bus, Delivery, Emitter, EventKind, Sequencer};
use keel_mcp::{McpManager, ServerConfig, ServerSpec};
use keel_protocol::{ApprovalPolicy, ApproveAll};
use keel_sandbox::SandboxPolicy;
use keel_tools::{Tool, ToolContext, ToolSource};

/// The example binary `mcp_test_server` (built with the tests).
pub fn test_server() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/debug/deps/integration-… → target/debug/examples/mcp_test_server
    let dir = exe.parent().unwrap().parent().unwrap();
    let path = dir.join("examples").join("mcp_test_server");
    assert!(
        path.is_file(),
        "{} is missing: build the examples",
        path.display()
    );
    path
}

/// The reference "everything" server from npm, or `None` (skipped) outside CI.
pub fn everything() -> Option<PathBuf> {
    keel_test_support::processes::external_program(
        "mcp-server-everything",
        "KEEL_MCP_EVERYTHING",
        "npm install -g @modelcontextprotocol/server-everything",
    )
}

/// A stdio server spec.
pub fn stdio(name: &str, command: &str, args: &[&str], tool_timeout: Option<u64>) -> ServerSpec {
    let config = ServerConfig {
        command: Some(command.to_owned()),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        startup_timeout_secs: Some(5),
        tool_timeout_secs: tool_timeout,
        ..ServerConfig::default()
    };
    ServerSpec::new(name, &config).unwrap()
}

/// Our test server as `test`, plus a context whose events `events` reads.
pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub manager: McpManager,
    pub ctx: ToolContext,
    pub sub: keel_events::Subscription,
}

impl Fixture {
    pub async fn start(specs: Vec<ServerSpec>) -> Self {
        Self::start_confined(specs, SandboxPolicy::off()).await
    }

    /// [`Fixture::start`] with the stdio servers in the session sandbox `sandbox`.
    pub async fn start_confined(specs: Vec<ServerSpec>, sandbox: SandboxPolicy) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
        let sub = emitter.bus().subscribe();
        let manager = McpManager::new(dir.path(), specs);
        manager.confine(sandbox);
        manager.report_to(emitter.clone());
        manager.start_all().await;
        let ctx = ToolContext::new(dir.path().canonicalize().unwrap(), emitter)
            .with_approval(ApprovalPolicy::OnDangerous, Arc::new(ApproveAll));
        Self {
            _dir: dir,
            manager,
            ctx,
            sub,
        }
    }

    /// The offered tool `name`.
    pub fn tool(&self, name: &str) -> Arc<dyn Tool> {
        self.manager
            .tools()
            .into_iter()
            .find(|t| t.name() == name)
            .unwrap_or_else(|| {
                let names: Vec<_> = self.manager.tools().iter().map(|t| t.name()).collect();
                panic!("no tool {name} among {names:?}")
            })
    }

    /// The `system.log` messages so far.
    pub fn logs(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(Delivery::Event(event)) = self.sub.try_recv() {
            if let EventKind::SystemLog(log) = &event.kind {
                out.push(log.message.clone());
            }
        }
        out
    }
}

/// Waits for `check` to hold (up to 5 s).
pub async fn eventually(mut check: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}
