//! Seed 004 §3.1's payload shapes for the events published under an event path
//! ([`event_path`](super::event_path)): what AutoCoder's events carry, built from the catalogue
//! event (`--format paths` sends it as `payload`, beside the catalogue `event`).
//!
//! | path | payload |
//! |---|---|
//! | `/agent/edit/thinking`, `/agent/edit/output` | `{text}` |
//! | `/agent/edit/tool/call` | `{tool_name, tool: <arguments>, tool_xml}` |
//! | `/agent/edit/tool/result` | `{tool_name, result: {success, message, content}}` |
//! | `/agent/edit/completion` | `{completion: {result, command?}, completion_xml}` (`CompletionEvent`), or `{completion: {response, options?}, completion_xml}` for `run.plan.respond` (`PlanModeRespondEvent`) |
//! | `/agent/edit/error` | `{message}` |
//! | `/agent/edit/token_usage` | `{usage: {model_name, input_tokens_count, generated_tokens_count, cached_tokens_count?, cost_usd?}}` |
//! | `/agent/edit/window_length_change` | `{tokens_used}` |
//! | `/agent/edit/conversation_id` | `{conversation_id}` |
//!
//! `tool_xml` and `completion_xml` are the calls as AutoCoder's models write them: one element
//! named for the tool, one child per argument (strings as they are, other values as JSON).

use serde_json::{Map, Value, json};

use crate::catalogue::EventKind;
use crate::payload::ToolStatus;

/// The seed 004 payload of an event with an event path, or `None` when it has none.
pub fn seed_payload(kind: &EventKind) -> Option<Value> {
    use EventKind as K;
    Some(match kind {
        K::RunThinkingDelta(p) => json!({"text": p.text}),
        K::RunLlmDelta(p) => json!({"text": p.text}),
        K::RunToolStart(p) => json!({
            "tool_name": p.tool_name,
            "tool": p.arguments,
            "tool_xml": tool_xml(&p.tool_name, &p.arguments),
        }),
        K::RunToolEnd(p) => json!({
            "tool_name": p.tool_name,
            "result": {
                "success": p.status == ToolStatus::Success,
                "message": if p.result_summary.is_empty() { &p.result } else { &p.result_summary },
                "content": p.result,
            },
        }),
        K::RunCompletionAttempt(p) => {
            let mut completion = Map::new();
            completion.insert("result".into(), Value::String(p.result.clone()));
            if let Some(command) = &p.command {
                completion.insert("command".into(), Value::String(command.clone()));
            }
            let completion = Value::Object(completion);
            json!({
                "completion_xml": tool_xml("attempt_completion", &completion),
                "completion": completion,
            })
        }
        K::RunPlanRespond(p) => {
            let mut completion = Map::new();
            completion.insert("response".into(), Value::String(p.response.clone()));
            if !p.options.is_empty() {
                completion.insert("options".into(), json!(p.options));
            }
            let completion = Value::Object(completion);
            json!({
                "completion_xml": tool_xml("plan_mode_respond", &completion),
                "completion": completion,
            })
        }
        K::SystemError(p) => json!({"message": p.error}),
        K::RunUsageReport(p) => {
            let mut usage = Map::new();
            usage.insert("model_name".into(), json!(p.model));
            usage.insert("input_tokens_count".into(), json!(p.prompt_tokens));
            usage.insert("generated_tokens_count".into(), json!(p.completion_tokens));
            if let Some(cached) = p.cached_tokens {
                usage.insert("cached_tokens_count".into(), json!(cached));
            }
            if let Some(cost) = p.cost_usd {
                usage.insert("cost_usd".into(), json!(cost));
            }
            json!({"usage": usage})
        }
        K::RunContextWindow(p) => json!({"tokens_used": p.tokens_used}),
        K::PrepareConversationOpen(p) => json!({"conversation_id": p.conversation_id}),
        _ => return None,
    })
}

/// `<name><arg>value</arg>…</name>`, one line per argument.
pub fn tool_xml(name: &str, arguments: &Value) -> String {
    let mut xml = format!("<{name}>");
    if let Value::Object(fields) = arguments {
        for (key, value) in fields {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            xml.push_str(&format!("\n<{key}>{text}</{key}>"));
        }
        xml.push('\n');
    }
    xml.push_str(&format!("</{name}>"));
    xml
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_tool_call_has_its_xml() {
        let kind: EventKind = RunToolStart {
            call_id: "c".into(),
            tool_name: "read_file".into(),
            arguments: json!({"path": "src/main.rs", "limit": 20}),
            step_id: None,
            mcp_server: None,
        }
        .into();
        assert_eq!(
            seed_payload(&kind).unwrap(),
            json!({
                "tool_name": "read_file",
                "tool": {"path": "src/main.rs", "limit": 20},
                "tool_xml": "<read_file>\n<path>src/main.rs</path>\n<limit>20</limit>\n</read_file>",
            })
        );
    }

    #[test]
    fn a_completion_and_an_error_and_usage() {
        let kind: EventKind = RunCompletionAttempt {
            result: "Fixed.".into(),
            command: Some("pytest".into()),
        }
        .into();
        assert_eq!(
            seed_payload(&kind).unwrap(),
            json!({
                "completion": {"result": "Fixed.", "command": "pytest"},
                "completion_xml": "<attempt_completion>\n<result>Fixed.</result>\n<command>pytest</command>\n</attempt_completion>",
            })
        );
        let kind: EventKind = SystemError {
            error: "boom".into(),
            error_type: "tool".into(),
            recoverable: false,
            stack: None,
            error_display: None,
        }
        .into();
        assert_eq!(seed_payload(&kind).unwrap(), json!({"message": "boom"}));
    }

    #[test]
    fn a_plan_mode_response_is_a_completion_with_its_xml() {
        let kind: EventKind = RunPlanRespond {
            response: "Two options.".into(),
            options: vec!["A".into(), "B".into()],
            question_id: "q".into(),
        }
        .into();
        assert_eq!(
            crate::projection::kind_path(&kind),
            Some("/agent/edit/completion")
        );
        assert_eq!(
            seed_payload(&kind).unwrap(),
            json!({
                "completion": {"response": "Two options.", "options": ["A", "B"]},
                "completion_xml": "<plan_mode_respond>\n<response>Two options.</response>\n<options>[\"A\",\"B\"]</options>\n</plan_mode_respond>",
            })
        );
    }
}
