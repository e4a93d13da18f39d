//! Lenient chat-completions chunk types and their translation into [`StreamItem`]s.
//!
//! OpenAI-compatible servers differ: some omit `id` or a tool call's `index` (Gemini, older
//! Ollama), send a float `created`, unknown finish reasons, `null` where a list is expected,
//! arguments as an object instead of a string, or reasoning under `reasoning_content` /
//! `reasoning`. Every field here is optional and anything unknown is ignored.

use keel_events::{FinishReason, Usage};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ProviderError;
use crate::provider::{StreamItem, ToolCallDelta};

/// One `data:` payload of the stream.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Chunk {
    choices: Option<Vec<Choice>>,
    usage: Option<ChunkUsage>,
    error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Choice {
    index: Option<u64>,
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Delta {
    content: Option<Value>,
    reasoning_content: Option<Value>,
    reasoning: Option<Value>,
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireToolCall {
    index: Option<u32>,
    id: Option<String>,
    function: Option<WireFunction>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireFunction {
    name: Option<String>,
    arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ChunkUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    total_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

/// Maps a wire finish reason to the catalogue's; `None` for an empty string.
pub(crate) fn finish_reason(reason: &str) -> Option<FinishReason> {
    Some(match reason {
        "" => return None,
        "stop" | "end_turn" | "eos" => FinishReason::Stop,
        "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
        "length" | "max_tokens" => FinishReason::Length,
        "content_filter" | "safety" => FinishReason::ContentFilter,
        _ => FinishReason::Other,
    })
}

/// Turns chunks into items, remembering what it needs across chunks.
#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    finish: Option<FinishReason>,
    /// Index and id of the latest tool-call piece, to place pieces that carry no index.
    last_call: Option<(u32, Option<String>)>,
    max_index: Option<u32>,
}

impl ChunkDecoder {
    /// The finish reason seen so far.
    pub(crate) fn finish_reason(&self) -> Option<FinishReason> {
        self.finish
    }

    /// Appends the items of `chunk` to `out`; an `error` object becomes `Err`.
    pub(crate) fn decode(
        &mut self,
        chunk: Chunk,
        out: &mut Vec<StreamItem>,
    ) -> Result<(), ProviderError> {
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(in_stream_error(&error));
        }
        for choice in chunk.choices.unwrap_or_default() {
            // Only the first choice is used (requests never ask for n > 1).
            if choice.index.unwrap_or(0) != 0 {
                continue;
            }
            if let Some(delta) = choice.delta {
                self.decode_delta(delta, out);
            }
            if let Some(reason) = choice.finish_reason.as_deref().and_then(finish_reason) {
                self.finish = Some(reason);
            }
        }
        if let Some(usage) = chunk.usage {
            let prompt = usage.prompt_tokens.unwrap_or(0);
            let completion = usage.completion_tokens.unwrap_or(0);
            out.push(StreamItem::Usage(Usage {
                prompt_tokens: prompt,
                completion_tokens: completion,
                total_tokens: usage.total_tokens.unwrap_or(prompt + completion),
                cached_tokens: usage.prompt_tokens_details.and_then(|d| d.cached_tokens),
            }));
        }
        Ok(())
    }

    fn decode_delta(&mut self, delta: Delta, out: &mut Vec<StreamItem>) {
        for thinking in [delta.reasoning_content, delta.reasoning] {
            if let Some(t) = thinking
                .as_ref()
                .and_then(text_of)
                .filter(|t| !t.is_empty())
            {
                out.push(StreamItem::Thinking(t));
            }
        }
        if let Some(t) = delta
            .content
            .as_ref()
            .and_then(text_of)
            .filter(|t| !t.is_empty())
        {
            out.push(StreamItem::Text(t));
        }
        for call in delta.tool_calls.unwrap_or_default() {
            let index = self.place(call.index, call.id.as_deref());
            let (name, arguments) = match call.function {
                Some(f) => (f.name, f.arguments),
                None => (None, None),
            };
            let arguments = match arguments {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s,
                // Some servers send the arguments as a JSON object.
                Some(other) => other.to_string(),
            };
            out.push(StreamItem::ToolCall(ToolCallDelta {
                index,
                id: call.id,
                name,
                arguments,
            }));
        }
    }

    /// The index of a tool-call piece: its own, else a new call when it carries a new id, else
    /// the latest call.
    fn place(&mut self, index: Option<u32>, id: Option<&str>) -> u32 {
        let index = match index {
            Some(i) => i,
            None => match (&self.last_call, id) {
                (Some((last, last_id)), Some(id)) if last_id.as_deref() != Some(id) => {
                    self.max_index.map_or(*last + 1, |m| m + 1)
                }
                (Some((last, _)), _) => *last,
                (None, _) => 0,
            },
        };
        let keep_id = match (&self.last_call, id) {
            (_, Some(id)) => Some(id.to_owned()),
            (Some((last, last_id)), None) if *last == index => last_id.clone(),
            _ => None,
        };
        self.last_call = Some((index, keep_id));
        self.max_index = Some(self.max_index.map_or(index, |m| m.max(index)));
        index
    }
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        // Content as a list of parts: join their texts.
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

/// The error carried by a `data: {"error": …}` line.
pub(crate) fn in_stream_error(error: &Value) -> ProviderError {
    match error {
        Value::String(message) => ProviderError::InStream {
            message: message.clone(),
            code: None,
        },
        Value::Object(map) => {
            let message = map
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            let code = ["code", "type"]
                .iter()
                .find_map(|k| map.get(*k).and_then(code_text));
            ProviderError::InStream { message, code }
        }
        other => ProviderError::InStream {
            message: other.to_string(),
            code: None,
        },
    }
}

fn code_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(decoder: &mut ChunkDecoder, json: &str) -> Vec<StreamItem> {
        let chunk: Chunk = serde_json::from_str(json).unwrap();
        let mut out = Vec::new();
        decoder.decode(chunk, &mut out).unwrap();
        out
    }

    #[test]
    fn pieces_without_index_are_placed_by_id() {
        let mut d = ChunkDecoder::default();
        let a = decode(
            &mut d,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"a","arguments":"{}"}}]}}]}"#,
        );
        let b = decode(
            &mut d,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"b","arguments":{"k":1}}}]}}]}"#,
        );
        let c = decode(
            &mut d,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":""}}]}}]}"#,
        );
        let index = |items: &[StreamItem]| match &items[0] {
            StreamItem::ToolCall(t) => (t.index, t.arguments.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(index(&a), (0, "{}".into()));
        assert_eq!(index(&b), (1, "{\"k\":1}".into()));
        assert_eq!(index(&c).0, 1);
    }

    #[test]
    fn nulls_floats_and_unknown_fields_are_tolerated() {
        let mut d = ChunkDecoder::default();
        let items = decode(
            &mut d,
            r#"{"created":1.5,"choices":[{"delta":{"content":null,"tool_calls":null,"reasoning_content":"hm","x":1},"finish_reason":"weird"}],"usage":null}"#,
        );
        assert_eq!(items, vec![StreamItem::Thinking("hm".into())]);
        assert_eq!(d.finish_reason(), Some(FinishReason::Other));
    }

    #[test]
    fn error_objects_become_errors() {
        let mut d = ChunkDecoder::default();
        let chunk: Chunk =
            serde_json::from_str(r#"{"error":{"message":"overloaded","type":"server_error"}}"#)
                .unwrap();
        let err = d.decode(chunk, &mut Vec::new()).unwrap_err();
        assert_eq!(err.to_string(), "model error in stream: overloaded");
        assert!(err.is_retryable());
    }
}
