//! Legacy v1 wire format (seed 000): flat `{"type": "plan_created", …fields}` dicts.
//!
//! Front ends written against the old agent read one flat JSON object per event, with the old
//! type strings. [`to_legacy`] produces exactly that from a catalogue [`Event`], using the unified
//! field names seed 000 settled on (`error`, never `message`, for errors; `files_changed`, never
//! `file_changes`) and leaving absent optional fields out rather than writing `null`.
//!
//! Unless noted, the v1 object is the payload's own fields plus `type`.
//!
//! | catalogue type | v1 `type` | notes |
//! |---|---|---|
//! | `run.plan.create` | `plan_created` | adds `message` (`"Plan created: <goal>"`) |
//! | `run.plan.complete` | `plan_completed` | |
//! | `run.plan.modify` | `plan_modified` | |
//! | `run.approval.request` kind `plan` | `awaiting_approval` | adds `message` (= `reason`); `plan` when the request carries it |
//! | `run.approval.resolve` `approve` | `plan_approved` | `approval_id`, `message`, `reason`? |
//! | `run.approval.resolve` `reject` | `plan_rejected` | `approval_id`, `message`, `reason`? |
//! | `run.approval.resolve` `modify` | `plan_modified` | `approval_id`, `plan` (= `modified`)?, `reason`? |
//! | `run.plan.replan` | `replan_warning` | |
//! | `run.execution.start` / `.end` / `.fail` / `.cancel` | `execution_started` / `_completed` / `_failed` / `_cancelled` | |
//! | `run.step.start` / `.end` / `.output` / `.fail` | `step_started` / `_completed` / `_output` / `_error` | |
//! | `run.tool.start` | `tool_calls` | `step_id`?, `calls: [{id, name, arguments}]` |
//! | `run.tool.end` | `tool_result` | `call_id`, `tool`, `success`, `status`, `output` (= `result`), `error` (= `result`, failures only), `duration_ms`, `step_id`? |
//! | `exec.file.start` / `.stdout` / `.stderr` / `.exit` | `started` / `stdout` / `stderr` / `exit` | `exit` adds v1's `duration` in seconds |
//! | `system.status` | `status` | |
//! | `system.error` | `error` | the text is under `error` |
//! | `run.llm.delta` | `token` | `content` (= `text`) |
//! | `run.file.change` | `file_change` | |
//! | `run.anomaly.detect` | `anomaly_detected` | |
//!
//! Approvals of kind `command` or `tool` have no v1 equivalent. A `run.approval.resolve` without
//! `kind` is taken as a plan approval, the only kind v1 knew. Every other catalogue type
//! (`agent.*`, `prepare.*`, thinking, usage, context, questions, …) has no v1 equivalent and
//! projects to `None`.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::catalogue::EventKind;
use crate::envelope::Event;
use crate::payload::{ApprovalDecision, ApprovalKind, ToolStatus};

/// Projects an event into the legacy v1 flat dict, or `None` when v1 has no such event.
pub fn to_legacy(event: &Event) -> Option<Value> {
    use EventKind as K;
    let object = match &event.kind {
        K::RunPlanCreate(p) => {
            let mut o = flat("plan_created", p);
            o.insert(
                "message".into(),
                Value::String(format!("Plan created: {}", p.plan.goal)),
            );
            o
        }
        K::RunPlanComplete(p) => flat("plan_completed", p),
        K::RunPlanModify(p) => flat("plan_modified", p),
        K::RunPlanReplan(p) => flat("replan_warning", p),
        K::RunApprovalRequest(p) => {
            if p.kind != ApprovalKind::Plan {
                return None;
            }
            let mut o = object("awaiting_approval");
            o.insert("approval_id".into(), json!(p.approval_id));
            o.insert("subject".into(), json!(p.subject));
            o.insert("reason".into(), json!(p.reason));
            o.insert("message".into(), json!(p.reason));
            if let Some(plan) = &p.plan {
                o.insert("plan".into(), json!(plan));
            }
            o
        }
        K::RunApprovalResolve(p) => {
            if p.kind.is_some_and(|k| k != ApprovalKind::Plan) {
                return None;
            }
            let (kind, message) = match p.decision {
                ApprovalDecision::Approve => ("plan_approved", Some("Plan approved")),
                ApprovalDecision::Reject => ("plan_rejected", Some("Plan rejected")),
                ApprovalDecision::Modify => ("plan_modified", None),
            };
            let mut o = object(kind);
            o.insert("approval_id".into(), json!(p.approval_id));
            if let Some(message) = message {
                o.insert("message".into(), json!(message));
            }
            if let Some(reason) = &p.reason {
                o.insert("reason".into(), json!(reason));
            }
            if p.decision == ApprovalDecision::Modify
                && let Some(plan) = &p.modified
            {
                o.insert("plan".into(), plan.clone());
            }
            o
        }
        K::RunExecutionStart(p) => flat("execution_started", p),
        K::RunExecutionEnd(p) => flat("execution_completed", p),
        K::RunExecutionFail(p) => flat("execution_failed", p),
        K::RunExecutionCancel(p) => flat("execution_cancelled", p),
        K::RunStepStart(p) => flat("step_started", p),
        K::RunStepEnd(p) => flat("step_completed", p),
        K::RunStepOutput(p) => flat("step_output", p),
        K::RunStepFail(p) => flat("step_error", p),
        K::RunToolStart(p) => {
            let mut o = object("tool_calls");
            if let Some(step_id) = p.step_id {
                o.insert("step_id".into(), json!(step_id));
            }
            o.insert(
                "calls".into(),
                json!([{"id": p.call_id, "name": p.tool_name, "arguments": p.arguments}]),
            );
            o
        }
        K::RunToolEnd(p) => {
            let success = p.status == ToolStatus::Success;
            let mut o = object("tool_result");
            o.insert("call_id".into(), json!(p.call_id));
            o.insert("tool".into(), json!(p.tool_name));
            o.insert("success".into(), json!(success));
            o.insert("status".into(), json!(p.status));
            o.insert("output".into(), json!(p.result));
            if !success {
                o.insert("error".into(), json!(p.result));
            }
            o.insert("duration_ms".into(), json!(p.duration_ms));
            if let Some(step_id) = p.step_id {
                o.insert("step_id".into(), json!(step_id));
            }
            o
        }
        K::ExecFileStart(p) => flat("started", p),
        K::ExecFileStdout(p) => flat("stdout", p),
        K::ExecFileStderr(p) => flat("stderr", p),
        K::ExecFileExit(p) => {
            let mut o = flat("exit", p);
            // v1 reported the run time as float seconds under `duration`.
            o.insert("duration".into(), json!(p.duration_ms as f64 / 1000.0));
            o
        }
        K::SystemStatus(p) => flat("status", p),
        K::SystemError(p) => flat("error", p),
        K::RunLlmDelta(p) => {
            let mut o = object("token");
            o.insert("content".into(), json!(p.text));
            o
        }
        K::RunFileChange(p) => flat("file_change", p),
        K::RunAnomalyDetect(p) => flat("anomaly_detected", p),
        K::AgentStart(_)
        | K::AgentEnd(_)
        | K::PrepareModelSelect(_)
        | K::PrepareConversationOpen(_)
        | K::PrepareHistoryLoad(_)
        | K::PrepareRepomapBuild(_)
        | K::PrepareInstructionsLoad(_)
        | K::RunResponseStart(_)
        | K::RunResponseEnd(_)
        | K::RunLlmStart(_)
        | K::RunLlmEnd(_)
        | K::RunLlmRetry(_)
        | K::RunThinkingStart(_)
        | K::RunThinkingDelta(_)
        | K::RunThinkingEnd(_)
        | K::RunThinkingFail(_)
        | K::RunToolOutput(_)
        | K::RunPlanRespond(_)
        | K::RunRepairAttempt(_)
        | K::RunContextCompress(_)
        | K::RunContextWindow(_)
        | K::RunUsageReport(_)
        | K::RunMemoryUpdate(_)
        | K::RunQuestionAsk(_)
        | K::RunQuestionAnswer(_)
        | K::RunCompletionAttempt(_)
        | K::RunCheckpointRewind(_)
        | K::RunHookStart(_)
        | K::RunHookEnd(_)
        | K::RunSubagentStart(_)
        | K::RunSubagentEnd(_)
        | K::SystemLog(_)
        | K::SystemCliDisplay(_) => return None,
    };
    Some(Value::Object(object))
}

/// An object holding only `type`.
fn object(legacy_type: &str) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("type".into(), Value::String(legacy_type.to_owned()));
    o
}

/// The payload's fields, flattened, plus `type`.
fn flat<P: Serialize>(legacy_type: &str, payload: &P) -> Map<String, Value> {
    // Payloads are plain structs with string keys, so they always serialise to an object.
    let mut o = match serde_json::to_value(payload) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    o.insert("type".into(), Value::String(legacy_type.to_owned()));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::*;
    use crate::sequencer::Sequencer;

    fn event(kind: impl Into<EventKind>) -> Event {
        Sequencer::new("s", "p").stamp(Some("t"), kind)
    }

    fn plan() -> Plan {
        Plan {
            goal: "Add a health check".into(),
            steps: vec![],
            estimated_complexity: Complexity::Low,
        }
    }

    /// Seed 000 §6.1 `test_event_serialization`.
    #[test]
    fn plan_created_has_plan_and_message() {
        let v = to_legacy(&event(RunPlanCreate { plan: plan() })).unwrap();
        assert_eq!(v["type"], "plan_created");
        assert_eq!(v["plan"]["goal"], "Add a health check");
        assert_eq!(v["message"], "Plan created: Add a health check");
    }

    /// Seed 000 §6.1 `test_error_event_compatibility`.
    #[test]
    fn error_uses_error_field() {
        let v = to_legacy(&event(SystemError {
            error: "Something went wrong".into(),
            error_type: "tool".into(),
            recoverable: true,
            stack: None,
            error_display: None,
        }))
        .unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["error"], "Something went wrong");
        assert!(v.get("message").is_none());
        assert!(v.get("stack").is_none(), "None fields are absent");
    }

    #[test]
    fn approvals_map_by_decision_and_kind() {
        let resolve = |decision, kind| RunApprovalResolve {
            approval_id: "a1".into(),
            decision,
            kind,
            reason: None,
            modified: Some(json!({"goal": "g"})),
        };
        let ty = |kind: EventKind| to_legacy(&event(kind)).map(|v| v["type"].clone());
        assert_eq!(
            ty(resolve(ApprovalDecision::Approve, Some(ApprovalKind::Plan)).into()),
            Some(json!("plan_approved"))
        );
        assert_eq!(
            ty(resolve(ApprovalDecision::Reject, None).into()),
            Some(json!("plan_rejected"))
        );
        let modified = to_legacy(&event(resolve(ApprovalDecision::Modify, None))).unwrap();
        assert_eq!(modified["type"], "plan_modified");
        assert_eq!(modified["plan"]["goal"], "g");
        assert_eq!(
            ty(resolve(ApprovalDecision::Approve, Some(ApprovalKind::Command)).into()),
            None
        );
        let request = |kind| RunApprovalRequest {
            approval_id: "a1".into(),
            kind,
            subject: "g".into(),
            reason: "plan needs approval".into(),
            plan: None,
        };
        assert_eq!(
            ty(request(ApprovalKind::Plan).into()),
            Some(json!("awaiting_approval"))
        );
        assert_eq!(ty(request(ApprovalKind::Tool).into()), None);
    }

    #[test]
    fn step_completed_uses_files_changed() {
        let v = to_legacy(&event(RunStepEnd {
            step_id: 1,
            title: "t".into(),
            files_changed: vec!["a.rs".into()],
            progress: Progress {
                current: 1,
                total: 2,
            },
        }))
        .unwrap();
        assert_eq!(v["type"], "step_completed");
        assert_eq!(v["files_changed"], json!(["a.rs"]));
        assert!(v.get("file_changes").is_none());
    }

    #[test]
    fn streaming_token_and_unmapped_types() {
        let v = to_legacy(&event(RunLlmDelta { text: "hi".into() })).unwrap();
        assert_eq!(v, json!({"type": "token", "content": "hi"}));
        assert!(
            to_legacy(&event(RunThinkingDelta {
                agent_name: "keel".into(),
                text: "hmm".into()
            }))
            .is_none()
        );
    }
}
