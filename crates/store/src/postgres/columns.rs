//! How a PostgreSQL row holds a timestamp (`timestamptz`), and the JSON text its `json`/`jsonb`
//! columns accept.

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::PgRow;

use crate::columns::ReadTimestamp;

impl ReadTimestamp for PgRow {
    fn read_ts(&self, column: &'static str) -> Result<Option<DateTime<Utc>>, String> {
        self.try_get(column).map_err(|e| e.to_string())
    }
}

/// The JSON text PostgreSQL's `json`/`jsonb` accept: `\u0000` (which they reject) becomes
/// `\ufffd`, the replacement character. Every other text is unchanged.
pub(super) fn storable_json(json: String) -> String {
    if json.contains("\\u0000") {
        // In serde_json's output `\u0000` only ever stands for NUL, unless it follows an escaped
        // backslash (`\\u0000`, the literal text); keep those.
        let mut out = String::with_capacity(json.len());
        let mut rest = json.as_str();
        while let Some(at) = rest.find("\\u0000") {
            let before = &rest[..at];
            let backslashes = before.chars().rev().take_while(|&c| c == '\\').count();
            out.push_str(before);
            if backslashes % 2 == 0 {
                out.push_str("\\ufffd");
            } else {
                out.push_str("\\u0000");
            }
            rest = &rest[at + "\\u0000".len()..];
        }
        out.push_str(rest);
        out
    } else {
        json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_escapes_become_replacement_characters_and_nothing_else_changes() {
        let json = serde_json::json!({"a": "x\u{0}y", "b": "\\u0000", "c": "\\\u{0}"}).to_string();
        let out = storable_json(json);
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            back,
            serde_json::json!({"a": "x\u{fffd}y", "b": "\\u0000", "c": "\\\u{fffd}"})
        );
        assert_eq!(storable_json("{\"k\":1}".to_owned()), "{\"k\":1}");
    }
}
