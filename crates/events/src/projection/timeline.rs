//! Activity Timeline projection (seed 003): catalogue events → [`TimelineEvent`] records.
//!
//! Envelope: `id` = the event's id, `timestamp` = its `ts` (RFC 3339, milliseconds),
//! `projectId` = its `project_id`, `taskId` = its `turn_id`. An event outside a turn has no task:
//! its `taskId` is the empty string, which [`AgentEventRow`](super::AgentEventRow) stores as
//! `task_id = NULL` (the `agent_events` table allows that).
//!
//! Phases (DESIGN §2): plan creation is the `planner`, the tool loop and plan execution the
//! `coder`, repair the `debugger` (nested in the `coder`), the accepted result the `reviewer`.
//! Each phase exits before the next one enters and none is entered twice in a row: a plan's
//! steps are `log` records inside one `coder` phase, and the `reviewer` comes from `agent.end`
//! (after `run.response.end` closed the `coder`), not from `run.completion.attempt` (which a
//! direct response sends while its `coder` is still open).
//!
//! | catalogue type | timeline record |
//! |---|---|
//! | `run.response.start` mode `plan` / `direct` | `agent_phase` `planner` / `coder` `enter` |
//! | `run.response.end` mode `direct` | `agent_phase` `coder` `exit` (plan mode closes with `run.execution.end`) |
//! | `run.plan.create` | `agent_phase` `planner` `exit`, summary = goal and step count |
//! | `run.execution.start` / `.end` | `agent_phase` `coder` `enter` / `exit` |
//! | `run.step.start` / `.end` | `log` `info` `Step i/n: title` / `Step i/n done: title`, `stepId` in `metadata` |
//! | `run.completion.attempt` | `log` `info`, the result (`command` in `metadata`) |
//! | `run.execution.fail` / `.cancel` | (from [`to_timeline_all`]) then `coder` `exit` |
//! | `agent.end` `completed` | (from [`to_timeline_all`]) `reviewer` `enter` and `exit` (summary = the result) before its `log` |
//! | `run.repair.attempt` | `self_repair` (and, from [`to_timeline_all`], `debugger` `enter`/`exit` around it) |
//! | `run.tool.end` | `tool_call`: `success` = status `success`; `duration` = `duration_ms` (absent when 0, i.e. not measured); `move_file` carries `fromPath`/`toPath` and `argsSummary` `from → to` |
//! | `run.file.change` | `file_update`: `size` → `fileSize`, `mime_type` → `mimeType`; `fromPath`/`toPath` only for `op = move` |
//! | `system.error` | `error`: `message` = the event's `error` |
//! | `run.execution.fail` | `error`, `errorType` `execution_failed`, not recoverable |
//! | `system.log` | `log` as is |
//! | `system.status` without a `kind`, `run.plan.modify`, `run.plan.complete`, approvals, questions, `run.context.compress`, `agent.start` (its images named) | `log` `info` |
//! | `run.plan.respond` | `log` `info` with `questionId` and `options` in `metadata`, like `run.question.ask` |
//! | `run.anomaly.detect`, `run.plan.replan`, `run.llm.retry`, `run.thinking.fail`, `run.execution.cancel`, fallback `prepare.model.select` | `log` `warn` |
//! | `run.step.fail` | `log` `error` |
//! | `agent.end` | `log`: `info` when completed, `error` when failed, `warn` otherwise |
//! | `run.subagent.start` / `.end` | `log`: `Subagent KIND started: DESCRIPTION` / `Subagent KIND STATUS: N tokens` (level as `agent.end`'s) |
//!
//! Every record carries the event's `parent_call_id` as `parentCallId` (a subagent's events).
//!
//! Everything else projects to `None`: streaming deltas (`run.llm.delta`, `run.thinking.delta`,
//! `run.tool.output`, `run.step.output`), the model-call bookkeeping (`run.llm.start`/`.end`,
//! `run.thinking.start`/`.end`, `run.usage.report`, `run.context.window`), `run.tool.start` (its
//! `run.tool.end` carries everything), the other `prepare.*` events, user-started script runs
//! (`exec.file.*`, outside any task), `system.status` with a `kind` (a transient wait — for the
//! model, an approval, an answer, the repo map — that the next event ends; one per model call
//! would crowd the window) and `system.cli_display`.

use serde_json::{Map, Value, json};
use uuid::Builder;

use super::timeline_event::*;
use crate::catalogue::EventKind;
use crate::envelope::Event;
use crate::payload::{
    AgentStatus, ApprovalDecision, FileOp, LogLevel, Progress, RepairResult, ResponseMode,
    RunFileChange, RunRepairAttempt, RunToolEnd, ToolStatus,
};

/// The name of the tool whose calls carry `fromPath`/`toPath`.
pub const MOVE_FILE_TOOL: &str = "move_file";

/// Projects an event into its Activity Timeline record, or `None` when the timeline does not
/// show it.
pub fn to_timeline(event: &Event) -> Option<TimelineEvent> {
    timeline_payload(event).map(|payload| record(event, event.id.to_string(), payload))
}

/// Every timeline record an event stands for: [`to_timeline`]'s record, plus the phase records
/// an event implies.
///
/// - `run.repair.attempt`: the first attempt (`attempt_number <= 1`, result `pending`) is
///   preceded by `debugger` `enter`; an attempt that succeeded, or failed as the last allowed, is
///   followed by `debugger` `exit`.
/// - `run.execution.fail` / `run.execution.cancel`: followed by `coder` `exit`.
/// - `agent.end` with status `completed`: preceded by `reviewer` `enter` and `exit`.
///
/// Phase records take the event's id re-marked as a UUID v8 (same bytes, version 8); a second
/// phase record of the same event (the `reviewer` `exit`) also flips the id's lowest bit. So they
/// are stable and never collide with a v7 event id.
pub fn to_timeline_all(event: &Event) -> Vec<TimelineEvent> {
    let Some(main) = to_timeline(event) else {
        return Vec::new();
    };
    let phase_record = |second: bool, phase: AgentPhase, action, summary: Option<String>| {
        let mut bytes = event.id.into_bytes();
        if second {
            bytes[15] ^= 1;
        }
        record(
            event,
            Builder::from_custom_bytes(bytes).into_uuid().to_string(),
            TimelinePayload::AgentPhase(AgentPhasePayload {
                phase,
                action,
                summary,
            }),
        )
    };
    match &event.kind {
        EventKind::RunRepairAttempt(repair) => {
            let summary = || {
                Some(format!(
                    "Repair attempt {}/{}: {}",
                    repair.attempt_number, repair.max_attempts, repair.trigger
                ))
            };
            let enters = repair.attempt_number <= 1 && repair.result == RepairResult::Pending;
            let exits = repair.result == RepairResult::Success
                || (repair.result == RepairResult::Failed
                    && repair.attempt_number >= repair.max_attempts);
            let mut records = Vec::with_capacity(2);
            if enters {
                records.push(phase_record(
                    false,
                    AgentPhase::Debugger,
                    PhaseAction::Enter,
                    summary(),
                ));
            }
            records.push(main);
            if exits {
                records.push(phase_record(
                    false,
                    AgentPhase::Debugger,
                    PhaseAction::Exit,
                    summary(),
                ));
            }
            records
        }
        EventKind::RunExecutionFail(_) | EventKind::RunExecutionCancel(_) => vec![
            main,
            phase_record(false, AgentPhase::Coder, PhaseAction::Exit, None),
        ],
        EventKind::AgentEnd(end) if end.status == AgentStatus::Completed => vec![
            phase_record(
                false,
                AgentPhase::Reviewer,
                PhaseAction::Enter,
                Some(end.result.clone()),
            ),
            phase_record(true, AgentPhase::Reviewer, PhaseAction::Exit, None),
            main,
        ],
        _ => vec![main],
    }
}

fn record(event: &Event, id: String, payload: TimelinePayload) -> TimelineEvent {
    TimelineEvent {
        id,
        timestamp: event.ts_string(),
        task_id: event.turn_id.clone().unwrap_or_default(),
        project_id: event.project_id.clone(),
        parent_call_id: event.parent_call_id.clone(),
        payload,
    }
}

fn timeline_payload(event: &Event) -> Option<TimelinePayload> {
    use EventKind as K;
    use TimelinePayload as T;
    let payload = match &event.kind {
        K::RunResponseStart(p) => match p.mode {
            ResponseMode::Plan => phase(AgentPhase::Planner, PhaseAction::Enter, None),
            ResponseMode::Direct => phase(AgentPhase::Coder, PhaseAction::Enter, None),
        },
        K::RunResponseEnd(p) => match p.mode {
            ResponseMode::Direct => phase(AgentPhase::Coder, PhaseAction::Exit, None),
            ResponseMode::Plan => return None,
        },
        K::RunPlanCreate(p) => phase(
            AgentPhase::Planner,
            PhaseAction::Exit,
            Some(format!(
                "{} ({} step{})",
                p.plan.goal,
                p.plan.steps.len(),
                if p.plan.steps.len() == 1 { "" } else { "s" }
            )),
        ),
        K::RunExecutionStart(p) => phase(
            AgentPhase::Coder,
            PhaseAction::Enter,
            Some(p.message.clone()),
        ),
        K::RunExecutionEnd(p) => phase(
            AgentPhase::Coder,
            PhaseAction::Exit,
            Some(p.summary.clone()),
        ),
        K::RunStepStart(p) => log(
            LogLevel::Info,
            step_summary(&p.progress, &p.title, ""),
            meta(json!({"stepId": p.step_id})),
        ),
        K::RunStepEnd(p) => log(
            LogLevel::Info,
            step_summary(&p.progress, &p.title, " done"),
            meta(json!({"stepId": p.step_id})),
        ),
        K::RunCompletionAttempt(p) => log(
            LogLevel::Info,
            p.result.clone(),
            meta(json!({"command": p.command})),
        ),
        K::RunRepairAttempt(p) => T::SelfRepair(self_repair(p)),
        K::RunToolEnd(p) => T::ToolCall(tool_call(p)),
        K::RunFileChange(p) => T::FileUpdate(file_update(p)),
        K::SystemError(p) => T::Error(ErrorPayload {
            error_type: p.error_type.clone(),
            message: p.error.clone(),
            stack: p.stack.clone(),
            recoverable: p.recoverable,
        }),
        K::RunExecutionFail(p) => T::Error(ErrorPayload {
            error_type: "execution_failed".into(),
            message: p.error.clone(),
            stack: None,
            recoverable: false,
        }),
        K::SystemLog(p) => T::Log(LogPayload {
            level: p.level,
            message: p.message.clone(),
            metadata: p.metadata.clone(),
        }),
        K::SystemStatus(p) if p.kind.is_none() => log(LogLevel::Info, p.message.clone(), None),
        K::AgentStart(p) => {
            let images = p.images.as_deref().unwrap_or_default();
            let shown = if images.is_empty() {
                String::new()
            } else {
                let names: Vec<&str> = images.iter().map(|i| i.name.as_str()).collect();
                format!(" (images: {})", names.join(", "))
            };
            log(
                LogLevel::Info,
                format!("Task started: {}{shown}", p.task_input),
                meta(json!({"agentName": p.agent_name, "modeHint": p.mode_hint})),
            )
        }
        K::AgentEnd(p) => {
            let level = match p.status {
                AgentStatus::Completed => LogLevel::Info,
                AgentStatus::Failed => LogLevel::Error,
                AgentStatus::Cancelled | AgentStatus::MaxIterations => LogLevel::Warn,
            };
            let status = json!(p.status);
            let status_text = status.as_str().unwrap_or_default().to_owned();
            log(
                level,
                format!("Task {status_text}: {}", p.result),
                meta(json!({
                    "status": status,
                    "filesChanged": p.files_changed,
                    "totalTokens": p.usage.total_tokens,
                })),
            )
        }
        K::PrepareModelSelect(p) if p.is_fallback => log(
            LogLevel::Warn,
            match &p.reason {
                Some(reason) => format!(
                    "Using fallback model {} instead of {}: {reason}",
                    p.final_model, p.requested_model
                ),
                None => format!(
                    "Using fallback model {} instead of {}",
                    p.final_model, p.requested_model
                ),
            },
            meta(json!({"requestedModel": p.requested_model, "finalModel": p.final_model})),
        ),
        K::RunPlanModify(p) => log(
            LogLevel::Info,
            format!("Plan modified: {}", p.plan.goal),
            None,
        ),
        K::RunPlanReplan(p) => log(
            LogLevel::Warn,
            p.message.clone(),
            meta(json!({"reason": p.reason})),
        ),
        K::RunPlanComplete(p) => log(
            if p.success {
                LogLevel::Info
            } else {
                LogLevel::Warn
            },
            p.summary.clone(),
            meta(json!({"success": p.success, "filesChanged": p.files_changed})),
        ),
        K::RunPlanRespond(p) => log(
            LogLevel::Info,
            p.response.clone(),
            meta(json!({"questionId": p.question_id, "options": p.options})),
        ),
        K::RunExecutionCancel(p) => log(LogLevel::Warn, p.message.clone(), None),
        K::RunStepFail(p) => log(
            LogLevel::Error,
            format!(
                "{}: {}",
                step_summary(&p.progress, &p.title, " failed"),
                p.error
            ),
            meta(json!({"stepId": p.step_id})),
        ),
        K::RunAnomalyDetect(p) => log(
            LogLevel::Warn,
            p.message.clone(),
            meta(json!({"anomaly": p.anomaly, "stepId": p.step_id})),
        ),
        K::RunLlmRetry(p) => log(
            LogLevel::Warn,
            format!(
                "Model call failed (attempt {}/{}), retrying in {} ms: {}",
                p.attempt, p.max_attempts, p.delay_ms, p.error
            ),
            None,
        ),
        K::RunThinkingFail(p) => log(
            LogLevel::Warn,
            format!("Reasoning failed: {}", p.error_message),
            None,
        ),
        K::RunApprovalRequest(p) => log(
            LogLevel::Info,
            format!("Waiting for approval: {}", p.subject),
            meta(json!({"approvalId": p.approval_id, "kind": p.kind, "reason": p.reason})),
        ),
        K::RunApprovalResolve(p) => log(
            LogLevel::Info,
            match p.decision {
                ApprovalDecision::Approve => "Approved".to_owned(),
                ApprovalDecision::Reject => "Rejected".to_owned(),
                ApprovalDecision::Modify => "Approved with changes".to_owned(),
            },
            meta(json!({"approvalId": p.approval_id, "decision": p.decision, "reason": p.reason})),
        ),
        K::RunQuestionAsk(p) => log(
            LogLevel::Info,
            p.question.clone(),
            meta(json!({"questionId": p.question_id, "options": p.options})),
        ),
        K::RunQuestionAnswer(p) => log(
            LogLevel::Info,
            p.answer.clone(),
            meta(json!({"questionId": p.question_id})),
        ),
        K::RunContextCompress(p) => log(
            LogLevel::Info,
            format!(
                "Context compressed from {} to {} tokens",
                p.original_tokens, p.compressed_tokens
            ),
            None,
        ),
        K::RunMemoryUpdate(p) => log(
            LogLevel::Info,
            format!(
                "Memory updated ({}): {} {}",
                p.source.as_str(),
                p.entries.len(),
                if p.entries.len() == 1 {
                    "entry"
                } else {
                    "entries"
                }
            ),
            meta(json!({
                "source": p.source,
                "ids": p.entries.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
                "dropped": p.dropped,
                "total": p.total,
            })),
        ),
        K::RunCheckpointRewind(p) => log(
            LogLevel::Warn,
            format!(
                "Rewound {} ({}): {} {} undone",
                p.checkpoint_id,
                p.scope.as_str(),
                p.turn_ids.len(),
                if p.turn_ids.len() == 1 {
                    "turn"
                } else {
                    "turns"
                }
            ),
            meta(json!({
                "checkpointId": p.checkpoint_id,
                "scope": p.scope,
                "turnIds": p.turn_ids,
                "fromSeq": p.from_seq,
                "toSeq": p.to_seq,
                "filesRestored": p.files_restored,
                "filesRemoved": p.files_removed,
            })),
        ),
        K::RunHookEnd(p) => log(
            if p.error.is_some() {
                LogLevel::Warn
            } else {
                LogLevel::Info
            },
            match &p.error {
                Some(error) => format!("Hook {} failed: {} ({error})", p.hook_event, p.command),
                None => {
                    // The page's words (web.ftl `timeline-hook-*`) say the same.
                    let what = match p.decision {
                        crate::HookDecision::Continue => "ran",
                        crate::HookDecision::Allow => "allowed the call",
                        crate::HookDecision::Ask => "asks for approval",
                        crate::HookDecision::Block => "blocked",
                    };
                    format!("Hook {} {what}: {}", p.hook_event, p.command)
                }
            },
            meta(json!({
                "hookEvent": p.hook_event,
                "command": p.command,
                "matcher": p.matcher,
                "callId": p.call_id,
                "decision": p.decision,
                "reason": p.reason,
                "durationMs": p.duration_ms,
                "exitCode": p.exit_code,
                "error": p.error,
            })),
        ),
        K::RunSubagentStart(p) => log(
            LogLevel::Info,
            format!("Subagent {} started: {}", p.subagent_type, p.description),
            meta(json!({
                "callId": p.call_id,
                "subagentType": p.subagent_type,
                "depth": p.depth,
                "model": p.model,
            })),
        ),
        K::RunSubagentEnd(p) => {
            let status = json!(p.status);
            log(
                match p.status {
                    AgentStatus::Completed => LogLevel::Info,
                    AgentStatus::Failed => LogLevel::Error,
                    AgentStatus::Cancelled | AgentStatus::MaxIterations => LogLevel::Warn,
                },
                format!(
                    "Subagent {} {}: {} tokens",
                    p.subagent_type,
                    status.as_str().unwrap_or_default(),
                    p.usage.total_tokens
                ),
                meta(json!({
                    "callId": p.call_id,
                    "subagentType": p.subagent_type,
                    "status": status,
                    "reportChars": p.report_chars,
                    "totalTokens": p.usage.total_tokens,
                    "costUsd": p.cost_usd,
                    "durationMs": p.duration_ms,
                })),
            )
        }
        K::PrepareModelSelect(_)
        | K::PrepareConversationOpen(_)
        | K::PrepareHistoryLoad(_)
        | K::PrepareRepomapBuild(_)
        | K::PrepareInstructionsLoad(_)
        | K::RunLlmStart(_)
        | K::RunLlmDelta(_)
        | K::RunLlmEnd(_)
        | K::RunThinkingStart(_)
        | K::RunThinkingDelta(_)
        | K::RunThinkingEnd(_)
        | K::RunToolStart(_)
        | K::RunHookStart(_)
        | K::RunToolOutput(_)
        | K::RunStepOutput(_)
        | K::RunContextWindow(_)
        | K::RunUsageReport(_)
        | K::ExecFileStart(_)
        | K::ExecFileStdout(_)
        | K::ExecFileStderr(_)
        | K::ExecFileExit(_)
        | K::SystemStatus(_)
        | K::SystemCliDisplay(_) => return None,
    };
    Some(payload)
}

fn phase(phase: AgentPhase, action: PhaseAction, summary: Option<String>) -> TimelinePayload {
    TimelinePayload::AgentPhase(AgentPhasePayload {
        phase,
        action,
        summary,
    })
}

fn log(level: LogLevel, message: String, metadata: Option<Map<String, Value>>) -> TimelinePayload {
    TimelinePayload::Log(LogPayload {
        level,
        message,
        metadata,
    })
}

/// A metadata object without its null entries (optional fields stay absent).
fn meta(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map.into_iter().filter(|(_, v)| !v.is_null()).collect()),
        _ => None,
    }
}

fn step_summary(progress: &Progress, title: &str, suffix: &str) -> String {
    format!(
        "Step {}/{}{suffix}: {title}",
        progress.current, progress.total
    )
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

fn tool_call(p: &RunToolEnd) -> ToolCallPayload {
    let args_summary = match (&p.from_path, &p.to_path) {
        (Some(from), Some(to)) => Some(format!("{from} → {to}")),
        _ => non_empty(&p.args_summary),
    };
    ToolCallPayload {
        tool_name: p.tool_name.clone(),
        args_summary,
        result_summary: non_empty(&p.result_summary),
        success: p.status == ToolStatus::Success,
        duration: (p.duration_ms > 0).then_some(p.duration_ms),
        from_path: p.from_path.clone(),
        to_path: p.to_path.clone(),
        mcp_server: p.mcp_server.clone(),
    }
}

fn file_update(p: &RunFileChange) -> FileUpdatePayload {
    let is_move = p.op == FileOp::Move;
    FileUpdatePayload {
        path: p.path.clone(),
        op: p.op,
        summary: non_empty(&p.summary),
        from_path: p.from_path.clone().filter(|_| is_move),
        to_path: p.to_path.clone().filter(|_| is_move),
        file_size: p.size,
        mime_type: p.mime_type.clone(),
    }
}

fn self_repair(p: &RunRepairAttempt) -> SelfRepairPayload {
    SelfRepairPayload {
        attempt_number: p.attempt_number,
        max_attempts: p.max_attempts,
        trigger: p.trigger.clone(),
        error_type: p.error_type.clone(),
        error_message: p.error_message.clone(),
        suggestion: p.suggestion.clone(),
        result: p.result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::*;
    use crate::sequencer::Sequencer;
    use pretty_assertions::assert_eq;

    fn event(kind: impl Into<EventKind>) -> Event {
        Sequencer::new("s", "p").stamp(Some("t"), kind)
    }

    fn type_and_payload(record: &TimelineEvent) -> Value {
        let mut v = serde_json::to_value(record).unwrap();
        let o = v.as_object_mut().unwrap();
        for key in ["id", "timestamp", "taskId", "projectId"] {
            assert!(o.remove(key).is_some(), "envelope field {key} missing");
        }
        v
    }

    /// The images a task came with are named on its first row (never their bytes).
    #[test]
    fn task_start_names_its_images() {
        let image = |name: &str| ImageInfo {
            name: name.into(),
            media_type: "image/png".into(),
            size: 68,
        };
        let record = to_timeline(&event(AgentStart {
            agent_name: "keel".into(),
            task_input: "What does this show?".into(),
            mode_hint: None,
            images: Some(vec![image("shot.png"), image("pasted.png")]),
        }))
        .unwrap();
        assert_eq!(
            type_and_payload(&record)["payload"]["message"],
            json!("Task started: What does this show? (images: shot.png, pasted.png)")
        );
    }

    /// Seed 003 §6.1, field for field.
    #[test]
    fn move_file_tool_call_matches_seed() {
        let record = to_timeline(&event(RunToolEnd {
            call_id: "c1".into(),
            tool_name: "move_file".into(),
            status: ToolStatus::Success,
            result: "文件已移动: src/old.ts → src/new.ts".into(),
            duration_ms: 0,
            args_summary: "{\"fromPath\":\"src/old.ts\",\"toPath\":\"src/new.ts\"}".into(),
            result_summary: "文件已移动".into(),
            step_id: None,
            from_path: Some("src/old.ts".into()),
            to_path: Some("src/new.ts".into()),
            mcp_server: None,
            diagnostics: None,
        }))
        .unwrap();
        let expected = json!({
            "type": "tool_call",
            "payload": {
                "toolName": "move_file",
                "argsSummary": "src/old.ts → src/new.ts",
                "fromPath": "src/old.ts",
                "toPath": "src/new.ts",
                "success": true,
                "resultSummary": "文件已移动"
            }
        });
        assert_eq!(type_and_payload(&record), expected);
    }

    /// Seed 003 §6.2, field for field.
    #[test]
    fn move_file_update_matches_seed() {
        let record = to_timeline(&event(RunFileChange {
            path: "src/new.ts".into(),
            op: FileOp::Move,
            from_path: Some("src/old.ts".into()),
            to_path: Some("src/new.ts".into()),
            summary: "移动文件 src/old.ts → src/new.ts".into(),
            lines_added: 0,
            lines_removed: 0,
            size: None,
            mime_type: None,
            diff: None,
            staged: None,
        }))
        .unwrap();
        let expected = json!({
            "type": "file_update",
            "payload": {
                "path": "src/new.ts",
                "op": "move",
                "fromPath": "src/old.ts",
                "toPath": "src/new.ts",
                "summary": "移动文件 src/old.ts → src/new.ts"
            }
        });
        assert_eq!(type_and_payload(&record), expected);
    }

    #[test]
    fn envelope_fields() {
        let e = event(SystemStatus::line("ok"));
        let record = to_timeline(&e).unwrap();
        assert_eq!(record.id, e.id.to_string());
        assert_eq!(record.timestamp, e.ts_string());
        assert_eq!(record.task_id, "t");
        assert_eq!(record.project_id, "p");
        let outside = Sequencer::new("s", "p").stamp(None, SystemStatus::line("x"));
        assert_eq!(to_timeline(&outside).unwrap().task_id, "");
    }

    #[test]
    fn waits_stay_out_and_planning_replies_carry_their_question() {
        let wait = event(SystemStatus::waiting(
            StatusKind::WaitingForModel,
            "waiting for m",
        ));
        assert_eq!(to_timeline(&wait), None);
        let respond = to_timeline(&event(RunPlanRespond {
            response: "Plan it?".into(),
            options: vec!["yes".into()],
            question_id: "call_7".into(),
        }))
        .unwrap();
        assert_eq!(
            type_and_payload(&respond),
            json!({"type": "log", "payload": {"level": "info", "message": "Plan it?",
                "metadata": {"questionId": "call_7", "options": ["yes"]}}})
        );
    }

    #[test]
    fn file_update_metadata_and_non_move_paths() {
        let record = to_timeline(&event(RunFileChange {
            path: "logo.png".into(),
            op: FileOp::Create,
            from_path: Some("ignored".into()),
            to_path: None,
            summary: String::new(),
            lines_added: 0,
            lines_removed: 0,
            size: Some(2048),
            mime_type: Some("image/png".into()),
            diff: None,
            staged: None,
        }))
        .unwrap();
        assert_eq!(
            type_and_payload(&record),
            json!({"type": "file_update", "payload": {
                "path": "logo.png", "op": "create", "fileSize": 2048, "mimeType": "image/png"
            }})
        );
    }

    #[test]
    fn system_error_message_is_the_error() {
        let record = to_timeline(&event(SystemError {
            error: "provider timed out".into(),
            error_type: "provider".into(),
            recoverable: true,
            stack: None,
            error_display: Some("long".into()),
        }))
        .unwrap();
        assert_eq!(
            type_and_payload(&record),
            json!({"type": "error", "payload": {
                "errorType": "provider", "message": "provider timed out", "recoverable": true
            }})
        );
    }

    #[test]
    fn phases() {
        let phase_of = |kind: EventKind| match to_timeline(&event(kind)).map(|r| r.payload) {
            Some(TimelinePayload::AgentPhase(p)) => Some((p.phase, p.action)),
            _ => None,
        };
        let plan = Plan {
            goal: "g".into(),
            steps: vec![],
            estimated_complexity: Complexity::Low,
        };
        assert_eq!(
            phase_of(RunPlanCreate { plan }.into()),
            Some((AgentPhase::Planner, PhaseAction::Exit))
        );
        assert_eq!(
            phase_of(
                RunResponseStart {
                    mode: ResponseMode::Direct
                }
                .into()
            ),
            Some((AgentPhase::Coder, PhaseAction::Enter))
        );
        assert_eq!(
            phase_of(
                RunCompletionAttempt {
                    result: "done".into(),
                    command: None
                }
                .into()
            ),
            None
        );
        let end = event(AgentEnd {
            status: AgentStatus::Completed,
            result: "done".into(),
            files_changed: vec![],
            usage: Usage::default(),
            warning: None,
        });
        let all = to_timeline_all(&end);
        let phases: Vec<_> = all
            .iter()
            .filter_map(|r| match &r.payload {
                TimelinePayload::AgentPhase(p) => Some((p.phase, p.action)),
                _ => None,
            })
            .collect();
        assert_eq!(
            phases,
            [
                (AgentPhase::Reviewer, PhaseAction::Enter),
                (AgentPhase::Reviewer, PhaseAction::Exit)
            ]
        );
        let mut ids: Vec<_> = all.iter().map(|r| r.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 3, "each record of agent.end has its own id");
    }

    #[test]
    fn repair_brackets_debugger_phase() {
        let attempt = |n, result| RunRepairAttempt {
            step_id: Some(1),
            attempt_number: n,
            max_attempts: 3,
            trigger: "tests failed".into(),
            error_type: None,
            error_message: None,
            suggestion: None,
            result,
        };
        let types = |kind: RunRepairAttempt| {
            let e = event(kind);
            let all = to_timeline_all(&e);
            assert_eq!(all.iter().filter(|r| r.id == e.id.to_string()).count(), 1);
            all.iter()
                .map(|r| match &r.payload {
                    TimelinePayload::AgentPhase(p) => format!("{:?}:{:?}", p.phase, p.action),
                    other => other.type_name().to_owned(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            types(attempt(1, RepairResult::Pending)),
            ["Debugger:Enter", "self_repair"]
        );
        assert_eq!(types(attempt(2, RepairResult::Failed)), ["self_repair"]);
        assert_eq!(
            types(attempt(3, RepairResult::Failed)),
            ["self_repair", "Debugger:Exit"]
        );
        assert_eq!(
            types(attempt(2, RepairResult::Success)),
            ["self_repair", "Debugger:Exit"]
        );
    }

    #[test]
    fn deltas_are_not_shown() {
        assert!(to_timeline(&event(RunLlmDelta { text: "x".into() })).is_none());
        assert!(to_timeline_all(&event(RunLlmDelta { text: "x".into() })).is_empty());
    }
}
