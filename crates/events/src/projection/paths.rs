//! Seed 004's event paths: where AutoCoder's `EventRunner` publishes each agentic-edit event.
//!
//! | seed 004 event | path | catalogue type |
//! |---|---|---|
//! | `LLMThinkingEvent` `{text}` | `/agent/edit/thinking` | `run.thinking.delta` |
//! | `LLMOutputEvent` `{text}` | `/agent/edit/output` | `run.llm.delta` |
//! | `ToolCallEvent` | `/agent/edit/tool/call` | `run.tool.start` |
//! | `ToolResultEvent` | `/agent/edit/tool/result` | `run.tool.end` |
//! | `CompletionEvent` | `/agent/edit/completion` | `run.completion.attempt` |
//! | `PlanModeRespondEvent` | `/agent/edit/completion` | `run.plan.respond` |
//! | `ErrorEvent` | `/agent/edit/error` | `system.error` |
//! | `TokenUsageEvent` | `/agent/edit/token_usage` | `run.usage.report` |
//! | `WindowLengthChangeEvent` `{tokens_used}` | `/agent/edit/window_length_change` | `run.context.window` |
//! | `ConversationIdEvent` | `/agent/edit/conversation_id` | `prepare.conversation.open` |
//!
//! Seed 004 lists no path of its own for `PlanModeRespondEvent`, whose shape is a completion's
//! (`{completion, completion_xml}`): it is published as the plan-mode turn's completion. No
//! other catalogue type has a path.

use crate::catalogue::EventKind;
use crate::envelope::Event;

/// Thinking (reasoning) text.
pub const THINKING: &str = "/agent/edit/thinking";
/// Answer text.
pub const OUTPUT: &str = "/agent/edit/output";
/// A tool call.
pub const TOOL_CALL: &str = "/agent/edit/tool/call";
/// A tool result.
pub const TOOL_RESULT: &str = "/agent/edit/tool/result";
/// The task is complete.
pub const COMPLETION: &str = "/agent/edit/completion";
/// An error.
pub const ERROR: &str = "/agent/edit/error";
/// Token usage.
pub const TOKEN_USAGE: &str = "/agent/edit/token_usage";
/// The conversation's window length changed.
pub const WINDOW_LENGTH_CHANGE: &str = "/agent/edit/window_length_change";
/// The conversation id.
pub const CONVERSATION_ID: &str = "/agent/edit/conversation_id";

/// All nine seed 004 event paths.
pub const EVENT_PATHS: &[&str] = &[
    THINKING,
    OUTPUT,
    TOOL_CALL,
    TOOL_RESULT,
    COMPLETION,
    ERROR,
    TOKEN_USAGE,
    WINDOW_LENGTH_CHANGE,
    CONVERSATION_ID,
];

/// The seed 004 path an event is published under, or `None` when it has none.
pub fn event_path(event: &Event) -> Option<&'static str> {
    kind_path(&event.kind)
}

/// [`event_path`] for a bare payload.
pub fn kind_path(kind: &EventKind) -> Option<&'static str> {
    use EventKind as K;
    Some(match kind {
        K::RunThinkingDelta(_) => THINKING,
        K::RunLlmDelta(_) => OUTPUT,
        K::RunToolStart(_) => TOOL_CALL,
        K::RunToolEnd(_) => TOOL_RESULT,
        K::RunCompletionAttempt(_) | K::RunPlanRespond(_) => COMPLETION,
        K::SystemError(_) => ERROR,
        K::RunUsageReport(_) => TOKEN_USAGE,
        K::RunContextWindow(_) => WINDOW_LENGTH_CHANGE,
        K::PrepareConversationOpen(_) => CONVERSATION_ID,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::*;

    #[test]
    fn paths_are_the_seed_strings() {
        assert_eq!(
            EVENT_PATHS,
            [
                "/agent/edit/thinking",
                "/agent/edit/output",
                "/agent/edit/tool/call",
                "/agent/edit/tool/result",
                "/agent/edit/completion",
                "/agent/edit/error",
                "/agent/edit/token_usage",
                "/agent/edit/window_length_change",
                "/agent/edit/conversation_id",
            ]
        );
    }

    #[test]
    fn mapping() {
        assert_eq!(
            kind_path(
                &RunContextWindow {
                    tokens_used: 10,
                    limit: 100
                }
                .into()
            ),
            Some(WINDOW_LENGTH_CHANGE)
        );
        assert_eq!(
            kind_path(
                &PrepareConversationOpen {
                    conversation_id: "c".into(),
                    action: ConversationAction::New
                }
                .into()
            ),
            Some(CONVERSATION_ID)
        );
        assert_eq!(
            kind_path(
                &RunPlanRespond {
                    response: "r".into(),
                    options: vec![],
                    question_id: "q".into(),
                }
                .into()
            ),
            Some(COMPLETION)
        );
    }
}
