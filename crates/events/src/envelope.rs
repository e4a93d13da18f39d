//! The envelope every event travels in.

use chrono::{DateTime, SecondsFormat, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ts_rs::TS;
use uuid::Uuid;

use crate::catalogue::EventKind;

/// One event: identity, ordering, provenance, and the typed payload.
///
/// On the wire: `{"id","seq","ts","session_id","turn_id"?,"parent_call_id"?,"project_id","type",
/// "payload"}`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, TS)]
pub struct Event {
    /// UUID v7, unique across sessions.
    #[ts(type = "string")]
    pub id: Uuid,
    /// Per-session sequence number: starts at 1, gap-free, strictly increasing. The resume key.
    /// Display-only events (`system.cli_display`, never stored) repeat the latest seq.
    pub seq: u64,
    /// When the event was stamped, RFC 3339 UTC with milliseconds.
    #[serde(serialize_with = "serialize_ts")]
    #[schemars(with = "String")]
    #[schemars(extend("format" = "date-time"))]
    #[ts(type = "string")]
    pub ts: DateTime<Utc>,
    /// Session the event belongs to.
    pub session_id: String,
    /// The user request (turn) being served; absent outside a turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub turn_id: Option<String>,
    /// The id of the parent's `task` tool call whose subagent produced the event; absent for
    /// the top agent's own events (see `docs/subagents.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent_call_id: Option<String>,
    /// Project the session works on.
    pub project_id: String,
    /// Type and payload.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    /// The `phase.domain.action` type string.
    pub fn type_name(&self) -> &'static str {
        self.kind.type_name()
    }

    /// Serialises the event as one compact JSON line (no trailing newline).
    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The timestamp as written on the wire.
    pub fn ts_string(&self) -> String {
        format_ts(&self.ts)
    }
}

/// Formats a timestamp as RFC 3339 UTC with milliseconds (`2026-11-22T10:00:00.123Z`).
pub fn format_ts(ts: &DateTime<Utc>) -> String {
    ts.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn serialize_ts<S: Serializer>(ts: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_ts(ts))
}

/// The envelope with its payload not yet interpreted.
#[derive(Deserialize)]
pub(crate) struct RawEvent {
    pub id: Uuid,
    pub seq: u64,
    pub ts: DateTime<Utc>,
    pub session_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    #[serde(default)]
    pub parent_call_id: Option<String>,
    pub project_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub payload: Box<serde_json::value::RawValue>,
}

impl RawEvent {
    pub(crate) fn into_event(self) -> Result<Event, crate::catalogue::PayloadError> {
        let kind = EventKind::from_parts(&self.event_type, self.payload.get())?;
        Ok(Event {
            id: self.id,
            seq: self.seq,
            ts: self.ts,
            session_id: self.session_id,
            turn_id: self.turn_id,
            parent_call_id: self.parent_call_id,
            project_id: self.project_id,
            kind,
        })
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RawEvent::deserialize(deserializer)?
            .into_event()
            .map_err(serde::de::Error::custom)
    }
}
