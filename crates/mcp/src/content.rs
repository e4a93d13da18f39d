//! What a server's answer becomes for the model: text, structured content and resources as
//! text, images and audio described (never base64 in history), capped like command output.

use keel_protocol::ToolResult;
use keel_tools::process::{DEFAULT_OUTPUT_CAP, cap_output};
use serde_json::Value;

/// The tool result for a `tools/call` answer (`result` as JSON) of `tool` on `server`;
/// `isError` makes it a failed result carrying the server's text.
pub fn call_result(server: &str, tool: &str, result: &Value) -> ToolResult {
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut parts = Vec::new();
    if let Some(items) = result.get("content").and_then(Value::as_array) {
        for item in items {
            parts.push(describe(item));
        }
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        let text = structured.to_string();
        // Servers often send the same JSON as text too; keep it once.
        if !parts.iter().any(|p| p.trim() == text) {
            parts.push(format!("structured content: {text}"));
        }
    }
    let text = cap_output(&parts.join("\n"), DEFAULT_OUTPUT_CAP);
    if is_error {
        ToolResult {
            success: false,
            message: format!("The MCP tool `{tool}` of server `{server}` reported an error."),
            content: Some(text),
            summary: None,
            images: Vec::new(),
        }
    } else {
        ToolResult::ok_with(
            format!("The MCP tool `{tool}` of server `{server}` answered."),
            text,
        )
    }
}

/// The tool result for a `resources/read` answer (`result` as JSON).
pub fn resource_result(server: &str, uri: &str, result: &Value) -> ToolResult {
    let parts: Vec<String> = result
        .get("contents")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(describe_resource).collect())
        .unwrap_or_default();
    ToolResult::ok_with(
        format!("Read resource `{uri}` of MCP server `{server}`."),
        cap_output(&parts.join("\n"), DEFAULT_OUTPUT_CAP),
    )
}

/// One content item as text.
fn describe(item: &Value) -> String {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    let str_of = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => str_of("text").to_owned(),
        "image" | "audio" => {
            let bytes = base64_len(str_of("data"));
            format!(
                "[{kind}: {}, {bytes} bytes, not shown]",
                mime_or_unknown(str_of("mimeType"))
            )
        }
        "resource" => item
            .get("resource")
            .map(describe_resource)
            .unwrap_or_default(),
        "resource_link" => {
            let name = str_of("name");
            format!("[resource link: {} ({name})]", str_of("uri"))
        }
        other => format!("[{other} content: {}]", item),
    }
}

/// One resource's contents as text: its text, or a description of a blob.
fn describe_resource(resource: &Value) -> String {
    let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
    let mime = resource
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("");
    if let Some(text) = resource.get("text").and_then(Value::as_str) {
        return text.to_owned();
    }
    let bytes = base64_len(resource.get("blob").and_then(Value::as_str).unwrap_or(""));
    format!(
        "[binary resource {uri}: {}, {bytes} bytes, not shown]",
        mime_or_unknown(mime)
    )
}

fn mime_or_unknown(mime: &str) -> &str {
    if mime.is_empty() {
        "unknown type"
    } else {
        mime
    }
}

/// The decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let len = data.trim_end_matches('=').len();
    len * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn images_are_described_not_copied() {
        let result = json!({"content": [
            {"type": "text", "text": "here"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        ]});
        let r = call_result("s", "t", &result);
        assert!(r.success);
        let content = r.content.unwrap_or_default();
        assert_eq!(content, "here\n[image: image/png, 8 bytes, not shown]");
    }

    #[test]
    fn is_error_is_a_failed_result_with_the_text() {
        let result = json!({"isError": true, "content": [{"type": "text", "text": "boom"}]});
        let r = call_result("s", "t", &result);
        assert!(!r.success);
        assert_eq!(r.content.as_deref(), Some("boom"));
    }

    #[test]
    fn big_results_are_capped() {
        let text = "x".repeat(DEFAULT_OUTPUT_CAP * 4);
        let r = call_result(
            "s",
            "t",
            &json!({"content": [{"type": "text", "text": text}]}),
        );
        let content = r.content.unwrap_or_default();
        assert!(content.len() < DEFAULT_OUTPUT_CAP + 200);
        assert!(content.contains("bytes of output cut"));
    }
}
