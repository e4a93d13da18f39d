//! Snapshots of `keel replay` rendering realistic event sequences built with the `Sequencer`:
//! a direct-mode turn, a plan-mode turn, and a turn that fails. Only payload fields are
//! printed (no ids or timestamps) and durations come from payloads, so the output is stable.

use std::path::Path;
use std::process::Command;

use keel_events::*;
use serde_json::json;

/// Events of one turn, stamped as the engine would.
struct Turn {
    sequencer: Sequencer,
    events: Vec<Event>,
}

impl Turn {
    fn new() -> Self {
        Self {
            sequencer: Sequencer::new("session-1", "project-1"),
            events: Vec::new(),
        }
    }

    fn push(&mut self, kind: impl Into<EventKind>) -> &mut Self {
        let event = self.sequencer.stamp(Some("turn-1"), kind);
        self.events.push(event);
        self
    }

    /// `run.llm.start` and the wait the engine announces after it.
    fn llm_start(&mut self, iteration: u32) -> &mut Self {
        self.push(RunLlmStart {
            model: "gpt-test".into(),
            iteration,
            message_count: iteration * 2 + 1,
            system_prompt: None,
        })
        .push(SystemStatus::waiting(
            StatusKind::WaitingForModel,
            "waiting for gpt-test",
        ))
    }

    fn deltas(&mut self, pieces: &[&str]) -> &mut Self {
        for text in pieces {
            self.push(RunLlmDelta {
                text: (*text).into(),
            });
        }
        self
    }

    fn llm_end(&mut self, output: &str, calls: &[(&str, &str)], reason: FinishReason) -> &mut Self {
        self.push(RunLlmEnd {
            llm_output: output.into(),
            tool_calls: calls
                .iter()
                .map(|(id, name)| ToolCall {
                    id: (*id).into(),
                    name: (*name).into(),
                    arguments: json!({}),
                })
                .collect(),
            finish_reason: reason,
            usage: Some(usage(1_800, 60)),
        })
    }

    fn tool(
        &mut self,
        call_id: &str,
        name: &str,
        arguments: serde_json::Value,
        end: (ToolStatus, &str, &str, u64),
        step_id: Option<u32>,
    ) -> &mut Self {
        let (status, args_summary, result_summary, duration_ms) = end;
        self.push(RunToolStart {
            call_id: call_id.into(),
            tool_name: name.into(),
            arguments,
            step_id,
            mcp_server: None,
        });
        self.push(RunToolEnd {
            call_id: call_id.into(),
            tool_name: name.into(),
            status,
            result: result_summary.into(),
            duration_ms,
            args_summary: args_summary.into(),
            result_summary: result_summary.into(),
            step_id,
            from_path: None,
            to_path: None,
            mcp_server: None,
            diagnostics: None,
        })
    }

    fn write(&self, path: &Path) {
        let text: String = self
            .events
            .iter()
            .map(|e| format!("{}\n", e.to_json()))
            .collect();
        std::fs::write(path, text).unwrap();
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

const LIB_DIFF: &str = "\
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -10,7 +10,9 @@ pub fn window(items: &[u32], size: usize) -> Vec<&[u32]> {
     let mut out = Vec::new();
-    for start in 0..items.len() - size {
+    if size == 0 || size > items.len() {
+        return out;
+    }
+    for start in 0..=items.len() - size {
         out.push(&items[start..start + size]);
     }
     out
";

fn direct_turn() -> Turn {
    let mut t = Turn::new();
    t.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Fix the off-by-one in window()".into(),
        mode_hint: Some(ModeHint::Auto),
        images: None,
    })
    .push(PrepareModelSelect {
        requested_model: "gpt-test".into(),
        final_model: "gpt-test".into(),
        is_fallback: false,
        reason: None,
    })
    .push(PrepareConversationOpen {
        conversation_id: "conv-7".into(),
        action: ConversationAction::New,
    })
    .push(PrepareRepomapBuild {
        files: 42,
        symbols: 318,
        tokens: 2_048,
        duration_ms: 87,
        cached: false,
    })
    .push(RunResponseStart {
        mode: ResponseMode::Direct,
    })
    .push(RunContextWindow {
        tokens_used: 3_200,
        limit: 128_000,
    })
    .llm_start(1)
    .push(RunThinkingStart {
        agent_name: "keel".into(),
        is_initial: true,
        is_forced: false,
    })
    .push(RunThinkingDelta {
        agent_name: "keel".into(),
        text: "The bug is probably in the range bound.".into(),
    })
    .push(RunThinkingEnd {
        agent_name: "keel".into(),
        result: "The bug is probably in the range bound.".into(),
    })
    .deltas(&["I'll look at ", "`window()` in ", "src/lib.rs first."])
    .llm_end(
        "I'll look at `window()` in src/lib.rs first.",
        &[("call-1", "read_file")],
        FinishReason::ToolCalls,
    )
    .push(RunUsageReport {
        prompt_tokens: 1_800,
        completion_tokens: 60,
        total_tokens: 1_860,
        cached_tokens: None,
        cumulative: usage(1_800, 60),
        model: Some("local-model".into()),
        cost_usd: None,
        purpose: None,
    })
    .tool(
        "call-1",
        "read_file",
        json!({"path": "src/lib.rs"}),
        (ToolStatus::Success, "src/lib.rs", "120 lines", 12),
        None,
    )
    .llm_start(2)
    .deltas(&["The range stops one short", " and panics when `size` is 0.\n"])
    .llm_end("", &[("call-2", "edit_file")], FinishReason::ToolCalls)
    .tool(
        "call-2",
        "edit_file",
        json!({"path": "src/lib.rs", "search": "…", "replace": "…"}),
        (ToolStatus::Success, "src/lib.rs", "1 edit applied", 4),
        None,
    )
    .push(RunFileChange {
        path: "src/lib.rs".into(),
        op: FileOp::Update,
        from_path: None,
        to_path: None,
        summary: "guard empty windows, include the last window".into(),
        lines_added: 4,
        lines_removed: 1,
        size: Some(3_210),
        mime_type: Some("text/x-rust".into()),
        diff: Some(LIB_DIFF.into()),
        staged: None,
    })
    .push(RunToolStart {
        call_id: "call-3".into(),
        tool_name: "run_command".into(),
        arguments: json!({"command": "cargo test"}),
        step_id: None,
        mcp_server: None,
    })
    .push(RunToolOutput {
        call_id: "call-3".into(),
        stream: OutputStream::Stdout,
        content: "running 3 tests\ntest window_basic ... ok\n".into(),
    })
    .push(RunToolOutput {
        call_id: "call-3".into(),
        stream: OutputStream::Stderr,
        content: "warning: unused variable `n`\n".into(),
    })
    .push(RunToolEnd {
        call_id: "call-3".into(),
        tool_name: "run_command".into(),
        status: ToolStatus::Success,
        result: "exit code 0".into(),
        duration_ms: 2_340,
        args_summary: "cargo test".into(),
        result_summary: "exit 0 · 3 passed".into(),
        step_id: None,
        from_path: None,
        to_path: None,
        mcp_server: None,
        diagnostics: None,
    })
    .llm_start(3)
    .deltas(&["All three tests pass."])
    .llm_end("All three tests pass.", &[], FinishReason::Stop)
    .push(RunCompletionAttempt {
        result: "Fixed `window()`: it now includes the last window\nand returns nothing for a size of 0.".into(),
        command: Some("cargo test".into()),
    })
    .push(RunUsageReport {
        prompt_tokens: 2_400,
        completion_tokens: 45,
        total_tokens: 2_445,
        cached_tokens: Some(1_536),
        cumulative: usage(6_000, 165),
        model: Some("gpt-4o".into()),
        cost_usd: Some(0.004524),
        purpose: None,
    })
    .push(RunResponseEnd {
        mode: ResponseMode::Direct,
    })
    .push(AgentEnd {
        status: AgentStatus::Completed,
        result: "Fixed `window()`.".into(),
        files_changed: vec!["src/lib.rs".into()],
        usage: usage(6_000, 165),
        warning: None,
    });
    t
}

fn json_plan() -> Plan {
    Plan {
        goal: "Add a --json output flag".into(),
        steps: vec![
            PlanStep {
                index: 1,
                title: "Read the CLI".into(),
                description: "Find where results are printed".into(),
                expected_tools: vec!["read_file".into()],
            },
            PlanStep {
                index: 2,
                title: "Add the flag".into(),
                description: "Add `--json` and a JSON printer".into(),
                expected_tools: vec!["edit_file".into(), "write_file".into()],
            },
            PlanStep {
                index: 3,
                title: "Test it".into(),
                description: "Run the test suite".into(),
                expected_tools: vec!["run_command".into()],
            },
        ],
        estimated_complexity: Complexity::Medium,
    }
}

fn progress(current: u32) -> Progress {
    Progress { current, total: 3 }
}

fn plan_turn() -> Turn {
    let mut t = Turn::new();
    t.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Add a --json output flag".into(),
        mode_hint: Some(ModeHint::Plan),
        images: None,
    })
    .push(RunResponseStart {
        mode: ResponseMode::Plan,
    })
    .push(RunPlanRespond {
        response: "JSON output can go to stdout or to a file.".into(),
        options: vec!["stdout".into(), "a file".into()],
        question_id: "call_respond".into(),
    })
    .push(SystemStatus::waiting(
        StatusKind::WaitingForAnswer,
        "waiting for the user's answer",
    ))
    .push(RunQuestionAnswer {
        question_id: "call_respond".into(),
        answer: "stdout".into(),
    })
    .push(RunPlanCreate { plan: json_plan() })
    .push(RunApprovalRequest {
        approval_id: "ap-1".into(),
        kind: ApprovalKind::Plan,
        subject: "Add a --json output flag (3 steps)".into(),
        reason: "plans are approved before they run".into(),
        plan: None,
    })
    .push(SystemStatus::waiting(
        StatusKind::WaitingForApproval,
        "waiting for approval of the plan",
    ))
    .push(RunApprovalResolve {
        approval_id: "ap-1".into(),
        decision: ApprovalDecision::Approve,
        kind: Some(ApprovalKind::Plan),
        reason: None,
        modified: None,
    })
    .push(RunExecutionStart {
        plan: json_plan(),
        message: "Executing the plan (3 steps)".into(),
    })
    .push(RunStepStart {
        step_id: 1,
        title: "Read the CLI".into(),
        description: "Find where results are printed".into(),
        progress: progress(1),
    })
    .tool(
        "c1",
        "read_file",
        json!({"path": "src/cli.rs"}),
        (ToolStatus::Success, "src/cli.rs", "88 lines", 9),
        Some(1),
    )
    .llm_start(2)
    .deltas(&["Results are printed ", "in `run()`."])
    .llm_end(
        "Results are printed in `run()`.",
        &[],
        FinishReason::Stop,
    )
    .push(RunStepOutput {
        step_id: 1,
        content: "Results are printed in `run()`.".into(),
    })
    .push(RunStepEnd {
        step_id: 1,
        title: "Read the CLI".into(),
        files_changed: vec![],
        progress: progress(1),
    })
    .push(RunStepStart {
        step_id: 2,
        title: "Add the flag".into(),
        description: "Add `--json` and a JSON printer".into(),
        progress: progress(2),
    })
    .tool(
        "c2",
        "edit_file",
        json!({"path": "src/cli.rs"}),
        (ToolStatus::Error, "src/cli.rs", "SEARCH block not found", 3),
        Some(2),
    )
    .push(RunRepairAttempt {
        step_id: Some(2),
        attempt_number: 1,
        max_attempts: 3,
        trigger: "tool_error".into(),
        error_type: Some("edit_mismatch".into()),
        error_message: Some("SEARCH block not found in src/cli.rs".into()),
        suggestion: Some("re-read src/cli.rs and retry with the current text".into()),
        result: RepairResult::Pending,
    })
    .tool(
        "c3",
        "edit_file",
        json!({"path": "src/cli.rs"}),
        (ToolStatus::Success, "src/cli.rs", "1 edit applied", 5),
        Some(2),
    )
    .push(RunFileChange {
        path: "src/json.rs".into(),
        op: FileOp::Create,
        from_path: None,
        to_path: None,
        summary: "JSON printer".into(),
        lines_added: 3,
        lines_removed: 0,
        size: Some(96),
        mime_type: None,
        diff: Some(
            "--- /dev/null\n+++ b/src/json.rs\n@@ -0,0 +1,3 @@\n+pub fn print(v: &Value) {\n+    println!(\"{v}\");\n+}\n"
                .into(),
        ),
        staged: None,
    })
    .push(RunRepairAttempt {
        step_id: Some(2),
        attempt_number: 1,
        max_attempts: 3,
        trigger: "tool_error".into(),
        error_type: Some("edit_mismatch".into()),
        error_message: Some("SEARCH block not found in src/cli.rs".into()),
        suggestion: None,
        result: RepairResult::Success,
    })
    .push(RunStepEnd {
        step_id: 2,
        title: "Add the flag".into(),
        files_changed: vec!["src/cli.rs".into(), "src/json.rs".into()],
        progress: progress(2),
    })
    .push(RunStepStart {
        step_id: 3,
        title: "Test it".into(),
        description: "Run the test suite".into(),
        progress: progress(3),
    })
    .tool(
        "c4",
        "run_command",
        json!({"command": "cargo test"}),
        (ToolStatus::Error, "cargo test", "exit 101 · 1 failed", 4_210),
        Some(3),
    )
    .tool(
        "c5",
        "run_command",
        json!({"command": "cargo test"}),
        (ToolStatus::Error, "cargo test", "exit 101 · 1 failed", 4_180),
        Some(3),
    )
    .push(RunAnomalyDetect {
        step_id: Some(3),
        anomaly: AnomalyKind::RepeatedCall,
        message: "run_command `cargo test` repeated with the same arguments".into(),
    })
    .push(RunPlanReplan {
        message: "Step 3 is not converging".into(),
        reason: "2 consecutive failures of the same command".into(),
    })
    .tool(
        "c6",
        "run_command",
        json!({"command": "cargo test -- --nocapture"}),
        (ToolStatus::Success, "cargo test -- --nocapture", "exit 0 · 12 passed", 4_020),
        Some(3),
    )
    .push(RunStepEnd {
        step_id: 3,
        title: "Test it".into(),
        files_changed: vec![],
        progress: progress(3),
    })
    .push(RunExecutionEnd {
        plan: json_plan(),
        message: "Plan executed (3/3 steps)".into(),
        summary: "Added --json with a JSON printer in src/json.rs.".into(),
    })
    .push(RunPlanComplete {
        success: true,
        summary: "--json prints results as JSON".into(),
        files_changed: vec!["src/cli.rs".into(), "src/json.rs".into()],
    })
    .push(RunResponseEnd {
        mode: ResponseMode::Plan,
    })
    .push(AgentEnd {
        status: AgentStatus::Completed,
        result: "Added --json.".into(),
        files_changed: vec!["src/cli.rs".into(), "src/json.rs".into()],
        usage: usage(14_200, 1_310),
        warning: None,
    });
    t
}

fn failing_turn() -> Turn {
    let mut t = Turn::new();
    t.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Deploy the site".into(),
        mode_hint: None,
        images: None,
    })
    .push(PrepareModelSelect {
        requested_model: "gpt-big".into(),
        final_model: "gpt-test".into(),
        is_fallback: true,
        reason: Some("gpt-big: 503 Service Unavailable".into()),
    })
    .llm_start(1)
    .push(RunLlmRetry {
        attempt: 1,
        max_attempts: 3,
        delay_ms: 1_500,
        error: "connection reset by peer".into(),
    })
    .deltas(&["I'll run the deploy ", "script"])
    .llm_end("", &[("c1", "run_command")], FinishReason::ToolCalls)
    .tool(
        "c1",
        "run_command",
        json!({"command": "rm -rf /var/www && ./deploy.sh"}),
        (
            ToolStatus::Denied,
            "rm -rf /var/www && ./deploy.sh",
            "dangerous command refused by the approval policy",
            0,
        ),
        None,
    )
    .push(SystemLog {
        level: LogLevel::Warn,
        message: "deploy.sh is not executable".into(),
        metadata: None,
    })
    .llm_start(2)
    .deltas(&["Trying the safe ", "variant"])
    .push(SystemError {
        error: "provider stream closed unexpectedly".into(),
        error_type: "provider".into(),
        recoverable: false,
        stack: Some("engine::stream::next\nengine::turn::run".into()),
        error_display: None,
    })
    .push(SystemCliDisplay {
        message: "Partial work was kept; nothing was deployed.".into(),
        style: DisplayStyle::Warning,
    })
    .push(AgentEnd {
        status: AgentStatus::Failed,
        result: "provider stream closed unexpectedly".into(),
        files_changed: vec![],
        usage: usage(2_100, 48),
        warning: None,
    });
    t
}

/// A turn whose first attempt breaks after streaming part of an answer (discarded, retried)
/// and whose answer is then cut at the output limit and continued — as the engine reports it.
fn broken_attempt_turn() -> Turn {
    let mut t = Turn::new();
    t.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "How is the mean computed?".into(),
        mode_hint: None,
        images: None,
    })
    .llm_start(1)
    .deltas(&["LLMock ", "divi"])
    .push(SystemLog {
        level: LogLevel::Warn,
        message: "attempt 1 broke off after streaming part of a response; everything it streamed was discarded".into(),
        metadata: None,
    })
    .push(RunLlmRetry {
        attempt: 1,
        max_attempts: 4,
        delay_ms: 500,
        error: "the response ended before the model finished: the stream closed without a finish reason after 11 characters of text".into(),
    })
    .deltas(&["The mean ", "divides by "])
    .llm_end("The mean divides by ", &[], FinishReason::Length)
    .push(SystemLog {
        level: LogLevel::Warn,
        message: "the answer was cut off at the output token limit; the model is asked to continue it (1 of 3)".into(),
        metadata: None,
    })
    .llm_start(2)
    .deltas(&["len(values)."])
    .llm_end("len(values).", &[], FinishReason::Stop)
    .push(AgentEnd {
        status: AgentStatus::Completed,
        result: "The mean divides by len(values).".into(),
        files_changed: vec![],
        usage: usage(3_600, 120),
        warning: None,
    });
    t
}

/// Replays `turn` with the real binary and returns standard output (asserting success).
fn replay(turn: &Turn, flags: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    turn.write(&path);
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("replay")
        .args(flags)
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Escape characters made visible, so colour snapshots are readable.
fn visible_escapes(text: &str) -> String {
    text.replace('\u{1b}', "␛")
}

#[test]
fn direct_turn_plain() {
    insta::assert_snapshot!(replay(&direct_turn(), &["--color", "never"]));
}

#[test]
fn direct_turn_verbose() {
    insta::assert_snapshot!(replay(&direct_turn(), &["--color", "never", "--verbose"]));
}

#[test]
fn direct_turn_coloured() {
    let text = replay(&direct_turn(), &["--color", "always"]);
    assert!(text.contains("\u{1b}[32m+    if size == 0 || size > items.len() {\u{1b}[0m"));
    assert!(text.contains("\u{1b}[31m-    for start in 0..items.len() - size {\u{1b}[0m"));
    assert!(text.contains("\u{1b}[36m@@ -10,7 +10,9 @@"));
    insta::assert_snapshot!(visible_escapes(&text));
}

#[test]
fn colour_is_off_when_piped_in_auto_mode() {
    let text = replay(&direct_turn(), &[]);
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn plan_turn_plain() {
    insta::assert_snapshot!(replay(&plan_turn(), &["--color", "never"]));
}

#[test]
fn plan_turn_verbose() {
    insta::assert_snapshot!(replay(&plan_turn(), &["--color", "never", "-v"]));
}

#[test]
fn failing_turn_plain() {
    insta::assert_snapshot!(replay(&failing_turn(), &["--color", "never"]));
}

#[test]
fn failing_turn_verbose_coloured() {
    let text = replay(&failing_turn(), &["--color", "always", "--verbose"]);
    insta::assert_snapshot!(visible_escapes(&text));
}

#[test]
fn broken_attempt_turn_plain() {
    insta::assert_snapshot!(replay(&broken_attempt_turn(), &["--color", "never"]));
}

#[test]
fn a_retried_attempt_is_erased_on_a_terminal() {
    // Issue 28 §4: on a terminal, `keel replay` erases what a discarded attempt streamed when
    // `run.llm.retry` arrives. Run in a pseudo-terminal (util-linux `script`) 40 columns wide.
    let Some(script) = keel_test_support::processes::external_program(
        "script",
        "KEEL_TEST_SCRIPT",
        "util-linux's `script` runs a command in a pseudo-terminal",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    broken_attempt_turn().write(&path);
    let command = format!(
        "stty rows 50 cols 40; '{}' replay --no-delay --color always '{}'",
        env!("CARGO_BIN_EXE_keel"),
        path.display()
    );
    let out = Command::new(script)
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = String::from_utf8_lossy(&out.stdout);
    assert!(
        written.contains("\u{1b}[J"),
        "no erase was written: {written:?}"
    );
    let shown = keel_test_support::screen::screen(&written, 40).join("\n");
    assert!(!shown.contains("LLMock divi"), "{shown}\n---\n{written:?}");
    assert!(shown.contains("How is the mean computed?"), "{shown}");
    assert!(shown.contains("model call failed (attempt 1/4)"), "{shown}");
    assert!(shown.contains("The mean divides by"), "{shown}");
    // In a pipe nothing can be erased: the text stays, with the warning that it was discarded.
    let piped = replay(&broken_attempt_turn(), &["--color", "never"]);
    assert!(piped.contains("LLMock divi"), "{piped}");
}

#[test]
fn direct_turn_zh_cn() {
    let text = replay(&direct_turn(), &["--color", "never", "--lang", "zh-CN"]);
    assert_ne!(
        text,
        replay(&direct_turn(), &["--color", "never", "--lang", "en"])
    );
    insta::assert_snapshot!(text);
}

#[test]
fn plan_turn_zh_cn() {
    insta::assert_snapshot!(replay(
        &plan_turn(),
        &["--color", "never", "--lang", "zh-CN"]
    ));
}

#[test]
fn failing_turn_zh_cn() {
    insta::assert_snapshot!(replay(
        &failing_turn(),
        &["--color", "never", "--lang", "zh-CN"]
    ));
}

#[test]
fn a_bad_lang_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    direct_turn().write(&path);
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(["replay", "--lang", "klingon"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected en or zh-CN"), "{stderr}");
    assert!(out.stdout.is_empty());
}
