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
