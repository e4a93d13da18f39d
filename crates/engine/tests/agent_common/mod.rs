//! Shared helpers of the agent tests: temp workspaces, sessions on scripted models, event
//! collection and a stable text form of an event sequence for snapshots.

#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keel_engine::agent::AgentConfig;
use keel_engine::{
    AgentSession, ModelChain, Provider, ProviderError, RetryPolicy, Script, ScriptedProvider,
    StreamItem, StreamObserver,
};
use keel_events::{Bus, Emitter, Event, EventHandler, Sequencer};
use serde_json::Value;

/// Collects every event inline.
#[derive(Clone, Default)]
pub struct Collector(pub Arc<Mutex<Vec<Event>>>);

impl EventHandler for Collector {
    fn handle(&mut self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

impl Collector {
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().clone()
    }

    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

/// A [`StreamObserver`] keeping what it was shown: the items of the current attempt (a
/// discard forgets them) and the attempts discarded.
#[derive(Debug, Default)]
pub struct Recorder {
    pub items: Vec<StreamItem>,
    pub discards: Vec<u32>,
}

impl StreamObserver for Recorder {
    fn item(&mut self, item: &StreamItem) {
        self.items.push(item.clone());
    }

    fn discard(&mut self, attempt: u32, _error: &ProviderError) {
        self.discards.push(attempt);
        self.items.clear();
    }
}

/// Fast retries for tests.
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        initial_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        jitter: 0.0,
        ..RetryPolicy::default()
    }
}

/// A session on `root` with `provider` and the models `models`, its events collected.
pub fn session_with(
    root: &Path,
    provider: Arc<dyn Provider>,
    models: &[&str],
    tune: impl FnOnce(&mut AgentConfig),
) -> (AgentSession, Collector) {
    let mut config = AgentConfig::new(root, ModelChain::new(models.iter().copied()).unwrap());
    config.retry = fast_retry();
    tune(&mut config);
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let collector = Collector::default();
    emitter.bus().add_handler(collector.clone());
    let session = AgentSession::new(config, provider, emitter).unwrap();
    (session, collector)
}

/// A session replaying `script` (JSON) on `root`.
pub fn scripted(
    root: &Path,
    script: Value,
    tune: impl FnOnce(&mut AgentConfig),
) -> (AgentSession, Collector) {
    let provider = Arc::new(ScriptedProvider::new(
        Script::from_json(&script.to_string()).unwrap(),
    ));
    session_with(root, provider, &["scripted-model"], tune)
}

/// Payload keys whose values vary from run to run (times, random ids, token counts, command
/// output) and are left out of snapshots.
const VOLATILE: &[&str] = &[
    "duration_ms",
    "approval_id",
    "conversation_id",
    "tokens_used",
    "limit",
    "usage",
    "cumulative",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cached_tokens",
    "diff",
    "error_display",
    "delay_ms",
    "size",
    "mime_type",
    "message_count",
    // The rendered repo map's size follows the map renderer, not the engine.
    "tokens",
];

/// One line per event: its type and its stable payload fields. Consecutive deltas of one kind
/// are joined into one line; a tool's output is reduced to its stream.
///
/// Every run snapshotted through here is also a golden run of the timeline's phase order: it
/// fails when the projection of `events` enters a phase before the last one exited.
pub fn describe(events: &[Event]) -> String {
    let records: Vec<_> = events
        .iter()
        .flat_map(keel_events::projection::to_timeline_all)
        .collect();
    let violations = keel_events::projection::phase_order_violations(&records);
    assert!(violations.is_empty(), "phase order: {violations:#?}");
    let mut lines: Vec<String> = Vec::new();
    let mut delta: Option<(String, String, usize)> = None;
    for event in events {
        let ty = event.type_name();
        let kind = serde_json::to_value(&event.kind).unwrap();
        let mut payload = kind.get("payload").cloned().unwrap_or(Value::Null);
        if ty == "run.llm.delta" || ty == "run.thinking.delta" {
            let text = payload["text"].as_str().unwrap_or("").to_owned();
            match &mut delta {
                Some((t, all, n)) if t == ty => {
                    all.push_str(&text);
                    *n += 1;
                }
                _ => {
                    flush(&mut lines, delta.take());
                    delta = Some((ty.to_owned(), text, 1));
                }
            }
            continue;
        }
        flush(&mut lines, delta.take());
        if let Value::Object(map) = &mut payload {
            for key in VOLATILE {
                map.remove(*key);
            }
            match ty {
                "run.tool.end" | "run.thinking.end" => {
                    map.remove("result");
                }
                "run.tool.output" => {
                    map.remove("content");
                }
                "run.execution.start" | "run.execution.end" | "run.execution.fail" => {
                    map.remove("plan");
                }
                _ => {}
            }
        }
        let line = format!("{ty} {payload}");
        if ty == "run.tool.output" && lines.last() == Some(&line) {
            continue;
        }
        lines.push(line);
    }
    flush(&mut lines, delta.take());
    lines.join("\n")
}

fn flush(lines: &mut Vec<String>, delta: Option<(String, String, usize)>) {
    if let Some((ty, text, n)) = delta {
        lines.push(format!("{ty} ×{n} {}", Value::String(text)));
    }
}

/// The event types, in order.
pub fn types(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.type_name()).collect()
}

/// Checks that every assistant tool call of `messages` (OpenAI JSON shape) has exactly one
/// tool result after it and every tool result answers an earlier call.
pub fn assert_calls_and_results_pair(messages: &[Value]) {
    let mut pending: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        match message["role"].as_str() {
            Some("assistant") => {
                assert!(
                    pending.is_empty(),
                    "message {i}: calls {pending:?} have no result"
                );
                if let Some(calls) = message["tool_calls"].as_array() {
                    pending = calls
                        .iter()
                        .map(|c| c["id"].as_str().unwrap().to_owned())
                        .collect();
                }
            }
            Some("tool") => {
                let id = message["tool_call_id"].as_str().unwrap();
                let at = pending.iter().position(|p| p == id);
                assert!(at.is_some(), "message {i}: result for unknown call {id}");
                pending.remove(at.unwrap());
            }
            _ => assert!(
                pending.is_empty(),
                "message {i}: calls {pending:?} have no result"
            ),
        }
    }
}

/// The same check on a session's stored conversation.
pub fn assert_conversation_consistent(conversation: &keel_context::Conversation) {
    let messages: Vec<Value> = conversation
        .messages()
        .iter()
        .map(|m| match m {
            keel_context::Message::User { content, .. } => {
                serde_json::json!({"role": "user", "content": content})
            }
            keel_context::Message::Assistant { tool_calls, .. } => serde_json::json!({
                "role": "assistant",
                "tool_calls": tool_calls.iter().map(|c| serde_json::json!({"id": c.id})).collect::<Vec<_>>(),
            }),
            keel_context::Message::Tool(tool) => {
                serde_json::json!({"role": "tool", "tool_call_id": tool.tool_call_id})
            }
        })
        .collect();
    assert_calls_and_results_pair(&messages);
    if let Some(last) = messages.last() {
        assert!(
            last["tool_calls"].as_array().is_none_or(|c| c.is_empty()),
            "the conversation ends with unanswered calls"
        );
    }
}
