//! Reading typed values out of PostgreSQL rows, with errors that name the row and column.

use std::fmt::Display;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::PgRow;

use crate::error::{StoreError, StoreResult};

/// Which table a row came from, and its id, for error messages.
#[derive(Clone, Copy)]
pub(super) struct RowRef<'a> {
    pub table: &'static str,
    pub id: &'a str,
}

impl RowRef<'_> {
    fn corrupt(self, column: &'static str, reason: impl Display) -> StoreError {
        StoreError::CorruptRow {
            table: self.table,
            id: self.id.to_owned(),
            column,
            reason: reason.to_string(),
        }
    }

    /// A nullable text column.
    pub fn opt_text(self, row: &PgRow, column: &'static str) -> StoreResult<Option<String>> {
        row.try_get::<Option<String>, _>(column)
            .map_err(|e| self.corrupt(column, e))
    }

    /// A text column that must not be null.
    pub fn text(self, row: &PgRow, column: &'static str) -> StoreResult<String> {
        self.opt_text(row, column)?
            .ok_or_else(|| self.corrupt(column, "unexpected NULL"))
    }

    /// A text column holding a value of `T`'s `FromStr` form.
    pub fn parsed<T>(self, row: &PgRow, column: &'static str) -> StoreResult<T>
    where
        T: FromStr,
        T::Err: Display,
    {
        self.text(row, column)?
            .parse()
            .map_err(|e| self.corrupt(column, e))
    }

    /// A nullable timestamptz column.
    pub fn opt_ts(self, row: &PgRow, column: &'static str) -> StoreResult<Option<DateTime<Utc>>> {
        row.try_get::<Option<DateTime<Utc>>, _>(column)
            .map_err(|e| self.corrupt(column, e))
    }

    /// A timestamptz column that must not be null.
    pub fn ts(self, row: &PgRow, column: &'static str) -> StoreResult<DateTime<Utc>> {
        self.opt_ts(row, column)?
            .ok_or_else(|| self.corrupt(column, "unexpected NULL"))
    }

    /// A json/jsonb column (selected as `::text`) holding JSON of type `T`.
    pub fn json<T: serde::de::DeserializeOwned>(
        self,
        row: &PgRow,
        column: &'static str,
    ) -> StoreResult<Option<T>> {
        self.opt_text(row, column)?
            .map(|text| serde_json::from_str(&text).map_err(|e| self.corrupt(column, e)))
            .transpose()
    }
}

/// The id column of a row, read before anything else so later errors can name the row.
pub(super) fn row_id(row: &PgRow, table: &'static str) -> StoreResult<String> {
    row.try_get::<String, _>("id")
        .map_err(|e| StoreError::CorruptRow {
            table,
            id: "?".to_owned(),
            column: "id",
            reason: e.to_string(),
        })
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
