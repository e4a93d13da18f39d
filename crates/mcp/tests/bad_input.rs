//! Servers that do not work: each a clear message, the others go on, nothing left behind.

use std::time::{Duration, Instant};

use keel_mcp::ServerStatus;
use keel_test_support::processes::group_gone_within;
use serde_json::json;

use crate::common::{Fixture, stdio, test_server};

fn failure(f: &Fixture, name: &str) -> String {
    let report = f
        .manager
        .reports()
        .into_iter()
        .find(|r| r.name == name)
        .unwrap();
    match report.status {
        ServerStatus::Failed(reason) => reason,
        other => panic!("{name} is {other:?}"),
    }
}

#[tokio::test]
async fn broken_servers_fail_clearly_and_the_good_one_runs() {
    let server = test_server();
    let server = server.to_str().unwrap();
    let started = Instant::now();
    let mut f = Fixture::start(vec![
        stdio("missing", "/nonexistent/keel-mcp-server", &[], None),
        stdio("exits", server, &["exit"], None),
        stdio("silent", server, &["silent"], None),
        stdio("garbage", server, &["garbage"], None),
        stdio("good", server, &[], None),
    ])
    .await;
    // Started together: the slowest (5 s start-up time-outs) bounds the whole.
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );

    let missing = failure(&f, "missing");
    assert!(
        missing.contains("`/nonexistent/keel-mcp-server` was not found"),
        "{missing}"
    );
    let exits = failure(&f, "exits");
    assert!(exits.contains("exited"), "{exits}");
    assert!(exits.contains("refusing to start (mode exit)"), "{exits}");
    let silent = failure(&f, "silent");
    assert!(
        silent.contains("did not answer `initialize` within 5s"),
        "{silent}"
    );
    let garbage = failure(&f, "garbage");
    assert!(
        garbage.contains("not MCP JSON-RPC: `hello, this is not JSON-RPC`"),
        "{garbage}"
    );

    let logs = f.logs();
    for name in ["missing", "exits", "silent", "garbage"] {
        assert!(
            logs.iter()
                .any(|l| l.starts_with(&format!("MCP server `{name}` could not start"))),
            "{name}: {logs:?}"
        );
    }
    let echo = f
        .tool("mcp__good__echo")
        .call(&f.ctx, json!({"message": "ok"}))
        .await;
    assert_eq!(echo.content.as_deref(), Some("Echo: ok"));
}

#[tokio::test]
async fn a_big_result_is_capped() {
    let f = Fixture::start(vec![stdio(
        "test",
        test_server().to_str().unwrap(),
        &[],
        Some(30),
    )])
    .await;
    let big = f.tool("mcp__test__big").call(&f.ctx, json!({})).await;
    assert!(big.success, "{}", big.message);
    let text = big.content.unwrap();
    assert!(text.len() < 70 * 1024, "{}", text.len());
    assert!(text.contains("bytes of output cut"));
}

#[tokio::test]
async fn a_hanging_call_times_out_and_the_server_is_restarted() {
    let f = Fixture::start(vec![stdio(
        "test",
        test_server().to_str().unwrap(),
        &[],
        Some(1),
    )])
    .await;
    let first = f.manager.pid("test").await.unwrap();
    let started = Instant::now();
    let hung = f.tool("mcp__test__hang").call(&f.ctx, json!({})).await;
    assert!(!hung.success);
    assert!(
        hung.message.contains("did not answer within 1s"),
        "{hung:?}"
    );
    assert!(
        hung.message.contains("the server was restarted"),
        "{hung:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(6));
    group_gone_within(first as i32, Duration::from_secs(3))
        .await
        .unwrap();
    let echo = f
        .tool("mcp__test__echo")
        .call(&f.ctx, json!({"message": "after"}))
        .await;
    assert_eq!(echo.content.as_deref(), Some("Echo: after"));
}
