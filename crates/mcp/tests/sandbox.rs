//! Stdio servers in the session's OS sandbox (the real kernel: Landlock, seccomp, a mount
//! namespace): our rmcp test server writes inside the root but not outside it, unless the
//! sandbox is off for the session or for that server; it reaches the network unless its
//! `network = false`.

use keel_mcp::{ServerConfig, ServerSpec, ServerStatus};
use keel_sandbox::{SandboxMode, SandboxPolicy, Support};
use serde_json::json;

use crate::common::{Fixture, test_server};

fn spec(sandbox: Option<SandboxMode>) -> ServerSpec {
    spec_with_network(sandbox, None)
}

fn spec_with_network(sandbox: Option<SandboxMode>, network: Option<bool>) -> ServerSpec {
    let config = ServerConfig {
        network,
        command: Some(test_server().to_string_lossy().into_owned()),
        startup_timeout_secs: Some(5),
        tool_timeout_secs: Some(5),
        sandbox,
        ..ServerConfig::default()
    };
    ServerSpec::new("test", &config).unwrap()
}

/// Whether this kernel enforces workspace-write (else the confined cases are skipped, saying so).
fn enforced() -> bool {
    let report = Support::get().report(SandboxMode::WorkspaceWrite, true);
    if !report.enforceable {
        assert!(
            std::env::var_os("CI").is_none(),
            "the sandbox cannot be enforced in CI: {:?}",
            report.missing
        );
        eprintln!(
            "skipped: this kernel cannot enforce the sandbox: {:?}",
            report.missing
        );
    }
    report.enforceable
}

async fn write(f: &Fixture, path: &std::path::Path) -> keel_protocol::ToolResult {
    f.tool("mcp__test__write_file")
        .call(
            &f.ctx,
            json!({"path": path.to_string_lossy(), "text": "from the server"}),
        )
        .await
}

#[tokio::test]
async fn a_confined_server_writes_inside_the_root_but_not_outside() {
    if !enforced() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let f = Fixture::start_confined(
        vec![spec(None)],
        SandboxPolicy::new(SandboxMode::WorkspaceWrite),
    )
    .await;
    let reports = f.manager.reports();
    assert_eq!(reports[0].status, ServerStatus::Running, "{reports:?}");

    let inside = f.ctx.root.join("inside.txt");
    let result = write(&f, &inside).await;
    assert!(result.success, "{result:?}");
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "from the server");

    let target = outside.path().join("escaped.txt");
    let result = write(&f, &target).await;
    assert!(!result.success, "{result:?}");
    let text = result.content.unwrap_or_default();
    assert!(text.contains("denied"), "{text}");
    assert!(!target.exists());
}

#[tokio::test]
async fn the_same_server_writes_outside_with_the_sandbox_off() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("written.txt");

    let session_off = Fixture::start_confined(vec![spec(None)], SandboxPolicy::off()).await;
    let result = write(&session_off, &target).await;
    assert!(result.success, "{result:?}");
    assert!(target.exists());
    std::fs::remove_file(&target).unwrap();

    // The server's own `sandbox = "off"` beats the session's workspace-write.
    let server_off = Fixture::start_confined(
        vec![spec(Some(SandboxMode::Off))],
        SandboxPolicy::new(SandboxMode::WorkspaceWrite),
    )
    .await;
    let result = write(&server_off, &target).await;
    assert!(result.success, "{result:?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "from the server");
}

#[tokio::test]
async fn read_only_keeps_a_server_from_writing_even_in_the_root() {
    if !enforced() {
        return;
    }
    let f = Fixture::start_confined(
        vec![spec(Some(SandboxMode::ReadOnly))],
        SandboxPolicy::default(),
    )
    .await;
    let inside = f.ctx.root.join("inside.txt");
    let result = write(&f, &inside).await;
    assert!(!result.success, "{result:?}");
    assert!(!inside.exists());
}

async fn connect(f: &Fixture, address: &str) -> keel_protocol::ToolResult {
    f.tool("mcp__test__connect")
        .call(&f.ctx, json!({"address": address}))
        .await
}

#[tokio::test]
async fn network_false_keeps_a_confined_server_off_the_network() {
    if !enforced() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();

    // MCP servers reach the network by default, even in workspace-write.
    let allowed = Fixture::start_confined(
        vec![spec(None)],
        SandboxPolicy::new(SandboxMode::WorkspaceWrite),
    )
    .await;
    let result = connect(&allowed, &address).await;
    assert!(result.success, "{result:?}");

    let denied = Fixture::start_confined(
        vec![spec_with_network(None, Some(false))],
        SandboxPolicy::new(SandboxMode::WorkspaceWrite),
    )
    .await;
    let reports = denied.manager.reports();
    assert_eq!(reports[0].status, ServerStatus::Running, "{reports:?}");
    let result = connect(&denied, &address).await;
    assert!(!result.success, "{result:?}");
    let text = result.content.unwrap_or_default();
    assert!(
        text.contains("cannot connect") && text.contains("not permitted"),
        "{text}"
    );
}
