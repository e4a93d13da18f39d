//! Full turns of the agent loop on scripted models in a temp copy of the sample project,
//! snapshotted as event sequences (types and stable payload fields; ids, times and token
//! counts left out).

use crate::agent_common;

use std::sync::Arc;

use agent_common::*;
use futures::StreamExt;
use keel_events::{AgentStatus, Event, EventHandler, EventKind, StatusKind};
use keel_protocol::{CANNOT_ANSWER, Mode, Question, QuestionAnswerer};
use keel_test_support::sample_project;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const BUGGY: &str = "    return sum(values) / (len(values) - 1)";
const FIXED: &str = "    return sum(values) / len(values)";

fn fix_diff() -> String {
    format!("<<<<<<< SEARCH\n{BUGGY}\n=======\n{FIXED}\n>>>>>>> REPLACE")
}

#[tokio::test]
async fn direct_turn() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"chunk_chars": 20, "turns": [
            {"thinking": "Read the module first.", "text": "Reading calc/stats.py.",
             "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "calc/stats.py"}}]},
            {"text": "Fixing the divisor.",
             "tool_calls": [{"id": "c2", "name": "replace_in_file",
                             "arguments": {"path": "calc/stats.py", "diff": fix_diff()}}]},
            {"tool_calls": [{"id": "c3", "name": "execute_command",
                             "arguments": {"command": "echo tests-ok", "requires_approval": false}}]},
            {"text": "Done.", "tool_calls": [{"id": "c4", "name": "attempt_completion",
                "arguments": {"result": "Fixed mean().", "command": "python3 -m unittest"}}]}
        ]}),
        |c| c.mode = Mode::Direct,
    );
    // The stream yields exactly what the bus saw.
    let streamed: Vec<Arc<Event>> = session.run("Fix the failing test").collect().await;
    let outcome = session.last_outcome().unwrap().clone();
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(outcome.result, "Fixed mean().");
    assert_eq!(outcome.files_changed, ["calc/stats.py"]);
    let events = collector.events();
    assert_eq!(streamed.len(), events.len());
    assert!(streamed.iter().zip(&events).all(|(a, b)| **a == *b));
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));

    let source = std::fs::read_to_string(ws.path().join("calc/stats.py")).unwrap();
    assert!(source.contains(FIXED));
    // The edited file is focused with its new content; history refers to it.
    assert!(
        session
            .focused_files()
            .get("calc/stats.py")
            .unwrap()
            .content()
            .contains(FIXED)
    );
    assert_conversation_consistent(session.conversation());
    insta::assert_snapshot!(describe(&events));
}

#[tokio::test]
async fn plan_turn() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"text": "A plan.", "tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Fix mean() and rename its tests",
                "estimated_complexity": "low",
                "steps": [
                    {"title": "Fix mean()", "description": "Divide by len(values).", "expected_tools": ["replace_in_file"]},
                    {"title": "Rename the tests", "description": "Move tests/test_stats.py to tests/test_mean.py."}
                ]}}]},
            {"tool_calls": [{"id": "s1", "name": "replace_in_file",
                             "arguments": {"path": "calc/stats.py", "diff": fix_diff()}}]},
            {"text": "Step 1 done."},
            {"tool_calls": [{"id": "s2", "name": "move_file",
                             "arguments": {"fromPath": "tests/test_stats.py", "toPath": "tests/test_mean.py"}}]},
            {"text": "Step 2 done: tests moved."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Fix mean() and tidy the tests").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "Step 2 done: tests moved.");
    assert_eq!(
        outcome.files_changed,
        ["calc/stats.py", "tests/test_stats.py", "tests/test_mean.py"]
    );
    assert!(ws.path().join("tests/test_mean.py").exists());
    assert_conversation_consistent(session.conversation());
    insta::assert_snapshot!(describe(&collector.events()));
}

#[tokio::test]
async fn repair_turn() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Fix mean()", "estimated_complexity": "low",
                "steps": [{"title": "Fix mean()", "description": "Divide by len(values)."}]}}]},
            {"tool_calls": [{"id": "bad", "name": "replace_in_file",
                             "arguments": {"path": "calc/stat.py", "diff": fix_diff()}}]},
            {"text": "I could not edit the file."},
            {"tool_calls": [{"id": "good", "name": "replace_in_file",
                             "arguments": {"path": "calc/stats.py", "diff": fix_diff()}}]},
            {"text": "Fixed after correcting the path."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Fix mean()").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let events = collector.events();
    let repairs: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunRepairAttempt(r) => Some((r.attempt_number, r.result)),
            _ => None,
        })
        .collect();
    assert_eq!(repairs.len(), 2);
    assert_conversation_consistent(session.conversation());
    insta::assert_snapshot!(describe(&events));
}

#[tokio::test]
async fn a_step_that_never_recovers_fails_the_plan_after_three_repairs() {
    let ws = sample_project();
    let failing =
        json!({"tool_calls": [{"name": "read_file", "arguments": {"path": "missing.py"}}]});
    let give_up = json!({"text": "Still missing."});
    let mut turns = vec![
        json!({"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
        "goal": "g", "estimated_complexity": "low",
        "steps": [{"title": "Read it", "description": "Read missing.py."}]}}]}),
    ];
    for n in 0..4 {
        let mut call = failing.clone();
        call["tool_calls"][0]["arguments"]["path"] = json!(format!("missing{n}.py"));
        turns.push(call);
        turns.push(give_up.clone());
    }
    let (mut session, collector) = scripted(ws.path(), json!({"turns": turns}), |c| {
        c.anomalies.failures = 10;
    });
    let outcome = session.run_turn("Read it").await;
    assert!(
        outcome.result.starts_with("step 1 (Read it) failed"),
        "{}",
        outcome.result
    );
    assert_eq!(outcome.status, AgentStatus::Failed);
    let types = types(&collector.events());
    assert_eq!(
        types.iter().filter(|t| **t == "run.repair.attempt").count(),
        6
    );
    let tail: Vec<_> = types.iter().rev().take(5).rev().copied().collect();
    assert_eq!(
        tail,
        [
            "run.step.fail",
            "run.execution.fail",
            "run.plan.complete",
            "run.response.end",
            "agent.end"
        ]
    );
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn approval_rejected() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Rewrite everything", "estimated_complexity": "high",
                "steps": [{"title": "Rewrite", "description": "All of it."}]}}]}
        ]}),
        |c| c.approve_plans = true,
    );
    // The default approver cannot ask anyone, so it rejects.
    let outcome = session.run_turn("Rewrite everything").await;
    assert_eq!(outcome.status, AgentStatus::Cancelled);
    assert!(
        outcome.result.starts_with("plan rejected: "),
        "{}",
        outcome.result
    );
    assert_conversation_consistent(session.conversation());
    // Seed 000's `PlanAwaitingApprovalEvent{message, plan}`: the request carries the plan,
    // and so does its v1 projection.
    let events = collector.events();
    let request = events
        .iter()
        .find(|e| matches!(e.kind, EventKind::RunApprovalRequest(_)))
        .unwrap();
    let v1 = keel_events::projection::to_legacy(request).unwrap();
    assert_eq!(v1["type"], "awaiting_approval");
    assert_eq!(v1["plan"]["goal"], "Rewrite everything");
    assert_eq!(v1["plan"]["steps"][0]["title"], "Rewrite");
    insta::assert_snapshot!(describe(&events));
}

/// Cancels the turn when a tool starts running a command.
struct CancelOnCommand(CancellationToken);

impl EventHandler for CancelOnCommand {
    fn handle(&mut self, event: &Event) {
        if let EventKind::RunToolStart(start) = &event.kind
            && start.tool_name == "execute_command"
        {
            self.0.cancel();
        }
    }
}

#[tokio::test]
async fn cancel_mid_tool_then_next_turn() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"text": "Running a long command.", "tool_calls": [
                {"id": "long", "name": "execute_command", "arguments": {"command": "sleep 30", "requires_approval": false}},
                {"id": "after", "name": "read_file", "arguments": {"path": "calc/stats.py"}}
            ]},
            {"text": "Still here. What next?"}
        ]}),
        |c| c.mode = Mode::Direct,
    );
    session
        .emitter()
        .bus()
        .add_handler(CancelOnCommand(session.cancel_handle()));
    let started = std::time::Instant::now();
    let outcome = session.run_turn("Run the slow thing").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(outcome.status, AgentStatus::Cancelled);
    assert_conversation_consistent(session.conversation());

    let first = collector.events();
    collector.clear();
    let outcome = session.run_turn("Anything else?").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(outcome.result, "Still here. What next?");
    assert_conversation_consistent(session.conversation());
    insta::assert_snapshot!(format!(
        "{}\n--- next turn ---\n{}",
        describe(&first),
        describe(&collector.events())
    ));
}

#[tokio::test]
async fn fallback_to_the_next_model() {
    let ws = sample_project();
    let provider = Arc::new(keel_engine::ScriptedProvider::new(
        keel_engine::Script::from_json(
            &json!({"turns": [
                {"error": {"status": 404, "message": "The model `gpt-missing` does not exist", "code": "model_not_found"}},
                {"text": "Answer from the fallback model."}
            ]})
            .to_string(),
        )
        .unwrap(),
    ));
    let (mut session, collector) =
        session_with(ws.path(), provider, &["gpt-missing", "gpt-backup"], |_| {});
    let outcome = session.run_turn("What does mean() do?").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    insta::assert_snapshot!(describe(&collector.events()));
}

#[tokio::test]
async fn retry_after_503() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"error": {"status": 503, "message": "overloaded", "retry_after_ms": 5}},
            {"text": "Answer after a retry."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Hello").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    insta::assert_snapshot!(describe(&collector.events()));
}

#[tokio::test]
async fn provider_failure_ends_the_turn_failed_and_the_session_goes_on() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"error": {"status": 401, "message": "invalid api key"}},
            {"text": "Back."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Hello").await;
    assert_eq!(outcome.status, AgentStatus::Failed);
    let events = collector.events();
    let error = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SystemError(err) => Some(err.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(error.error_type, "provider");
    assert!(error.error.contains("invalid api key"));
    assert_eq!(
        session.run_turn("Again").await.status,
        AgentStatus::Completed
    );
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn a_truncated_call_is_not_run_and_the_model_is_told() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "cut", "name": "write_file",
                             "arguments": "{\"path\": \"new.py\", \"content\": \"print(1"}],
             "finish_reason": "length"},
            {"when_tool_result_contains": "arguments were cut off", "text": "I will write less at once."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Write new.py").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(outcome.result, "I will write less at once.");
    assert!(!ws.path().join("new.py").exists());
    let end = collector
        .events()
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::RunToolEnd(end) => Some(end),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.status, keel_events::ToolStatus::Error);
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn repeated_calls_warn_then_stop() {
    let ws = sample_project();
    let read = json!({"tool_calls": [{"name": "list_files", "arguments": {"path": "."}}]});
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [read.clone(), read.clone(), read.clone(), read.clone(), {"text": "never"}]}),
        |_| {},
    );
    let outcome = session.run_turn("Look around").await;
    assert_eq!(outcome.status, AgentStatus::Failed);
    assert!(
        outcome.result.starts_with("stopped: "),
        "{}",
        outcome.result
    );
    let anomalies = collector
        .events()
        .iter()
        .filter(|e| e.type_name() == "run.anomaly.detect")
        .count();
    assert_eq!(anomalies, 2);
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn max_iterations_bounds_the_turn() {
    let ws = sample_project();
    let turns: Vec<_> = (0..5)
        .map(|n| json!({"tool_calls": [{"name": "read_file", "arguments": {"path": "calc/stats.py", "start_line": n + 1}}]}))
        .collect();
    let (mut session, _collector) = scripted(ws.path(), json!({"turns": turns}), |c| {
        c.max_iterations = 3;
    });
    let outcome = session.run_turn("Read forever").await;
    assert_eq!(outcome.status, AgentStatus::MaxIterations);
    assert_eq!(outcome.iterations, 3);
    assert_conversation_consistent(session.conversation());
}

#[derive(Debug)]
struct Answers;

#[async_trait::async_trait]
impl QuestionAnswerer for Answers {
    async fn answer(&self, question: &Question) -> String {
        format!("yes to: {}", question.text)
    }
}

#[tokio::test]
async fn questions_are_answered_and_fed_back() {
    let ws = sample_project();
    let (session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "q", "name": "ask_followup_question",
                             "arguments": {"question": "Keep the old API?", "options": ["yes", "no"]}}]},
            {"when_tool_result_contains": "yes to: Keep the old API?", "text": "Keeping it."}
        ]}),
        |_| {},
    );
    let mut session = session.with_answerer(Arc::new(Answers));
    let outcome = session.run_turn("Refactor").await;
    assert_eq!(outcome.result, "Keeping it.");
    let events = collector.events();
    let types = types(&events);
    let ask = types.iter().position(|t| *t == "run.question.ask").unwrap();
    assert_waiting(&events[ask + 1], StatusKind::WaitingForAnswer);
    assert_eq!(types[ask + 2], "run.question.answer");
}

/// `event` is a `system.status` wait of `kind`.
fn assert_waiting(event: &Event, kind: StatusKind) {
    match &event.kind {
        EventKind::SystemStatus(status) => assert_eq!(status.kind, Some(kind), "{status:?}"),
        other => panic!("expected a system.status, got {other:?}"),
    }
}

#[tokio::test]
async fn planning_replies_are_questions_answered_by_their_id() {
    let ws = sample_project();
    let (session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "call_respond", "name": "plan_mode_respond",
                             "arguments": {"response": "Two ways: patch mean() or rewrite stats.",
                                           "options": ["patch", "rewrite"]}}]},
            {"when_tool_result_contains": "yes to: Two ways", "text": "The user chose."},
            // Plan mode reminds a model that answers without a plan once.
            {"text": "Patching, then."}
        ]}),
        |c| c.mode = Mode::Plan,
    );
    let mut session = session.with_answerer(Arc::new(Answers));
    let outcome = session.run_turn("Fix mean()").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    assert_eq!(outcome.result, "Patching, then.");
    let events = collector.events();
    let at = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::RunPlanRespond(_)))
        .unwrap();
    match &events[at].kind {
        EventKind::RunPlanRespond(respond) => {
            assert_eq!(respond.question_id, "call_respond");
            assert_eq!(respond.options, ["patch", "rewrite"]);
        }
        other => panic!("{other:?}"),
    }
    assert_waiting(&events[at + 1], StatusKind::WaitingForAnswer);
    match &events[at + 2].kind {
        EventKind::RunQuestionAnswer(answer) => {
            assert_eq!(answer.question_id, "call_respond");
            assert_eq!(
                answer.answer,
                "yes to: Two ways: patch mean() or rewrite stats."
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_question_nobody_can_answer_tells_the_model_to_decide() {
    let ws = sample_project();
    // The default answerer cannot ask anyone.
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "q", "name": "ask_followup_question",
                             "arguments": {"question": "Keep the old API?"}}]},
            {"when_tool_result_contains": "No one can answer", "text": "Kept it (assumed)."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Refactor").await;
    assert_eq!(outcome.result, "Kept it (assumed).");
    let answer = collector
        .events()
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::RunQuestionAnswer(a) => Some(a),
            _ => None,
        })
        .unwrap();
    assert_eq!(answer.answer, CANNOT_ANSWER);
}

#[tokio::test]
async fn every_model_call_is_waited_for_and_step_text_is_reported() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Look around", "estimated_complexity": "low",
                "steps": [{"title": "List", "description": "List the files."}]}}]},
            {"text": "Listing first.",
             "tool_calls": [{"id": "l", "name": "list_files", "arguments": {"path": "."}}]},
            {"text": "Listed them."}
        ]}),
        |_| {},
    );
    let outcome = session.run_turn("Look around").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    let events = collector.events();
    for (at, event) in events.iter().enumerate() {
        if matches!(event.kind, EventKind::RunLlmStart(_)) {
            assert_waiting(&events[at + 1], StatusKind::WaitingForModel);
        }
    }
    let outputs: Vec<(u32, String)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunStepOutput(o) => Some((o.step_id, o.content.clone())),
            _ => None,
        })
        .collect();
    // Both responses of the step had text; the plan's own response had none.
    assert_eq!(
        outputs,
        [
            (1, "Listing first.".to_owned()),
            (1, "Listed them.".to_owned())
        ]
    );
}

#[tokio::test]
async fn the_system_prompt_is_in_run_llm_start_only_when_asked_for() {
    for include in [false, true] {
        let ws = sample_project();
        let (mut session, collector) =
            scripted(ws.path(), json!({"turns": [{"text": "Hi."}]}), |c| {
                c.include_system_prompt = include
            });
        session.run_turn("Hello").await;
        let start = collector
            .events()
            .into_iter()
            .find_map(|e| match e.kind {
                EventKind::RunLlmStart(s) => Some(s),
                _ => None,
            })
            .unwrap();
        match (include, start.system_prompt) {
            (false, None) => {}
            (true, Some(prompt)) => {
                assert!(prompt.contains("attempt_completion"), "{prompt}");
                // The repo map opens the turn's first message, not the system prompt.
                assert!(!prompt.contains("## Repository map"), "{prompt}");
            }
            (include, prompt) => panic!("include {include}: {prompt:?}"),
        }
    }
}

#[tokio::test]
async fn a_resumed_conversation_reports_its_history() {
    let ws = sample_project();
    let (mut first, _) = scripted(ws.path(), json!({"turns": [{"text": "Hi."}]}), |_| {});
    first.run_turn("Hello").await;
    let stored = first.conversation().clone();

    let (session, collector) = scripted(ws.path(), json!({"turns": [{"text": "Again."}]}), |_| {});
    let mut session = session.with_conversation("conv_stored", stored);
    let outcome = session.run_turn("Hello again").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    let events = collector.events();
    assert_eq!(
        &types(&events)[..4],
        [
            "agent.start",
            "prepare.conversation.open",
            "prepare.history.load",
            "prepare.model.select"
        ]
    );
    match &events[2].kind {
        EventKind::PrepareHistoryLoad(load) => {
            assert_eq!((load.start_turn, load.action_history_len), (2, 2));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(session.conversation().len(), 4);
}

#[tokio::test]
async fn plan_mode_starts_in_plan_and_reminds_the_model_once() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"text": "Let me think about it."},
            {"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Say hello", "estimated_complexity": "low",
                "steps": [{"title": "Greet", "description": "Say hello."}]}}]},
            {"text": "Hello!"}
        ]}),
        |c| c.mode = Mode::Plan,
    );
    let outcome = session.run_turn("Greet").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    assert_eq!(outcome.result, "Hello!");
    let events = collector.events();
    let modes: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunResponseStart(s) => Some(s.mode),
            _ => None,
        })
        .collect();
    assert_eq!(modes, [keel_events::ResponseMode::Plan]);
    assert!(types(&events).contains(&"run.step.end"));
}

#[tokio::test]
async fn cancel_during_the_model_call() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"chunk_chars": 2, "delay_ms": 50, "turns": [
            {"text": "A long, slowly streamed answer that will not finish."},
            {"text": "Fresh start."}
        ]}),
        |_| {},
    );
    let cancel = session.cancel_handle();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let outcome = session.run_turn("Talk").await;
    assert_eq!(outcome.status, AgentStatus::Cancelled);
    let events = collector.events();
    let end = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunLlmEnd(end) => Some(end.finish_reason),
            _ => None,
        })
        .unwrap();
    assert_eq!(end, keel_events::FinishReason::Cancelled);
    assert_eq!(session.run_turn("Again").await.result, "Fresh start.");
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn cancel_during_a_plan_step() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Wait", "estimated_complexity": "low",
                "steps": [{"title": "Wait", "description": "Sleep."}, {"title": "Never", "description": "Not reached."}]}}]},
            {"tool_calls": [{"id": "sleep", "name": "execute_command",
                             "arguments": {"command": "sleep 30", "requires_approval": false}}]}
        ]}),
        |_| {},
    );
    session
        .emitter()
        .bus()
        .add_handler(CancelOnCommand(session.cancel_handle()));
    let outcome = session.run_turn("Wait a while").await;
    assert_eq!(outcome.status, AgentStatus::Cancelled);
    let types = types(&collector.events());
    let tail: Vec<_> = types.iter().rev().take(4).rev().copied().collect();
    assert_eq!(
        tail,
        [
            "run.tool.end",
            "run.execution.cancel",
            "run.response.end",
            "agent.end"
        ]
    );
    assert_conversation_consistent(session.conversation());
}

#[tokio::test]
async fn old_turns_are_summarised_when_the_window_is_small() {
    let ws = sample_project();
    // Numbered, so the loop guard does not take it for a sentence written on and on.
    let long: String = (0..120)
        .map(|i| format!("Mean {i:03} divides by the count of values. "))
        .collect();
    let (mut session, collector) = scripted(
        ws.path(),
        // The third request is the model's summary of the first turns.
        json!({"turns": [
            {"text": long},
            {"text": long},
            {"text": "The user asked twice how mean() works; it divides by the count."},
            {"text": "Short."}
        ]}),
        |c| {
            c.context_window = Some(6_700);
            // The full tool definitions, whose size this scenario's window is set for (set
            // before the `task` tool joined them).
            c.tool_profile = keel_engine::agent::ToolProfile::Full;
            c.subagents.max_depth = 0;
        },
    );
    for task in ["Explain mean()", "Explain it again", "Once more"] {
        assert_eq!(session.run_turn(task).await.status, AgentStatus::Completed);
    }
    assert_eq!(session.last_outcome().unwrap().result, "Short.");
    let compress = collector
        .events()
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::RunContextCompress(c) => Some(c),
            _ => None,
        })
        .expect("no run.context.compress");
    assert!(compress.compressed_tokens < compress.original_tokens);
    assert_eq!(
        compress.summarizer,
        Some(keel_events::SummarizerKind::Model)
    );
    assert_eq!(compress.fallback_reason, None);
    assert!(
        compress.usage.is_some(),
        "the scripted provider reports usage"
    );
    assert_eq!(
        session.conversation().summary(),
        Some("The user asked twice how mean() works; it divides by the count.")
    );
    assert_conversation_consistent(session.conversation());
}

/// Seed 002 §3.2: history carries at most `max_history_messages` messages into a turn; older
/// whole turns are folded into the summary by the session's summariser (no model call), and
/// `run.context.compress` says so. A turn itself is never cut, and no limit means none.
#[tokio::test]
async fn history_keeps_at_most_the_configured_messages() {
    let dir = tempfile::tempdir().unwrap();
    let turns = json!({"turns": [
        {"text": "One."}, {"text": "Two."}, {"text": "Three."}, {"text": "Four."}, {"text": "Five."}
    ]});
    let (mut session, collector) = scripted(dir.path(), turns.clone(), |c| {
        c.max_history_messages = Some(6);
    });
    for task in [
        "First task",
        "Second task",
        "Third task",
        "Fourth task",
        "Fifth task",
    ] {
        assert_eq!(session.run_turn(task).await.status, AgentStatus::Completed);
        assert!(session.conversation().len() <= 6);
    }
    let folds: Vec<_> = collector
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::RunContextCompress(c) => Some(c),
            _ => None,
        })
        .collect();
    // Turn 4 opens over the limit (6 messages + its request): turn 1 is folded; turn 5 folds
    // turn 2 into the same summary.
    assert_eq!(folds.len(), 2, "{folds:?}");
    assert_eq!(
        folds[0].summarizer,
        Some(keel_events::SummarizerKind::Extractive)
    );
    assert!(folds[0].compressed_tokens < folds[0].original_tokens);
    assert!(
        folds[1].summary.contains("User asked: First task"),
        "{}",
        folds[1].summary
    );
    assert!(
        folds[1].summary.contains("User asked: Second task"),
        "{}",
        folds[1].summary
    );
    let conversation = session.conversation();
    assert_eq!(conversation.summary(), Some(folds[1].summary.as_str()));
    assert!(
        conversation.messages()[0].starts_turn(),
        "history opens with a request"
    );
    assert_eq!(conversation.messages()[0].content(), "Third task");
    assert_conversation_consistent(conversation);

    // Without a limit nothing is folded.
    let (mut session, collector) = scripted(dir.path(), turns, |c| {
        c.max_history_messages = None;
    });
    for task in [
        "First task",
        "Second task",
        "Third task",
        "Fourth task",
        "Fifth task",
    ] {
        assert_eq!(session.run_turn(task).await.status, AgentStatus::Completed);
    }
    assert_eq!(session.conversation().len(), 10);
    assert!(
        !collector
            .events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::RunContextCompress(_)))
    );
}

/// A plan step caught repeating itself: the first warning tells the model to change its
/// approach, and the front end hears it as `run.plan.replan` (seed 000's `replan_warning`).
/// In plan mode the turn's first reasoning is forced (`run.thinking.start{is_forced}`).
#[tokio::test]
async fn a_stuck_plan_step_is_told_to_replan() {
    let ws = sample_project();
    let list = json!({"tool_calls": [{"name": "list_files", "arguments": {"path": "."}}]});
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"thinking": "Plan first.",
             "tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "Look around", "estimated_complexity": "low",
                "steps": [{"title": "List", "description": "List the files."}]}}]},
            list, list, list,
            {"thinking": "Same result again; stop listing.", "text": "Listed them."}
        ]}),
        |c| c.mode = Mode::Plan,
    );
    let outcome = session.run_turn("Look around").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let events = collector.events();
    let replans: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunPlanReplan(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(replans.len(), 1, "{}", describe(&events));
    assert!(replans[0].message.contains("change its approach"));
    assert!(!replans[0].reason.is_empty());
    let thinking: Vec<(bool, bool)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunThinkingStart(s) => Some((s.is_initial, s.is_forced)),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, [(true, true), (false, false)]);
}

/// Seed 003 §6 through the real tool under the Chinese locale: the move's `tool_call` and
/// `file_update` timeline records are the seed's examples word for word.
#[tokio::test]
async fn a_move_under_the_chinese_locale_is_seed_003s_timeline() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/old.ts"), "export {}\n").unwrap();
    let (mut session, collector) = scripted(
        dir.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "m", "name": "move_file",
                             "arguments": {"fromPath": "src/old.ts", "toPath": "src/new.ts"}}]},
            {"text": "移好了。"}
        ]}),
        |c| {
            c.lang = keel_events::Lang::ZhCn;
            c.mode = Mode::Direct;
        },
    );
    let outcome = session.run_turn("把 src/old.ts 移到 src/new.ts").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let records: Vec<serde_json::Value> = collector
        .events()
        .iter()
        .filter_map(keel_events::projection::to_timeline)
        .map(|record| serde_json::to_value(record).unwrap())
        .filter(|record| record["type"] == "tool_call" || record["type"] == "file_update")
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    let mut tool_call = records
        .iter()
        .find(|r| r["type"] == "tool_call")
        .unwrap()
        .clone();
    // The seed's example has no duration; Keel's record adds it.
    tool_call["payload"]
        .as_object_mut()
        .unwrap()
        .remove("duration");
    assert_eq!(
        tool_call["payload"],
        json!({
            "toolName": "move_file",
            "argsSummary": "src/old.ts → src/new.ts",
            "fromPath": "src/old.ts",
            "toPath": "src/new.ts",
            "success": true,
            "resultSummary": "文件已移动"
        })
    );
    let mut file_update = records
        .iter()
        .find(|r| r["type"] == "file_update")
        .unwrap()
        .clone();
    // Keel's record adds the file's size and type.
    let extra = file_update["payload"].as_object_mut().unwrap();
    extra.remove("fileSize");
    extra.remove("mimeType");
    assert_eq!(
        file_update["payload"],
        json!({
            "path": "src/new.ts",
            "op": "move",
            "fromPath": "src/old.ts",
            "toPath": "src/new.ts",
            "summary": "移动文件 src/old.ts → src/new.ts"
        })
    );
}

/// Seed 002 §6 under the Chinese locale: `create_plan` answers the model with the seed's words.
#[tokio::test]
async fn create_plan_speaks_the_seeds_chinese() {
    let ws = sample_project();
    let (mut session, collector) = scripted(
        ws.path(),
        json!({"turns": [
            {"tool_calls": [{"id": "p", "name": "create_plan", "arguments": {
                "goal": "修复 mean()", "estimated_complexity": "low",
                "steps": [{"title": "读代码", "description": "读 calc/stats.py。"},
                          {"title": "修复", "description": "除以 len(values)。"}]}}]},
            {"text": "读完了。"},
            {"text": "修好了。"}
        ]}),
        |c| c.lang = keel_events::Lang::ZhCn,
    );
    let _ = session.run_turn("修复 mean()").await;
    let plan_results: Vec<String> = collector
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) if end.tool_name == "create_plan" => {
                Some(end.result.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(plan_results, ["计划已创建，共 2 个步骤"]);
}
