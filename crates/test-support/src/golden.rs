//! Goldens of event streams: JSON with the values that change from run to run (ids, times,
//! durations) replaced, so two runs of one script compare equal.

use serde_json::Value;

/// Keys whose values change from run to run.
pub const VOLATILE_KEYS: &[&str] = &[
    "id",
    "ts",
    "timestamp",
    "session_id",
    "turn_id",
    "call_id",
    "duration_ms",
    "duration",
    "conversation_id",
    "approval_id",
    "taskId",
];

/// `value` with every [`VOLATILE_KEYS`] value, at any depth, replaced by `"[volatile]"`.
pub fn stable(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    let v = if VOLATILE_KEYS.contains(&key.as_str()) {
                        Value::String("[volatile]".to_owned())
                    } else {
                        stable(v)
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(stable).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn volatile_values_are_replaced_at_any_depth() {
        let value = json!({"id": 1, "type": "x", "event": {"ts": "t", "payload": [{"call_id": "c", "n": 2}]}});
        assert_eq!(
            stable(&value),
            json!({"id": "[volatile]", "type": "x", "event": {"ts": "[volatile]", "payload": [{"call_id": "[volatile]", "n": 2}]}})
        );
    }
}
