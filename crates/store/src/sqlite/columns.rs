//! Reading typed values out of SQLite rows, with errors that name the row and column.

use std::fmt::Display;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

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
    pub fn opt_text(self, row: &SqliteRow, column: &'static str) -> StoreResult<Option<String>> {
        row.try_get::<Option<String>, _>(column)
            .map_err(|e| self.corrupt(column, e))
    }

    /// A text column that must not be null.
    pub fn text(self, row: &SqliteRow, column: &'static str) -> StoreResult<String> {
        self.opt_text(row, column)?
            .ok_or_else(|| self.corrupt(column, "unexpected NULL"))
    }

    /// A text column holding a value of `T`'s `FromStr` form.
    pub fn parsed<T>(self, row: &SqliteRow, column: &'static str) -> StoreResult<T>
    where
        T: FromStr,
        T::Err: Display,
    {
        self.text(row, column)?
            .parse()
            .map_err(|e| self.corrupt(column, e))
    }

    /// A nullable RFC 3339 timestamp column.
    pub fn opt_ts(
        self,
        row: &SqliteRow,
        column: &'static str,
    ) -> StoreResult<Option<DateTime<Utc>>> {
        self.opt_text(row, column)?
            .map(|text| {
                DateTime::parse_from_rfc3339(&text)
                    .map(|ts| ts.with_timezone(&Utc))
                    .map_err(|e| self.corrupt(column, format!("bad timestamp `{text}`: {e}")))
            })
            .transpose()
    }

    /// An RFC 3339 timestamp column that must not be null.
    pub fn ts(self, row: &SqliteRow, column: &'static str) -> StoreResult<DateTime<Utc>> {
        self.opt_ts(row, column)?
            .ok_or_else(|| self.corrupt(column, "unexpected NULL"))
    }

    /// A text column holding JSON of type `T`.
    pub fn json<T: serde::de::DeserializeOwned>(
        self,
        row: &SqliteRow,
        column: &'static str,
    ) -> StoreResult<Option<T>> {
        self.opt_text(row, column)?
            .map(|text| serde_json::from_str(&text).map_err(|e| self.corrupt(column, e)))
            .transpose()
    }
}

/// The id column of a row, read before anything else so later errors can name the row.
pub(super) fn row_id(row: &SqliteRow, table: &'static str) -> StoreResult<String> {
    row.try_get::<String, _>("id")
        .map_err(|e| StoreError::CorruptRow {
            table,
            id: "?".to_owned(),
            column: "id",
            reason: e.to_string(),
        })
}
