//! How history shows a conversation's messages: the latest round complete, older messages in
//! their de-duplicated history form ([`crate::dedup`]), and which messages are settled (their
//! rendering no longer changes but for focus). Shared by the message builder and the prompt
//! cache.

use std::collections::HashMap;

use crate::conversation::{Message, ToolMessage};
use crate::dedup::{history_arguments, history_content};
use crate::focused_files::FocusedFiles;
use crate::message::{ChatMessage, ToolCallRequest};

/// How many leading messages are settled: all but the latest round (the last assistant message
/// that called tools, and its results so far).
pub(crate) fn settled_len(messages: &[Message]) -> usize {
    match messages.iter().rposition(|m| !m.is_tool()) {
        Some(i) if !messages[i].tool_calls().is_empty() => i,
        _ => messages.len(),
    }
}

/// Where the latest round's results start: after the last non-tool message when it is an
/// assistant message that called tools; otherwise there is no latest round.
pub(crate) fn first_return_start(messages: &[Message]) -> usize {
    match messages.iter().rposition(|m| !m.is_tool()) {
        Some(i) if !messages[i].tool_calls().is_empty() => i + 1,
        _ => messages.len(),
    }
}

/// Renders message `index`: complete when it belongs to the latest round (`index >=
/// first_return`), in history form otherwise.
pub(crate) fn render_one(
    messages: &[Message],
    index: usize,
    focused: &FocusedFiles,
    first_return: usize,
) -> ChatMessage {
    match &messages[index] {
        Message::User { content, .. } => ChatMessage::user(content.clone()),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let latest = index + 1 == first_return;
            let calls = if latest {
                tool_calls.clone()
            } else {
                let answers = answers_of(messages, index);
                tool_calls
                    .iter()
                    .map(|call| ToolCallRequest {
                        arguments: history_arguments(
                            call,
                            answers.get(call.id.as_str()).copied(),
                            focused,
                        )
                        .into_owned(),
                        ..call.clone()
                    })
                    .collect()
            };
            ChatMessage::assistant(content.clone(), calls)
        }
        Message::Tool(tool) => {
            let content = if index >= first_return {
                tool.content.clone()
            } else {
                history_content(tool, focused).into_owned()
            };
            ChatMessage::tool(&tool.tool_call_id, &tool.tool_name, content)
        }
    }
}

/// The results that answer the calls of message `index`, by call id.
pub(crate) fn answers_of(messages: &[Message], index: usize) -> HashMap<&str, &ToolMessage> {
    messages[index + 1..]
        .iter()
        .map_while(|m| match m {
            Message::Tool(tool) => Some((tool.tool_call_id.as_str(), tool)),
            _ => None,
        })
        .collect()
}

/// Files whose focus changes how message `index` renders.
pub(crate) fn paths_of(messages: &[Message], index: usize) -> Vec<String> {
    match &messages[index] {
        Message::Tool(tool) => tool.path.iter().cloned().collect(),
        Message::Assistant { .. } => answers_of(messages, index)
            .values()
            .filter_map(|tool| tool.path.clone())
            .collect(),
        Message::User { .. } => Vec::new(),
    }
}
