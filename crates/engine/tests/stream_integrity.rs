//! Streams that never lie, over real HTTP against the mock OpenAI server with injected faults:
//! an attempt that ends without a finish reason or carries an undecodable chunk is discarded
//! whole and retried — once, the turn recovers with only the good attempt in history; always,
//! the turn fails (`system.error` provider, `agent.end` failed) with nothing of it in history.
//! An answer cut at the output limit is continued (text) or never run (a tool call).

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_context::Message;
use keel_engine::{AgentSession, OpenAiConfig, OpenAiProvider, TurnOutcome};
use keel_events::{AgentStatus, Event, EventKind, FinishReason, ToolStatus};
use keel_protocol::Mode;
use keel_test_support::sample_project;
use keel_test_support::stream_faults::{Fault, Times, faulty};
use serde_json::{Value, json};
use support::*;

/// The arguments the read call streams, in two pieces.
const READ_ARGS: [&str; 2] = ["{\"path\": \"cal", "c/stats.py\"}"];

/// A `read_file` call of `calc/stats.py`, its arguments in two pieces (a half chunk hits the
/// first, as in the issue: the call would arrive as `c/stats.py"}`).
fn read_call() -> Reply {
    Reply::Sse(vec![
        role(),
        tool_start(0, "call_read", "read_file"),
        tool_args(0, READ_ARGS[0]),
        tool_args(0, READ_ARGS[1]),
        finish("tool_calls"),
        usage(50, 5),
        done(),
    ])
}

/// A turn of a direct-mode session against `server`, its events and the session.
async fn turn(server: &MockServer, task: &str) -> (TurnOutcome, Vec<Event>, AgentSession) {
    let ws = sample_project();
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
    });
    let outcome = session.run_turn(task).await;
    (outcome, collector.events(), session)
}

fn tool_starts(events: &[Event]) -> Vec<(String, Value)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolStart(s) => Some((s.tool_name.clone(), s.arguments.clone())),
            _ => None,
        })
        .collect()
}

fn finish_reasons(events: &[Event]) -> Vec<FinishReason> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunLlmEnd(end) => Some(end.finish_reason),
            _ => None,
        })
        .collect()
}

fn count(events: &[Event], ty: &str) -> usize {
    types(events).iter().filter(|t| **t == ty).count()
}

fn assistant_messages(session: &AgentSession) -> Vec<Message> {
    session
        .conversation()
        .messages()
        .iter()
        .filter(|m| matches!(m, Message::Assistant { .. }))
        .cloned()
        .collect()
}

/// The fault hits the first attempt only: the retry's read runs once, with its whole
/// arguments, and history holds only the good attempt.
async fn recovers_once(fault: Fault) {
    let server = MockServer::start(faulty(
        fault,
        Times::Once,
        vec![read_call(), text_answer(&["It computes ", "a mean."])],
    ))
    .await;
    let (outcome, events, session) = turn(&server, "What does stats.py do?").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "It computes a mean.");
    assert_eq!(server.requests().len(), 3);

    assert_eq!(
        tool_starts(&events),
        [("read_file".to_owned(), json!({"path": "calc/stats.py"}))]
    );
    assert_eq!(count(&events, "run.llm.retry"), 1);
    assert_eq!(count(&events, "system.error"), 0);
    assert_eq!(
        finish_reasons(&events),
        [FinishReason::ToolCalls, FinishReason::Stop]
    );

    let assistant = assistant_messages(&session);
    assert_eq!(assistant.len(), 2, "{assistant:#?}");
    let calls = assistant[0].tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "call_read");
    assert_eq!(calls[0].arguments, READ_ARGS.concat());
    assert_eq!(assistant[1].content(), "It computes a mean.");
    assert_conversation_consistent(session.conversation());
    for request in server.requests() {
        assert_calls_and_results_pair(request.body["messages"].as_array().unwrap());
    }
}

/// Every attempt has the fault: the turn fails with a provider error in words, no tool runs,
/// and nothing of any attempt is in history.
async fn fails_always(fault: Fault, reply: Reply, reason: &str) {
    let server = MockServer::start(faulty(fault, Times::Always, vec![reply])).await;
    let (outcome, events, session) = turn(&server, "What does stats.py do?").await;
    assert_eq!(outcome.status, AgentStatus::Failed, "{}", outcome.result);
    assert!(
        outcome
            .result
            .starts_with("the model call failed: gave up after 3 attempts: "),
        "{}",
        outcome.result
    );
    // fast_retry: three attempts, two retries.
    assert_eq!(server.requests().len(), 3);
    assert_eq!(count(&events, "run.llm.retry"), 2);
    assert!(tool_starts(&events).is_empty());
    assert_eq!(count(&events, "run.llm.end"), 0);

    let errors: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemError(error) => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].error_type, "provider");
    assert!(errors[0].error.contains(reason), "{}", errors[0].error);
    let end = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::AgentEnd(end) => Some(end.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.status, AgentStatus::Failed);

    assert!(
        assistant_messages(&session).is_empty(),
        "{:#?}",
        session.conversation().messages()
    );
    assert_conversation_consistent(session.conversation());
}

/// Where an attempt streamed text before it broke, consumers are told before anything else
/// happens: a discard warning, then the retry.
fn assert_discard_precedes_retry(events: &[Event]) {
    let ty = types(events);
    let delta = ty.iter().position(|t| *t == "run.llm.delta").unwrap();
    let discard = events
        .iter()
        .position(|e| {
            matches!(&e.kind, EventKind::SystemLog(log) if log.message.contains("was discarded"))
        })
        .unwrap();
    let retry = ty.iter().position(|t| *t == "run.llm.retry").unwrap();
    assert!(delta < discard && discard < retry, "{ty:?}");
}

#[tokio::test]
async fn a_stream_cut_before_its_finish_reason_once_is_retried() {
    recovers_once(Fault::CutBeforeFinish).await;
}

#[tokio::test]
async fn done_before_the_finish_reason_once_is_retried() {
    recovers_once(Fault::DoneBeforeFinish).await;
}

#[tokio::test]
async fn a_half_chunk_once_is_retried_and_no_argument_piece_is_lost() {
    recovers_once(Fault::HalfChunk).await;
}

#[tokio::test]
async fn a_stream_always_cut_before_its_finish_reason_fails_the_turn() {
    // The "LLMock " answer: a cut-off word must never become the turn's answer.
    fails_always(
        Fault::CutBeforeFinish,
        text_answer(&["LLMock "]),
        "the stream closed without a finish reason after 7 characters of text",
    )
    .await;
}

#[tokio::test]
async fn a_tool_call_always_cut_before_its_finish_reason_never_runs() {
    fails_always(
        Fault::DoneBeforeFinish,
        read_call(),
        "the response ended before the model finished",
    )
    .await;
}

#[tokio::test]
async fn a_half_chunk_always_fails_the_turn() {
    fails_always(Fault::HalfChunk, read_call(), "a chunk is not valid JSON").await;
}

#[tokio::test]
async fn text_of_a_broken_attempt_is_discarded_before_the_retry() {
    let server = MockServer::start(faulty(
        Fault::CutBeforeFinish,
        Times::Once,
        vec![text_answer(&["LLMock ", "is a mock."])],
    ))
    .await;
    let (outcome, events, session) = turn(&server, "Who are you?").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "LLMock is a mock.");
    assert_discard_precedes_retry(&events);
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunLlmEnd(end) => Some(end.llm_output.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ends, ["LLMock is a mock."]);
    let assistant = assistant_messages(&session);
    assert_eq!(assistant.len(), 1);
    assert_eq!(assistant[0].content(), "LLMock is a mock.");
}

#[tokio::test]
async fn a_text_answer_cut_at_the_output_limit_is_continued() {
    let server = MockServer::start(faulty(
        Fault::Length,
        Times::Once,
        vec![
            text_answer(&["The mean ", "divides by "]),
            text_answer(&["len(values)."]),
        ],
    ))
    .await;
    let (outcome, events, session) = turn(&server, "How is the mean computed?").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "The mean len(values).");
    assert_eq!(
        finish_reasons(&events),
        [FinishReason::Length, FinishReason::Stop]
    );
    assert_eq!(count(&events, "run.llm.retry"), 0);
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::SystemLog(log) if log.message.contains("continue it (1 of 3)"))));

    // The continuation request: the prompt, the answer so far, the request to continue.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(
        messages[n - 2],
        json!({"role": "assistant", "content": "The mean "})
    );
    assert_eq!(messages[n - 1]["role"], "user");
    assert!(
        messages[n - 1]["content"]
            .as_str()
            .unwrap()
            .contains("cut off at the output token limit")
    );
    assert_eq!(
        requests[0].body["messages"].as_array().unwrap().len(),
        n - 2
    );

    // History: one assistant message with the whole answer, no request to continue.
    let history = session.conversation().messages();
    assert_eq!(history.len(), 2, "{history:#?}");
    assert_eq!(history[1].content(), "The mean len(values).");
}

#[tokio::test]
async fn an_answer_always_cut_at_the_output_limit_fails_after_three_continuations() {
    let replies = (0..4)
        .map(|n| text_answer(&[&format!("part {n} "), "never sent"]))
        .collect();
    let server = MockServer::start(faulty(Fault::Length, Times::Always, replies)).await;
    let (outcome, events, session) = turn(&server, "Write a long essay").await;
    assert_eq!(outcome.status, AgentStatus::Failed, "{}", outcome.result);
    assert_eq!(server.requests().len(), 4);
    assert_eq!(finish_reasons(&events), [FinishReason::Length; 4]);
    let error = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SystemError(error) => Some(error.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(error.error_type, "provider");
    assert_eq!(
        error.error,
        "the answer was cut off at the output token limit: the answer was still unfinished after 3 continuations (28 characters)"
    );
    assert!(assistant_messages(&session).is_empty());
}

#[tokio::test]
async fn a_tool_call_cut_at_the_output_limit_never_runs() {
    let write = || {
        Reply::Sse(vec![
            role(),
            tool_start(0, "call_w", "write_file"),
            tool_args(0, "{\"path\": \"new.txt\", "),
            tool_args(0, "\"content\": \"hello\"}"),
            finish("tool_calls"),
            done(),
        ])
    };
    let server = MockServer::start(faulty(
        Fault::Length,
        Times::Once,
        vec![write(), write(), text_answer(&["Written."])],
    ))
    .await;
    let ws = sample_project();
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
    });
    let outcome = session.run_turn("Write new.txt").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let events = collector.events();
    assert_eq!(
        finish_reasons(&events),
        [
            FinishReason::Length,
            FinishReason::ToolCalls,
            FinishReason::Stop
        ]
    );
    // The cut call is reported as not run, and told to the model; the complete one runs.
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) => Some((end.status, end.result.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[0].0, ToolStatus::Error);
    assert!(
        ends[0].1.contains("arguments were cut off"),
        "{}",
        ends[0].1
    );
    assert_eq!(ends[1].0, ToolStatus::Success);
    assert_eq!(
        std::fs::read_to_string(ws.path().join("new.txt")).unwrap(),
        "hello"
    );
    // History never holds the cut arguments.
    for message in session.conversation().messages() {
        for call in message.tool_calls() {
            assert!(
                serde_json::from_str::<Value>(&call.arguments).is_ok(),
                "{call:?}"
            );
        }
    }
    assert_conversation_consistent(session.conversation());
}
