//! Everything that can go wrong in the store, as one typed error.

use std::path::PathBuf;

use crate::turn::TurnStatus;

/// An error from a [`Store`](crate::Store) backend or the [`EventWriter`](crate::EventWriter).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The location is neither a file path nor a URL this build can open.
    #[error("bad store location `{location}`: {reason}")]
    BadUrl {
        /// The location as given.
        location: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The folder that should hold the database file could not be created.
    #[error("cannot create the store folder `{}`: {source}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The database could not be opened or configured.
    #[error("cannot open the store at `{location}`: {source}")]
    Open {
        /// The location being opened.
        location: String,
        /// The underlying error.
        #[source]
        source: sqlx::Error,
    },
    /// The schema could not be brought up to date.
    #[error("store migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// The session already holds an event with this seq; stored events are never overwritten.
    #[error("session `{session_id}` already has an event with seq {seq}")]
    DuplicateSeq {
        /// The session.
        session_id: String,
        /// The seq that is taken.
        seq: u64,
    },
    /// An event with this id is already stored.
    #[error("event id `{id}` is already stored (appending session `{session_id}` seq {seq})")]
    DuplicateEventId {
        /// The event id.
        id: String,
        /// Session of the event being appended.
        session_id: String,
        /// Seq of the event being appended.
        seq: u64,
    },
    /// A session with this id already exists.
    #[error("session `{0}` already exists")]
    DuplicateSession(String),
    /// A turn with this id already exists.
    #[error("turn `{0}` already exists")]
    DuplicateTurn(String),
    /// No such session or turn.
    #[error("{what} `{id}` not found")]
    NotFound {
        /// `"session"` or `"turn"`.
        what: &'static str,
        /// The id looked up.
        id: String,
    },
    /// A stored event could not be read back.
    #[error("stored event seq {seq} of session `{session_id}` is corrupt: {reason}")]
    CorruptEvent {
        /// The session.
        session_id: String,
        /// The seq of the row.
        seq: u64,
        /// What is wrong with it.
        reason: String,
        /// The parser's error, when the JSON itself did not parse.
        #[source]
        source: Option<Box<keel_events::ParseError>>,
    },
    /// A stored session or turn row holds a value that cannot be read.
    #[error("stored {table} `{id}` is corrupt: column `{column}`: {reason}")]
    CorruptRow {
        /// `"session"` or `"turn"`.
        table: &'static str,
        /// The row's id.
        id: String,
        /// The offending column.
        column: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A value handed to the store cannot be stored as given.
    #[error("invalid {field}: {reason}")]
    InvalidInput {
        /// What was invalid.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// The seq does not fit the database's signed 64-bit integers.
    #[error("seq {seq} of session `{session_id}` is too large to store (max {max})", max = i64::MAX)]
    SeqOutOfRange {
        /// The session.
        session_id: String,
        /// The seq.
        seq: u64,
    },
    /// A request id was reused for a different input.
    #[error(
        "request `{request_id}` of session `{session_id}` already started turn `{turn_id}` \
         with a different input"
    )]
    RequestConflict {
        /// The session.
        session_id: String,
        /// The client's idempotency key.
        request_id: String,
        /// The turn the key already belongs to.
        turn_id: String,
    },
    /// The turn has already ended.
    #[error("turn `{turn_id}` has already ended ({status})")]
    TurnNotRunning {
        /// The turn.
        turn_id: String,
        /// Its final status.
        status: TurnStatus,
    },
    /// Another process holds the session's writer claim, and it has not lapsed.
    #[error("session `{session_id}` is being written by `{holder}`")]
    WriterHeld {
        /// The session.
        session_id: String,
        /// Who holds the claim (its lease owner id).
        holder: String,
    },
    /// A write quoting a writer claim that is no longer current: another process took the
    /// session over (or the claim was released). Nothing was written.
    #[error(
        "the write to session `{session_id}` was refused: claim epoch {epoch} of `{owner}` is \
         stale ({})",
        match holder {
            Some(holder) => format!("`{holder}` writes the session now"),
            None => "nobody holds the session now".to_owned(),
        }
    )]
    Fenced {
        /// The session.
        session_id: String,
        /// Who quoted the stale claim.
        owner: String,
        /// The stale claim's epoch.
        epoch: i64,
        /// Who holds the session now, if anyone.
        holder: Option<String>,
    },
    /// The writer quotes a claim cell that is empty: the process gave the session up.
    #[error(
        "nothing is written to session `{session_id}`: this process holds no writer claim on it"
    )]
    Unclaimed {
        /// The session.
        session_id: String,
    },
    /// The event writer has shut down and accepts no more events.
    #[error("the event writer is closed")]
    WriterClosed,
    /// The writer's bus subscription fell behind, so some events never reached the store.
    #[error(
        "the event writer's subscription fell behind: {missed} event(s) after seq {after_seq} \
         were not stored (register the writer's sink as an inline bus handler to never miss any)"
    )]
    WriterLagged {
        /// How many events were dropped.
        missed: u64,
        /// The last seq received before the gap.
        after_seq: u64,
    },
    /// Some events sent to the writer could not be stored.
    #[error("the event writer failed to store {failed} event(s); first error: {first}")]
    WriterFailed {
        /// How many events failed since the last flush.
        failed: u64,
        /// The first failure, as text.
        first: String,
    },
    /// The writer's task stopped abnormally.
    #[error("the event writer's task stopped abnormally: {0}")]
    WriterTask(String),
    /// A control message too large to relay.
    #[error("the control message is {size} bytes; at most {max} can be relayed")]
    ControlTooLarge {
        /// Its encoded size.
        size: usize,
        /// The limit ([`MAX_CONTROL_BYTES`](crate::MAX_CONTROL_BYTES)).
        max: usize,
    },
    /// Any other database error.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

impl StoreError {
    /// A [`StoreError::NotFound`] for a session.
    pub fn session_not_found(id: impl Into<String>) -> Self {
        Self::NotFound {
            what: "session",
            id: id.into(),
        }
    }

    /// A [`StoreError::NotFound`] for a turn.
    pub fn turn_not_found(id: impl Into<String>) -> Self {
        Self::NotFound {
            what: "turn",
            id: id.into(),
        }
    }

    /// True for [`StoreError::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }

    /// True for [`StoreError::Fenced`] and [`StoreError::Unclaimed`]: the writer may not write
    /// the session (another process does, or this one gave it up).
    pub fn is_fenced(&self) -> bool {
        matches!(self, Self::Fenced { .. } | Self::Unclaimed { .. })
    }
}

/// Result alias for store operations.
pub type StoreResult<T> = Result<T, StoreError>;
