//! One writer per session: the claim a process holds on a session while it writes the
//! session's events, and the fencing token its writes quote.
//!
//! A process claims a session ([`Store::claim_writer`](crate::Store::claim_writer)) before it
//! produces events on it, renews the claim with its turn leases
//! ([`Store::renew_writers`](crate::Store::renew_writers)) and releases it when its work there
//! ends. A claim taken from another process (whose claim lapsed) or after a release gets a new
//! epoch; appends ([`Store::append_fenced`](crate::Store::append_fenced)) and the end of a turn
//! ([`Store::end_turn_fenced`](crate::Store::end_turn_fenced)) quote it, and the database
//! refuses them with [`StoreError::Fenced`](crate::StoreError::Fenced) once the epoch has moved
//! on — a stalled process that wakes up after another took its session over writes nothing.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::session::SessionStatus;
use crate::turn::TurnOutcome;

/// A process's claim on writing one session: who, and the fencing token its writes quote.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WriterClaim {
    /// The session written.
    pub session_id: String,
    /// The writing process (its lease owner id).
    pub owner: String,
    /// The fencing token: it grows with every claim taken from another process or after a
    /// release.
    pub epoch: i64,
}

/// The claim an [`EventWriter`](crate::EventWriter) quotes, set and cleared while it runs: a
/// process takes the claim when work on the session begins and gives it up when the work ends,
/// keeping its writer (and the seq it continues) in between. While it is empty the writer
/// stores nothing ([`StoreError::Unclaimed`](crate::StoreError::Unclaimed)). Cheap to clone;
/// clones share the claim.
#[derive(Debug, Clone, Default)]
pub struct SharedClaim(Arc<Mutex<Option<WriterClaim>>>);

impl SharedClaim {
    /// A cell holding `claim`.
    pub fn new(claim: Option<WriterClaim>) -> Self {
        Self(Arc::new(Mutex::new(claim)))
    }

    /// The claim now held, if any.
    pub fn get(&self) -> Option<WriterClaim> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Holds `claim` from now on.
    pub fn set(&self, claim: WriterClaim) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(claim);
    }

    /// Empties the cell; returns the claim it held.
    pub fn take(&self) -> Option<WriterClaim> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// How a turn ends, written under a [`WriterClaim`] by
/// [`Store::end_turn_fenced`](crate::Store::end_turn_fenced): the conversation, the session's
/// status and the turn row, in that order, each refused once the claim is stale.
#[derive(Debug, Clone, PartialEq)]
pub struct FencedTurnEnd<'a> {
    /// The conversation to save (opaque JSON), if any.
    pub conversation: Option<&'a Value>,
    /// The session's status afterwards.
    pub session_status: SessionStatus,
    /// The turn to end, if the work was a turn.
    pub turn_id: Option<&'a str>,
    /// How it ended.
    pub outcome: TurnOutcome,
    /// Why it failed, if it did.
    pub error: Option<String>,
}
