//! Project memory written by the agent: the `remember` tool (native and XML calls) and the
//! end-of-session distillation, over real HTTP against the mock OpenAI server; the cost in
//! `run.usage.report`.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_context::{MemoryKind, MemoryStore, NewEntry};
use keel_engine::agent::Distillation;
use keel_engine::{OpenAiConfig, OpenAiProvider, ToolFormat};
use keel_events::{
    AgentStatus, CallPurpose, EventKind, LogLevel, MemorySource, RunMemoryUpdate, ToolStatus,
};
use keel_protocol::Mode;
use keel_test_support::{ScriptBuilder, sample_project};
use serde_json::{Value, json};
use support::*;

fn http(server: &MockServer, model: &str) -> Arc<OpenAiProvider> {
    Arc::new(OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "test-key", model)).unwrap())
}

/// A streamed native call of tool `name` with `arguments`.
fn call(id: &str, name: &str, arguments: &Value) -> Reply {
    Reply::Sse(vec![
        role(),
        tool_start(0, id, name),
        tool_args(0, &arguments.to_string()),
        finish("tool_calls"),
        usage(50, 5),
        done(),
    ])
}

fn memory_updates(events: &[keel_events::Event]) -> Vec<RunMemoryUpdate> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunMemoryUpdate(u) => Some(u.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn remember_writes_memory_and_the_next_request_shows_it() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![
        call(
            "call_m",
            "remember",
            &json!({"kind": "convention", "text": "Tests run with python -m unittest", "tags": ["Testing"]}),
        ),
        text_answer(&["Noted."]),
    ])
    .await;
    let (mut session, collector) = session_with(
        ws.path(),
        http(&server, "mock-model"),
        &["mock-model"],
        |c| {
            c.mode = Mode::Direct;
        },
    );
    let outcome = session.run_turn("Remember how tests run").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);

    // The entry is in the file, under this session.
    let memory = MemoryStore::for_project(ws.path()).read().unwrap();
    let entry = &memory.entries()[0];
    assert_eq!(entry.kind, MemoryKind::Convention);
    assert_eq!(entry.text, "Tests run with python -m unittest");
    assert_eq!(entry.tags, ["testing"]);
    assert_eq!(entry.session_id.as_deref(), Some("s"));

    // Offered like every tool, with its schema; reported with run.tool.start/end and the
    // memory event; the next request's system prompt carries it.
    let requests = server.requests();
    let tools = requests[0].body["tools"].as_array().unwrap();
    let remember = tools
        .iter()
        .find(|t| t["function"]["name"] == "remember")
        .unwrap();
    let params = &remember["function"]["parameters"];
    assert_eq!(params["required"], json!(["kind", "text"]));
    let kinds: Vec<&str> = params["properties"]["kind"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["const"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["fact", "convention", "decision"]);
    assert!(
        requests[1].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("- Tests run with python -m unittest")
    );
    let events = collector.events();
    let tool_events: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolStart(s) if s.tool_name == "remember" => Some("start"),
            EventKind::RunMemoryUpdate(_) => Some("memory"),
            EventKind::RunToolEnd(e) if e.tool_name == "remember" => {
                assert_eq!(e.status, ToolStatus::Success);
                assert!(e.result.starts_with(&format!("Remembered as {}", entry.id)));
                Some("end")
            }
            _ => None,
        })
        .collect();
    assert_eq!(tool_events, ["start", "memory", "end"]);
    let update = &memory_updates(&events)[0];
    assert_eq!(update.source, MemorySource::Remember);
    assert_eq!(update.entries, [entry.to_record(true)]);
    assert_eq!(update.total, 1);
}

#[tokio::test]
async fn remember_refuses_what_it_cannot_keep() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [
                {"id": "a", "name": "remember", "arguments": {"kind": "fact", "text": "   "}},
                {"id": "b", "name": "remember", "arguments": {"kind": "fact", "text": "x".repeat(501)}},
                {"id": "c", "name": "remember", "arguments": {"kind": "wish", "text": "more tests"}}
            ]},
            {"text": "Nothing kept.", "finish_reason": "stop"}
        ]}),
        |c| c.mode = Mode::Direct,
    );
    session.run_turn("Remember things").await;
    let results: Vec<(ToolStatus, String)> = collector
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) => Some((end.status, end.result_summary.clone())),
            _ => None,
        })
        .collect();
    assert!(
        results.iter().all(|(s, _)| *s == ToolStatus::Error),
        "{results:?}"
    );
    assert!(results[0].1.contains("`text` is empty"), "{results:?}");
    assert!(results[1].1.contains("501 characters"), "{results:?}");
    assert!(
        results[2].1.contains("Invalid arguments for remember"),
        "{results:?}"
    );
    assert!(!MemoryStore::for_project(ws.path()).path().exists());
}

#[tokio::test]
async fn remember_works_in_the_xml_tool_format() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"chunk_chars": 5, "turns": [
            {"text": "Keeping that.\n<remember>\n<kind>decision</kind>\n<text>Keep stats pure: no I/O in calc/stats.py</text>\n<tags>[\"design\"]</tags>\n</remember>"},
            {"text": "Done.", "finish_reason": "stop"}
        ]}),
        |c| {
            c.mode = Mode::Direct;
            c.tool_format = ToolFormat::Xml;
        },
    );
    let outcome = session.run_turn("Decide about I/O").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let memory = MemoryStore::for_project(ws.path()).read().unwrap();
    assert_eq!(memory.entries()[0].kind, MemoryKind::Decision);
    assert_eq!(memory.entries()[0].tags, ["design"]);
    assert_eq!(memory_updates(&collector.events()).len(), 1);
}

/// A turn that writes a file, over HTTP, then the distillation's reply.
async fn turn_then_distill(distill_reply: Reply) -> MockServer {
    MockServer::sequence(vec![
        call(
            "call_w",
            "write_file",
            &json!({"path": "calc/rounding.py", "content": "ROUND = 2\n"}),
        ),
        text_answer(&["Added calc/rounding.py with two decimals."]),
        distill_reply,
    ])
    .await
}

#[tokio::test]
async fn distillation_records_the_sessions_decisions_with_one_tool_less_call() {
    let ws = sample_project();
    MemoryStore::for_project(ws.path())
        .record([NewEntry::new(
            MemoryKind::Fact,
            "calc/ holds the library code",
        )])
        .unwrap();
    let answer = json!({"entries": [
        {"kind": "decision", "text": "Results are rounded to two decimals (calc/rounding.py)"},
        {"kind": "fact", "text": "calc/ holds the library code"},
        {"kind": "feeling", "text": "good session"}
    ]})
    .to_string();
    let server = turn_then_distill(Reply::Sse(vec![
        role(),
        content("```json\n"),
        content(&answer),
        content("\n```"),
        finish("stop"),
        usage_cached(1_000, 100, 400),
        done(),
    ]))
    .await;
    let (mut session, collector) = session_with(
        ws.path(),
        http(&server, "gpt-4o-mini"),
        &["gpt-4o-mini"],
        |c| {
            c.mode = Mode::Direct;
        },
    );
    let outcome = session.run_turn("Round every result to two decimals").await;
    assert_eq!(outcome.files_changed, ["calc/rounding.py"]);
    collector.clear();

    let Distillation::Updated(update) = session.distill_memory().await else {
        panic!("{:?}", collector.events());
    };
    // One request, without tools, holding the task, the changed files, the answer and the
    // memory so far.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let body = &requests[2].body;
    assert!(body.get("tools").is_none(), "{body}");
    assert_eq!(body["model"], "gpt-4o-mini");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("Answer with JSON only")
    );
    let user = messages[1]["content"].as_str().unwrap();
    for needle in [
        "Task: Round every result to two decimals",
        "Files changed: calc/rounding.py",
        "Final answer: Added calc/rounding.py with two decimals.",
        "- calc/ holds the library code",
    ] {
        assert!(user.contains(needle), "{needle} not in {user}");
    }

    // Recorded: the new decision, the known fact again, the unknown kind left out.
    assert_eq!(update.source, MemorySource::Distill);
    let shown: Vec<(MemoryKind, bool)> = update.entries.iter().map(|r| (r.kind, r.new)).collect();
    assert_eq!(
        shown,
        [(MemoryKind::Decision, true), (MemoryKind::Fact, false)]
    );
    assert_eq!(update.total, 2);
    // Entries are kept in the order they were last recorded.
    let memory = MemoryStore::for_project(ws.path()).read().unwrap();
    let texts: Vec<&str> = memory.entries().iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Results are rounded to two decimals (calc/rounding.py)",
            "calc/ holds the library code"
        ]
    );
    assert_eq!(memory.entries()[0].session_id.as_deref(), Some("s"));

    // The call's tokens and cost are reported (gpt-4o-mini: $0.15 input, $0.075 cached,
    // $0.60 output per million), outside any turn, as the session's own call (issue 28 §4).
    let events = collector.events();
    let types = types(&events);
    assert_eq!(types, ["run.usage.report", "run.memory.update"]);
    assert!(events.iter().all(|e| e.turn_id.is_none()));
    let EventKind::RunUsageReport(report) = &events[0].kind else {
        unreachable!()
    };
    assert_eq!(report.purpose, Some(CallPurpose::MemoryDistill));
    assert!(report.purpose.is_some_and(CallPurpose::is_session_level));
    let wire = serde_json::to_value(report).unwrap();
    assert_eq!(wire["purpose"], "memory_distill");
    assert_eq!(report.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(report.cached_tokens, Some(400));
    let expected = (600.0 * 0.15 + 400.0 * 0.075 + 100.0 * 0.60) / 1e6;
    assert!(
        (report.cost_usd.unwrap() - expected).abs() < 1e-12,
        "{report:?}"
    );
    assert_eq!(session.usage().total_tokens, report.cumulative.total_tokens);

    // The next distillation has nothing new to read: no call.
    assert_eq!(session.distill_memory().await, Distillation::NothingChanged);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_failed_distillation_is_a_warning_and_changes_nothing() {
    for (reply, reason) in [
        (
            Reply::error(400, "bad request", None),
            "the model call failed",
        ),
        (
            text_answer(&["I would remember the rounding."]),
            "not the JSON asked for",
        ),
    ] {
        let ws = sample_project();
        let server = turn_then_distill(reply).await;
        let (mut session, collector) = session_with(
            ws.path(),
            http(&server, "mock-model"),
            &["mock-model"],
            |c| {
                c.mode = Mode::Direct;
            },
        );
        session.run_turn("Round results").await;
        collector.clear();
        let Distillation::Failed(why) = session.distill_memory().await else {
            panic!("{:?}", collector.events());
        };
        assert!(why.contains(reason), "{why}");
        let warnings: Vec<String> = collector
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::SystemLog(log) if log.level == LogLevel::Warn => {
                    Some(log.message.clone())
                }
                _ => None,
            })
            .collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("memory not distilled: "),
            "{warnings:?}"
        );
        assert!(memory_updates(&collector.events()).is_empty());
        assert!(!MemoryStore::for_project(ws.path()).path().exists());
    }
}

#[tokio::test]
async fn a_session_without_file_changes_makes_no_call() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![text_answer(&["Hello."])]).await;
    let (mut session, collector) = session_with(
        ws.path(),
        http(&server, "mock-model"),
        &["mock-model"],
        |_| {},
    );
    session.run_turn("say hello").await;
    collector.clear();
    assert_eq!(session.distill_memory().await, Distillation::NothingChanged);
    assert_eq!(server.requests().len(), 1);
    assert!(collector.events().is_empty());
}

#[tokio::test]
async fn distillation_is_off_by_setting_and_for_scripts_that_do_not_ask() {
    let write = json!({"path": "notes.txt", "content": "n\n"});
    let task = ScriptBuilder::new()
        .tool_call("write_file", write.clone())
        .text("Wrote notes.txt.");
    let distilled = r#"{"entries": [{"kind": "convention", "text": "Notes go in notes.txt"}]}"#;

    // A script that does not ask: no call, the extra turn is left unused.
    let ws = sample_project();
    let (mut session, _) = scripted(ws.path(), task.clone().text(distilled).to_json(), |_| {});
    session.run_turn("write notes").await;
    assert_eq!(session.distill_memory().await, Distillation::Off);

    // Turned off in the settings, even when the script asks.
    let ws = sample_project();
    let asking = task.clone().distill_memory().text(distilled).to_json();
    let (mut session, _) = scripted(ws.path(), asking.clone(), |c| c.distill_memory = false);
    session.run_turn("write notes").await;
    assert_eq!(session.distill_memory().await, Distillation::Off);

    // A script that asks: the distillation takes its next turn.
    let ws = sample_project();
    let (mut session, collector) = scripted(ws.path(), asking, |_| {});
    session.run_turn("write notes").await;
    let Distillation::Updated(update) = session.distill_memory().await else {
        panic!("{:?}", collector.events());
    };
    assert_eq!(update.entries[0].text, "Notes go in notes.txt");
    // The scripted model has no price: its reports carry no cost.
    assert!(collector.events().iter().all(|e| match &e.kind {
        EventKind::RunUsageReport(r) => r.cost_usd.is_none() && r.model.is_some(),
        _ => true,
    }));
}
