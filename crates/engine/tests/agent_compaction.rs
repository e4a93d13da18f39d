//! Compaction written by the model, over real HTTP against the mock OpenAI server: a long
//! session crosses a small window, the model is asked for the summary (no tools, a bounded
//! prompt) and its summary is in every later prompt; every request fits the window; when the
//! summary call fails the extractive summary stands in and the event says so; a turn cancelled
//! during the summary call leaves history as it was.

use crate::agent_common;
use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_common::*;
use keel_context::TokenCounter;
use keel_context::summarizer::SUMMARY_INSTRUCTIONS;
use keel_engine::{AgentSession, OpenAiConfig, OpenAiProvider};
use keel_events::{AgentStatus, EventKind, RunContextCompress, SummarizerKind, Usage};
use keel_protocol::Mode;
use serde_json::{Value, json};
use support::*;
use tokio_util::sync::CancellationToken;

/// The window the session runs in: small, so a 40-turn session crosses it twice (it counts the
/// tool definitions too, so it grows with them).
const WINDOW: u64 = 10_500;

/// Tokens the mock reports for each summary call.
const SUMMARY_USAGE: (u64, u64) = (777, 55);

/// How the mock answers the summary requests.
#[derive(Clone, Copy, PartialEq)]
enum SummaryCall {
    /// With a summary naming its number (`MODEL-SUMMARY-1`, …).
    Answer,
    /// With HTTP 500.
    Fail,
    /// Cancels the turn, then answers after a long pause.
    CancelTurn,
}

/// Whether a recorded request is a summary request: the summariser's instructions, no tools.
fn is_summary_request(body: &Value) -> bool {
    body["messages"][0]["content"].as_str() == Some(SUMMARY_INSTRUCTIONS)
        && body["tools"].as_array().is_none_or(Vec::is_empty)
}

/// The number in `Turn N:` of the latest user message.
fn turn_number(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .filter(|m| m["role"] == "user")
        .find_map(|m| {
            let text = m["content"].as_str()?;
            text.strip_prefix("Turn ")?.split(':').next()?.parse().ok()
        })
        .unwrap()
}

/// The mock model: each turn reads its note (a ranged read, so nothing is focused) and then
/// answers at some length; summary requests are answered as `summaries` says.
async fn mock_model(summaries: SummaryCall, cancel: CancellationToken) -> MockServer {
    let count = Arc::new(AtomicUsize::new(0));
    MockServer::start(move |_, body| {
        if is_summary_request(body) {
            let n = count.fetch_add(1, Ordering::SeqCst) + 1;
            return match summaries {
                SummaryCall::Answer => Reply::Sse(vec![
                    role(),
                    content(&format!(
                        "MODEL-SUMMARY-{n}: the user asks for one note per turn, "
                    )),
                    content("read from notes/; constraint: answers stay under three paragraphs. "),
                    content("Decided: read notes by line range. Open problems: none."),
                    finish("stop"),
                    usage(SUMMARY_USAGE.0, SUMMARY_USAGE.1),
                    done(),
                ]),
                SummaryCall::Fail => Reply::error(500, "summariser overloaded", None),
                SummaryCall::CancelTurn => {
                    cancel.cancel();
                    Reply::Sse(vec![
                        Frame::Sleep(Duration::from_secs(30)),
                        role(),
                        content("too late"),
                        finish("stop"),
                        done(),
                    ])
                }
            };
        }
        let turn = turn_number(body);
        let last = body["messages"].as_array().unwrap().last().unwrap();
        if last["role"] == "tool" {
            // Numbered, so the loop guard does not take it for a sentence written on and on.
            let filler: String = ('a'..='p')
                .map(|c| format!("The note lists step {c} in order and nothing is missing. "))
                .collect();
            text_answer(&[&format!("Turn {turn} done. "), &filler])
        } else {
            let args =
                json!({"path": format!("notes/note_{turn}.txt"), "start_line": 1, "end_line": 3});
            tool_call_answer(&format!("read_{turn}"), "read_file", &args.to_string())
        }
    })
    .await
}

/// A workspace with one note per turn.
fn notes(turns: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    for turn in 1..=turns {
        let text = format!("note {turn}\nstep one of {turn}\nstep two of {turn}\n");
        std::fs::write(dir.path().join(format!("notes/note_{turn}.txt")), text).unwrap();
    }
    dir
}

fn session(root: &std::path::Path, server: &MockServer) -> (AgentSession, Collector) {
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "key", "mock-model")).unwrap(),
    );
    session_with(root, provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
        c.context_window = Some(WINDOW);
        // The window, not the message count, is what this session crosses.
        c.max_history_messages = None;
        c.repo_map = keel_engine::RepoMapConfig::disabled();
        // The full tool definitions, whose size the window is set for.
        c.tool_profile = keel_engine::agent::ToolProfile::Full;
    })
}

fn compressions(collector: &Collector) -> Vec<RunContextCompress> {
    collector
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::RunContextCompress(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// Tokens of a recorded request as sent: every message (with its framing and tool calls) and
/// the tool definitions' JSON — more than the engine counts for them, so a fair upper bound.
fn request_tokens(counter: TokenCounter, body: &Value) -> u64 {
    let messages: usize = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let calls: usize = m["tool_calls"].as_array().map_or(0, |calls| {
                calls
                    .iter()
                    .map(|c| {
                        8 + counter.count(c["function"]["name"].as_str().unwrap_or(""))
                            + counter.count(c["function"]["arguments"].as_str().unwrap_or(""))
                    })
                    .sum()
            });
            4 + counter.count(m["content"].as_str().unwrap_or("")) + calls
        })
        .sum();
    let tools = body["tools"].as_array().map_or(0, |tools| {
        counter.count(&Value::Array(tools.clone()).to_string())
    });
    (3 + messages + tools) as u64
}

fn system_prompt(body: &Value) -> &str {
    body["messages"][0]["content"].as_str().unwrap()
}

#[tokio::test]
async fn a_forty_turn_session_stays_in_its_window_with_the_models_summary() {
    const TURNS: usize = 40;
    let ws = notes(TURNS);
    let server = mock_model(SummaryCall::Answer, CancellationToken::new()).await;
    let (mut session, collector) = session(ws.path(), &server);
    let mut summary_turns = Vec::new();
    for turn in 1..=TURNS {
        let before = compressions(&collector).len();
        let outcome = session
            .run_turn(format!(
                "Turn {turn}: read notes/note_{turn}.txt and tell me what it says."
            ))
            .await;
        assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
        assert!(outcome.result.starts_with(&format!("Turn {turn} done.")));
        if compressions(&collector).len() > before {
            summary_turns.push(turn);
            // The summary call's tokens count toward the turn's.
            assert!(outcome.usage.prompt_tokens >= SUMMARY_USAGE.0);
        }
    }

    // The window was crossed twice; each time the model wrote the summary.
    let compressed = compressions(&collector);
    assert_eq!(compressed.len(), 2, "summaries at turns {summary_turns:?}");
    for (k, c) in compressed.iter().enumerate() {
        assert_eq!(c.summarizer, Some(SummarizerKind::Model));
        assert_eq!(c.fallback_reason, None);
        assert!(c.summary.starts_with(&format!("MODEL-SUMMARY-{}", k + 1)));
        assert!(
            c.compressed_tokens * 2 < c.original_tokens,
            "{} → {}",
            c.original_tokens,
            c.compressed_tokens
        );
        let (prompt, completion) = SUMMARY_USAGE;
        assert_eq!(
            c.usage,
            Some(Usage {
                prompt_tokens: prompt,
                completion_tokens: completion,
                total_tokens: prompt + completion,
                cached_tokens: None
            })
        );
    }
    let reports = collector
        .events()
        .into_iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::RunUsageReport(u)
                if u.prompt_tokens == SUMMARY_USAGE.0
                    && u.purpose == Some(keel_events::CallPurpose::Summary))
        })
        .count();
    assert_eq!(reports, 2, "each summary call's usage is reported");
    // The summary is never mistaken for the turn's answer.
    assert!(collector.events().iter().all(|e| match &e.kind {
        EventKind::RunLlmEnd(end) => !end.llm_output.contains("MODEL-SUMMARY"),
        EventKind::RunLlmDelta(delta) => !delta.text.contains("MODEL-SUMMARY"),
        _ => true,
    }));

    // Every request, summary requests included, fits the window.
    let counter = TokenCounter::for_model("mock-model");
    let requests = server.requests();
    let summary_requests: Vec<&Value> = requests
        .iter()
        .map(|r| &r.body)
        .filter(|b| is_summary_request(b))
        .collect();
    assert_eq!(summary_requests.len(), 2);
    for body in &requests {
        let body = &body.body;
        let room = body["max_tokens"]
            .as_u64()
            .or_else(|| body["max_completion_tokens"].as_u64())
            .unwrap_or(0);
        let tokens = request_tokens(counter, body);
        assert!(
            tokens + room <= WINDOW,
            "a request of {tokens} tokens (+{room} for the answer) is over the {WINDOW}-token window"
        );
    }
    for body in &summary_requests {
        let asked = body["messages"][1]["content"].as_str().unwrap();
        assert!(
            asked.contains("User: Turn 1: read notes/note_1.txt")
                || asked.contains("MODEL-SUMMARY-1")
        );
        assert!(
            body["max_tokens"]
                .as_u64()
                .or(body["max_completion_tokens"].as_u64())
                .is_some()
        );
    }
    // The second summary folds in the first.
    assert!(
        summary_requests[1]["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("[Summary of what came before]\nMODEL-SUMMARY-1")
    );
    let windows: Vec<(u64, u64)> = collector
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunContextWindow(w) => Some((w.tokens_used, w.limit)),
            _ => None,
        })
        .collect();
    assert_eq!(windows.len(), TURNS * 2);
    assert!(
        windows
            .iter()
            .all(|(used, limit)| used <= limit && *limit == WINDOW)
    );

    // The last prompt carries the model's latest summary, not the first one or the old turns.
    let main: Vec<&Value> = requests
        .iter()
        .map(|r| &r.body)
        .filter(|b| !is_summary_request(b))
        .collect();
    let last = system_prompt(main.last().unwrap());
    assert!(last.contains("## Earlier in this conversation (summary)\n\nMODEL-SUMMARY-2"));
    assert!(!last.contains("MODEL-SUMMARY-1"));
    let first_turn_after = summary_turns[0];
    assert!(
        main.iter()
            .any(|b| system_prompt(b).contains("MODEL-SUMMARY-1"))
    );
    assert!(
        !main
            .last()
            .unwrap()
            .to_string()
            .contains("Turn 1: read notes/note_1.txt"),
        "turn 1 was summarised away (first summary at turn {first_turn_after})"
    );
    assert_eq!(
        session
            .conversation()
            .summary()
            .map(|s| s.starts_with("MODEL-SUMMARY-2")),
        Some(true)
    );
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn a_failed_summary_call_falls_back_to_the_extractive_summary() {
    let ws = notes(30);
    let server = mock_model(SummaryCall::Fail, CancellationToken::new()).await;
    let (mut session, collector) = session(ws.path(), &server);
    let mut turn = 0;
    while compressions(&collector).is_empty() {
        turn += 1;
        assert!(turn <= 30, "the window was never crossed");
        let outcome = session
            .run_turn(format!("Turn {turn}: read notes/note_{turn}.txt please."))
            .await;
        assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    }
    let compressed = &compressions(&collector)[0];
    assert_eq!(compressed.summarizer, Some(SummarizerKind::Extractive));
    let reason = compressed.fallback_reason.as_deref().unwrap();
    assert!(
        reason.contains("500") && reason.contains("summariser overloaded"),
        "{reason}"
    );
    assert_eq!(compressed.usage, None);
    assert!(
        compressed
            .summary
            .contains("- User asked: Turn 1: read notes/note_1.txt please.")
    );
    assert!(compressed.compressed_tokens < compressed.original_tokens);
    // The failed call was tried once, quietly: no retry, no model events for it.
    let types = types(&collector.events());
    assert!(!types.contains(&"run.llm.retry"));
    assert_eq!(
        types.iter().filter(|t| **t == "run.llm.start").count(),
        types.iter().filter(|t| **t == "run.context.window").count()
    );
    let summary_requests = server
        .requests()
        .iter()
        .filter(|r| is_summary_request(&r.body))
        .count();
    assert_eq!(summary_requests, 1);
    // The next prompt carries the extractive summary.
    let last = server.requests().last().unwrap().body.clone();
    assert!(system_prompt(&last).contains("- User asked: Turn 1: read notes/note_1.txt please."));
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn cancelling_during_the_summary_call_leaves_history_as_it_was() {
    let ws = notes(30);
    let cancel_seen = CancellationToken::new();
    let server = mock_model(SummaryCall::CancelTurn, cancel_seen.clone()).await;
    let (mut session, collector) = session(ws.path(), &server);
    let cancel = session.cancel_handle();
    // The mock cancels a token of its own; pass it on to the session.
    tokio::spawn(async move {
        cancel_seen.cancelled().await;
        cancel.cancel();
    });
    let mut turn = 0;
    let outcome = loop {
        turn += 1;
        assert!(turn <= 30, "the window was never crossed");
        let before = session.conversation().clone();
        let started = std::time::Instant::now();
        let outcome = session
            .run_turn(format!("Turn {turn}: read notes/note_{turn}.txt please."))
            .await;
        if outcome.status == AgentStatus::Cancelled {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "not cancelled promptly"
            );
            // Nothing was summarised: the older turns are all still there.
            assert_eq!(session.conversation().summary(), None);
            assert_eq!(
                session.conversation().messages()[..before.len()],
                before.messages()[..]
            );
            break outcome;
        }
        assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    };
    assert!(compressions(&collector).is_empty());
    let events = collector.events();
    let last_turn: Vec<&str> = events
        .iter()
        .rev()
        .take_while(|e| !matches!(e.kind, EventKind::AgentStart(_)))
        .map(|e| e.type_name())
        .collect();
    assert!(
        !last_turn.contains(&"run.llm.start"),
        "no request after the cancelled summary: {last_turn:?}"
    );
    assert_eq!(outcome.iterations, 1);
    assert_conversation_consistent(session.conversation());
}
