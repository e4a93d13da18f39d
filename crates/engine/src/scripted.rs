//! A provider that replays a script of model turns: for tests, demos and offline use.
//!
//! # Script format (JSON)
//!
//! ```json
//! {
//!   "chunk_chars": 12,
//!   "delay_ms": 0,
//!   "turns": [
//!     {
//!       "thinking": "I should read the file first.",
//!       "text": "Let me look at main.rs.",
//!       "tool_calls": [
//!         {"id": "call_1", "name": "read_file", "arguments": {"path": "src/main.rs"}}
//!       ]
//!     },
//!     {
//!       "when_tool_result_contains": "fn main",
//!       "text": "Done.",
//!       "finish_reason": "stop",
//!       "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
//!     },
//!     {"error": {"status": 503, "message": "overloaded", "retry_after_ms": 50}}
//!   ]
//! }
//! ```
//!
//! - `chunk_chars` (default 12): text, reasoning and argument texts are streamed in pieces of
//!   at most this many characters, so streaming paths are exercised.
//! - `delay_ms` (default 0): pause before each streamed item, for demos.
//! - `distill_memory` (default false): make the end-of-session memory distillation call, which
//!   consumes the next turn like any request (its `text` is the JSON answer). Off, a script
//!   lists only the turns of its task.
//! - `side_calls` (default false): make side calls (a turn's commit message, a pull request's
//!   title and description), each consuming the next turn (its `text` is the answer). Off, that
//!   text is written without the model.
//! - Each request consumes one turn. Turns are taken in order; a turn with
//!   `when_tool_result_contains` is used only when a tool result sent since the last assistant
//!   message contains that text, and is skipped for good otherwise. So a conditional turn is an
//!   optional branch: "if the tests failed, fix; then continue with the next turn".
//! - A turn's fields, all optional: `thinking`, `text`, `tool_calls` (`id` defaults to
//!   `call_<turn>_<n>`; `arguments` is a JSON value, or a string sent verbatim, which can be
//!   cut-off JSON to script a truncation), `finish_reason` (`stop`, `tool_calls`, `length`,
//!   `content_filter`, `truncated`; default `tool_calls` when the turn has tool calls, else
//!   `stop`), `usage` (default: about one token per four characters), and `error`
//!   (`{status, message, code?, retry_after_ms?}`: the request fails with that HTTP error,
//!   which consumes the turn — use it to script retries and fallbacks).
//! - A turn with `agent` is for the (sub)agent whose first user message contains that text
//!   (a `task` call's prompt): the first such request takes it, out of the order, so parallel
//!   subagents each get their own turns; the other turns skip it.
//! - When no turn is left the request fails with [`ProviderError::Script`].
//! - A session whose history outgrows its window asks the model for a summary (see
//!   `agent/compaction.rs`): that request takes the next turn like any other, so script its
//!   answer there (a failing one makes the extractive summary stand in).

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use futures::StreamExt;
use keel_events::{FinishReason, Usage};
use serde::Deserialize;

use crate::error::ProviderError;
use crate::provider::{ChatRequest, ItemStream, Provider, StreamItem, ToolCallDelta};
use keel_context::Role;

/// A parsed script; see the [module documentation](self) for the format.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Largest streamed piece, in characters.
    #[serde(default = "default_chunk_chars")]
    pub chunk_chars: usize,
    /// Pause before each streamed item, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
    /// Whether the session's end-of-session memory distillation call is made (and takes the
    /// next turn); off unless asked for, so a script lists only the turns of its task.
    #[serde(default)]
    pub distill_memory: bool,
    /// Whether side calls (a commit message, a pull request's text) are made (each takes the
    /// next turn); off unless asked for, so such text is then written without the model.
    #[serde(default)]
    pub side_calls: bool,
    /// The model turns, in order.
    pub turns: Vec<ScriptTurn>,
}

fn default_chunk_chars() -> usize {
    12
}

/// One scripted model response.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptTurn {
    /// Use this turn only when the latest tool results contain this text.
    #[serde(default)]
    pub when_tool_result_contains: Option<String>,
    /// A turn for the (sub)agent whose first user message contains this text: taken out of
    /// the order, by the first such request, whenever it comes (subagents run in parallel).
    #[serde(default)]
    pub agent: Option<String>,
    /// Reasoning text.
    #[serde(default)]
    pub thinking: Option<String>,
    /// Answer text.
    #[serde(default)]
    pub text: Option<String>,
    /// Tool calls.
    #[serde(default)]
    pub tool_calls: Vec<ScriptToolCall>,
    /// Finish reason (`stop`, `tool_calls`, `length`, `content_filter`, `truncated`).
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Token counts to report.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Fail the request with this error instead of answering.
    #[serde(default)]
    pub error: Option<ScriptError>,
}

/// A scripted tool call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptToolCall {
    /// Call id; defaults to `call_<turn>_<n>`.
    #[serde(default)]
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
    /// Arguments: a JSON value (sent as its JSON text) or a string sent verbatim.
    #[serde(default)]
    pub arguments: serde_json::Value,
}

/// A scripted HTTP failure.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptError {
    /// HTTP status.
    pub status: u16,
    /// Error message.
    pub message: String,
    /// Error code (`model_not_found`, …).
    #[serde(default)]
    pub code: Option<String>,
    /// Server-requested delay.
    #[serde(default)]
    pub retry_after_ms: Option<u64>,
}

impl Script {
    /// Parses a script from JSON text.
    pub fn from_json(text: &str) -> Result<Self, ProviderError> {
        let script: Script = serde_json::from_str(text)
            .map_err(|e| ProviderError::Script(format!("invalid script: {e}")))?;
        if script.chunk_chars == 0 {
            return Err(ProviderError::Script(
                "invalid script: chunk_chars must be at least 1".to_owned(),
            ));
        }
        Ok(script)
    }
}

/// The scripted [`Provider`].
#[derive(Debug)]
pub struct ScriptedProvider {
    script: Script,
    cursor: Mutex<usize>,
    /// The `agent` turns used so far.
    used: Mutex<Vec<usize>>,
}

impl ScriptedProvider {
    /// A provider replaying `script` from its first turn.
    pub fn new(script: Script) -> Self {
        Self {
            script,
            cursor: Mutex::new(0),
            used: Mutex::new(Vec::new()),
        }
    }

    /// A provider replaying the script in `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ProviderError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| ProviderError::Script(format!("cannot read {}: {e}", path.display())))?;
        Ok(Self::new(Script::from_json(&text)?))
    }

    /// Number of turns not yet consumed or skipped.
    pub fn remaining(&self) -> usize {
        let cursor = *self.lock();
        let used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        self.script
            .turns
            .iter()
            .enumerate()
            .filter(|(i, turn)| match turn.agent {
                Some(_) => !used.contains(i),
                None => *i >= cursor,
            })
            .count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.cursor.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Picks the next usable turn for `request` and advances past it.
    fn take_turn(&self, request: &ChatRequest) -> Result<(usize, ScriptTurn), ProviderError> {
        let results: Vec<&str> = request
            .messages
            .iter()
            .rev()
            .take_while(|m| m.role == Role::Tool)
            .map(|m| m.content.as_str())
            .collect();
        let first_user = request
            .messages
            .iter()
            .find(|m| m.role == Role::User)
            .map_or("", |m| m.content.as_str());
        {
            let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
            let found = self.script.turns.iter().enumerate().find(|(i, turn)| {
                turn.agent
                    .as_deref()
                    .is_some_and(|needle| first_user.contains(needle))
                    && !used.contains(i)
            });
            if let Some((index, turn)) = found {
                used.push(index);
                return Ok((index, turn.clone()));
            }
        }
        let mut cursor = self.lock();
        while let Some(turn) = self.script.turns.get(*cursor) {
            let index = *cursor;
            *cursor += 1;
            if turn.agent.is_some() {
                continue;
            }
            let usable = match &turn.when_tool_result_contains {
                None => true,
                Some(needle) => results.iter().any(|r| r.contains(needle.as_str())),
            };
            if usable {
                return Ok((index, turn.clone()));
            }
        }
        Err(ProviderError::Script(format!(
            "no scripted turn left ({} turns in the script)",
            self.script.turns.len()
        )))
    }
}

#[async_trait::async_trait]
impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn distills_memory(&self) -> bool {
        self.script.distill_memory
    }

    fn answers_side_calls(&self) -> bool {
        self.script.side_calls
    }

    async fn stream(&self, request: &ChatRequest) -> Result<ItemStream, ProviderError> {
        let (index, turn) = self.take_turn(request)?;
        if let Some(error) = turn.error {
            return Err(ProviderError::Http {
                status: error.status,
                message: error.message,
                code: error.code,
                retry_after: error.retry_after_ms.map(Duration::from_millis),
            });
        }
        let items = turn_items(index, &turn, request, self.script.chunk_chars);
        let delay = Duration::from_millis(self.script.delay_ms);
        if delay.is_zero() {
            return Ok(Box::pin(futures::stream::iter(items.into_iter().map(Ok))));
        }
        Ok(Box::pin(futures::stream::iter(items).then(
            move |item| async move {
                tokio::time::sleep(delay).await;
                Ok(item)
            },
        )))
    }
}

/// The items of one turn, text split into pieces of at most `chunk` characters.
fn turn_items(
    index: usize,
    turn: &ScriptTurn,
    request: &ChatRequest,
    chunk: usize,
) -> Vec<StreamItem> {
    let mut items = Vec::new();
    if let Some(thinking) = &turn.thinking {
        items.extend(pieces(thinking, chunk).map(StreamItem::Thinking));
    }
    if let Some(text) = &turn.text {
        items.extend(pieces(text, chunk).map(StreamItem::Text));
    }
    for (n, call) in turn.tool_calls.iter().enumerate() {
        let call_index = u32::try_from(n).unwrap_or(u32::MAX);
        let arguments = match &call.arguments {
            serde_json::Value::String(raw) => raw.clone(),
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        };
        items.push(StreamItem::ToolCall(ToolCallDelta {
            index: call_index,
            id: Some(
                call.id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}_{}", index + 1, n + 1)),
            ),
            name: Some(call.name.clone()),
            arguments: String::new(),
        }));
        items.extend(pieces(&arguments, chunk).map(|piece| {
            StreamItem::ToolCall(ToolCallDelta {
                index: call_index,
                id: None,
                name: None,
                arguments: piece,
            })
        }));
    }
    let usage = turn.usage.unwrap_or_else(|| estimate_usage(turn, request));
    items.push(StreamItem::Usage(usage));
    let finish = turn.finish_reason.unwrap_or(if turn.tool_calls.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    });
    items.push(StreamItem::Finish(finish));
    items
}

fn pieces(text: &str, chunk: usize) -> impl Iterator<Item = String> + '_ {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = rest
            .char_indices()
            .nth(chunk)
            .map_or(rest.len(), |(i, _)| i);
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece.to_owned())
    })
}

fn estimate_usage(turn: &ScriptTurn, request: &ChatRequest) -> Usage {
    let prompt_chars: usize = request.messages.iter().map(|m| m.content.len()).sum();
    let completion_chars = turn.text.as_ref().map_or(0, String::len)
        + turn.thinking.as_ref().map_or(0, String::len)
        + turn
            .tool_calls
            .iter()
            .map(|c| c.name.len() + c.arguments.to_string().len())
            .sum::<usize>();
    let prompt = (prompt_chars as u64).div_ceil(4);
    let completion = (completion_chars as u64).div_ceil(4);
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        cached_tokens: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_respect_char_boundaries() {
        let p: Vec<String> = pieces("héllo wörld", 3).collect();
        assert_eq!(p, vec!["hél", "lo ", "wör", "ld"]);
        assert_eq!(pieces("", 3).count(), 0);
    }

    #[test]
    fn bad_scripts_are_errors() {
        assert!(Script::from_json("{\"turns\": [{\"txt\": 1}]}").is_err());
        assert!(Script::from_json("{\"chunk_chars\": 0, \"turns\": []}").is_err());
    }
}
