//! Tool calls that a local server returned as text, played over real HTTP from the stream
//! fixtures in `tests/fixtures/text-tool-calls/` (one per template format): each becomes the
//! same `run.tool.start` as the native call, runs, and goes back to the server as a native call
//! with its result. Prose that quotes a call stays the answer.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_engine::{OpenAiConfig, OpenAiProvider};
use keel_events::{AgentStatus, Event, EventKind, FinishReason, ToolStatus};
use keel_protocol::Mode;
use keel_test_support::sample_project;
use serde_json::{Value, json};
use support::*;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/text-tool-calls/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One direct turn whose first answer is the fixture `name` and whose second is "Done.".
async fn turn(name: &str) -> (Vec<Event>, Vec<Recorded>, keel_engine::TurnOutcome) {
    let ws = sample_project();
    let server =
        MockServer::sequence(vec![recorded(&fixture(name)), text_answer(&["Done."])]).await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "local-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["local-model"], |c| {
        c.mode = Mode::Direct;
    });
    let outcome = session.run_turn("What is wrong with mean()?").await;
    assert_conversation_consistent(session.conversation());
    (collector.events(), server.requests(), outcome)
}

/// The `run.tool.start` payloads without their call ids, and checks that each call ended
/// successfully under the same id.
fn tool_starts(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolStart(start) => {
                let end = events.iter().find_map(|e| match &e.kind {
                    EventKind::RunToolEnd(end) if end.call_id == start.call_id => Some(end),
                    _ => None,
                });
                assert_eq!(
                    end.map(|e| e.status),
                    Some(ToolStatus::Success),
                    "{start:?}"
                );
                let mut payload = serde_json::to_value(start).unwrap();
                payload.as_object_mut().unwrap().remove("call_id");
                Some(payload)
            }
            _ => None,
        })
        .collect()
}

fn streamed_text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunLlmDelta(d) => Some(d.text.as_str()),
            _ => None,
        })
        .collect()
}

fn thinking(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunThinkingEnd(end) => Some(end.result.clone()),
            _ => None,
        })
        .collect()
}

const TEXT_FORMATS: [&str; 7] = [
    "hermes-qwen2.5-ollama.sse",
    "hermes-qwen3-think-llamacpp.sse",
    "llama3.1-python-tag-vllm.sse",
    "llama3.2-json-ollama.sse",
    "mistral-nemo-llamacpp.sse",
    "deepseek-r1-vllm.sse",
    "fenced-json-ollama.sse",
];

#[tokio::test]
async fn every_text_format_gives_the_native_calls_run_tool_start() {
    let (native_events, _, native) = turn("native-vllm.sse").await;
    assert_eq!(native.status, AgentStatus::Completed, "{}", native.result);
    let expected = tool_starts(&native_events);
    assert_eq!(
        expected,
        [json!({"tool_name": "read_file", "arguments": {"path": "calc/stats.py"}})]
    );

    for name in TEXT_FORMATS {
        let (events, requests, outcome) = turn(name).await;
        assert_eq!(
            outcome.status,
            AgentStatus::Completed,
            "{name}: {}",
            outcome.result
        );
        assert_eq!(outcome.result, "Done.", "{name}");
        assert_eq!(tool_starts(&events), expected, "{name}");

        // The call's markup never reached the answer text.
        assert_eq!(streamed_text(&events), "Done.", "{name}");
        let end = events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::RunLlmEnd(end) => Some(end.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(end.llm_output, "", "{name}");
        assert_eq!(end.finish_reason, FinishReason::ToolCalls, "{name}");
        assert_eq!(end.tool_calls.len(), 1, "{name}");

        // The call went back to the server as a native call with its result.
        assert_eq!(requests.len(), 2, "{name}");
        let messages = requests[1].body["messages"].as_array().unwrap();
        assert_calls_and_results_pair(messages);
        let n = messages.len();
        assert_eq!(messages[n - 2]["role"], "assistant", "{name}");
        assert_eq!(
            messages[n - 2]["tool_calls"][0]["function"]["name"],
            "read_file",
            "{name}"
        );
        assert_eq!(messages[n - 1]["role"], "tool", "{name}");
        assert!(
            messages[n - 1]["content"]
                .as_str()
                .unwrap()
                .contains("def mean(values)"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn reasoning_from_think_blocks_and_reasoning_fields_is_thinking() {
    for (name, expected) in [
        (
            "hermes-qwen3-think-llamacpp.sse",
            "\nThe user wants mean() fixed. I should read calc/stats.py first.\n",
        ),
        (
            "deepseek-r1-vllm.sse",
            "The divisor looks wrong; read the module first.",
        ),
        ("fenced-json-ollama.sse", "Need to read the file."),
    ] {
        let (events, _, _) = turn(name).await;
        assert_eq!(thinking(&events), [expected], "{name}");
        let types = types(&events);
        assert!(
            types.contains(&"run.thinking.start") && types.contains(&"run.thinking.delta"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn prose_that_quotes_a_call_is_the_answer() {
    for (name, answer) in [
        (
            "prose-fenced-json-ollama.sse",
            "You would call it like this:\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"calc/stats.py\"}}\n```\n\nNo call is needed here.",
        ),
        (
            "prose-bare-json-ollama.sse",
            "{\"name\": \"read_file\", \"parameters\": {\"path\": \"calc/stats.py\"}} is the call the task describes.",
        ),
    ] {
        let (events, requests, outcome) = turn(name).await;
        assert_eq!(outcome.status, AgentStatus::Completed, "{name}");
        assert_eq!(outcome.result, answer, "{name}");
        assert!(tool_starts(&events).is_empty(), "{name}");
        assert_eq!(streamed_text(&events), answer, "{name}");
        assert_eq!(requests.len(), 1, "{name}");
    }
}

#[tokio::test]
async fn a_request_without_tools_has_its_text_left_alone() {
    // The XML format sends no tools: a Hermes block in the text is not a call there, and
    // the <think> block is still reasoning.
    let ws = sample_project();
    let server = MockServer::sequence(vec![text_answer(&[
        "<think>Nothing to run.</think>",
        "<tool_call>{\"name\": \"read_file\", \"arguments\": {}}</tool_call>",
    ])])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "local-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["local-model"], |c| {
        c.mode = Mode::Direct;
        c.tool_format = keel_engine::ToolFormat::Xml;
    });
    let outcome = session.run_turn("Say something").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(
        outcome.result,
        "<tool_call>{\"name\": \"read_file\", \"arguments\": {}}</tool_call>"
    );
    assert_eq!(thinking(&collector.events()), ["Nothing to run."]);
}
