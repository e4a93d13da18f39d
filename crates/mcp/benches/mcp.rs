//! Session start with five stdio MCP servers, all at once versus one after another, and the
//! cost of one MCP tool call against a built-in tool's; and the concurrent start with every
//! server in the OS sandbox.
//!
//! The servers are the `mcp_test_server` example: `KEEL_MCP_TEST_SERVER` names it, else it is
//! looked up in the target folder's `debug/examples` (build it with
//! `cargo build -p keel-mcp --example mcp_test_server`).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use keel_events::{Bus, Emitter, Sequencer};
use keel_mcp::{McpManager, ServerConfig, ServerSpec};
use keel_protocol::{ApprovalPolicy, ApproveAll};
use keel_sandbox::{SandboxMode, SandboxPolicy};
use keel_tools::{Tool, ToolContext, ToolSource};
use serde_json::json;

fn server() -> PathBuf {
    if let Some(path) = std::env::var_os("KEEL_MCP_TEST_SERVER") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap();
    let target = exe.parent().unwrap().parent().unwrap().parent().unwrap();
    let path = target.join("debug/examples/mcp_test_server");
    assert!(
        path.is_file(),
        "{} is missing: cargo build -p keel-mcp --example mcp_test_server",
        path.display()
    );
    path
}

fn spec(name: &str) -> ServerSpec {
    let config = ServerConfig {
        command: Some(server().display().to_string()),
        ..ServerConfig::default()
    };
    ServerSpec::new(name, &config).unwrap()
}

fn specs() -> Vec<ServerSpec> {
    (0..5).map(|i| spec(&format!("s{i}"))).collect()
}

fn startup(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("session_start_5_stdio_servers");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("concurrent", |b| {
        b.iter(|| {
            rt.block_on(async {
                let manager = McpManager::new(dir.path(), specs());
                manager.start_all().await;
                assert_eq!(manager.tools().len(), 5 * 10 + 2);
                manager.shutdown().await;
            })
        })
    });
    group.bench_function("sequential", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut managers = Vec::new();
                for spec in specs() {
                    let manager = McpManager::new(dir.path(), vec![spec]);
                    manager.start_all().await;
                    managers.push(manager);
                }
                for manager in managers {
                    manager.shutdown().await;
                }
            })
        })
    });
    // The same concurrent start with every server in the workspace-write sandbox (Landlock,
    // mount namespace; network allowed, as MCP servers get by default).
    group.bench_function("concurrent_sandboxed", |b| {
        b.iter(|| {
            rt.block_on(async {
                let manager = McpManager::new(dir.path(), specs());
                manager.confine(SandboxPolicy::new(SandboxMode::WorkspaceWrite));
                manager.start_all().await;
                assert_eq!(manager.tools().len(), 5 * 10 + 2);
                manager.shutdown().await;
            })
        })
    });
    group.finish();
}

fn per_call(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let ctx = ToolContext::new(dir.path().canonicalize().unwrap(), emitter)
        .with_approval(ApprovalPolicy::OnDangerous, std::sync::Arc::new(ApproveAll));
    let manager = McpManager::new(dir.path(), vec![spec("bench")]);
    rt.block_on(manager.start_all());
    let echo = manager
        .tools()
        .into_iter()
        .find(|t| t.name() == "mcp__bench__echo")
        .unwrap();
    let read = keel_tools::builtin::ReadFile;
    let mut group = c.benchmark_group("tool_call");
    group.bench_function("mcp_echo", |b| {
        b.iter(|| {
            let r = rt.block_on(echo.call(&ctx, json!({"message": "hi"})));
            assert!(r.success);
        })
    });
    group.bench_function("builtin_read_file", |b| {
        b.iter(|| {
            let r = rt.block_on(Tool::call(&read, &ctx, json!({"path": "a.txt"})));
            assert!(r.success);
        })
    });
    group.finish();
    rt.block_on(manager.shutdown());
}

criterion_group!(benches, startup, per_call);
criterion_main!(benches);
