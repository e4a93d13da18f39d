//! The stored form of a session's conversation, one shape for every front end.
//!
//! Written as `{"version": 1, "conversation_id": …, "conversation": {"summary"?, "messages"}}`.
//! Two older shapes still load: the server's unversioned `{"conversation_id", "conversation"}`
//! and the CLI's bare conversation `{"summary"?, "messages"}` (its id was kept in the session's
//! metadata under [`CONVERSATION_ID_KEY`]). Anything else, or a newer version, is an error naming
//! the session — never an empty history.

use keel_context::Conversation;
use keel_store::Session;
use serde_json::{Map, Value};

use crate::error::HostError;

/// The version [`SavedConversation::to_value`] writes.
pub const SAVED_CONVERSATION_VERSION: u64 = 1;

/// The session metadata key holding the engine's conversation id.
pub const CONVERSATION_ID_KEY: &str = "conversation_id";

/// A session's conversation as stored: the engine's conversation id and its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedConversation {
    /// The engine's conversation id (`conv_…`), kept across turns and front ends.
    pub conversation_id: String,
    /// The messages and summary.
    pub conversation: Conversation,
}

impl SavedConversation {
    /// A conversation to save under `conversation_id`.
    pub fn new(conversation_id: impl Into<String>, conversation: Conversation) -> Self {
        Self {
            conversation_id: conversation_id.into(),
            conversation,
        }
    }

    /// The stored JSON (current version).
    pub fn to_value(&self, session_id: &str) -> Result<Value, HostError> {
        let conversation =
            serde_json::to_value(&self.conversation).map_err(|e| HostError::Encode {
                session_id: session_id.to_owned(),
                reason: e.to_string(),
            })?;
        let mut object = Map::new();
        object.insert("version".to_owned(), SAVED_CONVERSATION_VERSION.into());
        object.insert(
            "conversation_id".to_owned(),
            Value::String(self.conversation_id.clone()),
        );
        object.insert("conversation".to_owned(), conversation);
        Ok(Value::Object(object))
    }

    /// Reads what `session` has stored, in any shape a front end ever wrote.
    pub fn from_value(session: &Session, value: &Value) -> Result<Self, HostError> {
        let fail = |reason: String| HostError::Conversation {
            session_id: session.id.clone(),
            reason,
        };
        let Value::Object(object) = value else {
            return Err(fail(format!(
                "expected a JSON object, found {}",
                kind(value)
            )));
        };
        match object.get("version") {
            Some(version) if version.as_u64() == Some(SAVED_CONVERSATION_VERSION) => {
                Self::from_wrapped(object).map_err(fail)
            }
            Some(version) => Err(fail(format!(
                "version {version} is not supported (this build reads version \
                 {SAVED_CONVERSATION_VERSION})"
            ))),
            // The server's unversioned shape.
            None if object.contains_key("conversation") => Self::from_wrapped(object).map_err(fail),
            // The CLI's bare conversation.
            None if object.contains_key("messages") => {
                let conversation = decode_conversation(value).map_err(fail)?;
                Ok(Self::new(legacy_conversation_id(session), conversation))
            }
            None => Err(fail(format!(
                "unrecognised shape (keys: {})",
                object.keys().cloned().collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// `{"conversation_id", "conversation"}`, with or without a version.
    fn from_wrapped(object: &Map<String, Value>) -> Result<Self, String> {
        let conversation_id = match object.get("conversation_id") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            Some(other) => return Err(format!("`conversation_id` is {}", kind(other))),
            None => return Err("`conversation_id` is missing".to_owned()),
        };
        let conversation = object
            .get("conversation")
            .ok_or_else(|| "`conversation` is missing".to_owned())?;
        Ok(Self::new(
            conversation_id,
            decode_conversation(conversation)?,
        ))
    }
}

/// A conversation object: `messages` must be there (every field of the context crate's type
/// has a default, so a missing one would silently read as an empty history).
fn decode_conversation(value: &Value) -> Result<Conversation, String> {
    if value.get("messages").is_none_or(|m| !m.is_array()) {
        return Err("`conversation.messages` is missing or not a list".to_owned());
    }
    serde_json::from_value(value.clone()).map_err(|e| format!("bad conversation: {e}"))
}

/// The id a CLI-written session kept in its metadata, or one derived from the session id.
fn legacy_conversation_id(session: &Session) -> String {
    session
        .metadata
        .get(CONVERSATION_ID_KEY)
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map_or_else(
            || format!("conv_{}", session.id.replace('-', "")),
            str::to_owned,
        )
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
