//! Seed 003 §0's `agent_events` table row, converted from and to a [`TimelineEvent`].
//!
//! | column | from the timeline record |
//! |---|---|
//! | `id` | `id` |
//! | `task_id` | `taskId`, `NULL` when it is empty (an event outside a turn) |
//! | `project_id` | `projectId` |
//! | `type` | `type` (one of the six timeline types, the table's CHECK constraint) |
//! | `payload` | `payload`, camelCase, as a JSON object |
//! | `created_at` | `timestamp` |

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::timeline_event::{TimelineEvent, TimelinePayload};

/// One row of the `agent_events` table, as JSON (`{id, task_id, project_id, type, payload,
/// created_at}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentEventRow {
    /// The record's id.
    pub id: String,
    /// The turn (task); `None` outside a turn.
    pub task_id: Option<String>,
    /// The project.
    pub project_id: String,
    /// Timeline type (`agent_phase`, `tool_call`, `file_update`, `self_repair`, `log`, `error`).
    #[serde(rename = "type")]
    pub event_type: String,
    /// The camelCase timeline payload.
    pub payload: Value,
    /// RFC 3339 timestamp.
    pub created_at: String,
}

/// Why a row could not be read back as a timeline record.
#[derive(Debug, thiserror::Error)]
#[error("agent_events row {id}: invalid `{event_type}` payload: {source}")]
pub struct RowError {
    /// The row's id.
    pub id: String,
    /// The row's type.
    pub event_type: String,
    /// What the JSON reader reported.
    #[source]
    pub source: serde_json::Error,
}

impl From<&TimelineEvent> for AgentEventRow {
    fn from(record: &TimelineEvent) -> Self {
        // The payload enum is adjacently tagged: its JSON is `{"type": …, "payload": {…}}`.
        let payload = match serde_json::to_value(&record.payload) {
            Ok(Value::Object(mut tagged)) => tagged.remove("payload").unwrap_or_else(|| json!({})),
            _ => json!({}),
        };
        Self {
            id: record.id.clone(),
            task_id: (!record.task_id.is_empty()).then(|| record.task_id.clone()),
            project_id: record.project_id.clone(),
            event_type: record.payload.type_name().to_owned(),
            payload,
            created_at: record.timestamp.clone(),
        }
    }
}

impl TryFrom<&AgentEventRow> for TimelineEvent {
    type Error = RowError;

    fn try_from(row: &AgentEventRow) -> Result<Self, RowError> {
        let tagged = json!({"type": row.event_type, "payload": row.payload});
        let payload: TimelinePayload =
            serde_json::from_value(tagged).map_err(|source| RowError {
                id: row.id.clone(),
                event_type: row.event_type.clone(),
                source,
            })?;
        Ok(Self {
            id: row.id.clone(),
            timestamp: row.created_at.clone(),
            task_id: row.task_id.clone().unwrap_or_default(),
            project_id: row.project_id.clone(),
            // Seed 003's row has no column for it: a subagent's record reads back unnested.
            parent_call_id: None,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::{AgentPhase, AgentPhasePayload, PhaseAction};
    use pretty_assertions::assert_eq;

    /// Seed 003 §0's example row. Its payload (`phase: "started"`, `status`, `taskType`,
    /// `model`) predates §3.1's `agent_phase` payload, so the row's columns are compared exactly
    /// and the payload against §3.1's shape.
    const EXAMPLE_ROW: &str = r#"{
      "id": "550e8400-e29b-41d4-a716-446655440000",
      "task_id": "123e4567-e89b-12d3-a456-426614174000",
      "project_id": "789e0123-e45b-67d8-a901-234567890abc",
      "type": "agent_phase",
      "payload": {
        "phase": "started",
        "status": "running",
        "taskType": "build_site",
        "model": "google/gemini-3-pro-preview"
      },
      "created_at": "2025-11-29T14:00:00.000Z"
    }"#;

    fn record(task_id: &str) -> TimelineEvent {
        TimelineEvent {
            id: "550e8400-e29b-41d4-a716-446655440000".into(),
            timestamp: "2025-11-29T14:00:00.000Z".into(),
            task_id: task_id.into(),
            project_id: "789e0123-e45b-67d8-a901-234567890abc".into(),
            parent_call_id: None,
            payload: TimelinePayload::AgentPhase(AgentPhasePayload {
                phase: AgentPhase::Planner,
                action: PhaseAction::Enter,
                summary: Some("build_site".into()),
            }),
        }
    }

    #[test]
    fn row_matches_seed_example_shape() {
        let example: Value = serde_json::from_str(EXAMPLE_ROW).unwrap();
        let row = AgentEventRow::from(&record("123e4567-e89b-12d3-a456-426614174000"));
        let mut got = serde_json::to_value(&row).unwrap();
        assert_eq!(
            got["payload"],
            json!({"phase": "planner", "action": "enter", "summary": "build_site"})
        );
        // Same columns, same values apart from the payload.
        got["payload"] = example["payload"].clone();
        assert_eq!(got, example);
        // And the example row itself reads as an `AgentEventRow`.
        let parsed: AgentEventRow = serde_json::from_str(EXAMPLE_ROW).unwrap();
        assert_eq!(parsed.event_type, "agent_phase");
    }

    #[test]
    fn empty_task_is_null_and_round_trips() {
        let original = record("");
        let row = AgentEventRow::from(&original);
        assert_eq!(row.task_id, None);
        assert_eq!(serde_json::to_value(&row).unwrap()["task_id"], Value::Null);
        assert_eq!(TimelineEvent::try_from(&row).unwrap(), original);
    }

    #[test]
    fn seed_example_payload_is_rejected_with_row_id() {
        let row: AgentEventRow = serde_json::from_str(EXAMPLE_ROW).unwrap();
        let err = TimelineEvent::try_from(&row).unwrap_err();
        assert!(err.to_string().contains("550e8400"), "{err}");
    }
}
