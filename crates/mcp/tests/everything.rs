//! Against the reference "everything" server from npm (a server we did not write).

use std::time::Duration;

use keel_mcp::ServerStatus;
use keel_test_support::processes::group_gone_within;
use keel_tools::ToolSource;
use serde_json::json;

use crate::common::{Fixture, everything, stdio};

#[tokio::test]
async fn the_reference_server_lists_calls_reads_and_restarts() {
    let Some(program) = everything() else {
        return;
    };
    let spec = stdio(
        "everything",
        program.to_str().unwrap(),
        &["stdio"],
        Some(20),
    );
    let f = Fixture::start(vec![spec]).await;
    let report = &f.manager.reports()[0];
    assert_eq!(report.status, ServerStatus::Running, "{report:?}");
    let names: Vec<_> = f.manager.tools().iter().map(|t| t.name()).collect();
    assert!(names.contains(&"mcp__everything__echo"), "{names:?}");

    let echo = f
        .tool("mcp__everything__echo")
        .call(&f.ctx, json!({"message": "hello"}))
        .await;
    assert!(echo.success, "{echo:?}");
    assert!(
        echo.content.as_deref().unwrap_or("").contains("hello"),
        "{echo:?}"
    );

    let sum = f
        .tool("use_mcp_tool")
        .call(&f.ctx, json!({"server_name": "everything", "tool_name": report.tools.iter().find(|t| t.name.contains("sum") || t.name == "add").map(|t| t.name.clone()).unwrap(), "arguments": {"a": 2, "b": 3}}))
        .await;
    assert!(
        sum.content.as_deref().unwrap_or("").contains('5'),
        "{sum:?}"
    );

    // An image result is described, not copied.
    if let Some(image_tool) = report
        .tools
        .iter()
        .find(|t| t.name.contains("image") && t.name.contains("tiny"))
    {
        let image = f
            .tool("use_mcp_tool")
            .call(
                &f.ctx,
                json!({"server_name": "everything", "tool_name": image_tool.name, "arguments": {}}),
            )
            .await;
        let text = image.content.unwrap_or_default();
        assert!(text.contains("[image: image/png"), "{text}");
        assert!(text.len() < 4096, "{text}");
    } else {
        panic!(
            "no tiny image tool in {:?}",
            report.tools.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
    }

    // A bad argument is an error the model can read.
    let bad = f
        .tool("mcp__everything__echo")
        .call(&f.ctx, json!({"nothing": 1}))
        .await;
    assert!(!bad.success, "{bad:?}");

    // A resource read.
    let resource = f
        .tool("access_mcp_resource")
        .call(&f.ctx, json!({"server_name": "everything", "uri": "demo://resource/static/document/architecture.md"}))
        .await;
    eprintln!("resource: {resource:?}");
    assert!(resource.success, "{resource:?}");

    // A crash (we kill it) is noticed at the next call and the server restarted.
    let pid = f.manager.pid("everything").await.unwrap();
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    group_gone_within(pid as i32, Duration::from_secs(3))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after_crash = f
        .tool("mcp__everything__echo")
        .call(&f.ctx, json!({"message": "x"}))
        .await;
    assert!(!after_crash.success);
    assert!(after_crash.message.contains("restarted"), "{after_crash:?}");
    let again = f
        .tool("mcp__everything__echo")
        .call(&f.ctx, json!({"message": "back"}))
        .await;
    assert!(
        again.content.as_deref().unwrap_or("").contains("back"),
        "{again:?}"
    );
    let new_pid = f.manager.pid("everything").await.unwrap();
    f.manager.shutdown().await;
    group_gone_within(new_pid as i32, Duration::from_secs(3))
        .await
        .unwrap();
}
