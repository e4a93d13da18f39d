//! Against our own rmcp server: list, call with arguments, a resource read, `isError`, an image,
//! name collisions, `tools/list_changed`, a crash and its restart, nothing left behind.

use std::time::Duration;

use keel_mcp::{McpManager, ServerStatus};
use keel_test_support::processes::group_gone_within;
use keel_tools::ToolSource;
use serde_json::json;

use crate::common::{Fixture, eventually, stdio, test_server};

fn spec() -> keel_mcp::ServerSpec {
    stdio("test", test_server().to_str().unwrap(), &[], Some(3))
}

#[tokio::test]
async fn lists_calls_reads_and_describes() {
    let mut f = Fixture::start(vec![spec()]).await;
    let reports = f.manager.reports();
    assert_eq!(reports[0].status, ServerStatus::Running, "{reports:?}");
    let names: Vec<_> = f.manager.tools().iter().map(|t| t.name()).collect();
    for expected in [
        "mcp__test__echo",
        "mcp__test__image",
        "use_mcp_tool",
        "access_mcp_resource",
    ] {
        assert!(names.contains(&expected), "{names:?}");
    }

    let echo = f.tool("mcp__test__echo");
    assert_eq!(echo.parameters()["required"], json!(["message"]));
    assert_eq!(echo.mcp_server(&json!({})).as_deref(), Some("test"));
    let result = echo.call(&f.ctx, json!({"message": "hi"})).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content.as_deref(), Some("Echo: hi"));

    let via_generic = f
        .tool("use_mcp_tool")
        .call(
            &f.ctx,
            json!({"server_name": "test", "tool_name": "echo", "arguments": {"message": "xml"}}),
        )
        .await;
    assert_eq!(via_generic.content.as_deref(), Some("Echo: xml"));

    let failed = f.tool("mcp__test__fail").call(&f.ctx, json!({})).await;
    assert!(!failed.success);
    assert_eq!(
        failed.content.as_deref(),
        Some("the test tool failed on purpose")
    );

    let image = f.tool("mcp__test__image").call(&f.ctx, json!({})).await;
    let text = image.content.unwrap();
    assert!(
        text.contains("[image: image/png, 70 bytes, not shown]"),
        "{text}"
    );
    assert!(!text.contains("iVBOR"), "{text}");

    let resource = f
        .tool("access_mcp_resource")
        .call(
            &f.ctx,
            json!({"server_name": "test", "uri": "test://greeting"}),
        )
        .await;
    assert_eq!(
        resource.content.as_deref(),
        Some("hello from the test server")
    );
    let missing = f
        .tool("access_mcp_resource")
        .call(
            &f.ctx,
            json!({"server_name": "test", "uri": "test://nothing"}),
        )
        .await;
    assert!(!missing.success);
    assert!(
        missing.message.contains("no resource test://nothing"),
        "{missing:?}"
    );

    let unknown = f
        .tool("use_mcp_tool")
        .call(&f.ctx, json!({"server_name": "nope", "tool_name": "echo"}))
        .await;
    assert!(
        unknown.message.contains("no MCP server named `nope`"),
        "{unknown:?}"
    );

    // Colliding names: one offered, the other reported and still reachable by use_mcp_tool.
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "mcp__test__same_name")
            .count(),
        1
    );
    let logs = f.logs();
    assert!(
        logs.iter()
            .any(|l| l
                .contains("tools `same.name` and `same_name` both become `mcp__test__same_name`")),
        "{logs:?}"
    );
    let other = f
        .tool("use_mcp_tool")
        .call(
            &f.ctx,
            json!({"server_name": "test", "tool_name": "same_name"}),
        )
        .await;
    assert_eq!(other.content.as_deref(), Some("same_name ran"));
    f.manager.shutdown().await;
}

#[tokio::test]
async fn list_changed_refreshes_the_offered_tools() {
    let f = Fixture::start(vec![spec()]).await;
    let before = f.manager.generation();
    assert!(
        !f.manager
            .tools()
            .iter()
            .any(|t| t.name() == "mcp__test__added")
    );
    let result = f.tool("mcp__test__add_tool").call(&f.ctx, json!({})).await;
    assert!(result.success, "{result:?}");
    let manager = f.manager.clone();
    assert!(
        eventually(|| manager
            .tools()
            .iter()
            .any(|t| t.name() == "mcp__test__added"))
        .await,
        "the new tool never appeared"
    );
    assert!(f.manager.generation() > before);
}

#[tokio::test]
async fn a_crash_restarts_once_then_the_server_is_failed() {
    let mut f = Fixture::start(vec![spec()]).await;
    let first = f.manager.pid("test").await.unwrap();
    let crash = f.tool("mcp__test__crash").call(&f.ctx, json!({})).await;
    assert!(!crash.success);
    assert!(
        crash.message.contains("the server was restarted"),
        "{crash:?}"
    );
    let second = f.manager.pid("test").await.unwrap();
    assert_ne!(first, second);
    group_gone_within(first as i32, Duration::from_secs(3))
        .await
        .unwrap();
    // The restarted server works.
    let echo = f
        .tool("mcp__test__echo")
        .call(&f.ctx, json!({"message": "again"}))
        .await;
    assert_eq!(echo.content.as_deref(), Some("Echo: again"));
    // A second crash marks it failed: its tools go, the session goes on.
    let crash = f.tool("mcp__test__crash").call(&f.ctx, json!({})).await;
    assert!(crash.message.contains("marked failed"), "{crash:?}");
    assert!(matches!(
        f.manager.reports()[0].status,
        ServerStatus::Failed(_)
    ));
    assert!(
        !f.manager
            .tools()
            .iter()
            .any(|t| t.name() == "mcp__test__echo")
    );
    group_gone_within(second as i32, Duration::from_secs(3))
        .await
        .unwrap();
    let logs = f.logs();
    assert!(logs.iter().any(|l| l.contains("restarting it")), "{logs:?}");
    assert!(logs.iter().any(|l| l.contains("marked failed")), "{logs:?}");
}

#[tokio::test]
async fn dropping_the_manager_kills_the_servers() {
    let manager = McpManager::new(std::env::temp_dir(), vec![spec()]);
    manager.start_all().await;
    let pid = manager.pid("test").await.unwrap();
    assert!(!keel_test_support::processes::live_members(pid as i32).is_empty());
    drop(manager);
    group_gone_within(pid as i32, Duration::from_secs(3))
        .await
        .unwrap();
}
