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
    if accepts_sampling(model) {
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(p) = request.top_p {
            body["top_p"] = json!(p);
        }
    }
    if let Some(m) = request.max_tokens {
        body["max_tokens"] = json!(m);
    }
    body
}

/// Whether `model` takes `temperature` and `top_p`: OpenAI's reasoning models (`o1`, `o3`,
/// `o4-mini`, `gpt-5`, …) refuse any value but their own, so nothing is sent to them.
fn accepts_sampling(model: &str) -> bool {
    let name = crate::model_family::bare_name(model);
    let reasoning = crate::model_family::is_o_series(&name)
        || (name.starts_with("gpt-5") && !name.contains("chat"));
    !reasoning
}

fn message(m: &ChatMessage) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User if m.images.is_empty() => json!({"role": "user", "content": m.content}),
        Role::User => {
            // Text first, then each image as a `data:` URL part.
            let mut parts = vec![json!({"type": "text", "text": m.content})];
            parts.extend(
                m.images.iter().map(
                    |image| json!({"type": "image_url", "image_url": {"url": image.data_url()}}),
                ),
            );
            json!({"role": "user", "content": parts})
        }
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
    use crate::provider::Sampling;
    use keel_context::ToolCallRequest;

    #[test]
    fn sampling_is_sent_except_to_reasoning_models() {
        let request = ChatRequest::new("m", vec![ChatMessage::user("u")]).with_sampling(Sampling {
            temperature: Some(0.0),
            top_p: Some(0.9),
        });
        let sent = body(&request, "qwen2.5-coder-1.5b-instruct");
        assert_eq!(sent["temperature"], json!(0.0));
        assert_eq!(sent["top_p"], json!(0.9_f32));
        for model in ["o1", "o3-mini", "openai/o4-mini", "gpt-5", "gpt-5-mini"] {
            let sent = body(&request, model);
            assert!(sent.get("temperature").is_none(), "{model}");
            assert!(sent.get("top_p").is_none(), "{model}");
        }
        assert_eq!(
            body(&request, "gpt-5-chat-latest")["temperature"],
            json!(0.0)
        );
        assert_eq!(body(&request, "o1x")["temperature"], json!(0.0));
        let unset = ChatRequest::new("m", vec![ChatMessage::user("u")]);
        assert!(body(&unset, "m").get("temperature").is_none());
    }

    #[test]
    fn images_are_content_parts_after_the_text() {
        let png = keel_protocol::Image::from_bytes("a.png", b"\x89PNG\r\n\x1a\n")
            .expect("a PNG signature is a PNG");
        let request = ChatRequest::new(
            "m",
            vec![ChatMessage::user_with_images("what is this?", vec![png])],
        );
        assert_eq!(
            body(&request, "gpt-4o")["messages"][0],
            json!({"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ]})
        );
    }

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
