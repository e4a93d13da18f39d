//! How history shows a conversation's messages: the current turn complete, as each message
//! was first sent (so a request repeats the previous one and adds to it, which a provider's
//! prompt cache reuses), older turns in their de-duplicated history form ([`crate::dedup`]),
//! and which messages are settled (their rendering no longer changes but for focus). Shared by
//! the message builder and the prompt cache.

use std::collections::HashMap;

use crate::conversation::{Message, ToolMessage};
use crate::dedup::{history_arguments, history_content};
use crate::focused_files::FocusedFiles;
use crate::message::{ChatMessage, ToolCallRequest};

/// How many leading messages are settled: those before [`whole_from`].
pub(crate) fn settled_len(messages: &[Message]) -> usize {
    whole_from(messages)
}

/// Where the messages shown complete begin: the current turn's first message (the person's
/// latest message), or the latest round (the last assistant message that called tools, and
/// its results so far) when there is no turn start.
pub(crate) fn whole_from(messages: &[Message]) -> usize {
    let latest_round = match messages.iter().rposition(|m| !m.is_tool()) {
        Some(i) if !messages[i].tool_calls().is_empty() => i,
        _ => messages.len(),
    };
    match current_turn_start(messages) {
        Some(start) => start.min(latest_round),
        None => latest_round,
    }
}

/// The index of the current turn's first message: the last one that starts a turn.
pub(crate) fn current_turn_start(messages: &[Message]) -> Option<usize> {
    messages.iter().rposition(Message::starts_turn)
}

/// Renders message `index`: complete from `whole_from` on (see [`whole_from`]), in history
/// form before.
pub(crate) fn render_one(
    messages: &[Message],
    index: usize,
    focused: &FocusedFiles,
    whole_from: usize,
) -> ChatMessage {
    match &messages[index] {
        Message::User {
            content, images, ..
        } => ChatMessage::user_with_images(content.clone(), images.clone()),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let calls = if index >= whole_from {
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
            let content = if index >= whole_from {
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
