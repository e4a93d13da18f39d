//! A realistic scripted session with fixed ids and timestamps, for golden files and samples.
//!
//! Turn 1 (plan mode): a plan is created and approved, step 1 moves a file, step 2 runs the
//! tests, fails, is repaired, and the model declares the task done. Turn 2 (direct mode) loads
//! project instructions, asks a question, compresses context, hits a provider retry and an
//! anomaly, and moves a test file. Turn 3 (plan mode) answers a planning reply, has its plan
//! modified, fails a step and the execution. Turn 4 is cancelled mid-step. Then, outside any
//! turn, the user runs a script and an error is reported.

use chrono::{DateTime, Duration, Utc};
use keel_events::*;
use serde_json::json;
use uuid::{Builder, Uuid};

/// Session id of the script.
pub const SESSION: &str = "0193a000-0000-7000-8000-00000000a001";
/// Project id of the script.
pub const PROJECT: &str = "789e0123-e45b-67d8-a901-234567890abc";
/// First turn.
pub const TURN_1: &str = "123e4567-e89b-12d3-a456-426614174000";
/// Second turn.
pub const TURN_2: &str = "123e4567-e89b-12d3-a456-426614174001";
/// Third turn (fails).
pub const TURN_3: &str = "123e4567-e89b-12d3-a456-426614174002";
/// Fourth turn (cancelled).
pub const TURN_4: &str = "123e4567-e89b-12d3-a456-426614174003";

/// Start of the script: 2026-11-22T10:00:00.000Z.
pub fn start() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(1_795_341_600_000).unwrap_or_default()
}

/// A fixed UUID v7 for the event with this seq, stamped at `ts`.
pub fn fixed_id(seq: u64, ts: DateTime<Utc>) -> Uuid {
    let mut random = [0u8; 10];
    random[2..].copy_from_slice(&seq.to_be_bytes());
    Builder::from_unix_timestamp_millis(ts.timestamp_millis() as u64, &random).into_uuid()
}

/// Builds events through a real [`Sequencer`], then pins id and timestamp (seq × 137 ms after
/// [`start`]) so the result is the same on every run.
pub struct Script {
    sequencer: Sequencer,
    turn: Option<&'static str>,
    /// The `task` call whose subagent emits the events that follow.
    parent: Option<&'static str>,
    events: Vec<Event>,
}

impl Default for Script {
    fn default() -> Self {
        Self {
            sequencer: Sequencer::new(SESSION, PROJECT),
            turn: None,
            parent: None,
            events: Vec::new(),
        }
    }
}

impl Script {
    /// Sets the turn of the events that follow.
    pub fn turn(&mut self, turn: Option<&'static str>) -> &mut Self {
        self.turn = turn;
        self
    }

    /// Sets the `task` call whose subagent emits the events that follow (`None`: the top
    /// agent).
    pub fn child(&mut self, parent: Option<&'static str>) -> &mut Self {
        self.parent = parent;
        self
    }

    /// Appends one event.
    pub fn push(&mut self, kind: impl Into<EventKind>) -> &mut Self {
        let mut event = self.sequencer.stamp(self.turn, kind);
        event.parent_call_id = self.parent.map(str::to_owned);
        event.ts = start() + Duration::milliseconds(137 * event.seq as i64);
        event.id = fixed_id(event.seq, event.ts);
        self.events.push(event);
        self
    }

    /// The events so far.
    pub fn events(&self) -> Vec<Event> {
        self.events.clone()
    }
}

fn plan() -> Plan {
    Plan {
        goal: "Move the date helpers to src/new.ts and make the tests pass".into(),
        steps: vec![
            PlanStep {
                index: 1,
                title: "Move the helper module".into(),
                description: "Move src/old.ts to src/new.ts".into(),
                expected_tools: vec!["move_file".into()],
            },
            PlanStep {
                index: 2,
                title: "Run the tests".into(),
                description: "Run npm test and fix what breaks".into(),
                expected_tools: vec!["run_command".into(), "edit_file".into()],
            },
        ],
        estimated_complexity: Complexity::Medium,
    }
}

fn usage(prompt: u64, completion: u64, cached: Option<u64>) -> Usage {
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        cached_tokens: cached,
    }
}

fn progress(current: u32) -> Progress {
    Progress { current, total: 2 }
}

/// The whole scripted session.
pub fn scripted_run() -> Vec<Event> {
    let mut s = Script::default();
    s.turn(Some(TURN_1));
    s.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Move the date helpers to src/new.ts and make the tests pass".into(),
        mode_hint: Some(ModeHint::Auto),
        images: None,
    })
    .push(PrepareModelSelect {
        requested_model: "gpt-5-mini".into(),
        final_model: "gpt-5-mini".into(),
        is_fallback: false,
        reason: None,
    })
    .push(PrepareConversationOpen {
        conversation_id: "conv-7f3a".into(),
        action: ConversationAction::New,
    })
    .push(PrepareHistoryLoad {
        start_turn: 1,
        action_history_len: 0,
        pending_tool_count: 0,
    })
    .push(PrepareRepomapBuild {
        files: 42,
        symbols: 318,
        tokens: 2048,
        duration_ms: 85,
        cached: false,
    })
    .push(RunContextWindow {
        tokens_used: 3120,
        limit: 128_000,
    })
    .push(RunResponseStart {
        mode: ResponseMode::Plan,
    })
    .push(RunLlmStart {
        model: "gpt-5-mini".into(),
        iteration: 1,
        message_count: 2,
        system_prompt: None,
    })
    .push(SystemStatus::waiting(
        StatusKind::WaitingForModel,
        "waiting for gpt-5-mini",
    ))
    .push(RunThinkingStart {
        agent_name: "keel".into(),
        is_initial: true,
        is_forced: false,
    })
    .push(RunThinkingDelta {
        agent_name: "keel".into(),
        text: "Two steps: move the file, then run the tests.".into(),
    })
    .push(RunThinkingEnd {
        agent_name: "keel".into(),
        result: "Two steps: move the file, then run the tests.".into(),
    })
    .push(RunLlmDelta {
        text: "I'll make a plan.".into(),
    })
    .push(RunLlmEnd {
        llm_output: "I'll make a plan.".into(),
        tool_calls: vec![ToolCall {
            id: "call_plan".into(),
            name: "create_plan".into(),
            arguments: json!({"goal": plan().goal, "steps": 2}),
        }],
        finish_reason: FinishReason::ToolCalls,
        usage: Some(usage(3120, 210, Some(1024))),
    })
    .push(RunUsageReport {
        prompt_tokens: 3120,
        completion_tokens: 210,
        total_tokens: 3330,
        cached_tokens: Some(1024),
        cumulative: usage(3120, 210, Some(1024)),
        model: Some("gpt-5-mini".into()),
        cost_usd: Some(0.0009696),
        purpose: None,
    })
    .push(RunPlanCreate { plan: plan() })
    .push(RunApprovalRequest {
        approval_id: "appr-1".into(),
        kind: ApprovalKind::Plan,
        subject: plan().goal,
        reason: "Plans need approval before they run".into(),
        plan: None,
    })
    .push(RunApprovalResolve {
        approval_id: "appr-1".into(),
        decision: ApprovalDecision::Approve,
        kind: Some(ApprovalKind::Plan),
        reason: None,
        modified: None,
    })
    .push(RunExecutionStart {
        plan: plan(),
        message: "Executing 2 steps".into(),
    })
    .push(RunStepStart {
        step_id: 1,
        title: "Move the helper module".into(),
        description: "Move src/old.ts to src/new.ts".into(),
        progress: progress(1),
    })
    .push(RunToolStart {
        call_id: "call_1".into(),
        tool_name: "move_file".into(),
        arguments: json!({"fromPath": "src/old.ts", "toPath": "src/new.ts"}),
        step_id: Some(1),
        mcp_server: None,
    })
    .push(RunFileChange {
        path: "src/new.ts".into(),
        op: FileOp::Move,
        from_path: Some("src/old.ts".into()),
        to_path: Some("src/new.ts".into()),
        summary: "移动文件 src/old.ts → src/new.ts".into(),
        lines_added: 0,
        lines_removed: 0,
        size: Some(1834),
        mime_type: Some("text/typescript".into()),
        diff: None,
        staged: None,
    })
    .push(RunToolEnd {
        call_id: "call_1".into(),
        tool_name: "move_file".into(),
        status: ToolStatus::Success,
        result: "文件已移动: src/old.ts → src/new.ts".into(),
        duration_ms: 3,
        args_summary: "src/old.ts → src/new.ts".into(),
        result_summary: "文件已移动".into(),
        step_id: Some(1),
        from_path: Some("src/old.ts".into()),
        to_path: Some("src/new.ts".into()),
        mcp_server: None,
        diagnostics: None,
    })
    .push(RunStepOutput {
        step_id: 1,
        content: "Moved src/old.ts to src/new.ts".into(),
    })
    .push(RunStepEnd {
        step_id: 1,
        title: "Move the helper module".into(),
        files_changed: vec!["src/old.ts".into(), "src/new.ts".into()],
        progress: progress(1),
    })
    .push(RunStepStart {
        step_id: 2,
        title: "Run the tests".into(),
        description: "Run npm test and fix what breaks".into(),
        progress: progress(2),
    })
    .push(RunToolStart {
        call_id: "call_2".into(),
        tool_name: "run_command".into(),
        arguments: json!({"command": "npm test"}),
        step_id: Some(2),
        mcp_server: None,
    })
    .push(RunToolOutput {
        call_id: "call_2".into(),
        stream: OutputStream::Stderr,
        content: "Error: Cannot find module './old'\n".into(),
    })
    .push(RunToolEnd {
        call_id: "call_2".into(),
        tool_name: "run_command".into(),
        status: ToolStatus::Error,
        result: "exit code 1\nError: Cannot find module './old'".into(),
        duration_ms: 2140,
        args_summary: "npm test".into(),
        result_summary: "exit code 1".into(),
        step_id: Some(2),
        from_path: None,
        to_path: None,
        mcp_server: None,
        diagnostics: None,
    })
    .push(RunRepairAttempt {
        step_id: Some(2),
        attempt_number: 1,
        max_attempts: 3,
        trigger: "tests failed".into(),
        error_type: Some("module_not_found".into()),
        error_message: Some("Cannot find module './old'".into()),
        suggestion: Some("Update the import in src/index.ts".into()),
        result: RepairResult::Pending,
    })
    .push(RunToolStart {
        call_id: "call_3".into(),
        tool_name: "edit_file".into(),
        arguments: json!({"path": "src/index.ts", "search": "./old", "replace": "./new"}),
        step_id: Some(2),
        mcp_server: None,
    })
    .push(RunFileChange {
        path: "src/index.ts".into(),
        op: FileOp::Update,
        from_path: None,
        to_path: None,
        summary: "Import ./new instead of ./old".into(),
        lines_added: 1,
        lines_removed: 1,
        size: Some(412),
        mime_type: Some("text/typescript".into()),
        diff: Some(
            "--- a/src/index.ts\n+++ b/src/index.ts\n@@ -1 +1 @@\n-import { fmt } from './old';\n+import { fmt } from './new';\n"
                .into(),
        ),
        staged: None,
    })
    .push(RunToolEnd {
        call_id: "call_3".into(),
        tool_name: "edit_file".into(),
        status: ToolStatus::Success,
        result: "Applied 1 edit to src/index.ts".into(),
        duration_ms: 12,
        args_summary: "src/index.ts".into(),
        result_summary: "1 edit".into(),
        step_id: Some(2),
        from_path: None,
        to_path: None,
        mcp_server: None,
        diagnostics: None,
    })
    .push(RunRepairAttempt {
        step_id: Some(2),
        attempt_number: 1,
        max_attempts: 3,
        trigger: "tests failed".into(),
        error_type: Some("module_not_found".into()),
        error_message: Some("Cannot find module './old'".into()),
        suggestion: None,
        result: RepairResult::Success,
    })
    .push(RunStepEnd {
        step_id: 2,
        title: "Run the tests".into(),
        files_changed: vec!["src/index.ts".into()],
        progress: progress(2),
    })
    .push(RunExecutionEnd {
        plan: plan(),
        message: "All steps done".into(),
        summary: "Moved the helpers and fixed the import; tests pass".into(),
    })
    .push(RunPlanComplete {
        success: true,
        summary: "Moved the helpers and fixed the import; tests pass".into(),
        files_changed: vec![
            "src/old.ts".into(),
            "src/new.ts".into(),
            "src/index.ts".into(),
        ],
    })
    .push(RunCompletionAttempt {
        result: "The helpers live in src/new.ts and the tests pass.".into(),
        command: Some("npm test".into()),
    })
    .push(RunResponseEnd {
        mode: ResponseMode::Plan,
    })
    .push(SystemCliDisplay {
        message: "✔ done in 3 steps".into(),
        style: DisplayStyle::Success,
    })
    .push(AgentEnd {
        status: AgentStatus::Completed,
        result: "The helpers live in src/new.ts and the tests pass.".into(),
        files_changed: vec![
            "src/old.ts".into(),
            "src/new.ts".into(),
            "src/index.ts".into(),
        ],
        usage: usage(9800, 740, Some(3072)),
        warning: None,
    });

    s.turn(Some(TURN_2));
    s.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Rename the test file too".into(),
        mode_hint: None,
        images: None,
    })
    .push(PrepareModelSelect {
        requested_model: "gpt-5".into(),
        final_model: "gpt-5-mini".into(),
        is_fallback: true,
        reason: Some("gpt-5: rate limited".into()),
    })
    .push(PrepareConversationOpen {
        conversation_id: "conv-7f3a".into(),
        action: ConversationAction::Resume,
    })
    .push(PrepareInstructionsLoad {
        files: vec![
            InstructionsFile {
                path: "AGENTS.md".into(),
                scope: InstructionsScope::Project,
                tokens: 412,
                truncated: false,
            },
            InstructionsFile {
                path: "test/AGENTS.md".into(),
                scope: InstructionsScope::Nested,
                tokens: 96,
                truncated: false,
            },
        ],
        total_tokens: 508,
        max_tokens: 8_192,
    })
    .push(RunContextCompress {
        original_tokens: 96_000,
        compressed_tokens: 12_000,
        summary: "Turn 1 moved src/old.ts to src/new.ts and fixed an import.".into(),
        summarizer: Some(SummarizerKind::Model),
        fallback_reason: None,
        usage: Some(usage(84_000, 310, None)),
    })
    .push(RunResponseStart {
        mode: ResponseMode::Direct,
    })
    .push(RunLlmRetry {
        attempt: 1,
        max_attempts: 3,
        delay_ms: 500,
        error: "HTTP 503 from provider".into(),
    })
    .push(RunQuestionAsk {
        question_id: "q-1".into(),
        question: "Rename test/old.test.ts to test/new.test.ts?".into(),
        options: vec!["yes".into(), "no".into()],
    })
    .push(RunQuestionAnswer {
        question_id: "q-1".into(),
        answer: "yes".into(),
    })
    .push(RunToolStart {
        call_id: "call_4".into(),
        tool_name: "move_file".into(),
        arguments: json!({"fromPath": "test/old.test.ts", "toPath": "test/new.test.ts"}),
        step_id: None,
        mcp_server: None,
    })
    .push(RunFileChange {
        path: "test/new.test.ts".into(),
        op: FileOp::Move,
        from_path: Some("test/old.test.ts".into()),
        to_path: Some("test/new.test.ts".into()),
        summary: "移动文件 test/old.test.ts → test/new.test.ts".into(),
        lines_added: 0,
        lines_removed: 0,
        size: None,
        mime_type: None,
        diff: None,
        staged: None,
    })
    .push(RunToolEnd {
        call_id: "call_4".into(),
        tool_name: "move_file".into(),
        status: ToolStatus::Success,
        result: "文件已移动: test/old.test.ts → test/new.test.ts".into(),
        duration_ms: 2,
        args_summary: "test/old.test.ts → test/new.test.ts".into(),
        result_summary: "文件已移动".into(),
        step_id: None,
        from_path: Some("test/old.test.ts".into()),
        to_path: Some("test/new.test.ts".into()),
        mcp_server: None,
        diagnostics: None,
    })
    .push(RunAnomalyDetect {
        step_id: None,
        anomaly: AnomalyKind::RepeatedCall,
        message: "read_file(src/new.ts) called 3 times with the same arguments".into(),
    })
    .push(SystemLog {
        level: LogLevel::Debug,
        message: "cache hit for repo map".into(),
        metadata: Some(
            json!({"files": 42})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ),
    })
    .push(RunLlmDelta {
        text: "Renamed the test file.".into(),
    })
    .push(RunCompletionAttempt {
        result: "Renamed the test file.".into(),
        command: None,
    })
    .push(RunResponseEnd {
        mode: ResponseMode::Direct,
    })
    .push(AgentEnd {
        status: AgentStatus::Completed,
        result: "Renamed the test file.".into(),
        files_changed: vec!["test/old.test.ts".into(), "test/new.test.ts".into()],
        usage: usage(14_200, 95, None),
        warning: None,
    });

    let split_plan = Plan {
        goal: "Split src/new.ts into one module per helper".into(),
        steps: vec![PlanStep {
            index: 1,
            title: "Create the modules".into(),
            description: "One file per exported helper".into(),
            expected_tools: vec!["write_file".into()],
        }],
        estimated_complexity: Complexity::High,
    };
    s.turn(Some(TURN_3));
    s.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Split the helpers into modules".into(),
        mode_hint: Some(ModeHint::Plan),
        images: None,
    })
    .push(RunResponseStart {
        mode: ResponseMode::Plan,
    })
    .push(RunThinkingStart {
        agent_name: "keel".into(),
        is_initial: true,
        is_forced: false,
    })
    .push(RunThinkingFail {
        agent_name: "keel".into(),
        error_message: "reasoning stream closed early".into(),
    })
    .push(RunPlanRespond {
        response: "Splitting touches every import; shall I plan it?".into(),
        options: vec!["plan it".into(), "stop".into()],
        question_id: "call_respond".into(),
    })
    .push(RunQuestionAnswer {
        question_id: "call_respond".into(),
        answer: "plan it".into(),
    })
    .push(RunPlanCreate {
        plan: split_plan.clone(),
    })
    .push(RunApprovalRequest {
        approval_id: "appr-2".into(),
        kind: ApprovalKind::Plan,
        subject: split_plan.goal.clone(),
        reason: "Plans need approval before they run".into(),
        plan: None,
    })
    .push(RunApprovalResolve {
        approval_id: "appr-2".into(),
        decision: ApprovalDecision::Modify,
        kind: Some(ApprovalKind::Plan),
        reason: Some("Keep fmt and parse together".into()),
        modified: Some(json!({"goal": split_plan.goal, "steps": 1})),
    })
    .push(RunPlanModify {
        plan: split_plan.clone(),
    })
    .push(RunExecutionStart {
        plan: split_plan.clone(),
        message: "Executing 1 step".into(),
    })
    .push(RunStepStart {
        step_id: 1,
        title: "Create the modules".into(),
        description: "One file per exported helper".into(),
        progress: Progress {
            current: 1,
            total: 1,
        },
    })
    .push(RunStepFail {
        step_id: 1,
        title: "Create the modules".into(),
        error: "write_file: src/fmt.ts is outside the allowed paths".into(),
        progress: Progress {
            current: 1,
            total: 1,
        },
    })
    .push(RunPlanReplan {
        message: "Step 1 failed; the plan should be revised".into(),
        reason: "step_failed".into(),
    })
    .push(RunExecutionFail {
        plan: Some(split_plan.clone()),
        step_id: Some(1),
        error: "write_file: src/fmt.ts is outside the allowed paths".into(),
        message: "Plan execution failed at step 1 of 1 (Create the modules): Split src/new.ts into one module per helper".into(),
    })
    .push(RunResponseEnd {
        mode: ResponseMode::Plan,
    })
    .push(AgentEnd {
        status: AgentStatus::Failed,
        result: "write_file: src/fmt.ts is outside the allowed paths".into(),
        files_changed: vec![],
        usage: usage(5400, 310, None),
        warning: None,
    });

    s.turn(Some(TURN_4));
    s.push(AgentStart {
        agent_name: "keel".into(),
        task_input: "Try the split again".into(),
        mode_hint: Some(ModeHint::Plan),
        images: None,
    })
    .push(RunResponseStart {
        mode: ResponseMode::Plan,
    })
    .push(RunPlanCreate {
        plan: split_plan.clone(),
    })
    .push(RunExecutionStart {
        plan: split_plan,
        message: "Executing 1 step".into(),
    })
    .push(RunStepStart {
        step_id: 1,
        title: "Create the modules".into(),
        description: "One file per exported helper".into(),
        progress: Progress {
            current: 1,
            total: 1,
        },
    })
    .push(RunExecutionCancel {
        message: "Cancelled by the user".into(),
        step_id: Some(1),
    })
    .push(AgentEnd {
        status: AgentStatus::Cancelled,
        result: "Cancelled by the user".into(),
        files_changed: vec![],
        usage: usage(1200, 40, None),
        warning: None,
    });

    s.turn(None);
    s.push(SystemStatus::line("Running scripts/seed.py"))
        .push(ExecFileStart {
            run_id: "run-1".into(),
            file: "scripts/seed.py".into(),
            command: vec!["python3".into(), "scripts/seed.py".into()],
        })
        .push(ExecFileStdout {
            run_id: "run-1".into(),
            content: "seeded 10 rows\n".into(),
        })
        .push(ExecFileStderr {
            run_id: "run-1".into(),
            content: "DeprecationWarning: utcnow\n".into(),
        })
        .push(ExecFileExit {
            run_id: "run-1".into(),
            file: "scripts/seed.py".into(),
            exit_code: Some(0),
            duration_ms: 1250,
            timed_out: false,
        })
        .push(RunMemoryUpdate {
            source: MemorySource::Distill,
            entries: vec![
                MemoryRecord {
                    id: "mem_1f0c9a2e".into(),
                    kind: MemoryKind::Decision,
                    text: "Date helpers live in src/new.ts, one module per helper later".into(),
                    new: true,
                },
                MemoryRecord {
                    id: "mem_77b2d410".into(),
                    kind: MemoryKind::Convention,
                    text: "Tests are named after the module they test".into(),
                    new: false,
                },
            ],
            dropped: 0,
            total: 7,
        })
        .push(RunCheckpointRewind {
            checkpoint_id: "0190c0de-0000-7000-8000-000000000002".into(),
            scope: RewindScope::Both,
            turn_ids: vec!["turn-2".into()],
            from_seq: 40,
            to_seq: 80,
            messages: Some(4),
            files_restored: vec!["src/new.ts".into()],
            files_removed: vec![],
        })
        .push(RunHookStart {
            hook_event: "PreToolUse".into(),
            command: "./guard.sh".into(),
            matcher: Some("Bash".into()),
            call_id: Some("call_9".into()),
            source: "keel.toml".into(),
        })
        .push(RunHookEnd {
            hook_event: "PreToolUse".into(),
            command: "./guard.sh".into(),
            matcher: Some("Bash".into()),
            call_id: Some("call_9".into()),
            decision: HookDecision::Block,
            reason: Some("rm is not allowed here".into()),
            updated_input: false,
            exit_code: Some(2),
            duration_ms: 14,
            error: None,
        })
        .push(RunToolStart {
            call_id: "call_10".into(),
            tool_name: "task".into(),
            arguments: json!({"description": "Find the date helpers",
                              "prompt": "Where are the date helpers used?",
                              "subagent_type": "explorer"}),
            step_id: None,
            mcp_server: None,
        })
        .child(Some("call_10"))
        .push(RunSubagentStart {
            call_id: "call_10".into(),
            subagent_type: "explorer".into(),
            description: "Find the date helpers".into(),
            depth: 1,
            model: "gpt-5-mini".into(),
        })
        .push(RunToolStart {
            call_id: "call_10_1".into(),
            tool_name: "search_files".into(),
            arguments: json!({"path": "src", "regex": "formatDate"}),
            step_id: None,
            mcp_server: None,
        })
        .push(RunToolEnd {
            call_id: "call_10_1".into(),
            tool_name: "search_files".into(),
            status: ToolStatus::Success,
            result: "src/new.ts:3: export function formatDate".into(),
            duration_ms: 2,
            args_summary: "formatDate in src".into(),
            result_summary: "1 match".into(),
            step_id: None,
            from_path: None,
            to_path: None,
            mcp_server: None,
            diagnostics: None,
        })
        .push(RunUsageReport {
            prompt_tokens: 900,
            completion_tokens: 40,
            total_tokens: 940,
            cached_tokens: None,
            cumulative: usage(900, 40, None),
            model: Some("gpt-5-mini".into()),
            cost_usd: Some(0.000305),
            purpose: None,
        })
        .push(RunSubagentEnd {
            call_id: "call_10".into(),
            subagent_type: "explorer".into(),
            status: AgentStatus::Completed,
            report_chars: 31,
            iterations: 2,
            usage: usage(900, 40, None),
            cost_usd: Some(0.000305),
            duration_ms: 820,
        })
        .child(None)
        .push(RunToolEnd {
            call_id: "call_10".into(),
            tool_name: "task".into(),
            status: ToolStatus::Success,
            result: "formatDate is used in src/new.ts".into(),
            duration_ms: 830,
            args_summary: "explorer: Find the date helpers".into(),
            result_summary: "31 characters".into(),
            step_id: None,
            from_path: None,
            to_path: None,
            mcp_server: None,
            diagnostics: None,
        })
        .push(SystemError {
            error: "database is locked".into(),
            error_type: "store".into(),
            recoverable: true,
            stack: None,
            error_display: Some("store error: database is locked (retry later)".into()),
        });
    s.events()
}
