//! The conversation: user, assistant (with tool calls) and tool messages, persisted with the
//! session.
//!
//! A [`Conversation`] keeps itself well formed for OpenAI-compatible APIs: a tool message is
//! accepted only as the answer to a call of the latest assistant message, every call gets exactly
//! one answer before the conversation moves on (calls left unanswered are closed with a "not run"
//! result when the next user or assistant message arrives), and history never starts with a tool
//! message. Tool messages keep the result exactly as the model first saw it; how much of it later
//! requests repeat is decided when the prompt is built (see [`crate::dedup`]).

use chrono::{DateTime, Utc};
use keel_events::Lang;
use serde::{Deserialize, Serialize};

use crate::dedup::{Retention, RetentionPolicy};
use crate::eviction::{EvictionLimits, eviction_point};
use crate::message::ToolCallRequest;
use keel_protocol::Image;

/// Result text recorded for a tool call that never produced one.
pub const NOT_RUN_RESULT: &str =
    "[not run: the conversation moved on before this tool call produced a result]";

/// One stored message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// The person using the agent, or Keel speaking in the conversation (a note).
    User {
        /// What they wrote.
        content: String,
        /// When it was added.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<DateTime<Utc>>,
        /// Keel's own words in the middle of a turn (a correction, failing tests, a plan
        /// step), not the person's: a note does not start a turn.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        note: bool,
        /// Images given with it (the person's, or a note carrying what `read_file` showed),
        /// kept with the saved conversation so later turns still see them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Image>,
    },
    /// The model's reply.
    Assistant {
        /// Its text (may be empty when it only calls tools).
        content: String,
        /// The tools it called.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCallRequest>,
        /// When it was added.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<DateTime<Utc>>,
    },
    /// A tool's result.
    Tool(ToolMessage),
}

impl Message {
    /// Whether this is a tool result.
    pub fn is_tool(&self) -> bool {
        matches!(self, Message::Tool(_))
    }

    /// Whether this is a user message (the person's or a note).
    pub fn is_user(&self) -> bool {
        matches!(self, Message::User { .. })
    }

    /// Whether this message starts a turn: the person's message, not a note.
    pub fn starts_turn(&self) -> bool {
        matches!(self, Message::User { note: false, .. })
    }

    /// The message's text (for a tool message: the full result).
    pub fn content(&self) -> &str {
        match self {
            Message::User { content, .. } | Message::Assistant { content, .. } => content,
            Message::Tool(tool) => &tool.content,
        }
    }

    /// The images of a user message (empty for other messages).
    pub fn images(&self) -> &[Image] {
        match self {
            Message::User { images, .. } => images,
            _ => &[],
        }
    }

    /// The tool calls of an assistant message (empty for other messages).
    pub fn tool_calls(&self) -> &[ToolCallRequest] {
        match self {
            Message::Assistant { tool_calls, .. } => tool_calls,
            _ => &[],
        }
    }
}

/// A tool's result as stored in the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolMessage {
    /// The call this answers.
    pub tool_call_id: String,
    /// The tool that ran.
    pub tool_name: String,
    /// The result exactly as first returned to the model.
    pub content: String,
    /// Whether the tool succeeded.
    #[serde(default = "yes")]
    pub success: bool,
    /// How later requests repeat this result.
    #[serde(default)]
    pub retention: Retention,
    /// The file the call was about, when it was about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// When it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    /// The language of the references history shows instead of the result (seed 002 §3.2.1).
    #[serde(default, skip_serializing_if = "Lang::is_en")]
    pub lang: Lang,
}

fn yes() -> bool {
    true
}

/// Why a message was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConversationError {
    /// A tool result names a call the latest assistant message did not make, or one already
    /// answered.
    #[error(
        "no pending tool call with id `{0}` (results must answer a call of the latest assistant message, once)"
    )]
    UnknownToolCall(String),
    /// A tool call has an empty id.
    #[error("tool call `{0}` has an empty id")]
    EmptyToolCallId(String),
    /// Two tool calls of one assistant message share an id.
    #[error("tool call id `{0}` is used twice in one assistant message")]
    DuplicateToolCallId(String),
    /// A summary was asked to replace a prefix that does not end at a message boundary.
    #[error(
        "cannot summarise the first {0} messages: that would separate tool results from their call"
    )]
    UnsafeSummaryCut(usize),
}

/// The messages of a session plus the summary of any older messages they replaced.
///
/// Serialises as `{"summary": …, "messages": […]}`; deserialising repairs what it must (drops
/// tool results that answer nothing, closes calls that were never answered) so a stored session
/// always loads into a well-formed conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "ConversationRecord")]
pub struct Conversation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
    messages: Vec<Message>,
    /// Changes whenever messages are removed (not when they are appended).
    #[serde(skip)]
    revision: Revision,
}

/// An identity for a conversation's message prefix: two conversations with the same revision
/// agree on their first messages as far as both go, so cached renderings of them stay valid.
/// Every new conversation, every clone and every removal of messages gets a fresh one. It takes
/// no part in comparisons.
#[derive(Debug, Eq)]
struct Revision(u64);

impl Revision {
    fn fresh() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Self(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Default for Revision {
    fn default() -> Self {
        Self::fresh()
    }
}

impl Clone for Revision {
    fn clone(&self) -> Self {
        // A clone can append other messages than the original: it must not share its cache.
        Self::fresh()
    }
}

impl PartialEq for Revision {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[derive(Deserialize)]
struct ConversationRecord {
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    messages: Vec<Message>,
}

impl From<ConversationRecord> for Conversation {
    fn from(record: ConversationRecord) -> Self {
        Conversation::from_messages(record.messages, record.summary)
    }
}

impl Conversation {
    /// An empty conversation.
    pub fn new() -> Self {
        Self::default()
    }

    /// A conversation from stored messages and summary, repaired where needed: tool results
    /// that answer no call of the assistant message before them are dropped, and calls left
    /// unanswered before a later message get a "not run" result. Calls of the last message may
    /// stay pending (a round in progress).
    pub fn from_messages(messages: Vec<Message>, summary: Option<String>) -> Self {
        let mut conversation = Self {
            summary: summary.filter(|s| !s.trim().is_empty()),
            messages: Vec::with_capacity(messages.len()),
            revision: Revision::fresh(),
        };
        for message in messages {
            match message {
                Message::Tool(tool) => {
                    if conversation.is_pending(&tool.tool_call_id) {
                        conversation.messages.push(Message::Tool(tool));
                    }
                }
                Message::Assistant {
                    content,
                    tool_calls,
                    at,
                } => {
                    conversation.close_pending();
                    let mut seen = std::collections::HashSet::new();
                    let tool_calls = tool_calls
                        .into_iter()
                        .filter(|call| !call.id.is_empty() && seen.insert(call.id.clone()))
                        .collect();
                    conversation.messages.push(Message::Assistant {
                        content,
                        tool_calls,
                        at,
                    });
                }
                user @ Message::User { .. } => {
                    conversation.close_pending();
                    conversation.messages.push(user);
                }
            }
        }
        conversation
    }

    /// The stored messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The summary of older messages that were replaced, if any.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// The identity of the current message prefix: it changes whenever messages are removed
    /// (eviction, summarising) and differs between conversations (clones included), but not
    /// when messages are appended. Caches of rendered messages key on it.
    pub fn revision(&self) -> u64 {
        self.revision.0
    }

    /// Keeps only the first `len` messages (all of them when there are fewer), as when a turn
    /// starts over from its beginning; the [`revision`](Self::revision) changes when any
    /// message goes.
    pub fn truncate(&mut self, len: usize) {
        if len < self.messages.len() {
            self.messages.truncate(len);
            self.revision = Revision::fresh();
        }
    }

    /// Number of stored messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there are no messages.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Adds a user message, first closing any unanswered tool calls: a turn starts.
    pub fn push_user(&mut self, content: impl Into<String>) {
        self.push_user_with_images(content, Vec::new());
    }

    /// Adds a user message with images, first closing any unanswered tool calls: a turn
    /// starts.
    pub fn push_user_with_images(&mut self, content: impl Into<String>, images: Vec<Image>) {
        self.close_pending();
        self.messages.push(Message::User {
            content: content.into(),
            at: Some(Utc::now()),
            note: false,
            images,
        });
    }

    /// Adds Keel's own words to the running turn as a user message (see [`Message::User`]'s
    /// `note`), first closing any unanswered tool calls.
    pub fn push_note(&mut self, content: impl Into<String>) {
        self.push_note_with_images(content, Vec::new());
    }

    /// Adds a note carrying images (what `read_file` showed of an image file: tool messages
    /// cannot hold images in the chat-completions format), first closing any unanswered calls.
    pub fn push_note_with_images(&mut self, content: impl Into<String>, images: Vec<Image>) {
        self.close_pending();
        self.messages.push(Message::User {
            content: content.into(),
            at: Some(Utc::now()),
            note: true,
            images,
        });
    }

    /// Adds an assistant message and the tool calls it makes, first closing any unanswered
    /// calls. Every call needs a non-empty id, unique within the message.
    pub fn push_assistant(
        &mut self,
        content: impl Into<String>,
        tool_calls: Vec<ToolCallRequest>,
    ) -> Result<(), ConversationError> {
        let mut seen = std::collections::HashSet::new();
        for call in &tool_calls {
            if call.id.is_empty() {
                return Err(ConversationError::EmptyToolCallId(call.name.clone()));
            }
            if !seen.insert(call.id.as_str()) {
                return Err(ConversationError::DuplicateToolCallId(call.id.clone()));
            }
        }
        self.close_pending();
        self.messages.push(Message::Assistant {
            content: content.into(),
            tool_calls,
            at: Some(Utc::now()),
        });
        Ok(())
    }

    /// Records the result of pending call `call_id`, exactly as it is returned to the model.
    /// `policy` decides how later requests repeat it and which file it concerns.
    pub fn add_tool_result(
        &mut self,
        call_id: &str,
        content: impl Into<String>,
        success: bool,
        policy: &RetentionPolicy,
    ) -> Result<(), ConversationError> {
        let call = self
            .pending_calls()
            .into_iter()
            .find(|call| call.id == call_id)
            .ok_or_else(|| ConversationError::UnknownToolCall(call_id.to_owned()))?;
        let message = ToolMessage {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: content.into(),
            success,
            retention: policy.retention_for(&call.name),
            path: policy.path_of(call),
            at: Some(Utc::now()),
            lang: policy.lang(),
        };
        self.push_tool_message(message)
    }

    /// Records a tool result built by the caller (to choose its retention or path explicitly).
    /// Its `tool_call_id` must name a pending call.
    pub fn push_tool_message(&mut self, message: ToolMessage) -> Result<(), ConversationError> {
        if !self.is_pending(&message.tool_call_id) {
            return Err(ConversationError::UnknownToolCall(message.tool_call_id));
        }
        self.messages.push(Message::Tool(message));
        Ok(())
    }

    /// Calls of the latest assistant message that have no result yet.
    pub fn pending_calls(&self) -> Vec<&ToolCallRequest> {
        let Some(start) = self.messages.iter().rposition(|m| !m.is_tool()) else {
            return Vec::new();
        };
        let answered: Vec<&str> = self.messages[start + 1..]
            .iter()
            .filter_map(|m| match m {
                Message::Tool(tool) => Some(tool.tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        self.messages[start]
            .tool_calls()
            .iter()
            .filter(|call| !answered.contains(&call.id.as_str()))
            .collect()
    }

    /// Gives every pending call a failed "not run" result (e.g. after a cancelled turn).
    pub fn close_pending(&mut self) {
        let pending: Vec<(String, String)> = self
            .pending_calls()
            .into_iter()
            .map(|call| (call.id.clone(), call.name.clone()))
            .collect();
        for (id, name) in pending {
            self.messages.push(Message::Tool(ToolMessage {
                tool_call_id: id,
                tool_name: name,
                content: NOT_RUN_RESULT.to_owned(),
                success: false,
                retention: Retention::Whole,
                path: None,
                at: Some(Utc::now()),
                lang: Lang::default(),
            }));
        }
    }

    /// Drops the oldest messages until `limits` hold, cutting only where no tool result is
    /// separated from its call (see [`eviction_point`]); `cost` gives a message's tokens.
    /// Returns how many messages were dropped. The summary is kept.
    pub fn evict(&mut self, limits: &EvictionLimits, cost: impl Fn(&Message) -> usize) -> usize {
        let costs: Vec<usize> = self.messages.iter().map(cost).collect();
        self.evict_with_costs(limits, &costs)
    }

    /// [`Self::evict`] with the cost of each message given in order (missing costs count as
    /// zero).
    pub fn evict_with_costs(&mut self, limits: &EvictionLimits, costs: &[usize]) -> usize {
        let cut = eviction_point(&self.messages, costs, limits);
        if cut > 0 {
            self.messages.drain(..cut);
            self.revision = Revision::fresh();
        }
        cut
    }

    /// Replaces the first `count` messages with `summary` (which should cover the previous
    /// summary too). `count` must be a message boundary: the message after the cut is not a
    /// tool result.
    pub fn replace_prefix_with_summary(
        &mut self,
        count: usize,
        summary: impl Into<String>,
    ) -> Result<(), ConversationError> {
        if count > self.messages.len() || !is_boundary(&self.messages, count) {
            return Err(ConversationError::UnsafeSummaryCut(count));
        }
        self.messages.drain(..count);
        self.revision = Revision::fresh();
        let summary = summary.into();
        self.summary = (!summary.trim().is_empty()).then_some(summary);
        Ok(())
    }

    /// Index ranges of the turns: each starts at a user message that is not a note (the first
    /// may start elsewhere if history begins without one) and runs to the next.
    pub fn turns(&self) -> Vec<std::ops::Range<usize>> {
        turn_ranges(&self.messages)
    }

    fn is_pending(&self, call_id: &str) -> bool {
        self.pending_calls().iter().any(|call| call.id == call_id)
    }
}

/// Whether history may start at `index` (the end counts): no tool result there.
pub fn is_boundary(messages: &[Message], index: usize) -> bool {
    messages.get(index).is_none_or(|m| !m.is_tool())
}

/// Index ranges of the turns in `messages` (see [`Conversation::turns`]).
pub fn turn_ranges(messages: &[Message]) -> Vec<std::ops::Range<usize>> {
    let mut starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.starts_turn())
        .map(|(i, _)| i)
        .collect();
    if !messages.is_empty() && starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, start)| *start..starts.get(k + 1).copied().unwrap_or(messages.len()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, args: &str) -> ToolCallRequest {
        ToolCallRequest::new(id, name, args)
    }

    #[test]
    fn results_must_answer_a_pending_call() {
        let policy = RetentionPolicy::default();
        let mut c = Conversation::new();
        c.push_user("read it");
        assert_eq!(
            c.add_tool_result("x", "..", true, &policy).err(),
            Some(ConversationError::UnknownToolCall("x".into()))
        );
        c.push_assistant("", vec![call("a", "read_file", r#"{"path":"src/a.rs"}"#)])
            .unwrap();
        c.add_tool_result("a", "fn a() {}", true, &policy).unwrap();
        let Some(Message::Tool(tool)) = c.messages().last() else {
            panic!("expected a tool message");
        };
        assert_eq!(tool.path.as_deref(), Some("src/a.rs"));
        assert_eq!(tool.retention, Retention::FileRead);
        assert!(c.add_tool_result("a", "again", true, &policy).is_err());
    }

    #[test]
    fn unanswered_calls_are_closed_when_the_conversation_moves_on() {
        let mut c = Conversation::new();
        c.push_user("go");
        c.push_assistant(
            "",
            vec![
                call("a", "execute_command", "{}"),
                call("b", "search_files", "{}"),
            ],
        )
        .unwrap();
        assert_eq!(c.pending_calls().len(), 2);
        c.push_user("stop");
        assert!(c.pending_calls().is_empty());
        let results: Vec<_> = c.messages().iter().filter(|m| m.is_tool()).collect();
        assert_eq!(results.len(), 2);
        assert!(results.iter().all(|m| m.content() == NOT_RUN_RESULT));
    }

    #[test]
    fn assistant_calls_need_distinct_ids() {
        let mut c = Conversation::new();
        assert!(matches!(
            c.push_assistant("", vec![call("", "read_file", "{}")]),
            Err(ConversationError::EmptyToolCallId(_))
        ));
        assert!(matches!(
            c.push_assistant("", vec![call("a", "x", "{}"), call("a", "y", "{}")]),
            Err(ConversationError::DuplicateToolCallId(_))
        ));
        assert!(c.is_empty());
    }

    #[test]
    fn deserialising_repairs_broken_histories() {
        let json = r#"{"messages":[
            {"role":"tool","tool_call_id":"orphan","tool_name":"read_file","content":"x"},
            {"role":"user","content":"hi"},
            {"role":"assistant","content":"","tool_calls":[{"id":"a","name":"read_file","arguments":"{}"}]},
            {"role":"user","content":"again"},
            {"role":"tool","tool_call_id":"a","tool_name":"read_file","content":"late"}
        ]}"#;
        let c: Conversation = serde_json::from_str(json).unwrap();
        let roles: Vec<&str> = c
            .messages()
            .iter()
            .map(|m| match m {
                Message::User { .. } => "user",
                Message::Assistant { .. } => "assistant",
                Message::Tool(_) => "tool",
            })
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "user"]);
        assert_eq!(c.messages()[2].content(), NOT_RUN_RESULT);
    }

    #[test]
    fn round_trips_through_json() {
        let policy = RetentionPolicy::default();
        let mut c = Conversation::new();
        c.push_user("hi");
        c.push_assistant(
            "",
            vec![call("a", "execute_command", r#"{"command":"ls"}"#)],
        )
        .unwrap();
        c.add_tool_result("a", "Cargo.toml", true, &policy).unwrap();
        c.push_assistant("done", vec![]).unwrap();
        c.replace_prefix_with_summary(0, "earlier: nothing")
            .unwrap();
        let json = serde_json::to_string(&c).unwrap();
        let back: Conversation = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn summaries_replace_whole_rounds_only() {
        let policy = RetentionPolicy::default();
        let mut c = Conversation::new();
        c.push_user("hi");
        c.push_assistant("", vec![call("a", "execute_command", "{}")])
            .unwrap();
        c.add_tool_result("a", "ok", true, &policy).unwrap();
        c.push_user("next");
        assert!(c.replace_prefix_with_summary(2, "s").is_err());
        assert!(c.replace_prefix_with_summary(9, "s").is_err());
        c.replace_prefix_with_summary(3, "they said hi").unwrap();
        assert_eq!(c.summary(), Some("they said hi"));
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn turns_start_at_user_messages() {
        let mut c = Conversation::new();
        c.push_assistant("welcome", vec![]).unwrap();
        c.push_user("a");
        c.push_assistant("b", vec![]).unwrap();
        c.push_user("c");
        assert_eq!(c.turns(), vec![0..1, 1..3, 3..4]);
    }
}
