//! A small MCP server built with rmcp, for keel-mcp's tests and benchmark: tools that echo,
//! fail (`isError`), return an image, a 10 MB text, crash the process, hang, collide in name,
//! and add a tool (sending `tools/list_changed`); one text resource.
//!
//! `mcp_test_server [serve|exit|silent|garbage]`: `serve` (default) speaks MCP on stdio;
//! `exit` exits at once with a message on stderr; `silent` reads stdin and never answers;
//! `garbage` answers every line with text that is not JSON-RPC.

#![allow(clippy::print_stderr, clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[derive(Clone, Default)]
struct TestServer {
    extra_tool: Arc<AtomicBool>,
}

fn schema(value: serde_json::Value) -> Arc<serde_json::Map<String, serde_json::Value>> {
    match value {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::new(serde_json::Map::new()),
    }
}

fn tools(extra: bool) -> Vec<Tool> {
    let empty = || schema(json!({"type": "object", "properties": {}}));
    let mut tools = vec![
        Tool::new(
            "echo",
            "Echoes back the message.",
            schema(json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new("fail", "Always reports an error.", empty()),
        Tool::new("image", "Returns a tiny PNG image.", empty())
            .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new("big", "Returns 10 MB of text.", empty()),
        Tool::new("crash", "Exits the server process.", empty()),
        Tool::new(
            "write_file",
            "Writes `text` to the file at `path` (relative to the server's folder).",
            schema(json!({"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}}, "required": ["path", "text"]})),
        ),
        Tool::new("hang", "Never answers.", empty()),
        Tool::new(
            "connect",
            "Opens a TCP connection to `address` (host:port) and closes it.",
            schema(json!({"type": "object", "properties": {"address": {"type": "string"}}, "required": ["address"]})),
        ),
        Tool::new("add_tool", "Adds the tool `added` and says the list changed.", empty()),
        Tool::new("same.name", "Collides with same_name once sanitised.", empty()),
        Tool::new("same_name", "Collides with same.name.", empty()),
    ];
    if extra {
        tools.push(Tool::new("added", "Appeared after add_tool.", empty()));
    }
    tools
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools(
            self.extra_tool.load(Ordering::SeqCst),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "echo" => {
                let message = args.get("message").and_then(|m| m.as_str()).unwrap_or("");
                CallToolResult::success(vec![ContentBlock::text(format!("Echo: {message}"))])
            }
            "fail" => {
                CallToolResult::error(vec![ContentBlock::text("the test tool failed on purpose")])
            }
            "image" => CallToolResult::success(vec![
                ContentBlock::text("an image follows"),
                ContentBlock::image(PNG, "image/png"),
            ]),
            "big" => {
                CallToolResult::success(vec![ContentBlock::text("x".repeat(10 * 1024 * 1024))])
            }
            "crash" => std::process::exit(3),
            "write_file" => {
                let path = args.get("path").and_then(|p| p.as_str()).unwrap_or("");
                let text = args.get("text").and_then(|t| t.as_str()).unwrap_or("");
                match std::fs::write(path, text) {
                    Ok(()) => {
                        CallToolResult::success(vec![ContentBlock::text(format!("wrote {path}"))])
                    }
                    Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                        "cannot write {path}: {e}"
                    ))]),
                }
            }
            "connect" => {
                let address = args.get("address").and_then(|a| a.as_str()).unwrap_or("");
                match std::net::TcpStream::connect(address) {
                    Ok(_) => CallToolResult::success(vec![ContentBlock::text(format!(
                        "connected to {address}"
                    ))]),
                    Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                        "cannot connect to {address}: {e}"
                    ))]),
                }
            }
            "hang" => {
                std::future::pending::<()>().await;
                CallToolResult::success(Vec::new())
            }
            "add_tool" => {
                self.extra_tool.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text("added")])
            }
            "added" | "same.name" | "same_name" => {
                CallToolResult::success(vec![ContentBlock::text(format!("{} ran", request.name))])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool `{other}`"),
                    None,
                ));
            }
        };
        Ok(CallToolResponse::Complete(result))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == "test://greeting" {
            Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![ResourceContents::text(
                    "hello from the test server",
                    request.uri,
                )],
            )))
        } else {
            Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ))
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "serve".to_owned());
    match mode.as_str() {
        "exit" => {
            eprintln!("test server: refusing to start (mode exit)");
            std::process::exit(2);
        }
        "silent" => {
            let mut lines = BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(_)) = lines.next_line().await {}
        }
        "garbage" => {
            let mut lines = BufReader::new(tokio::io::stdin()).lines();
            let mut out = tokio::io::stdout();
            while let Ok(Some(_)) = lines.next_line().await {
                let _ = out.write_all(b"hello, this is not JSON-RPC\n").await;
                let _ = out.flush().await;
            }
        }
        _ => match TestServer::default().serve(rmcp::transport::stdio()).await {
            Ok(service) => {
                let _ = service.waiting().await;
            }
            Err(e) => eprintln!("test server: {e}"),
        },
    }
}
