//! A Keel tool result as an MCP `CallToolResult`.

use keel_protocol::ToolResult;
use rmcp::model::{CallToolResult, ContentBlock};

/// `{success, message, content}` as MCP content: the message, then the content as a second text
/// block; the whole result as structured content; `isError` when the tool failed.
pub fn tool_result_to_mcp(result: &ToolResult) -> CallToolResult {
    let mut blocks = vec![ContentBlock::text(result.message.clone())];
    if let Some(content) = &result.content {
        blocks.push(ContentBlock::text(content.clone()));
    }
    let mut mcp = if result.success {
        CallToolResult::success(blocks)
    } else {
        CallToolResult::error(blocks)
    };
    mcp.structured_content = serde_json::to_value(result).ok();
    mcp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_mcp_errors_with_the_message() {
        let mcp = tool_result_to_mcp(&ToolResult::error("no such file `x`"));
        assert_eq!(mcp.is_error, Some(true));
        assert_eq!(mcp.content.len(), 1);
        let json = serde_json::to_value(&mcp).unwrap_or_default();
        assert_eq!(json["content"][0]["text"], "no such file `x`");
        assert_eq!(json["structuredContent"]["success"], false);
    }

    #[test]
    fn content_follows_the_message() {
        let mcp = tool_result_to_mcp(&ToolResult::ok_with("read 1 line", "hello\n"));
        assert_eq!(mcp.is_error, Some(false));
        let json = serde_json::to_value(&mcp).unwrap_or_default();
        assert_eq!(json["content"][1]["text"], "hello\n");
    }
}
