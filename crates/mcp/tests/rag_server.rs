//! `use_rag_tool` with RAG servers backed by an MCP server's search tool (`[rag_servers.NAME]
//! mcp_server`, `tool`, `query_argument`), against our own rmcp server: the answer, a tool that
//! reports `isError`, a tool the server lacks, servers that are not connected, a long query.

use keel_protocol::ToolResult;
use keel_tools::builtin::UseRagTool;
use keel_tools::{McpCalls, Tool, ToolContext};
use serde_json::json;
use std::sync::Arc;

use crate::common::{Fixture, stdio, test_server};

const KEEL_TOML: &str = r#"
[rag_servers.wiki]
mcp_server = "test"
tool = "echo"
query_argument = "message"

[rag_servers.failing]
mcp_server = "test"
tool = "fail"

[rag_servers.no_such_tool]
mcp_server = "test"
tool = "search_everything"

[rag_servers.offline]
mcp_server = "broken"
tool = "search"

[rag_servers.unconfigured]
mcp_server = "nowhere"
tool = "search"
"#;

async fn fixture() -> Fixture {
    let f = Fixture::start(vec![
        stdio("test", test_server().to_str().unwrap(), &[], Some(5)),
        stdio("broken", "/nonexistent/mcp-server", &[], Some(5)),
    ])
    .await;
    std::fs::write(f.ctx.root.join("keel.toml"), KEEL_TOML).unwrap();
    f
}

async fn search(ctx: &ToolContext, server: &str, query: &str) -> ToolResult {
    UseRagTool::default()
        .call(ctx, json!({"server_name": server, "query": query}))
        .await
}

fn session_ctx(f: &Fixture) -> ToolContext {
    f.ctx.clone().with_mcp(Arc::new(f.manager.clone()))
}

#[tokio::test]
async fn the_query_goes_to_the_configured_tool_and_its_text_comes_back() {
    let f = fixture().await;
    let ctx = session_ctx(&f);
    let result = search(&ctx, "wiki", "where are sessions signed?").await;
    assert!(result.success, "{result:?}");
    assert_eq!(
        result.message,
        "Results of `wiki` (tool `echo` of MCP server `test`)."
    );
    assert_eq!(
        result.content.as_deref(),
        Some("Echo: where are sessions signed?")
    );

    // A 10 KB query is cut to the index's limit, with a note.
    let long = "routing ".repeat(1280);
    let result = search(&ctx, "wiki", &long).await;
    assert!(result.success, "{result:?}");
    let content = result.content.unwrap();
    assert!(
        content.starts_with("Note: the query was 10240 bytes; only its first 1024 were searched\n"),
        "{content}"
    );
    assert!(
        content.ends_with(&format!("Echo: {}", long[..1024].trim_end())),
        "{content}"
    );
}

#[tokio::test]
async fn failures_are_failed_results_saying_what_is_wrong() {
    let f = fixture().await;
    let ctx = session_ctx(&f);

    let failed = search(&ctx, "failing", "anything").await;
    assert!(!failed.success, "{failed:?}");
    assert_eq!(
        failed.message,
        "RAG server `failing` failed: the MCP tool `fail` of server `test` reported an error."
    );
    assert_eq!(
        failed.content.as_deref(),
        Some("the test tool failed on purpose")
    );

    let missing = search(&ctx, "no_such_tool", "anything").await;
    assert!(!missing.success);
    assert!(
        missing.message.starts_with(
            "RAG server `no_such_tool` searches with tool `search_everything` of MCP server `test`, but that server has no tool `search_everything` (its tools: echo, fail, "
        ),
        "{}",
        missing.message
    );

    let offline = search(&ctx, "offline", "anything").await;
    assert!(!offline.success);
    assert!(
        offline
            .message
            .contains("but MCP server `broken` is not connected: it failed ("),
        "{}",
        offline.message
    );

    let unconfigured = search(&ctx, "unconfigured", "anything").await;
    assert!(!unconfigured.success);
    assert!(
        unconfigured.message.contains(
            "but no MCP server named `nowhere` is configured (configured: `broken`, `test`)"
        ),
        "{}",
        unconfigured.message
    );

    // Outside a session with MCP servers (e.g. a context without them).
    let alone = search(&f.ctx, "wiki", "anything").await;
    assert!(!alone.success);
    assert_eq!(
        alone.message,
        "RAG server `wiki` searches with tool `echo` of MCP server `test`, but no MCP server is connected here (name it in keel.toml as [mcp_servers.test])."
    );

    let unknown = search(&ctx, "elsewhere", "anything").await;
    assert!(!unknown.success);
    assert!(
        unknown
            .message
            .starts_with("No RAG server `elsewhere`. Available: project, failing, no_such_tool, offline, unconfigured, wiki."),
        "{}",
        unknown.message
    );
}

#[tokio::test]
async fn the_manager_lists_a_running_servers_tools_and_says_why_others_cannot_be_called() {
    let f = fixture().await;
    let tools = f.manager.server_tools("test").unwrap();
    assert!(tools.contains(&"echo".to_owned()), "{tools:?}");
    assert!(f.manager.server_tools("broken").is_err());
    f.manager.shutdown().await;
    assert_eq!(
        f.manager.server_tools("test").unwrap_err(),
        "MCP server `test` is not connected: it is not running"
    );
}

#[tokio::test]
async fn a_keel_toml_with_both_a_path_and_an_mcp_server_is_reported() {
    let f = fixture().await;
    std::fs::write(
        f.ctx.root.join("keel.toml"),
        "[rag_servers.wiki]\npath = \"docs\"\nmcp_server = \"test\"\ntool = \"echo\"\n",
    )
    .unwrap();
    let result = search(&session_ctx(&f), "wiki", "anything").await;
    assert!(!result.success);
    assert!(
        result.message.starts_with("keel.toml is unusable: ")
            && result
                .message
                .contains("`path` and `mcp_server` are mutually exclusive"),
        "{}",
        result.message
    );
}
