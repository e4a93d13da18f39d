//! What can go wrong hosting a session.

use keel_store::StoreError;

/// A session-host failure. Messages name the session they concern.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored conversation is in a shape or version this build cannot read.
    #[error("the stored conversation of session `{session_id}` cannot be read: {reason}")]
    Conversation {
        /// The session whose conversation it is.
        session_id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The conversation could not be serialised for storage.
    #[error("the conversation of session `{session_id}` cannot be saved: {reason}")]
    Encode {
        /// The session.
        session_id: String,
        /// Why.
        reason: String,
    },
    /// No session has this id in the project's store.
    #[error("no session `{0}` in the project's store")]
    UnknownSession(String),
    /// The settings cannot make a working agent (no API key, a bad script, a bad root…).
    #[error("{0}")]
    Settings(String),
}
