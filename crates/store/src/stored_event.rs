//! Turning a stored event row (its seq column and its JSON) back into an [`Event`], checked
//! against the columns it was indexed by; shared by every backend.

use keel_events::{Event, parse_line};

use crate::error::{StoreError, StoreResult};

/// The event a row of `session_id` holds. `data` is the row's JSON column, or the error met
/// reading it; a row whose JSON names another session or seq is corrupt.
pub(crate) fn decode(
    session_id: &str,
    seq: i64,
    data: Result<Option<String>, sqlx::Error>,
) -> StoreResult<Event> {
    let corrupt = |reason: String, source| StoreError::CorruptEvent {
        session_id: session_id.to_owned(),
        seq: u64::try_from(seq).unwrap_or_default(),
        reason,
        source,
    };
    let data = data
        .map_err(|e| corrupt(format!("unreadable `data` column: {e}"), None))?
        .ok_or_else(|| corrupt("`data` is NULL".to_owned(), None))?;
    let line = u64::try_from(seq)
        .ok()
        .and_then(|s| usize::try_from(s).ok())
        .unwrap_or_default();
    let event = parse_line(line, &data).map_err(|e| {
        let message = e.to_string();
        let prefix = format!("line {}: ", e.line());
        let reason = message.strip_prefix(&prefix).unwrap_or(&message).to_owned();
        corrupt(reason, Some(Box::new(e)))
    })?;
    if u64::try_from(seq).ok() != Some(event.seq) || event.session_id != session_id {
        return Err(corrupt(
            format!(
                "the stored JSON is session `{}` seq {}",
                event.session_id, event.seq
            ),
            None,
        ));
    }
    Ok(event)
}
