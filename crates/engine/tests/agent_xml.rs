//! Turns with the XML tool-call format (`ToolFormat::Xml`, seed 004 §2.2): the model writes its
//! calls as XML in its text; they run exactly like native calls, and the results go back in the
//! same convention.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_engine::{OpenAiConfig, OpenAiProvider, ToolFormat};
use keel_events::{AgentStatus, EventKind, ToolStatus};
use keel_protocol::Mode;
use keel_test_support::sample_project;
use serde_json::json;
use support::*;

const BUGGY: &str = "    return sum(values) / (len(values) - 1)";
const FIXED: &str = "    return sum(values) / len(values)";

fn fix_diff() -> String {
    format!("<<<<<<< SEARCH\n{BUGGY}\n=======\n{FIXED}\n>>>>>>> REPLACE")
}

#[tokio::test]
async fn xml_turn() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"chunk_chars": 7, "turns": [
            {"text": "<thinking>Look at the module first.</thinking>Reading it.\n<read_file>\n<path>calc/stats.py</path>\n</read_file>"},
            {"text": format!("Fixing the divisor.\n<replace_in_file>\n<path>calc/stats.py</path>\n<diff>\n{}\n</diff>\n</replace_in_file>", fix_diff())},
            {"text": "Running the tests.\n<execute_command>\n<command>echo tests-ok</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
            {"text": "Listing.\n<list_files>\n<path>tests</path>"},
            {"text": "Done.\n<attempt_completion>\n<result>Fixed mean().</result>\n</attempt_completion>"}
        ]}),
        |c| {
            c.mode = Mode::Direct;
            c.tool_format = ToolFormat::Xml;
        },
    );
    let outcome = session.run_turn("Fix the failing test").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "Fixed mean().");
    assert_eq!(outcome.files_changed, ["calc/stats.py"]);
    let source = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(source.contains(FIXED));

    let events = collector.events();
    let ends: Vec<(String, ToolStatus)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) => Some((end.tool_name.clone(), end.status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            ("read_file".to_owned(), ToolStatus::Success),
            ("replace_in_file".to_owned(), ToolStatus::Success),
            ("execute_command".to_owned(), ToolStatus::Success),
            ("list_files".to_owned(), ToolStatus::Error),
            ("attempt_completion".to_owned(), ToolStatus::Success),
        ]
    );
    // The unclosed block was not run; the model was told why.
    let unclosed = session
        .conversation()
        .messages()
        .iter()
        .find_map(|m| match m {
            keel_context::Message::Tool(t) if t.tool_name == "list_files" => {
                Some(t.content.clone())
            }
            _ => None,
        })
        .unwrap();
    assert!(
        unclosed.contains("<list_files> block was not closed"),
        "{unclosed}"
    );
    // No tag reaches the answer text.
    assert!(events.iter().all(|e| match &e.kind {
        EventKind::RunLlmDelta(d) => !d.text.contains('<'),
        _ => true,
    }));
    assert_conversation_consistent(session.conversation());
    insta::assert_snapshot!(describe(&events));
}

#[tokio::test]
async fn xml_turn_over_http_sends_no_tools_and_results_as_xml() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![
        text_answer(&[
            "I will read it.\n<read_",
            "file>\n<path>calc/st",
            "ats.py</path>\n</read_file>",
        ]),
        text_answer(&[
            "<attempt_completion>\n<result>mean() divides by n - 1.</result>\n",
            "</attempt_completion>",
        ]),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
        c.tool_format = ToolFormat::Xml;
    });
    let outcome = session.run_turn("What is wrong with mean()?").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "mean() divides by n - 1.");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(
            request.body.get("tools").is_none_or(|t| t.is_null()),
            "tools were sent: {}",
            request.body["tools"]
        );
        let messages = request.body["messages"].as_array().unwrap();
        assert!(messages.iter().all(|m| {
            m["role"] != "tool"
                && m.get("tool_calls")
                    .is_none_or(|c| c.is_null() || c.as_array().is_some_and(|a| a.is_empty()))
        }));
        let system = messages[0]["content"].as_str().unwrap();
        assert!(system.contains("## Tool use"));
        assert!(system.contains("#### read_file"));
        assert!(system.contains("#### attempt_completion"));
        assert!(!system.contains("#### create_plan"));
    }
    let second = requests[1].body["messages"].as_array().unwrap();
    let n = second.len();
    assert_eq!(second[n - 2]["role"], "assistant");
    assert_eq!(
        second[n - 2]["content"],
        "I will read it.\n\n<read_file>\n<path>calc/stats.py</path>\n</read_file>"
    );
    assert_eq!(second[n - 1]["role"], "user");
    let result = second[n - 1]["content"].as_str().unwrap();
    assert!(
        result.starts_with("<tool_result tool_name=\"read_file\">\n"),
        "{result}"
    );
    assert!(result.contains("def mean(values)"));
    assert!(result.ends_with("</tool_result>"));

    let types = types(&collector.events());
    assert_eq!(types.iter().filter(|t| **t == "run.tool.start").count(), 2);
    assert_eq!(types.iter().filter(|t| **t == "run.tool.end").count(), 2);
    assert_conversation_consistent(session.conversation());
}
