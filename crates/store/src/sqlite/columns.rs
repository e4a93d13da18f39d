//! How a SQLite row holds a timestamp: as RFC 3339 text.

use chrono::{DateTime, Utc};
use sqlx::sqlite::SqliteRow;

use crate::columns::{ReadColumns, ReadTimestamp};

impl ReadTimestamp for SqliteRow {
    fn read_ts(&self, column: &'static str) -> Result<Option<DateTime<Utc>>, String> {
        let text = self.opt_text(column).map_err(|e| e.to_string())?;
        text.map(|text| {
            DateTime::parse_from_rfc3339(&text)
                .map(|ts| ts.with_timezone(&Utc))
                .map_err(|e| format!("bad timestamp `{text}`: {e}"))
        })
        .transpose()
    }
}
