//! What small local models get wrong, and what the loop makes of it, over real HTTP: streams
//! recorded from Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) on llama.cpp at temperature 0
//! (`tests/fixtures/small-models/`, see its README) and written ones for the rest.
//!
//! - a `<tools>` block echoed from the prompt, with an invented tool name: both calls run (the
//!   invented one is answered "unknown tool"), nothing passes for the answer;
//! - a fenced call whose `diff` is a Python `"""…"""` string: repaired and run;
//! - a call whose arguments cannot be read: "not run, send it again", as a native one;
//! - a tool result the model wrote itself: answered, once;
//! - an answer that shows the fix in a code block: pointed back at the edit tools, once;
//! - a turn asked for changes that made none: `agent.end` carries the warning;
//! - an answer caught in a loop (the same lines again and again, or one line counting up):
//!   stopped, and the turn starts over, or fails saying why when no attempt is left; code
//!   blocks closed before the loop are the answer when the turn edits from code blocks;
//! - a task asking for two things: each checked once the tests pass (a part nothing of which
//!   changed marked not done), and a check that breaks the tests put back;
//! - a move of Python definitions the task asks for: carried out by Keel before the first
//!   call (helpers only they use go with them, imports pointed at the new module), and one
//!   Keel cannot make left to the model, saying why;
//! - a rename the task asks for: carried out by Keel before the first call, and an old name
//!   the model brings back shown to it, at most twice;
//! - a test file given whole when the task says the tests are right, or when they passed and
//!   the task does not speak of them: left alone, and the model told to change the code;
//! - a file given whole that leaves out definitions and exports the old one had: they are
//!   kept;
//! - an undefined name the language server (real pyright) reports once the tests pass: shown
//!   to the model, which fixes it; a standard module used without its import: imported;
//! - compact profile: a whole file after a line naming it is written, and the project's
//!   tests run before and after the model's work.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_engine::agent::ToolProfile;
use keel_engine::{OpenAiConfig, OpenAiProvider, TurnOutcome};
use keel_events::{AgentStatus, Event, EventKind, ToolStatus};
use keel_protocol::Mode;
use keel_test_support::{SampleProject, sample_project};
use serde_json::Value;
use support::*;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/small-models/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A direct turn on a copy of the sample project, the server answering `replies` in order.
async fn turn(
    task: &str,
    replies: Vec<Reply>,
    tune: impl FnOnce(&mut keel_engine::agent::AgentConfig),
) -> (Vec<Event>, Vec<Recorded>, TurnOutcome, SampleProject) {
    turn_with(task, replies, tune, |_| {}).await
}

/// [`turn`], with `before` done to the session before its turn.
async fn turn_with(
    task: &str,
    replies: Vec<Reply>,
    tune: impl FnOnce(&mut keel_engine::agent::AgentConfig),
    before: impl FnOnce(&mut keel_engine::agent::AgentSession),
) -> (Vec<Event>, Vec<Recorded>, TurnOutcome, SampleProject) {
    turn_on(sample_project(), task, replies, tune, before).await
}

/// [`turn_with`] on `ws`, a sample project the test changed first.
async fn turn_on(
    ws: SampleProject,
    task: &str,
    replies: Vec<Reply>,
    tune: impl FnOnce(&mut keel_engine::agent::AgentConfig),
    before: impl FnOnce(&mut keel_engine::agent::AgentSession),
) -> (Vec<Event>, Vec<Recorded>, TurnOutcome, SampleProject) {
    let server = MockServer::sequence(replies).await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(
            &server.base_url,
            "",
            "qwen2.5-coder-1.5b",
        ))
        .unwrap(),
    );
    let (mut session, collector) =
        session_with(ws.path(), provider, &["qwen2.5-coder-1.5b"], |c| {
            c.mode = Mode::Direct;
            c.repo_map = keel_engine::RepoMapConfig::disabled();
            tune(c);
        });
    before(&mut session);
    let outcome = session.run_turn(task).await;
    assert_conversation_consistent(session.conversation());
    (collector.events(), server.requests(), outcome, ws)
}

/// (tool, status, result) of every finished call.
fn tool_ends(events: &[Event]) -> Vec<(String, ToolStatus, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) => {
                Some((end.tool_name.clone(), end.status, end.result.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The user messages (the person's and Keel's notes) of a request.
fn user_messages(request: &Recorded) -> Vec<String> {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect()
}

/// The messages of the turn's `system.log` events.
fn logs(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(l) => Some(l.message.clone()),
            _ => None,
        })
        .collect()
}

fn read_sample(ws: &SampleProject, path: &str) -> String {
    std::fs::read_to_string(ws.path().join(path)).unwrap()
}

fn agent_end(events: &[Event]) -> keel_events::AgentEnd {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::AgentEnd(end) => Some(end.clone()),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn an_echoed_tools_block_runs_its_calls_and_an_invented_name_is_answered() {
    let (events, requests, outcome, _ws) = turn(
        "Fix the failing test",
        vec![
            recorded(&fixture("tools-echo-invented-name.sse")),
            text_answer(&["The divisor is wrong; see calc/stats.py."]),
        ],
        |c| c.tool_profile = ToolProfile::Full,
    )
    .await;
    let ends = tool_ends(&events);
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert_eq!(ends[0].0, "read_file");
    assert_eq!(ends[0].1, ToolStatus::Success);
    assert_eq!(ends[1].0, "run_command");
    assert_eq!(ends[1].1, ToolStatus::Error);
    assert!(
        ends[1].2.contains("Unknown tool `run_command`"),
        "{}",
        ends[1].2
    );
    assert!(ends[1].2.contains("execute_command"), "{}", ends[1].2);
    // The block went back to the model as its two calls, not as text.
    let second = requests[1].body["messages"].as_array().unwrap();
    let calls = second.iter().find(|m| m["role"] == "assistant").unwrap()["tool_calls"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(calls, 2);
    assert_ne!(outcome.result.trim_start().get(..7), Some("<tools>"));
}

#[tokio::test]
async fn a_fenced_call_with_a_python_string_is_repaired_and_run() {
    let (events, requests, _outcome, _ws) = turn(
        "Fix the failing test",
        vec![
            recorded(&fixture("fenced-call-python-string.sse")),
            text_answer(&["Done."]),
        ],
        |_| {},
    )
    .await;
    let ends = tool_ends(&events);
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0].0, "replace_in_file");
    // The recorded model searched for a test that is not there: the call ran and said so.
    assert!(ends[0].2.contains("matches nothing"), "{}", ends[0].2);
    let logs: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log) => Some(log.message.clone()),
            _ => None,
        })
        .collect();
    assert!(
        logs.iter()
            .any(|l| l.contains("1 tool call(s) from the answer's text (1 after repairing")),
        "{logs:?}"
    );
    let args: Value = serde_json::from_str(
        requests[1].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "assistant")
            .unwrap()["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert!(
        args["diff"]
            .as_str()
            .unwrap()
            .starts_with("\n<<<<<<< SEARCH")
    );
}

#[tokio::test]
async fn a_text_call_with_unreadable_arguments_is_not_run_and_asked_again() {
    let broken = "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"calc/x.py\", \"content\": \"a\" + \"b\"}}\n</tool_call>";
    let (events, requests, outcome, ws) = turn(
        "Create calc/x.py",
        vec![text_answer(&[broken]), text_answer(&["Done."])],
        |c| c.tool_profile = ToolProfile::Full,
    )
    .await;
    let ends = tool_ends(&events);
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].0, "write_file");
    assert_eq!(ends[0].1, ToolStatus::Error);
    assert!(
        ends[0]
            .2
            .starts_with("Your call to `write_file` was not run"),
        "{}",
        ends[0].2
    );
    assert!(ends[0].2.contains("Send them again"), "{}", ends[0].2);
    assert!(!ws.path().join("calc/x.py").exists());
    assert_eq!(requests.len(), 2);
    assert_eq!(outcome.result, "Done.");
}

#[tokio::test]
async fn a_made_up_tool_result_is_answered_once() {
    let (events, requests, outcome, _ws) = turn(
        "What does mean() return for [1, 2, 3]?",
        vec![
            text_answer(&["<tool_response>\n2.0\n</tool_response>"]),
            text_answer(&["<tool_response>\n2.0\n</tool_response>"]),
        ],
        |c| c.tool_profile = ToolProfile::Full,
    )
    .await;
    assert!(tool_ends(&events).is_empty());
    assert_eq!(requests.len(), 2, "answered once, then taken as it is");
    let notes = user_messages(&requests[1]);
    assert!(
        notes
            .last()
            .unwrap()
            .starts_with("No tool ran: you wrote a tool result yourself"),
        "{notes:?}"
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn an_answer_showing_the_fix_in_a_code_block_is_pointed_at_the_edit_tools_once() {
    let (events, requests, outcome, _ws) = turn(
        "Fix the failing test",
        vec![
            recorded(&fixture("prose-with-code.sse")),
            text_answer(&["I explained the fix above."]),
        ],
        |c| c.tool_profile = ToolProfile::Full,
    )
    .await;
    assert!(tool_ends(&events).is_empty());
    assert_eq!(requests.len(), 2);
    let notes = user_messages(&requests[1]);
    assert!(
        notes.last().unwrap().starts_with(
            "No file was changed: your answer shows code, but only a tool call changes a file."
        ),
        "{notes:?}"
    );
    // Pointed back once: the second code-less answer ends the turn, which says why it is
    // not what was asked.
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(
        agent_end(&events).warning.as_deref(),
        Some("the task asked for changes, but no file was changed")
    );
}

#[tokio::test]
async fn a_turn_that_changes_nothing_says_so_and_a_question_does_not() {
    // Full profile, a claim without code: no correction, only the warning.
    let (events, requests, _outcome, _ws) = turn(
        "Fix the failing test",
        vec![recorded(&fixture("claims-a-fix.sse"))],
        |c| c.tool_profile = ToolProfile::Full,
    )
    .await;
    assert_eq!(requests.len(), 1);
    assert_eq!(
        agent_end(&events).warning.as_deref(),
        Some("the task asked for changes, but no file was changed")
    );
    // Compact profile (a small model): the claim is answered once.
    let (events, requests, _outcome, _ws) = turn(
        "Fix the failing test",
        vec![
            recorded(&fixture("claims-a-fix.sse")),
            text_answer(&["No change is needed."]),
        ],
        |c| c.tool_profile = ToolProfile::Compact,
    )
    .await;
    assert_eq!(requests.len(), 2);
    assert!(
        user_messages(&requests[1])
            .last()
            .unwrap()
            .starts_with("No file has been changed yet")
    );
    assert!(agent_end(&events).warning.is_some());
    // A question is answered, not corrected.
    let (events, requests, _outcome, _ws) = turn(
        "Where is the mean computed?",
        vec![text_answer(&["In calc/stats.py."])],
        |c| c.tool_profile = ToolProfile::Compact,
    )
    .await;
    assert_eq!(requests.len(), 1);
    assert!(agent_end(&events).warning.is_none());
}

#[tokio::test]
async fn compact_profile_writes_a_whole_file_and_runs_the_tests_around_it() {
    let fixed = "The divisor is off by one. Here is the updated `calc/stats.py`:\n\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```";
    let (events, requests, outcome, ws) =
        turn("Fix the failing test", vec![text_answer(&[fixed])], |c| {
            // The map finds the files the task is about.
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        })
        .await;
    // The task's files are shown, so the model edits by writing them whole: no tools offered,
    // and the instructions say how; the files written, the tests decide (no second call).
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0].body["tools"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{}",
        requests[0].body["tools"]
    );
    let system = requests[0].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        system.contains("write its path on a line by itself, then its complete new content"),
        "{system}"
    );
    // The tests ran before the first request and their failure opens the task...
    let first = user_messages(&requests[0]);
    assert!(first[0].contains("## Tests before any change"), "{first:?}");
    assert!(first[0].contains("ZeroDivisionError"), "{first:?}");
    // ...as do the files the task is about.
    assert!(first[0].contains("### calc/stats.py"), "{first:?}");
    // The block was written as write_file, then the tests ran again and passed.
    let ends = tool_ends(&events);
    let names: Vec<&str> = ends.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["execute_command", "write_file", "execute_command"]);
    assert_eq!(ends[0].1, ToolStatus::Error);
    assert_eq!(ends[2].1, ToolStatus::Success);
    assert!(
        std::fs::read_to_string(ws.path().join("calc/stats.py"))
            .unwrap()
            .contains("return sum(values) / len(values)")
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).warning, None);
}

#[tokio::test]
async fn failing_tests_go_back_to_the_model_and_a_last_failure_is_a_warning() {
    let wrong = "`calc/stats.py`\n```python\ndef mean(values):\n    return 0\n```";
    let (events, requests, _outcome, _ws) = turn(
        "Fix the failing test",
        vec![
            text_answer(&[wrong]),
            text_answer(&["Done."]),
            text_answer(&["Still done."]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 1;
            c.attempts = Some(1);
        },
    )
    .await;
    // The edit, an answer, the failures given back once, a last answer.
    assert_eq!(requests.len(), 3);
    let note = user_messages(&requests[2]).last().cloned().unwrap();
    assert!(
        note.starts_with(
            "I ran the tests (`python3 -m unittest -q`) after your change and they fail"
        ),
        "{note}"
    );
    assert_eq!(
        agent_end(&events).warning.as_deref(),
        Some("the project's tests (`python3 -m unittest -q`) still fail after 2 run(s)")
    );
}

#[tokio::test]
async fn an_answer_that_changes_nothing_after_a_failure_is_told_so_without_a_test_run() {
    let wrong = "`calc/stats.py`\n```python\ndef mean(values):\n    return 0\n```";
    let (events, requests, outcome, _ws) = turn(
        "Fix the failing test",
        vec![
            text_answer(&[wrong]),
            text_answer(&["The tests should pass now."]),
            text_answer(&["It is fixed."]),
            text_answer(&[FIXED_MEAN]),
            text_answer(&["Fixed."]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 3;
            c.attempts = Some(1);
        },
    )
    .await;
    assert_eq!(requests.len(), 5);
    let failed = user_messages(&requests[2])
        .last()
        .cloned()
        .unwrap_or_default();
    assert!(failed.starts_with("I ran the tests"), "{failed}");
    let note = user_messages(&requests[3])
        .last()
        .cloned()
        .unwrap_or_default();
    assert!(
        note.starts_with("Your answer changed no file, so the tests still fail"),
        "{note}"
    );
    // Tests before the change, after the wrong one, after the fix: none for the prose answer.
    let ends = tool_ends(&events);
    let names: Vec<&str> = ends.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "execute_command",
            "write_file",
            "execute_command",
            "write_file",
            "execute_command"
        ]
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).warning, None);
}

#[tokio::test]
async fn a_failed_attempt_starts_the_turn_over_with_a_fresh_conversation() {
    let wrong = "`calc/stats.py`\n```python\ndef mean(values):\n    return 0\n```";
    let right = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```";
    let (events, requests, outcome, ws) = turn(
        "Fix the failing test",
        vec![
            text_answer(&[wrong]),
            text_answer(&["Done."]),
            text_answer(&[right]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 0;
            c.attempts = Some(2);
        },
    )
    .await;
    // The second attempt shows the file the first one changed, so the model edits by writing
    // it whole: its answer is the last request.
    assert_eq!(requests.len(), 3);
    // The first attempt shows no file (no repo map here): the compact definitions of the core
    // tools are offered.
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "read_file",
            "write_file",
            "replace_in_file",
            "delete_file",
            "move_file",
            "list_files",
            "search_files",
            "execute_command"
        ]
    );
    assert!(
        requests[2]
            .body
            .get("tools")
            .is_none_or(|t| t.as_array().is_none_or(Vec::is_empty))
    );
    // The second attempt's first request: the task told, the failed edit's history gone and
    // the edit itself undone (the file as the turn found it), sampled more freely.
    let again = &requests[2];
    assert_eq!(again.body["temperature"], serde_json::json!(0.7_f32));
    let users = user_messages(again);
    assert_eq!(users.len(), 1, "{users:?}");
    assert!(users[0].contains("An earlier attempt at this task failed: the tests still fail"));
    assert!(users[0].contains("Its changes were undone"), "{users:?}");
    assert!(
        users[0].contains("    return sum(values) / (len(values) - 1)"),
        "{users:?}"
    );
    assert!(!users[0].contains("    return 0"), "{users:?}");
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::SystemLog(l) if l.message == "calc/stats.py put back as the turn found them")));
    assert!(
        !again.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "assistant")
    );
    assert!(
        std::fs::read_to_string(ws.path().join("calc/stats.py"))
            .unwrap()
            .contains("return sum(values) / len(values)")
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).warning, None);
    let attempts = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::SystemLog(l) if l.message.starts_with("attempt 2 of 2")))
        .count();
    assert_eq!(attempts, 1);
}

#[tokio::test]
async fn an_answer_caught_in_a_loop_is_stopped_and_the_turn_starts_over() {
    // Recorded at temperature 0: the test's traceback written into a SEARCH block, again and
    // again, until the cap.
    let block = "self.assertEqual(mean([5]), 5)\n                     ^^^^^^^^^\n  File \"calc/stats.py\", line 8, in mean\n    return sum(values) / (len(values) - 1)\nZeroDivisionError: division by zero\n=======\n";
    let mut looping = vec![
        "```json\n{\n  \"name\": \"replace_in_file\",\n  \"arguments\": {\n    \"path\": \"tests/test_stats.py\",\n    \"diff\": \"\"\"\n<<<<<<< SEARCH\n",
    ];
    looping.extend(std::iter::repeat_n(block, 200));
    let right = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```";
    let (events, requests, outcome, ws) = turn(
        "Fix the failing test",
        vec![
            text_answer(&looping),
            text_answer(&[right]),
            text_answer(&["Fixed it."]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 0;
            c.attempts = Some(2);
        },
    )
    .await;
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].body["temperature"], serde_json::json!(0.7_f32));
    let stopped = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SystemLog(l) if l.message.starts_with("attempt 2 of 2") => {
                Some(l.message.clone())
            }
            _ => None,
        })
        .expect("a second attempt");
    assert!(stopped.contains("stuck"), "{stopped}");
    let first_end = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunLlmEnd(end) => Some(end.finish_reason),
            _ => None,
        })
        .expect("the looping call ends");
    assert_eq!(first_end, keel_events::FinishReason::Other);
    assert!(
        std::fs::read_to_string(ws.path().join("calc/stats.py"))
            .unwrap()
            .contains("return sum(values) / len(values)")
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn the_fix_written_before_a_counting_loop_is_applied() {
    // As recorded at temperature 0 on a Rust task: the right function, then a test that counts
    // up line after line (`assert!(!is_leap_year(1901));`, `…(1902));`, …) until the cap.
    let right = "The mean divides by one less than the count. Fixed:\n\n`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```\n\nAnd a test for it:\n\n```python\ndef test_many():\n";
    let counting: Vec<String> = (1..400)
        .map(|n| format!("    assert mean([{n}, {n}]) == {n}\n"))
        .collect();
    let mut answer = vec![right];
    answer.extend(counting.iter().map(String::as_str));
    let (events, requests, outcome, ws) = turn(
        "Fix the failing test",
        vec![text_answer(&answer), text_answer(&["Fixed the mean."])],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 0;
            c.attempts = Some(2);
        },
    )
    .await;
    // The written file, then the model's word on it (the compact profile asks once more).
    assert_eq!(requests.len(), 2);
    let salvaged = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l)
            if l.message.contains("again and again") && l.message.contains("taken as the answer"))
    });
    assert!(salvaged, "no log of the salvaged answer");
    let fixed = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(
        fixed.contains("return sum(values) / len(values)"),
        "{fixed}"
    );
    assert!(!fixed.contains("test_many"), "{fixed}");
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn a_test_the_task_says_is_right_is_not_rewritten() {
    // The model "fixes" the test to what the code computes.
    let test_only = "`tests/test_stats.py`\n```python\nimport unittest\n\nfrom calc.stats import mean\n\n\nclass MeanTest(unittest.TestCase):\n    def test_mean_of_three(self):\n        self.assertEqual(mean([1, 2, 3]), 3)\n\n    def test_empty_is_an_error(self):\n        with self.assertRaises(ValueError):\n            mean([])\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n```";
    let fix = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```";
    let before = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/sample-project/tests/test_stats.py"),
    )
    .unwrap();
    let (events, requests, outcome, ws) = turn(
        "The test for `mean` fails. The test is right; fix the code.",
        vec![
            text_answer(&[test_only]),
            text_answer(&[fix]),
            text_answer(&["Fixed the mean."]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 0;
        },
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.path().join("tests/test_stats.py")).unwrap(),
        before
    );
    let told = requests[1].body["messages"].to_string();
    assert!(
        told.contains("The task says the tests are right, so tests/test_stats.py stays as it is"),
        "{told}"
    );
    let left = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l) if l.message.contains("left as it is, the task says the tests are right"))
    });
    assert!(left);
    assert!(
        std::fs::read_to_string(ws.path().join("calc/stats.py"))
            .unwrap()
            .contains("return sum(values) / len(values)")
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
}

const FIXED_MEAN: &str = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```";

const TWO_PART_TASK: &str =
    "Fix the division in `mean` and add a `median` function to calc/stats.py.";

#[tokio::test]
async fn each_part_of_a_two_part_task_is_checked_once_the_tests_pass() {
    let with_median = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n\n\ndef median(values):\n    \"\"\"The middle value.\"\"\"\n    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n```";
    let (events, requests, outcome, ws) = turn(
        TWO_PART_TASK,
        vec![
            text_answer(&[FIXED_MEAN]),
            text_answer(&["Fixed the mean."]),
            text_answer(&[with_median]),
            text_answer(&["Added median."]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            // No round left to mend what the check broke.
            c.test_rounds = 1;
        },
    )
    .await;
    assert_eq!(requests.len(), 4);
    let checklist = user_messages(&requests[2]).join("\n");
    assert!(
        checklist.contains(
            "1. Fix the division in `mean`\n2. add a `median` function to calc/stats.py."
        ),
        "{checklist}"
    );
    let text = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(text.contains("def median(values):"), "{text}");
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).result, "Added median.");
    assert_eq!(agent_end(&events).warning, None);
}

#[tokio::test]
async fn files_given_again_unchanged_at_the_parts_check_end_the_turn_as_done() {
    let (events, requests, outcome, ws) = turn(
        TWO_PART_TASK,
        vec![text_answer(&[FIXED_MEAN]), text_answer(&[FIXED_MEAN])],
        |c| {
            // The map finds the file: the model works without tools, writing files whole.
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        },
    )
    .await;
    // The fix, then the check of the task's parts answered with the same file: no new
    // attempt (which would put the passing work back), the turn ends with the tests passing.
    assert_eq!(requests.len(), 2);
    assert!(
        user_messages(&requests[1])
            .join("\n")
            .contains("check the task part by part")
    );
    assert!(
        !logs(&events).iter().any(|l| l.starts_with("attempt 2")),
        "{:?}",
        logs(&events)
    );
    assert!(read_sample(&ws, "calc/stats.py").contains("return sum(values) / len(values)"));
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).warning, None);
}

#[tokio::test]
async fn a_part_nothing_of_which_changed_is_marked_not_done() {
    let ws = sample_project();
    std::fs::write(
        ws.path().join("calc/report.py"),
        "from calc.stats import mean\n\n\ndef describe(values, lang=\"en\"):\n    return f\"{mean(values)}\"\n",
    )
    .unwrap();
    let (events, requests, _outcome, _ws) = turn_on(
        ws,
        "Fix the division in `mean` and make reports in German (lang=\"de\") say \"Mittelwert\".",
        vec![
            text_answer(&[FIXED_MEAN]),
            text_answer(&["Fixed the mean."]),
            text_answer(&["DONE"]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        },
        |_| {},
    )
    .await;
    let checklist = user_messages(&requests[2]).join("\n");
    assert!(
        checklist.contains(
            "2. make reports in German (lang=\"de\") say \"Mittelwert\". — NOT DONE YET: calc/report.py using `lang` is not changed"
        ),
        "{checklist}"
    );
    assert!(
        !checklist.contains("1. Fix the division in `mean` —"),
        "{checklist}"
    );
    assert!(
        logs(&events)
            .iter()
            .any(|l| l.ends_with("1 of them plainly not done yet")),
        "{:?}",
        logs(&events)
    );
}

#[tokio::test]
async fn a_check_that_breaks_the_tests_is_put_back() {
    let broken = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / (len(values) - 1)\n\n\ndef median(values):\n    return sorted(values)[len(values) // 2]\n```";
    let (events, requests, outcome, ws) = turn(
        TWO_PART_TASK,
        vec![
            text_answer(&[FIXED_MEAN]),
            text_answer(&["Fixed the mean."]),
            text_answer(&[broken]),
            text_answer(&["Added median."]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            // No round left to mend what the check broke.
            c.test_rounds = 1;
        },
    )
    .await;
    assert_eq!(requests.len(), 4);
    let text = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(text.contains("return sum(values) / len(values)"), "{text}");
    assert!(!text.contains("median"), "{text}");
    let undone = tool_ends(&events)
        .into_iter()
        .filter(|(tool, status, _)| tool == "write_file" && *status == ToolStatus::Success)
        .count();
    assert_eq!(
        undone, 3,
        "two writes by the model, one putting the file back"
    );
    let told = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l) if l.message.contains("put back as before it"))
    });
    assert!(told);
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).result, "Fixed the mean.");
    assert_eq!(agent_end(&events).warning, None, "the tests pass again");
}

#[tokio::test]
async fn a_check_that_breaks_the_tests_gets_the_rounds_left_to_mend_them() {
    let broken = "`calc/stats.py`\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / (len(values) - 1)\n\n\ndef median(values):\n    return sorted(values)[len(values) // 2]\n```";
    let mended = broken.replace("(len(values) - 1)", "len(values)");
    let (events, requests, outcome, ws) = turn(
        TWO_PART_TASK,
        vec![
            text_answer(&[FIXED_MEAN]),
            text_answer(&["Fixed the mean."]),
            text_answer(&[broken]),
            text_answer(&["Added median."]),
            text_answer(&[&mended]),
            text_answer(&["DONE"]),
            text_answer(&["DONE"]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        },
    )
    .await;
    let note = user_messages(&requests[4]).last().cloned().unwrap();
    assert!(note.starts_with("I ran the tests"), "{note}");
    let text = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(text.contains("return sum(values) / len(values)"), "{text}");
    assert!(text.contains("def median(values):"), "{text}");
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).warning, None);
}

#[tokio::test]
async fn a_rename_the_task_asks_for_is_carried_out_before_the_first_call() {
    let (events, requests, outcome, ws) = turn(
        "Rename the function `mean` to `average` everywhere.",
        vec![text_answer(&["DONE"])],
        |c| c.tool_profile = ToolProfile::Compact,
    )
    .await;
    let stats = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(stats.contains("def average(values):"), "{stats}");
    assert!(
        stats.contains("The arithmetic mean of"),
        "the word in prose is left alone: {stats}"
    );
    let package = std::fs::read_to_string(ws.path().join("calc/__init__.py")).unwrap();
    assert!(
        package.contains("from calc.stats import average"),
        "{package}"
    );
    let tests = std::fs::read_to_string(ws.path().join("tests/test_stats.py")).unwrap();
    assert!(
        tests.contains("def test_average_of_three"),
        "a name built from it: {tests}"
    );
    assert!(!tests.contains("mean"), "{tests}");
    // Each file is Keel's own `write_file` call, reported like the model's.
    let written = tool_ends(&events)
        .into_iter()
        .filter(|(tool, status, _)| tool == "write_file" && *status == ToolStatus::Success)
        .count();
    assert_eq!(
        written, 4,
        "README.md, calc/__init__.py, calc/stats.py, tests/test_stats.py"
    );
    assert!(
        logs(&events)
            .iter()
            .any(|l| l.starts_with("renamed `mean` to `average` in README.md, calc/__init__.py")),
        "{:?}",
        logs(&events)
    );
    // The model's first request already says what was done.
    let first = requests[0].body["messages"].to_string();
    assert!(first.contains("## Renamed by Keel"), "{first}");
    assert!(
        first.contains("`test_mean_of_three` → `test_average_of_three`"),
        "{first}"
    );
    assert!(
        first.contains("def average(values)"),
        "the renamed files are shown"
    );
    assert_eq!(requests.len(), 1);
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).warning, None, "files were changed");
    // A bare "DONE" is not the answer a person reads.
    assert_eq!(
        agent_end(&events).result,
        "Renamed `mean` to `average` (11 places in 4 files). Changed `README.md`, `calc/__init__.py`, `calc/stats.py`, `tests/test_stats.py`."
    );
}

#[tokio::test]
async fn a_move_of_python_definitions_the_task_asks_for_is_carried_out_first() {
    let ws = sample_project();
    std::fs::write(
        ws.path().join("calc/utils.py"),
        "\"\"\"Helpers.\"\"\"\nimport re\n\n_PATTERN = re.compile(r\"^(\\d+)h$\")\n\n\ndef parse_duration(text):\n    return int(_PATTERN.match(text).group(1)) * 3600\n\n\ndef shout(text):\n    return text.upper()\n",
    )
    .unwrap();
    std::fs::write(
        ws.path().join("calc/report.py"),
        "from .utils import parse_duration, shout\n\n\ndef line(text):\n    return shout(str(parse_duration(text)))\n",
    )
    .unwrap();
    let (events, requests, outcome, ws) = turn_on(
        ws,
        "Move `parse_duration` (and whatever it needs) into a new module calc/durations.py and update every import.",
        // The answer, then the reply to the check of the task's two parts.
        vec![text_answer(&["DONE"]), text_answer(&["DONE"])],
        |c| c.tool_profile = ToolProfile::Compact,
        |_| {},
    )
    .await;
    let read = |path: &str| std::fs::read_to_string(ws.path().join(path)).unwrap();
    let durations = read("calc/durations.py");
    assert!(durations.starts_with("import re\n"), "{durations}");
    assert!(durations.contains("_PATTERN = re.compile"), "{durations}");
    assert!(
        durations.contains("def parse_duration(text):"),
        "{durations}"
    );
    assert_eq!(
        read("calc/utils.py"),
        "\"\"\"Helpers.\"\"\"\n\n\ndef shout(text):\n    return text.upper()\n"
    );
    assert!(
        read("calc/report.py")
            .starts_with("from .utils import shout\nfrom .durations import parse_duration\n"),
        "{}",
        read("calc/report.py")
    );
    assert!(
        logs(&events).iter().any(|l| l.starts_with(
            "moved `parse_duration` (with `_PATTERN`, which only they use) into calc/durations.py"
        )),
        "{:?}",
        logs(&events)
    );
    let first = requests[0].body["messages"].to_string();
    assert!(first.contains("## Moved by Keel"), "{first}");
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert!(
        agent_end(&events)
            .result
            .starts_with("Moved `parse_duration` (with `_PATTERN`, which only they use) into `calc/durations.py`."),
        "{}",
        agent_end(&events).result
    );
}

#[tokio::test]
async fn a_move_keel_cannot_make_is_left_to_the_model() {
    let (events, _requests, _outcome, ws) = turn(
        "Move `mean` into calc/stats.py.",
        vec![text_answer(&["It is already there."])],
        |c| c.tool_profile = ToolProfile::Compact,
    )
    .await;
    assert!(
        logs(&events).iter().any(|l| l
            == "the move the task asks for is left to the model: calc/stats.py already exists"),
        "{:?}",
        logs(&events)
    );
    assert!(read_sample(&ws, "calc/stats.py").contains("def mean"));
}

#[tokio::test]
async fn the_old_name_a_model_brings_back_after_a_rename_is_shown_to_it() {
    let report = "calc/report.py\n```python\nfrom calc.stats import mean\n\n\ndef summary(values):\n    return f\"avg {mean(values)}\"\n```";
    let fixed = "calc/report.py\n```python\nfrom calc.stats import average\n\n\ndef summary(values):\n    return f\"avg {average(values)}\"\n```";
    let (events, requests, outcome, ws) = turn(
        "Rename the function `mean` to `average` everywhere.",
        vec![
            text_answer(&[report]),
            text_answer(&[fixed]),
            text_answer(&["Done."]),
        ],
        |c| c.tool_profile = ToolProfile::Compact,
    )
    .await;
    let told = user_messages(&requests[1]).join("\n");
    assert!(
        told.contains("The task renames `mean` to `average`, but `mean` is still used"),
        "{told}"
    );
    assert!(
        told.contains("calc/report.py:1:from calc.stats import mean"),
        "{told}"
    );
    let written = std::fs::read_to_string(ws.path().join("calc/report.py")).unwrap();
    assert!(written.contains("import average"), "{written}");
    // The search is Keel's own call, reported like the model's: after each answer that
    // changed files, at most twice.
    let searched = tool_ends(&events)
        .iter()
        .filter(|(tool, _, _)| tool == "search_files")
        .count();
    assert_eq!(searched, 2);
    assert!(requests.len() <= 3, "{}", requests.len());
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn a_looping_answer_with_no_attempt_left_fails_the_turn_saying_why() {
    let line = "The fix is to divide by the number of values, not one less than it.\n";
    let looping = vec![line; 300];
    let (events, requests, outcome, _ws) =
        turn("Fix the failing test", vec![text_answer(&looping)], |_| {}).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(outcome.status, AgentStatus::Failed);
    let end = agent_end(&events);
    assert!(end.result.contains("again and again"), "{end:?}");
}

#[tokio::test]
async fn a_question_about_shown_files_is_answered_without_tools() {
    let (events, requests, outcome, _ws) = turn(
        "Which function computes the mean, and in which file is it?",
        vec![text_answer(&["`mean` in `calc/stats.py`."])],
        |c| {
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
        },
    )
    .await;
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0]
            .body
            .get("tools")
            .is_none_or(|t| t.as_array().is_none_or(Vec::is_empty))
    );
    let system = requests[0].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        system.contains("Answer the question from the project's files shown"),
        "{system}"
    );
    assert!(user_messages(&requests[0])[0].contains("### calc/stats.py"));
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(agent_end(&events).result, "`mean` in `calc/stats.py`.");
}

/// A turn whose tools leave out `write_file` and `replace_in_file` (a review command's
/// `allowed-tools: Read`): a whole file in the answer is not turned into a call the turn cannot
/// make — no refused `write_file` repeated until the turn is stopped; the file stays as it is.
#[tokio::test]
async fn a_turn_that_may_not_write_gets_no_write_made_from_its_answer() {
    let fixed = "Here is the updated `calc/stats.py`:\n\n```python\n\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / len(values)\n```";
    let before = std::fs::read_to_string(sample_project().path().join("calc/stats.py")).unwrap();
    let (events, _, outcome, ws) = turn_with(
        "Fix mean() in calc/stats.py",
        vec![text_answer(&[fixed]), text_answer(&[fixed])],
        |c| c.tool_profile = ToolProfile::Compact,
        |session| {
            let problems = session.apply_overrides(&keel_engine::TurnOverrides {
                model: None,
                tools: Some(vec!["Read".to_owned()]),
            });
            assert!(problems.is_empty(), "{problems:?}");
        },
    )
    .await;
    let ends = tool_ends(&events);
    assert!(
        ends.iter()
            .all(|(name, _, _)| name != "write_file" && name != "replace_in_file"),
        "{ends:?}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap(),
        before
    );
    assert_ne!(outcome.status, AgentStatus::MaxIterations);
    let logs: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            keel_events::EventKind::RunAnomalyDetect(a) => Some(a.message.clone()),
            _ => None,
        })
        .collect();
    assert!(logs.is_empty(), "{logs:?}");
}

/// `calc/stats.py` with a helper and a `__main__` block besides the buggy `mean`: a block
/// with only the fixed `mean` is still more than half of it, so it is read as the whole file.
const STATS_WITH_HELPER: &str = "\"\"\"Descriptive statistics.\"\"\"\n\n\ndef mean(values):\n    \"\"\"The arithmetic mean of a non-empty sequence of numbers.\"\"\"\n    if not values:\n        raise ValueError(\"mean() of an empty sequence\")\n    return sum(values) / (len(values) - 1)\n\ndef total(values):\n    return sum(values)\n\nif __name__ == \"__main__\":\n    print(total([1]))\n";

#[tokio::test]
async fn a_whole_file_keeps_the_definitions_and_the_end_it_left_out() {
    let ws = sample_project();
    std::fs::write(ws.path().join("calc/stats.py"), STATS_WITH_HELPER).unwrap();
    let (events, _requests, outcome, ws) = turn_on(
        ws,
        "Fix the failing test",
        vec![text_answer(&[FIXED_MEAN])],
        |c| {
            // The map finds the file, so the model edits by writing files whole.
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        },
        |_| {},
    )
    .await;
    let text = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert_eq!(
        text,
        STATS_WITH_HELPER.replace("(len(values) - 1)", "len(values)")
    );
    let kept = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l) if l.message == "the answer's calc/stats.py leaves out total, the file's end of the file; kept as it was")
    });
    assert!(kept, "{:#?}", logs(&events));
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn a_look_alike_of_the_quoted_string_is_written_as_the_task_quotes_it() {
    let ws = sample_project();
    let before = "def summary(text):\n    \"\"\"The first ten characters of `text`.\"\"\"\n    return text[:10]\n";
    std::fs::write(ws.path().join("calc/fmt.py"), before).unwrap();
    // The model means "..." and writes the one-character ellipsis.
    let answer = format!(
        "`calc/fmt.py`\n```python\n{}```",
        before.replace("return text[:10]", "return text[:10] + \"\u{2026}\"")
    );
    let (events, _requests, outcome, ws) = turn_on(
        ws,
        "Make `summary` in calc/fmt.py end the text it cuts with \"...\".",
        vec![text_answer(&[&answer]), text_answer(&["DONE"])],
        |c| c.tool_profile = ToolProfile::Compact,
        |_| {},
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.path().join("calc/fmt.py")).unwrap(),
        before.replace("return text[:10]", "return text[:10] + \"...\"")
    );
    let told = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l) if l.message == "the answer's calc/fmt.py writes \"\u{2026}\" for \"...\", a look-alike of the string the task quotes; written as the task writes it")
    });
    assert!(told, "{:#?}", logs(&events));
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn passing_tests_the_task_does_not_speak_of_are_not_rewritten() {
    let ws = sample_project();
    let fixed_stats = FIXED_MEAN
        .split_once("```python\n")
        .and_then(|(_, rest)| rest.strip_suffix("```"))
        .unwrap()
        .to_owned();
    std::fs::write(ws.path().join("calc/stats.py"), &fixed_stats).unwrap();
    let tests_before = std::fs::read_to_string(ws.path().join("tests/test_stats.py")).unwrap();
    // The model "adjusts" a passing test to what it believes.
    let weaker_tests = format!(
        "`tests/test_stats.py`\n```python\n{}```",
        tests_before.replace("mean([5]), 5", "mean([5]), 6")
    );
    let with_total = format!(
        "{}\n\n`calc/stats.py`\n```python\n{fixed_stats}\n\ndef total(values):\n    return sum(values)\n```",
        weaker_tests
    );
    let (events, _requests, outcome, ws) = turn_on(
        ws,
        "Add a `total` function to calc/stats.py that returns the sum.",
        vec![text_answer(&[&with_total]), text_answer(&["DONE"])],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        },
        |_| {},
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.path().join("tests/test_stats.py")).unwrap(),
        tests_before
    );
    assert!(
        std::fs::read_to_string(ws.path().join("calc/stats.py"))
            .unwrap()
            .contains("def total(values):")
    );
    let left = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l) if l.message.contains("left as it is, the tests passed and the task does not ask to change them"))
    });
    assert!(left);
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undefined_name_pyright_reports_goes_back_to_the_model_once_the_tests_pass() {
    crate::agent_diagnostics::require_pyright();
    let body = FIXED_MEAN
        .split_once("```python\n")
        .and_then(|(_, rest)| rest.strip_suffix("```"))
        .unwrap();
    // `spread` calls a function defined nowhere; no test calls it, so the tests pass.
    let helper = "\n\ndef spread(values):\n    return largest(values) - min(values)\n";
    let forgot = format!("`calc/stats.py`\n```python\n{body}{helper}```");
    let fixed = format!(
        "`calc/stats.py`\n```python\n{body}{helper}\n\ndef largest(values):\n    return max(values)\n```"
    );
    let (events, requests, outcome, ws) = turn(
        "Fix the failing test",
        vec![
            text_answer(&[&forgot]),
            text_answer(&[&fixed]),
            text_answer(&["DONE"]),
        ],
        |c| {
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.lsp = Some(crate::agent_diagnostics::patient_pyright());
        },
    )
    .await;
    assert!(requests.len() >= 2, "{:#?}", logs(&events));
    let note = user_messages(&requests[1]).join("\n");
    assert!(
        note.contains(
            "the language server reports errors in the files you changed:\n\ncalc/stats.py:"
        ),
        "{note}"
    );
    assert!(note.contains("\"largest\" is not defined"), "{note}");
    let shown = events.iter().any(|e| {
        matches!(&e.kind, EventKind::SystemLog(l) if l.message.contains("the language servers report 1 error(s) in the changed files"))
    });
    assert!(shown, "{:#?}", logs(&events));
    assert!(
        std::fs::read_to_string(ws.path().join("calc/stats.py"))
            .unwrap()
            .contains("def largest(values):")
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn a_standard_module_used_without_its_import_is_imported() {
    let body = FIXED_MEAN
        .split_once("```python\n")
        .and_then(|(_, rest)| rest.strip_suffix("```"))
        .unwrap();
    let forgot = format!(
        "`calc/stats.py`\n```python\n{body}\n\ndef spread(values):\n    return math.fsum(values) - min(values)\n```"
    );
    let (events, _requests, outcome, ws) =
        turn("Fix the failing test", vec![text_answer(&[&forgot])], |c| {
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
        })
        .await;
    let text = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(
        text.starts_with("\"\"\"Descriptive statistics.\"\"\"\nimport math\n"),
        "{text}"
    );
    assert!(
        logs(&events).contains(
            &"the answer's calc/stats.py uses math without importing it; imported".to_owned()
        ),
        "{:#?}",
        logs(&events)
    );
    assert_eq!(outcome.status, AgentStatus::Completed);
}

/// A module whose function is to be written from its docstring's example.
const SLUG_STUB: &str = "\"\"\"URL slugs.\"\"\"\n\n\ndef slugify(text):\n    \"\"\"Lower case, words joined by dashes.\n\n    >>> slugify(\"Hello World\")\n    'hello-world'\n    \"\"\"\n    raise NotImplementedError\n";

/// `SLUG_STUB` with `body` for `slugify`, as a whole file in the model's answer.
fn slug_answer(body: &str) -> String {
    format!(
        "`calc/slug.py`\n```python\n{}```",
        SLUG_STUB.replace("raise NotImplementedError", body)
    )
}

#[tokio::test]
async fn the_examples_in_a_changed_docstring_run_once_the_tests_pass() {
    let ws = sample_project();
    let fixed_stats = FIXED_MEAN
        .split_once("```python\n")
        .and_then(|(_, rest)| rest.strip_suffix("```"))
        .unwrap()
        .to_owned();
    std::fs::write(ws.path().join("calc/stats.py"), &fixed_stats).unwrap();
    std::fs::write(ws.path().join("calc/slug.py"), SLUG_STUB).unwrap();
    let wrong = slug_answer("return text.replace(\" \", \"-\")");
    let right = slug_answer("return text.lower().replace(\" \", \"-\")");
    let (events, requests, outcome, ws) = turn_on(
        ws,
        "Implement `slugify` in calc/slug.py; its docstring says what it must do.",
        vec![
            text_answer(&[&wrong]),
            text_answer(&["DONE"]),
            text_answer(&[&right]),
            text_answer(&["DONE"]),
            text_answer(&["DONE"]),
        ],
        |c| {
            // The map finds the file: the model works without tools, writing files whole.
            c.repo_map = keel_engine::RepoMapConfig::default();
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.attempts = Some(1);
        },
        |_| {},
    )
    .await;
    // The tests pass with the wrong slug; its example does not, and the model is told so.
    let note = user_messages(&requests[1]).last().cloned().unwrap();
    assert!(
        note.starts_with("The tests pass, but I ran the examples in the docstrings"),
        "{note}"
    );
    assert!(
        note.contains("Failed example:\n    slugify(\"Hello World\")"),
        "{note}"
    );
    assert!(note.contains("Got:\n    'Hello-World'"), "{note}");
    // The answer that changed nothing is told so, without running them again.
    let unchanged = user_messages(&requests[2]).last().cloned().unwrap();
    assert!(
        unchanged
            .starts_with("Your answer changed no file, so the docstrings' examples still fail"),
        "{unchanged}"
    );
    // Offered no tools, the model reads its edit as the code block it wrote, not as JSON.
    let messages = requests[2].body["messages"].as_array().unwrap();
    assert!(
        messages
            .iter()
            .all(|m| m.get("tool_calls").is_none() && m["role"] != "tool"),
        "{messages:#?}"
    );
    assert!(messages.iter().any(|m| {
        m["role"] == "assistant"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("`calc/slug.py`\n```python\n"))
    }));
    // Each run is reported as Keel's own command, as the tests' runs are.
    let examples_runs = events
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::RunToolStart(start)
                if start.call_id.starts_with("keel_examples_")
                    && start.arguments["command"].as_str().is_some_and(|c| c.starts_with("python3 -B -c 'import doctest")))
        })
        .count();
    // After the wrong slug and the right one, not after the answer that changed nothing.
    assert_eq!(examples_runs, 2);
    assert!(read_sample(&ws, "calc/slug.py").contains("text.lower()"));
    assert_eq!(agent_end(&events).warning, None);
    assert_eq!(outcome.status, AgentStatus::Completed);
}

#[tokio::test]
async fn examples_that_still_fail_end_the_turn_with_a_warning() {
    let ws = sample_project();
    let fixed_stats = FIXED_MEAN
        .split_once("```python\n")
        .and_then(|(_, rest)| rest.strip_suffix("```"))
        .unwrap()
        .to_owned();
    std::fs::write(ws.path().join("calc/stats.py"), &fixed_stats).unwrap();
    std::fs::write(ws.path().join("calc/slug.py"), SLUG_STUB).unwrap();
    let wrong = slug_answer("return text");
    let (events, requests, _outcome, _ws) = turn_on(
        ws,
        "Implement `slugify` in calc/slug.py; its docstring says what it must do.",
        vec![
            text_answer(&[&wrong]),
            text_answer(&["DONE"]),
            text_answer(&["DONE"]),
        ],
        |c| {
            c.tool_profile = ToolProfile::Compact;
            c.test_command = Some("python3 -m unittest -q".to_owned());
            c.test_rounds = 1;
            c.attempts = Some(1);
        },
        |_| {},
    )
    .await;
    assert_eq!(requests.len(), 3);
    assert_eq!(
        agent_end(&events).warning.as_deref(),
        Some("the examples in the docstrings of the changed code still fail after 2 run(s)")
    );
}
