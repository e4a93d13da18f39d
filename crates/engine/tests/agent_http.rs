//! One full direct turn over real HTTP against the mock OpenAI server: every request the
//! server receives pairs each tool call with exactly one result.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_engine::{OpenAiConfig, OpenAiProvider};
use keel_events::AgentStatus;
use keel_protocol::Mode;
use keel_test_support::sample_project;
use support::*;

fn diff() -> String {
    "<<<<<<< SEARCH\n    return sum(values) / (len(values) - 1)\n=======\n    return sum(values) / len(values)\n>>>>>>> REPLACE".to_owned()
}

#[tokio::test]
async fn direct_turn_over_http_keeps_calls_and_results_paired() {
    let ws = sample_project();
    let edit_args = serde_json::json!({"path": "calc/stats.py", "diff": diff()}).to_string();
    let (first_half, second_half) = edit_args.split_at(edit_args.len() / 2);
    let server = MockServer::sequence(vec![
        Reply::Sse(vec![
            role(),
            reasoning("Read it first."),
            content("Reading."),
            tool_start(0, "call_a", "read_file"),
            tool_args(0, "{\"path\": \"calc/"),
            tool_args(0, "stats.py\"}"),
            finish("tool_calls"),
            usage(100, 10),
            done(),
        ]),
        Reply::Sse(vec![
            role(),
            tool_start(0, "call_b", "replace_in_file"),
            tool_start(1, "call_c", "list_files"),
            tool_args(0, first_half),
            tool_args(1, "{\"path\": \"tests\"}"),
            tool_args(0, second_half),
            finish("tool_calls"),
            usage(200, 20),
            done(),
        ]),
        text_answer(&["Fixed ", "mean()."]),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(
            &server.base_url,
            "test-key",
            "mock-model",
        ))
        .unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
    });
    let outcome = session.run_turn("Fix mean()").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "Fixed mean().");
    assert_eq!(outcome.usage.total_tokens, 110 + 220 + 12);

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.authorization.as_deref(), Some("Bearer test-key"));
        let messages = request.body["messages"].as_array().unwrap();
        assert_calls_and_results_pair(messages);
        let tools: Vec<&str> = request.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert!(tools.contains(&"attempt_completion") && !tools.contains(&"create_plan"));
    }
    // The read result is complete the first time it is returned…
    let second = requests[1].body["messages"].as_array().unwrap();
    let read = second
        .iter()
        .find(|m| m["tool_call_id"] == "call_a")
        .unwrap();
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .contains("def mean(values)")
    );
    // …and stays so: every request of the turn repeats the previous one and adds to it, so a
    // provider's prompt cache reuses it (the edit's result shows the change).
    let third = requests[2].body["messages"].as_array().unwrap();
    assert_eq!(second[..], third[..second.len()]);
    let first = requests[0].body["messages"].as_array().unwrap();
    assert_eq!(first[..], second[..first.len()]);
    assert!(
        third
            .iter()
            .filter_map(|m| m["content"].as_str())
            .any(|c| c.contains("return sum(values) / len(values)"))
    );
    assert_conversation_consistent(session.conversation());
    let types = types(&collector.events());
    assert_eq!(types.iter().filter(|t| **t == "run.tool.end").count(), 3);
    assert!(types.contains(&"run.thinking.end"));
}

#[tokio::test]
async fn a_dropped_stream_is_retried_discarded_and_its_tools_never_run() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![
        // The first attempt streams a complete-looking tool call, then the connection drops.
        Reply::Sse(vec![
            role(),
            content("Creating it."),
            tool_start(0, "call_x", "write_file"),
            tool_args(0, "{\"path\": \"once.txt\", \"content\": \"x\"}"),
            Frame::Sleep(std::time::Duration::from_millis(100)),
            Frame::Drop,
        ]),
        Reply::Sse(vec![
            role(),
            content("Creating it."),
            tool_start(0, "call_y", "write_file"),
            tool_args(0, "{\"path\": \"once.txt\", \"content\": \"y\"}"),
            finish("tool_calls"),
            usage(10, 5),
            done(),
        ]),
        text_answer(&["Created."]),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |_| {});
    let outcome = session.run_turn("Create once.txt").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(
        std::fs::read_to_string(ws.path().join("once.txt")).unwrap(),
        "y"
    );
    let events = collector.events();
    let starts: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            keel_events::EventKind::RunToolStart(s) => Some(s.call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(starts, ["call_y"]);
    assert!(events.iter().any(|e| matches!(&e.kind,
        keel_events::EventKind::SystemLog(log) if log.message.contains("discarded"))));
    assert!(types(&events).contains(&"run.llm.retry"));
    for request in server.requests() {
        assert_calls_and_results_pair(request.body["messages"].as_array().unwrap());
    }
}

/// Seed 001's thinking events from the engine: a reasoning block cut off by a dropped stream
/// ends with `run.thinking.fail{error_message}` before the retry; the retried call's reasoning
/// opens again, both as the turn's first (`is_initial`), neither forced (direct mode).
#[tokio::test]
async fn reasoning_cut_off_by_a_dropped_stream_fails_its_thinking_block() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![
        Reply::Sse(vec![
            role(),
            reasoning("The user wants a file; "),
            Frame::Sleep(std::time::Duration::from_millis(50)),
            Frame::Drop,
        ]),
        Reply::Sse(vec![
            role(),
            reasoning("The user wants a greeting."),
            content("Hello."),
            finish("stop"),
            usage(10, 5),
            done(),
        ]),
        Reply::Sse(vec![
            role(),
            reasoning("Again a greeting."),
            content("Hello again."),
            finish("stop"),
            usage(10, 5),
            done(),
        ]),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |_| {});
    let outcome = session.run_turn("Say hello").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let events = collector.events();
    let thinking: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            keel_events::EventKind::RunThinkingStart(s) => Some(format!(
                "start initial={} forced={}",
                s.is_initial, s.is_forced
            )),
            keel_events::EventKind::RunThinkingFail(f) => Some(format!("fail {}", f.error_message)),
            keel_events::EventKind::RunThinkingEnd(e) => Some(format!("end {}", e.result)),
            keel_events::EventKind::RunLlmRetry(_) => Some("retry".to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking.len(), 5, "{thinking:?}");
    assert_eq!(thinking[0], "start initial=true forced=false");
    assert!(thinking[1].starts_with("fail "), "{thinking:?}");
    assert!(thinking[1].len() > "fail ".len(), "the error is named");
    assert_eq!(thinking[2], "retry");
    assert_eq!(thinking[3], "start initial=true forced=false");
    assert_eq!(thinking[4], "end The user wants a greeting.");

    // The next turn's first call is its initial one too.
    collector.clear();
    session.run_turn("Say hello again").await;
    let starts: Vec<bool> = collector
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            keel_events::EventKind::RunThinkingStart(s) => Some(s.is_initial),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [true]);
}

/// One streamed answer calling tool `name` with `args`.
fn call(id: &str, name: &str, args: serde_json::Value) -> Reply {
    Reply::Sse(vec![
        role(),
        tool_start(0, id, name),
        tool_args(0, &args.to_string()),
        finish("tool_calls"),
        usage(100, 10),
        done(),
    ])
}

/// Seed 002 §3.2.1 under the Chinese locale: the next turn's history repeats a read and a
/// write of focused files as the seed's own references, produced by the real tools and the
/// real prompt builder.
#[tokio::test]
async fn history_references_are_seed_002s_words_under_the_chinese_locale() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![
        call(
            "r",
            "read_file",
            serde_json::json!({"path": "calc/stats.py"}),
        ),
        call(
            "w",
            "write_file",
            serde_json::json!({"path": "notes.txt", "content": "均值已修复\n"}),
        ),
        text_answer(&["好了。"]),
        text_answer(&["没有别的了。"]),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, _collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
        c.lang = keel_events::Lang::ZhCn;
    });
    let first = session
        .run_turn("读一下 calc/stats.py，写个 notes.txt")
        .await;
    assert_eq!(first.status, AgentStatus::Completed, "{}", first.result);
    let second = session.run_turn("还有吗？").await;
    assert_eq!(second.status, AgentStatus::Completed, "{}", second.result);

    let requests = server.requests();
    let history: Vec<&str> = requests[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(
        history,
        [
            "[已读取 calc/stats.py，完整内容见 focused_files]",
            "[已写入 notes.txt，操作成功]"
        ]
    );
}
