//! The context window a prompt is fitted to: `AgentConfig::context_window` (keel.toml's
//! `context_window`) beats the window the server reports, which beats the built-in table. The
//! server is asked once per session, and a server that does not say leaves the table's.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_engine::{OpenAiConfig, OpenAiProvider};
use keel_events::{AgentStatus, Event, EventKind, LogLevel};
use keel_protocol::Mode;
use keel_test_support::sample_project;
use support::*;

/// Runs one turn of two model calls (a tool call, then an answer) against a server that
/// reports `info`; returns the `run.context.window` limits, the events and the server.
async fn limits(
    model: &str,
    info: ServerInfo,
    configured: Option<u64>,
) -> (Vec<u64>, Vec<Event>, MockServer) {
    let ws = sample_project();
    let server = MockServer::start_with(info, |n, _| match n {
        0 => Reply::Sse(vec![
            role(),
            tool_start(0, "call_1", "list_files"),
            tool_args(0, "{\"path\": \".\"}"),
            finish("tool_calls"),
            done(),
        ]),
        _ => text_answer(&["Done."]),
    })
    .await;
    let provider =
        Arc::new(OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", model)).unwrap());
    let (mut session, collector) = session_with(ws.path(), provider, &[model], |c| {
        c.mode = Mode::Direct;
        c.context_window = configured;
    });
    let outcome = session.run_turn("List the files").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let events = collector.events();
    let limits = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunContextWindow(w) => Some(w.limit),
            _ => None,
        })
        .collect();
    (limits, events, server)
}

/// The info logs about the context window (a small window also brings the compact profile's
/// logs, which are not what these tests are about).
fn info_logs(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log)
                if log.level == LogLevel::Info && log.message.starts_with("context window") =>
            {
                Some(log.message.clone())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_servers_window_beats_the_table_and_is_asked_once() {
    // llama.cpp: /props n_ctx.
    let (limits_seen, events, server) = limits(
        "qwen2.5-coder-7b",
        ServerInfo::llama_cpp("qwen2.5-coder-7b", 8192),
        None,
    )
    .await;
    assert_eq!(limits_seen, [8192, 8192]);
    assert_eq!(
        info_logs(&events),
        [
            "context window of qwen2.5-coder-7b: 8192 tokens, as the server reports (llama.cpp /props default_generation_settings.n_ctx)"
        ]
    );
    // Asked once for two model calls: four routes at once, at the start.
    let mut asked = server.info_requests();
    asked.sort();
    assert_eq!(
        asked,
        [
            "GET /api/ps",
            "GET /props",
            "GET /v1/models",
            "POST /api/show"
        ]
    );

    // vLLM: /v1/models max_model_len.
    let (limits_seen, _, _) = limits(
        "Qwen/Qwen2.5-Coder-32B-Instruct",
        ServerInfo::vllm("Qwen/Qwen2.5-Coder-32B-Instruct", 16384),
        None,
    )
    .await;
    assert_eq!(limits_seen, [16384, 16384]);

    // Ollama: /api/show num_ctx beats the model's own maximum.
    let (limits_seen, _, _) = limits(
        "qwen2.5-coder:7b",
        ServerInfo::ollama("qwen2.5-coder:7b", 32768, Some(12288)),
        None,
    )
    .await;
    assert_eq!(limits_seen, [12288, 12288]);
    let (limits_seen, _, _) = limits(
        "qwen2.5-coder:7b",
        ServerInfo::ollama("qwen2.5-coder:7b", 32768, None),
        None,
    )
    .await;
    assert_eq!(limits_seen, [32768, 32768]);
}

#[tokio::test]
async fn the_configured_window_beats_the_servers_and_skips_the_question() {
    let (limits_seen, events, server) = limits(
        "qwen2.5-coder-7b",
        ServerInfo::llama_cpp("qwen2.5-coder-7b", 8192),
        Some(6000),
    )
    .await;
    assert_eq!(limits_seen, [6000, 6000]);
    assert!(info_logs(&events).is_empty());
    assert!(server.info_requests().is_empty());
}

#[tokio::test]
async fn a_server_that_does_not_say_leaves_the_table() {
    // Nothing but chat completions: the table's window (gpt-4o: 128k; an unknown model: the
    // default).
    let (limits_seen, events, _) = limits("gpt-4o", ServerInfo::default(), None).await;
    assert_eq!(limits_seen, [128_000, 128_000]);
    assert!(info_logs(&events).is_empty());
    let (limits_seen, _, _) = limits("gpt-4-0613", ServerInfo::default(), None).await;
    assert_eq!(limits_seen, [8_192, 8_192]);
    // A listed model without a window.
    let listed = ServerInfo {
        models: Some(vec![serde_json::json!({"id": "gpt-4-0613"})]),
        ..ServerInfo::default()
    };
    let (limits_seen, _, _) = limits("gpt-4-0613", listed, None).await;
    assert_eq!(limits_seen, [8_192, 8_192]);
}
