//! The chat-completions request body.

use serde_json::{Value, json};

use crate::provider::ChatRequest;
use keel_context::{ChatMessage, Role};

/// The JSON body of a streaming chat-completions request for `model`.
///
/// Always `stream: true` with `stream_options.include_usage`, so the last chunk reports token
/// counts. The output limit is sent as `max_tokens`, which every OpenAI-compatible server
/// accepts.
pub(crate) fn body(request: &ChatRequest, model: &str) -> Value {
    let mut body = json!({
        "model": model,
        "messages": request.messages.iter().map(message).collect::<Vec<_>>(),
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.clone());
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(m) = request.max_tokens {
        body["max_tokens"] = json!(m);
    }
    body
}

fn message(m: &ChatMessage) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User => json!({"role": "user", "content": m.content}),
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
            "content": m.content,
        }),
        Role::Assistant => {
            let mut v = json!({"role": "assistant"});
            v["content"] = if m.content.is_empty() && !m.tool_calls.is_empty() {
                Value::Null
            } else {
                Value::String(m.content.clone())
            };
            if !m.tool_calls.is_empty() {
                v["tool_calls"] = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments},
                        })
                    })
                    .collect();
            }
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_context::ToolCallRequest;

    #[test]
    fn messages_use_openai_shapes() {
        let request = ChatRequest::new(
            "m",
            vec![
                ChatMessage::system("s"),
                ChatMessage::user("u"),
                ChatMessage::assistant(
                    "",
                    vec![ToolCallRequest {
                        id: "c1".into(),
                        name: "read_file".into(),
                        arguments: "{\"path\":\"a\"}".into(),
                    }],
                ),
                ChatMessage::tool("c1", "read_file", "contents"),
            ],
        );
        let b = body(&request, "gpt");
        assert_eq!(
            b,
            json!({
                "model": "gpt",
                "stream": true,
                "stream_options": {"include_usage": true},
                "messages": [
                    {"role": "system", "content": "s"},
                    {"role": "user", "content": "u"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "contents"},
                ],
            })
        );
    }
}
