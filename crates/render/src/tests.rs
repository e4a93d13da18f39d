//! Unit tests of the renderer: one rendering per catalogue type, line state, tool pairing,
//! the spinner's cues, and write errors.

use std::sync::{Arc, Mutex};

use keel_events::*;
use serde_json::json;

use super::{ConsoleRenderer, RenderOptions, Spinner};
use keel_events::Lang;

fn plan() -> Plan {
    Plan {
        goal: "Add a --json flag".into(),
        steps: vec![
            PlanStep {
                index: 1,
                title: "Parse the flag".into(),
                description: "Add `json: bool` to the CLI arguments".into(),
                expected_tools: vec!["edit_file".into()],
            },
            PlanStep {
                index: 2,
                title: "Print JSON".into(),
                description: "Serialise the result when the flag is set".into(),
                expected_tools: vec![],
            },
        ],
        estimated_complexity: Complexity::Low,
    }
}

fn usage(prompt: u64, completion: u64) -> Usage {
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        cached_tokens: None,
    }
}

/// One payload of every catalogue type, in catalogue order.
fn one_of_each() -> Vec<EventKind> {
    let progress = Progress {
        current: 1,
        total: 2,
    };
    vec![
        AgentStart {
            agent_name: "keel".into(),
            task_input: "Add a --json flag\nand document it".into(),
            mode_hint: Some(ModeHint::Plan),
            images: None,
        }
        .into(),
        AgentEnd {
            status: AgentStatus::Completed,
            result: "done".into(),
            files_changed: vec!["src/main.rs".into()],
            usage: usage(1200, 300),
            warning: None,
        }
        .into(),
        PrepareModelSelect {
            requested_model: "big".into(),
            final_model: "small".into(),
            is_fallback: true,
            reason: Some("big is overloaded".into()),
        }
        .into(),
        PrepareConversationOpen {
            conversation_id: "conv-1".into(),
            action: ConversationAction::Resume,
        }
        .into(),
        PrepareHistoryLoad {
            start_turn: 3,
            action_history_len: 14,
            pending_tool_count: 1,
        }
        .into(),
        PrepareRepomapBuild {
            files: 120,
            symbols: 1450,
            tokens: 4096,
            duration_ms: 230,
            cached: true,
        }
        .into(),
        PrepareInstructionsLoad {
            files: vec![
                InstructionsFile {
                    path: "AGENTS.md".into(),
                    scope: InstructionsScope::Project,
                    tokens: 1200,
                    truncated: false,
                },
                InstructionsFile {
                    path: "src/api/AGENTS.md".into(),
                    scope: InstructionsScope::Nested,
                    tokens: 300,
                    truncated: true,
                },
            ],
            total_tokens: 1500,
            max_tokens: 1500,
        }
        .into(),
        RunResponseStart {
            mode: ResponseMode::Plan,
        }
        .into(),
        RunResponseEnd {
            mode: ResponseMode::Plan,
        }
        .into(),
        RunLlmStart {
            model: "small".into(),
            iteration: 2,
            message_count: 9,
            system_prompt: None,
        }
        .into(),
        RunLlmDelta {
            text: "Partial answer".into(),
        }
        .into(),
        RunLlmEnd {
            llm_output: "Partial answer".into(),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: json!({"path": "src/main.rs"}),
            }],
            finish_reason: FinishReason::Length,
            usage: Some(usage(900, 40)),
        }
        .into(),
        RunLlmRetry {
            attempt: 1,
            max_attempts: 3,
            delay_ms: 2000,
            error: "HTTP 429 Too Many Requests".into(),
        }
        .into(),
        RunThinkingStart {
            agent_name: "keel".into(),
            is_initial: true,
            is_forced: false,
        }
        .into(),
        RunThinkingDelta {
            agent_name: "keel".into(),
            text: "The flag goes in main.rs".into(),
        }
        .into(),
        RunThinkingEnd {
            agent_name: "keel".into(),
            result: "The flag goes in main.rs".into(),
        }
        .into(),
        RunThinkingFail {
            agent_name: "keel".into(),
            error_message: "reasoning stream closed".into(),
        }
        .into(),
        RunToolStart {
            call_id: "c1".into(),
            tool_name: "run_command".into(),
            arguments: json!({"command": "cargo test"}),
            step_id: None,
            mcp_server: None,
        }
        .into(),
        RunToolOutput {
            call_id: "c1".into(),
            stream: OutputStream::Stderr,
            content: "error[E0425]: cannot find value `x`\n".into(),
        }
        .into(),
        RunToolEnd {
            call_id: "c1".into(),
            tool_name: "run_command".into(),
            status: ToolStatus::Error,
            result: "exit code 101\nerror[E0425]: cannot find value `x`".into(),
            duration_ms: 3100,
            args_summary: "cargo test".into(),
            result_summary: "exit code 101".into(),
            step_id: None,
            from_path: None,
            to_path: None,
            mcp_server: None,
            diagnostics: None,
        }
        .into(),
        RunApprovalRequest {
            approval_id: "a1".into(),
            kind: ApprovalKind::Command,
            subject: "rm -rf target".into(),
            reason: "deletes files".into(),
            plan: None,
        }
        .into(),
        RunApprovalResolve {
            approval_id: "a1".into(),
            decision: ApprovalDecision::Modify,
            kind: Some(ApprovalKind::Command),
            reason: Some("only the debug folder".into()),
            modified: Some(json!("rm -rf target/debug")),
        }
        .into(),
        RunPlanCreate { plan: plan() }.into(),
        RunPlanModify { plan: plan() }.into(),
        RunPlanReplan {
            message: "Step 2 keeps failing".into(),
            reason: "consecutive failures".into(),
        }
        .into(),
        RunPlanComplete {
            success: true,
            summary: "The flag works".into(),
            files_changed: vec!["src/main.rs".into(), "README.md".into()],
        }
        .into(),
        RunPlanRespond {
            response: "Two ways to do it:".into(),
            options: vec!["a flag".into(), "an env var".into()],
            question_id: "call_9".into(),
        }
        .into(),
        RunExecutionStart {
            plan: plan(),
            message: "Executing the plan (2 steps)".into(),
        }
        .into(),
        RunExecutionEnd {
            plan: plan(),
            message: "Plan executed".into(),
            summary: "Added --json".into(),
        }
        .into(),
        RunExecutionFail {
            plan: None,
            step_id: Some(2),
            error: "tests fail".into(),
            message: "Plan execution failed at step 2 of 2 (Test): Fix it".into(),
        }
        .into(),
        RunExecutionCancel {
            message: "Execution cancelled".into(),
            step_id: Some(1),
        }
        .into(),
        RunStepStart {
            step_id: 1,
            title: "Parse the flag".into(),
            description: "Add `json: bool`".into(),
            progress,
        }
        .into(),
        RunStepOutput {
            step_id: 1,
            content: "editing main.rs\n".into(),
        }
        .into(),
        RunStepEnd {
            step_id: 1,
            title: "Parse the flag".into(),
            files_changed: vec!["src/main.rs".into()],
            progress,
        }
        .into(),
        RunStepFail {
            step_id: 1,
            title: "Parse the flag".into(),
            error: "edit did not apply".into(),
            progress,
        }
        .into(),
        RunRepairAttempt {
            step_id: Some(1),
            attempt_number: 1,
            max_attempts: 3,
            trigger: "step_failed".into(),
            error_type: Some("edit_mismatch".into()),
            error_message: Some("SEARCH block not found".into()),
            suggestion: Some("re-read the file first".into()),
            result: RepairResult::Success,
        }
        .into(),
        RunAnomalyDetect {
            step_id: None,
            anomaly: AnomalyKind::RepeatedCall,
            message: "read_file src/main.rs called 4 times".into(),
        }
        .into(),
        RunFileChange {
            path: "src/new.rs".into(),
            op: FileOp::Move,
            from_path: Some("src/old.rs".into()),
            to_path: Some("src/new.rs".into()),
            summary: "renamed".into(),
            lines_added: 0,
            lines_removed: 0,
            size: Some(120),
            mime_type: None,
            diff: None,
            staged: None,
        }
        .into(),
        RunContextCompress {
            original_tokens: 50_000,
            compressed_tokens: 8_000,
            summary: "Earlier: read main.rs".into(),
            summarizer: Some(SummarizerKind::Extractive),
            fallback_reason: Some("HTTP 500 from the model".into()),
            usage: None,
        }
        .into(),
        RunContextWindow {
            tokens_used: 110_000,
            limit: 128_000,
        }
        .into(),
        RunUsageReport {
            prompt_tokens: 900,
            completion_tokens: 40,
            total_tokens: 940,
            cached_tokens: Some(512),
            cumulative: usage(5000, 700),
            model: Some("gpt-4o".into()),
            cost_usd: Some(0.00153),
            purpose: None,
        }
        .into(),
        RunMemoryUpdate {
            source: MemorySource::Distill,
            entries: vec![
                MemoryRecord {
                    id: "mem_0c91d7e4".into(),
                    kind: MemoryKind::Decision,
                    text: "Results are rounded to two decimals".into(),
                    new: true,
                },
                MemoryRecord {
                    id: "mem_77b2d410".into(),
                    kind: MemoryKind::Fact,
                    text: "calc/ holds the library code".into(),
                    new: false,
                },
            ],
            dropped: 1,
            total: 100,
        }
        .into(),
        RunQuestionAsk {
            question_id: "q1".into(),
            question: "Which output format?".into(),
            options: vec!["JSON".into(), "YAML".into()],
        }
        .into(),
        RunQuestionAnswer {
            question_id: "q1".into(),
            answer: "JSON".into(),
        }
        .into(),
        RunCompletionAttempt {
            result: "Added --json.".into(),
            command: Some("keel run --json".into()),
        }
        .into(),
        RunCheckpointRewind {
            checkpoint_id: "cp-2".into(),
            scope: RewindScope::Both,
            turn_ids: vec!["t2".into()],
            from_seq: 40,
            to_seq: 57,
            messages: Some(4),
            files_restored: vec!["src/lib.rs".into()],
            files_removed: vec!["src/new.rs".into()],
        }
        .into(),
        RunHookStart {
            hook_event: "PreToolUse".into(),
            command: "./guard.sh".into(),
            matcher: Some("Bash".into()),
            call_id: Some("c1".into()),
            source: ".claude/settings.json:5".into(),
        }
        .into(),
        RunHookEnd {
            hook_event: "PreToolUse".into(),
            command: "./guard.sh".into(),
            matcher: Some("Bash".into()),
            call_id: Some("c1".into()),
            decision: HookDecision::Block,
            reason: Some("rm is not allowed here".into()),
            updated_input: false,
            exit_code: Some(2),
            duration_ms: 12,
            error: None,
        }
        .into(),
        RunSubagentStart {
            call_id: "c3".into(),
            subagent_type: "explorer".into(),
            description: "Find the date helpers".into(),
            depth: 1,
            model: "gpt-5-mini".into(),
        }
        .into(),
        RunSubagentEnd {
            call_id: "c3".into(),
            subagent_type: "explorer".into(),
            status: AgentStatus::Completed,
            report_chars: 120,
            iterations: 2,
            usage: Usage {
                prompt_tokens: 900,
                completion_tokens: 40,
                total_tokens: 940,
                cached_tokens: None,
            },
            cost_usd: Some(0.0003),
            duration_ms: 820,
        }
        .into(),
        ExecFileStart {
            run_id: "r1".into(),
            file: "scripts/hello.py".into(),
            command: vec!["python3".into(), "scripts/hello.py".into()],
        }
        .into(),
        ExecFileStdout {
            run_id: "r1".into(),
            content: "hello\n".into(),
        }
        .into(),
        ExecFileStderr {
            run_id: "r1".into(),
            content: "warning: old python\n".into(),
        }
        .into(),
        ExecFileExit {
            run_id: "r1".into(),
            file: "scripts/hello.py".into(),
            exit_code: Some(0),
            duration_ms: 85,
            timed_out: false,
        }
        .into(),
        SystemStatus::line("Indexing").into(),
        SystemLog {
            level: LogLevel::Debug,
            message: "cache hit".into(),
            metadata: serde_json::from_value(json!({"key": "repomap"})).ok(),
        }
        .into(),
        SystemError {
            error: "provider unreachable".into(),
            error_type: "provider".into(),
            recoverable: true,
            stack: Some("at engine::call\nat engine::run".into()),
            error_display: Some("provider unreachable: connection refused".into()),
        }
        .into(),
        SystemCliDisplay {
            message: "Saved".into(),
            style: DisplayStyle::Success,
        }
        .into(),
    ]
}

fn render_all(kinds: &[EventKind], options: RenderOptions) -> String {
    let mut out = Vec::new();
    {
        let mut renderer = ConsoleRenderer::new(&mut out, options);
        for kind in kinds {
            renderer.render(kind);
        }
        renderer.finish().unwrap();
    }
    String::from_utf8(out).unwrap()
}

/// Each event rendered alone, under a `## type` heading.
fn render_each(options: RenderOptions) -> String {
    let mut text = String::new();
    for kind in one_of_each() {
        text.push_str(&format!("## {}\n", kind.type_name()));
        text.push_str(&render_all(&[kind], options));
    }
    text
}

const PLAIN: RenderOptions = RenderOptions {
    color: false,
    verbose: false,
    lang: Lang::En,
};
const VERBOSE: RenderOptions = RenderOptions {
    color: false,
    verbose: true,
    lang: Lang::En,
};

#[test]
fn the_samples_cover_the_whole_catalogue() {
    let names: Vec<&str> = one_of_each().iter().map(EventKind::type_name).collect();
    assert_eq!(names, EventKind::TYPES);
}

#[test]
fn every_event_type_has_a_rendering() {
    insta::assert_snapshot!("each_type_plain", render_each(PLAIN));
}

#[test]
fn every_event_type_has_a_verbose_rendering() {
    insta::assert_snapshot!("each_type_verbose", render_each(VERBOSE));
}

/// A subagent's events are indented under the `task` call, a grandchild's twice; a child's
/// streamed text is left out unless verbose.
#[test]
fn subagent_events_are_indented_under_their_task_call() {
    let sequencer = Sequencer::new("s", "p");
    let event = |parent: Option<&str>, kind: EventKind| {
        let mut event = sequencer.stamp(Some("t"), kind);
        event.parent_call_id = parent.map(str::to_owned);
        event
    };
    let tool_start = |id: &str, tool: &str, arguments: serde_json::Value| -> EventKind {
        RunToolStart {
            call_id: id.into(),
            tool_name: tool.into(),
            arguments,
            step_id: None,
            mcp_server: None,
        }
        .into()
    };
    let tool_end = |id: &str, tool: &str, result: &str| -> EventKind {
        RunToolEnd {
            call_id: id.into(),
            tool_name: tool.into(),
            status: ToolStatus::Success,
            result: result.into(),
            duration_ms: 5,
            args_summary: String::new(),
            result_summary: String::new(),
            step_id: None,
            from_path: None,
            to_path: None,
            mcp_server: None,
            diagnostics: None,
        }
        .into()
    };
    let start = |id: &str, kind: &str, depth: u32| -> EventKind {
        RunSubagentStart {
            call_id: id.into(),
            subagent_type: kind.into(),
            description: format!("{kind} job"),
            depth,
            model: "m".into(),
        }
        .into()
    };
    let end = |id: &str, kind: &str| -> EventKind {
        RunSubagentEnd {
            call_id: id.into(),
            subagent_type: kind.into(),
            status: AgentStatus::Completed,
            report_chars: 10,
            iterations: 1,
            usage: Usage {
                prompt_tokens: 100,
                completion_tokens: 20,
                total_tokens: 120,
                cached_tokens: None,
            },
            cost_usd: None,
            duration_ms: 300,
        }
        .into()
    };
    let task = json!({"description": "look", "prompt": "look", "subagent_type": "worker"});
    let events = vec![
        event(None, tool_start("t1", "task", task.clone())),
        event(Some("t1"), start("t1", "worker", 1)),
        event(
            Some("t1"),
            RunLlmDelta {
                text: "thinking aloud".into(),
            }
            .into(),
        ),
        event(
            Some("t1"),
            tool_start("w1", "read_file", json!({"path": "src/lib.rs"})),
        ),
        event(Some("t1"), tool_end("w1", "read_file", "fn main() {}")),
        event(Some("t1"), tool_start("t2", "task", task)),
        event(Some("t2"), start("t2", "explorer", 2)),
        event(
            Some("t2"),
            tool_start("e1", "list_files", json!({"path": "src"})),
        ),
        event(Some("t2"), tool_end("e1", "list_files", "src/lib.rs")),
        event(Some("t2"), end("t2", "explorer")),
        event(Some("t1"), tool_end("t2", "task", "src has lib.rs")),
        event(Some("t1"), end("t1", "worker")),
        event(None, tool_end("t1", "task", "lib.rs holds main")),
    ];
    let mut out = Vec::new();
    {
        let mut renderer = ConsoleRenderer::new(&mut out, PLAIN);
        for event in &events {
            keel_events::EventHandler::handle(&mut renderer, event);
        }
        renderer.finish().unwrap();
    }
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("thinking aloud"), "{text}");
    insta::assert_snapshot!("subagent_nesting", text);
}

#[test]
fn hook_runs_are_one_line_each_and_failures_are_left_to_their_log() {
    let end = |decision: HookDecision, error: Option<&str>| -> EventKind {
        RunHookEnd {
            hook_event: "PostToolUse".into(),
            command: "prettier --write \"$(jq -r .tool_input.file_path)\"".into(),
            matcher: Some("Write|Edit".into()),
            call_id: Some("c2".into()),
            decision,
            reason: None,
            updated_input: false,
            exit_code: error.is_none().then_some(0),
            duration_ms: 1_234,
            error: error.map(str::to_owned),
        }
        .into()
    };
    let kinds = vec![
        end(HookDecision::Continue, None),
        end(
            HookDecision::Continue,
            Some("timed out after 1 s and was killed"),
        ),
        SystemLog {
            level: LogLevel::Warn,
            message: "hook PostToolUse (keel.toml:3) failed: timed out after 1 s and was killed"
                .into(),
            metadata: None,
        }
        .into(),
        end(HookDecision::Allow, None),
    ];
    insta::assert_snapshot!("hook_runs", render_all(&kinds, PLAIN));
}

#[test]
fn deltas_stay_on_one_line_and_the_next_block_starts_a_new_one() {
    let kinds: Vec<EventKind> = vec![
        RunLlmDelta { text: "Hel".into() }.into(),
        RunLlmDelta {
            text: "lo, ".into(),
        }
        .into(),
        RunLlmDelta {
            text: "world".into(),
        }
        .into(),
        SystemStatus::line("next").into(),
        RunLlmDelta {
            text: "more\n".into(),
        }
        .into(),
        SystemStatus::line("after a newline").into(),
    ];
    assert_eq!(
        render_all(&kinds, PLAIN),
        "Hello, world\n· next\nmore\n· after a newline\n"
    );
}

#[test]
fn an_answer_that_was_not_streamed_is_printed_at_the_end_of_the_call() {
    let kinds: Vec<EventKind> = vec![
        RunLlmStart {
            model: "m".into(),
            iteration: 1,
            message_count: 1,
            system_prompt: None,
        }
        .into(),
        RunLlmEnd {
            llm_output: "Whole answer".into(),
            tool_calls: vec![],
            finish_reason: FinishReason::Stop,
            usage: None,
        }
        .into(),
    ];
    assert_eq!(render_all(&kinds, PLAIN), "Whole answer\n");
}

/// A turn whose first attempt streams reasoning and two lines of text (one wider than the
/// terminal), breaks, and is retried.
fn broken_attempt() -> Vec<EventKind> {
    vec![
        AgentStart {
            agent_name: "keel".into(),
            task_input: "How is the mean computed?".into(),
            mode_hint: None,
            images: None,
        }
        .into(),
        llm_start(),
        RunThinkingStart {
            agent_name: "keel".into(),
            is_initial: true,
            is_forced: false,
        }
        .into(),
        RunThinkingFail {
            agent_name: "keel".into(),
            error_message: "stream broke".into(),
        }
        .into(),
        RunLlmDelta {
            text: "LLMock answers with a line wider than the terminal\nand a second li".into(),
        }
        .into(),
        SystemLog {
            level: LogLevel::Warn,
            message: "attempt 1 broke off after streaming part of a response; everything it streamed was discarded".into(),
            metadata: None,
        }
        .into(),
        RunLlmRetry {
            attempt: 1,
            max_attempts: 4,
            delay_ms: 500,
            error: "the stream closed early".into(),
        }
        .into(),
        RunLlmDelta {
            text: "The mean divides by len(values).".into(),
        }
        .into(),
        RunLlmEnd {
            llm_output: "The mean divides by len(values).".into(),
            tool_calls: vec![],
            finish_reason: FinishReason::Stop,
            usage: None,
        }
        .into(),
    ]
}

#[test]
fn a_retried_attempt_is_erased_from_a_terminal() {
    // Issue 28 §4: the text a discarded attempt streamed does not stay on the screen.
    for width in [20, 33, 80] {
        let mut out = Vec::new();
        {
            let mut renderer =
                ConsoleRenderer::new(&mut out, PLAIN).with_rewrite(Box::new(move || Some(width)));
            for kind in broken_attempt() {
                renderer.render(&kind);
            }
            renderer.finish().unwrap();
        }
        let shown = keel_test_support::screen::screen(&String::from_utf8(out).unwrap(), width);
        // Rows joined as the terminal wrapped them (spaces aside: a row's last one is trimmed).
        let text: String = shown
            .concat()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        assert!(
            !text.contains("LLMock") && !text.contains("secondli"),
            "{width}: {shown:?}"
        );
        assert!(!text.contains("thinking"), "{width}: {shown:?}");
        assert!(
            text.contains("Howisthemean"),
            "{width}: the task stays: {shown:?}"
        );
        assert!(text.contains("retryingin500ms"), "{width}: {shown:?}");
        assert!(
            text.ends_with("Themeandividesbylen(values)."),
            "{width}: {shown:?}"
        );
    }
    // Without a terminal to rewrite, the text stays, followed by the warning and retry line.
    let plain = render_all(&broken_attempt(), PLAIN);
    assert!(plain.contains("LLMock"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "{plain}");
}

#[test]
fn an_answer_a_retried_attempt_did_not_stream_is_printed_whole() {
    let mut kinds = broken_attempt();
    // The successful attempt sends its answer whole, without deltas.
    kinds.remove(7);
    let text = render_all(&kinds, PLAIN);
    assert!(
        text.ends_with("The mean divides by len(values).\n"),
        "{text}"
    );
}

#[test]
fn a_session_level_call_is_named_as_such() {
    // Issue 28 §4: the memory distillation's usage, after the turn ended, is not shown as if
    // it were one of the turn's calls.
    let report = |purpose| -> EventKind {
        RunUsageReport {
            prompt_tokens: 900,
            completion_tokens: 40,
            total_tokens: 940,
            cached_tokens: None,
            cumulative: usage(5000, 400),
            model: Some("m".into()),
            cost_usd: None,
            purpose,
        }
        .into()
    };
    let session = render_all(&[report(Some(CallPurpose::MemoryDistill))], PLAIN);
    assert!(
        session.starts_with("memory distillation (the session's, not a turn's)"),
        "{session}"
    );
    assert!(session.contains("900 in, 40 out"), "{session}");
    // Issue 27 §5: the commit message's and the pull request's calls, each by its name.
    let commit = render_all(&[report(Some(CallPurpose::CommitMessage))], PLAIN);
    assert!(
        commit.starts_with("commit message (the session's, not a turn's)"),
        "{commit}"
    );
    let pull_request = render_all(&[report(Some(CallPurpose::PullRequest))], PLAIN);
    assert!(
        pull_request.starts_with("pull request text (the session's, not a turn's)"),
        "{pull_request}"
    );
    for purpose in [None, Some(CallPurpose::Turn), Some(CallPurpose::Summary)] {
        let turn = render_all(&[report(purpose)], PLAIN);
        assert!(turn.starts_with("tokens: 900 in"), "{purpose:?}: {turn}");
    }
}

#[test]
fn rows_are_counted_as_the_terminal_wraps() {
    use super::renderer::rows_above;
    assert_eq!(rows_above("abc", 10), 0);
    assert_eq!(rows_above("abc\n", 10), 1);
    assert_eq!(rows_above("0123456789\n", 10), 1, "a full row wraps once");
    assert_eq!(rows_above("0123456789a", 10), 1);
    assert_eq!(rows_above("\x1b[33mwarn\x1b[0m\n\tx\n", 10), 2);
    assert_eq!(
        rows_above("语言模型\n", 4),
        2,
        "wide characters take two columns"
    );
    assert_eq!(rows_above("", 0), 0);
}

fn tool_start(call_id: &str, name: &str, path: &str) -> EventKind {
    RunToolStart {
        call_id: call_id.into(),
        tool_name: name.into(),
        arguments: json!({ "path": path }),
        step_id: None,
        mcp_server: None,
    }
    .into()
}

fn tool_end(call_id: &str, name: &str, summary: &str) -> EventKind {
    RunToolEnd {
        call_id: call_id.into(),
        tool_name: name.into(),
        status: ToolStatus::Success,
        result: String::new(),
        duration_ms: 4,
        args_summary: String::new(),
        result_summary: summary.into(),
        step_id: None,
        from_path: None,
        to_path: None,
        mcp_server: None,
        diagnostics: None,
    }
    .into()
}

#[test]
fn interleaved_tool_calls_pair_by_call_id() {
    let kinds = vec![
        tool_start("a", "read_file", "src/a.rs"),
        tool_start("b", "read_file", "src/b.rs"),
        tool_end("b", "read_file", "10 lines"),
        tool_end("a", "read_file", "20 lines"),
    ];
    assert_eq!(
        render_all(&kinds, PLAIN),
        "✓ read_file src/b.rs (4 ms) — 10 lines\n✓ read_file src/a.rs (4 ms) — 20 lines\n"
    );
}

#[test]
fn tool_calls_that_never_end_are_reported_at_the_finish() {
    let kinds = vec![tool_start("a", "list_files", "src")];
    assert_eq!(render_all(&kinds, PLAIN), "… list_files src — no result\n");
}

#[test]
fn verbose_tool_output_is_streamed_under_a_header_and_closed_by_the_end() {
    let kinds: Vec<EventKind> = vec![
        RunToolStart {
            call_id: "c".into(),
            tool_name: "run_command".into(),
            arguments: json!({"command": "make"}),
            step_id: None,
            mcp_server: None,
        }
        .into(),
        RunToolOutput {
            call_id: "c".into(),
            stream: OutputStream::Stdout,
            content: "building".into(),
        }
        .into(),
        RunToolOutput {
            call_id: "c".into(),
            stream: OutputStream::Stdout,
            content: "... ok\ndone".into(),
        }
        .into(),
        tool_end("c", "run_command", "exit 0"),
    ];
    assert_eq!(
        render_all(&kinds, VERBOSE),
        "▸ run_command make\n  │ building... ok\n  │ done\n✓ run_command make (4 ms) — exit 0\n"
    );
    assert_eq!(
        render_all(&kinds, PLAIN),
        "✓ run_command make (4 ms) — exit 0\n"
    );
}

#[test]
fn long_diffs_are_cut_unless_verbose() {
    let diff: String = (0..100).map(|i| format!("+line {i}\n")).collect();
    let change: EventKind = RunFileChange {
        path: "big.txt".into(),
        op: FileOp::Create,
        from_path: None,
        to_path: None,
        summary: "created".into(),
        lines_added: 100,
        lines_removed: 0,
        size: None,
        mime_type: None,
        diff: Some(diff),
        staged: None,
    }
    .into();
    let plain = render_all(std::slice::from_ref(&change), PLAIN);
    assert!(plain.starts_with("A big.txt +100 -0\n    +line 0\n"));
    assert!(plain.ends_with("    +line 59\n    … 40 more diff lines (--verbose shows them)\n"));
    let verbose = render_all(&[change], VERBOSE);
    assert!(verbose.ends_with("    +line 99\n"));
}

/// Records what the renderer asked of its spinner.
#[derive(Clone, Default)]
struct RecordingSpinner(Arc<Mutex<Vec<String>>>);

impl Spinner for RecordingSpinner {
    fn show(&mut self, message: &str) {
        self.0.lock().unwrap().push(format!("show {message}"));
    }
    fn hide(&mut self) {
        let mut log = self.0.lock().unwrap();
        if log.last().is_some_and(|l| l.starts_with("show")) {
            log.push("hide".into());
        }
    }
}

#[test]
fn the_spinner_shows_while_the_model_or_a_tool_is_awaited() {
    let spinner = RecordingSpinner::default();
    let log = spinner.0.clone();
    let mut out = Vec::new();
    let mut renderer =
        ConsoleRenderer::new(&mut out, PLAIN).with_spinner(Box::new(spinner.clone()));
    let sequencer = Sequencer::new("s", "p");
    let kinds: Vec<EventKind> = vec![
        RunLlmStart {
            model: "m".into(),
            iteration: 1,
            message_count: 1,
            system_prompt: None,
        }
        .into(),
        RunLlmDelta { text: "Hi".into() }.into(),
        RunLlmEnd {
            llm_output: "Hi".into(),
            tool_calls: vec![],
            finish_reason: FinishReason::ToolCalls,
            usage: None,
        }
        .into(),
        tool_start("a", "read_file", "src/a.rs"),
        tool_end("a", "read_file", "1 line"),
    ];
    for kind in kinds {
        renderer.handle(&sequencer.stamp(None, kind));
    }
    renderer.finish().unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "show waiting for the model…",
            "hide",
            "show Reading src/a.rs…",
            "hide"
        ]
    );
}

/// What the spinner was asked while `kinds` were handled.
fn spinner_log(kinds: Vec<EventKind>) -> (Vec<String>, String) {
    let spinner = RecordingSpinner::default();
    let log = spinner.0.clone();
    let mut out = Vec::new();
    {
        let mut renderer = ConsoleRenderer::new(&mut out, PLAIN).with_spinner(Box::new(spinner));
        let sequencer = Sequencer::new("s", "p");
        for kind in kinds {
            renderer.handle(&sequencer.stamp(None, kind));
        }
        renderer.finish().unwrap();
    }
    let log = log.lock().unwrap().clone();
    (log, String::from_utf8(out).unwrap())
}

fn llm_start() -> EventKind {
    RunLlmStart {
        model: "m".into(),
        iteration: 1,
        message_count: 1,
        system_prompt: None,
    }
    .into()
}

#[test]
fn waits_name_the_spinner_and_print_nothing() {
    let (log, out) = spinner_log(vec![
        SystemStatus::waiting(StatusKind::Indexing, "indexing the repository").into(),
        PrepareRepomapBuild {
            files: 3,
            symbols: 9,
            tokens: 120,
            duration_ms: 40,
            cached: false,
        }
        .into(),
        llm_start(),
        SystemStatus::waiting(StatusKind::WaitingForModel, "waiting for m").into(),
        RunLlmDelta { text: "Hi".into() }.into(),
    ]);
    assert_eq!(
        log,
        [
            "show indexing the repository…",
            "hide",
            "show waiting for the model…",
            "hide",
            "show waiting for m…",
            "hide"
        ]
    );
    assert!(
        !out.contains("waiting") && !out.contains("indexing"),
        "{out}"
    );
}

#[test]
fn no_spinner_while_the_person_is_asked() {
    let (log, _) = spinner_log(vec![
        tool_start("c", "execute_command", "x"),
        RunApprovalRequest {
            approval_id: "a".into(),
            kind: ApprovalKind::Command,
            subject: "rm -rf build".into(),
            reason: "dangerous".into(),
            plan: None,
        }
        .into(),
        SystemStatus::waiting(
            StatusKind::WaitingForApproval,
            "waiting for approval of the command",
        )
        .into(),
        RunApprovalResolve {
            approval_id: "a".into(),
            decision: ApprovalDecision::Approve,
            kind: Some(ApprovalKind::Command),
            reason: None,
            modified: None,
        }
        .into(),
        RunPlanRespond {
            response: "Patch or rewrite?".into(),
            options: vec![],
            question_id: "q".into(),
        }
        .into(),
        SystemStatus::waiting(
            StatusKind::WaitingForAnswer,
            "waiting for the user's answer",
        )
        .into(),
        RunQuestionAnswer {
            question_id: "q".into(),
            answer: "patch".into(),
        }
        .into(),
    ]);
    // Shown before the request and after each answer, never during one.
    assert_eq!(
        log,
        [
            "show execute_command x…",
            "hide",
            "show execute_command x…",
            "hide",
            "show execute_command x…",
            "hide"
        ]
    );
}

#[test]
fn a_step_response_is_shown_once() {
    let in_step = |content: &str| -> Vec<EventKind> {
        vec![
            RunStepStart {
                step_id: 1,
                title: "List".into(),
                description: String::new(),
                progress: Progress {
                    current: 1,
                    total: 1,
                },
            }
            .into(),
            llm_start(),
            RunLlmDelta {
                text: content.into(),
            }
            .into(),
            RunLlmEnd {
                llm_output: content.into(),
                tool_calls: vec![],
                finish_reason: FinishReason::Stop,
                usage: None,
            }
            .into(),
            RunStepOutput {
                step_id: 1,
                content: content.into(),
            }
            .into(),
        ]
    };
    assert_eq!(
        render_all(&in_step("Listed."), PLAIN),
        "[1/1] List
  Listed.
"
    );
    // Without the model's events (a recorded stream of step outputs), the output is shown.
    let alone: Vec<EventKind> = vec![
        RunStepOutput {
            step_id: 1,
            content: "From the step.
"
            .into(),
        }
        .into(),
    ];
    assert_eq!(
        render_all(&alone, PLAIN),
        "From the step.
"
    );
}

#[test]
fn verbose_shows_the_system_prompt_when_it_changes() {
    let start = |iteration: u32, prompt: &str| -> EventKind {
        RunLlmStart {
            model: "m".into(),
            iteration,
            message_count: 1,
            system_prompt: Some(prompt.into()),
        }
        .into()
    };
    let kinds = vec![
        start(1, "You are Keel.\nBe brief."),
        start(2, "You are Keel.\nBe brief."),
        start(3, "You are Keel."),
    ];
    insta::assert_snapshot!("system_prompt_verbose", render_all(&kinds, VERBOSE));
    // Not verbose: only the wait, nothing printed.
    assert_eq!(render_all(&kinds, PLAIN), "");
}

/// A writer that always fails.
struct Broken;

impl std::io::Write for Broken {
    fn write(&mut self, _buf: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_are_kept_not_panicked_on() {
    let mut renderer = ConsoleRenderer::new(Broken, PLAIN);
    for kind in one_of_each() {
        renderer.render(&kind);
    }
    assert_eq!(
        renderer.error().map(std::io::Error::kind),
        Some(std::io::ErrorKind::BrokenPipe)
    );
    assert!(renderer.finish().is_err());
}

fn deltas(pieces: &[String]) -> Vec<EventKind> {
    pieces
        .iter()
        .map(|text| RunLlmDelta { text: text.clone() }.into())
        .collect()
}

fn tool_output(pieces: &[String]) -> Vec<EventKind> {
    let mut kinds = vec![tool_start("c", "run_command", "make")];
    kinds.extend(pieces.iter().map(|content| {
        EventKind::from(RunToolOutput {
            call_id: "c".into(),
            stream: OutputStream::Stdout,
            content: content.clone(),
        })
    }));
    kinds.push(tool_end("c", "run_command", "exit 0"));
    kinds
}

/// `text` cut at the given char positions (taken modulo its length).
fn split_at_chars(text: &str, cuts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for cut in cuts.into_iter().chain([chars.len()]) {
        pieces.push(chars[from..cut].iter().collect());
        from = cut;
    }
    pieces
}

proptest::proptest! {
    /// However the model's stream is chunked, the rendered text is the same.
    #[test]
    fn answer_rendering_does_not_depend_on_chunking(
        text in "[a-z \\n\\r✓é]{0,60}",
        cuts in proptest::collection::vec(0usize..80, 0..8),
    ) {
        let whole = render_all(&deltas(std::slice::from_ref(&text)), PLAIN);
        let chunked = render_all(&deltas(&split_at_chars(&text, &cuts)), PLAIN);
        proptest::prop_assert_eq!(whole, chunked);
    }

    /// The same for a tool's streamed output in verbose mode, where every line is prefixed.
    #[test]
    fn tool_output_rendering_does_not_depend_on_chunking(
        text in "[a-z \\n]{0,60}",
        cuts in proptest::collection::vec(0usize..80, 0..8),
    ) {
        let whole = render_all(&tool_output(std::slice::from_ref(&text)), VERBOSE);
        let chunked = render_all(&tool_output(&split_at_chars(&text, &cuts)), VERBOSE);
        proptest::prop_assert_eq!(whole, chunked);
    }

    /// Any text in any payload renders without panicking, and the output ends on a new line.
    #[test]
    fn arbitrary_text_renders_and_ends_the_line(text in "\\PC{0,40}", verbose: bool, color: bool) {
        let options = RenderOptions {
            color,
            verbose,
            lang: Lang::En,
        };
        let kinds: Vec<EventKind> = vec![
            RunLlmDelta { text: text.clone() }.into(),
            SystemError {
                error: text.clone(),
                error_type: text.clone(),
                recoverable: false,
                stack: Some(text.clone()),
                error_display: Some(text.clone()),
            }
            .into(),
            RunCompletionAttempt { result: text.clone(), command: Some(text.clone()) }.into(),
            ExecFileStderr { run_id: "r".into(), content: text.clone() }.into(),
        ];
        let out = render_all(&kinds, options);
        proptest::prop_assert!(out.is_empty() || out.ends_with('\n'));
    }
}

#[test]
fn every_event_type_has_a_rendering_in_simplified_chinese() {
    let zh = RenderOptions {
        lang: Lang::ZhCn,
        ..PLAIN
    };
    insta::assert_snapshot!("each_type_zh_cn", render_each(zh));
}

#[test]
fn an_edit_shows_its_diagnostics_under_its_line() {
    use keel_events::{CountChange, Diagnostic, DiagnosticSeverity, EditDiagnostics};
    let item = |line: u32, severity: DiagnosticSeverity, message: &str| Diagnostic {
        path: "app.py".into(),
        line,
        column: 14,
        severity,
        message: message.into(),
        code: Some("reportAssignmentType".into()),
        source: Some("Pyright".into()),
    };
    let mut end = RunToolEnd {
        call_id: "c1".into(),
        tool_name: "replace_in_file".into(),
        status: ToolStatus::Success,
        result: String::new(),
        duration_ms: 312,
        args_summary: "app.py".into(),
        result_summary: "1 block applied".into(),
        step_id: None,
        from_path: None,
        to_path: None,
        mcp_server: None,
        diagnostics: Some(EditDiagnostics {
            items: vec![
                item(
                    4,
                    DiagnosticSeverity::Error,
                    "Type \"int\" is not assignable to declared type \"str\"",
                ),
                item(
                    9,
                    DiagnosticSeverity::Warning,
                    "Import \"os\" is not accessed",
                ),
            ],
            omitted: 3,
            elsewhere: Some(CountChange {
                before: 0,
                after: 2,
            }),
            servers: vec!["pyright-langserver".into()],
            timed_out: false,
        }),
    };
    let english = render_all(&[end.clone().into()], PLAIN);
    end.diagnostics = Some(EditDiagnostics {
        servers: vec!["pyright-langserver".into()],
        timed_out: true,
        ..EditDiagnostics::default()
    });
    let late = render_all(
        &[end.into()],
        RenderOptions {
            lang: Lang::ZhCn,
            ..PLAIN
        },
    );
    insta::assert_snapshot!("edit_diagnostics", format!("{english}\n{late}"));
}
