//! Events a front end records on a session's stored log outside any turn (e.g. what `keel
//! shadow apply` did), after the session's last event.

use keel_events::{EventKind, Sequencer};
use keel_store::Store;

use crate::error::HostError;

/// Appends `event` to `session_id`'s stored log after its last event, for a process that
/// writes nothing else on the session; returns its seq.
pub async fn append_outside_turn(
    store: &dyn Store,
    session_id: &str,
    event: impl Into<EventKind>,
) -> Result<u64, HostError> {
    let session = store.get_session(session_id).await?;
    let last = store.last_seq(&session.id).await?;
    let event = Sequencer::resume(&session.id, &session.project_id, last).stamp(None, event);
    store.append_event(&event).await?;
    Ok(event.seq)
}
