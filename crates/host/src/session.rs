//! Opening a stored session to continue it.

use keel_store::{Session, Store, StoreResult, Turn};

use crate::error::HostError;
use crate::saved::SavedConversation;

/// A stored session, ready to continue.
#[derive(Debug, Clone)]
pub struct OpenedSession {
    /// The session row.
    pub session: Session,
    /// Its conversation; `None` before its first turn ended.
    pub saved: Option<SavedConversation>,
    /// The highest stored seq: new events continue after it.
    pub last_seq: u64,
}

/// Loads session `id` with its conversation and event position. A conversation in a shape or
/// version this build cannot read is an error naming the session.
pub async fn open_session(store: &dyn Store, id: &str) -> Result<OpenedSession, HostError> {
    let session = store.get_session(id).await?;
    let saved = match store.load_conversation(id).await? {
        Some(value) => Some(SavedConversation::from_value(&session, &value)?),
        None => None,
    };
    let last_seq = store.last_seq(id).await?;
    Ok(OpenedSession {
        session,
        saved,
        last_seq,
    })
}

/// The turns of session `id`, oldest first (for listing; a front end never writes them).
pub async fn session_turns(store: &dyn Store, id: &str) -> StoreResult<Vec<Turn>> {
    store.list_turns(id).await
}
