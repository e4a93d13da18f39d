//! The `events` table, as far as every backend reads it the same way: events back by range,
//! the seq bounds and the count; and the checks every backend runs on events before appending.

use keel_events::Event;

use crate::backend::{Backend, Param, Statement};
use crate::columns::ReadColumns;
use crate::error::{StoreError, StoreResult};
use crate::range::EventRange;
use crate::stored_event;

const READ: &str = "SELECT seq, CAST(data AS TEXT) AS data FROM events \
                    WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";

const LAST_SEQ: &str = "SELECT MAX(seq) AS seq FROM events WHERE session_id = $1";

const OLDEST_SEQ: &str = "SELECT MIN(seq) AS seq FROM events WHERE session_id = $1";

const COUNT: &str = "SELECT COUNT(*) AS n FROM events WHERE session_id = $1";

/// One event, ready to insert.
pub(crate) struct EventRow<'a> {
    /// The event.
    pub event: &'a Event,
    /// Its seq, as the database's signed integers hold it.
    pub seq: i64,
    /// Its JSON.
    pub json: String,
}

/// The storable events of `events` (display-only ones are never stored), ready to insert.
pub(crate) fn event_rows<'a>(events: &[&'a Event]) -> StoreResult<Vec<EventRow<'a>>> {
    events
        .iter()
        .filter(|event| !event.kind.is_display_only())
        .map(|&event| {
            let seq = i64::try_from(event.seq).map_err(|_| StoreError::SeqOutOfRange {
                session_id: event.session_id.clone(),
                seq: event.seq,
            })?;
            Ok(EventRow {
                event,
                seq,
                json: event.to_json(),
            })
        })
        .collect()
}

/// Reads one stored row back into an [`Event`], checking it against its indexed columns.
fn from_row(session_id: &str, row: &impl ReadColumns) -> StoreResult<Event> {
    let seq = row.opt_int("seq")?.unwrap_or_default();
    stored_event::decode(session_id, seq, row.opt_text("data"))
}

pub(crate) async fn read<B: Backend>(
    backend: &B,
    session_id: &str,
    range: EventRange,
) -> StoreResult<Vec<Event>> {
    let Ok(after_seq) = i64::try_from(range.after_seq) else {
        // No stored seq is that large.
        return Ok(Vec::new());
    };
    let params = vec![
        Param::text(session_id),
        Param::Int(Some(after_seq)),
        Param::Limit(range.limit),
    ];
    let rows = backend.rows(Statement::read(READ, params)).await?;
    rows.iter().map(|row| from_row(session_id, row)).collect()
}

/// The one integer `sql` yields for the session (0 for NULL, as `MIN`/`MAX` of no rows are).
async fn session_aggregate<B: Backend>(
    backend: &B,
    sql: &'static str,
    column: &'static str,
    session_id: &str,
) -> StoreResult<i64> {
    let row = backend
        .row(Statement::read(sql, vec![Param::text(session_id)]))
        .await?;
    let value = match row {
        Some(row) => row.opt_int(column)?,
        None => None,
    };
    Ok(value.unwrap_or(0))
}

/// A stored seq as u64; a negative one is corrupt.
fn stored_seq(session_id: &str, seq: i64) -> StoreResult<u64> {
    u64::try_from(seq).map_err(|_| StoreError::CorruptEvent {
        session_id: session_id.to_owned(),
        seq: 0,
        reason: format!("a stored seq is negative ({seq})"),
        source: None,
    })
}

pub(crate) async fn last_seq<B: Backend>(backend: &B, session_id: &str) -> StoreResult<u64> {
    let max = session_aggregate(backend, LAST_SEQ, "seq", session_id).await?;
    stored_seq(session_id, max)
}

pub(crate) async fn oldest_seq<B: Backend>(backend: &B, session_id: &str) -> StoreResult<u64> {
    let min = session_aggregate(backend, OLDEST_SEQ, "seq", session_id).await?;
    stored_seq(session_id, min)
}

pub(crate) async fn count<B: Backend>(backend: &B, session_id: &str) -> StoreResult<u64> {
    let count = session_aggregate(backend, COUNT, "n", session_id).await?;
    // COUNT(*) is never negative.
    Ok(u64::try_from(count).unwrap_or_default())
}
