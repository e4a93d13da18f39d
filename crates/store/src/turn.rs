//! Turns: one user request inside a session, with the client's idempotency key.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::status::stored_names;

/// Where a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    /// Still being served.
    Running,
    /// Finished normally.
    Completed,
    /// Failed, or was interrupted (e.g. by a server restart).
    Failed,
    /// Cancelled by the user.
    Cancelled,
}

stored_names!(TurnStatus, UnknownTurnStatus {
    Running => "running",
    Completed => "completed",
    Failed => "failed",
    Cancelled => "cancelled",
});

/// A status name that is not one of [`TurnStatus::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown turn status `{0}` (expected running, completed, failed or cancelled)")]
pub struct UnknownTurnStatus(pub String);

/// How a turn ended: the final statuses a running turn can move to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    /// Finished normally.
    Completed,
    /// Failed.
    Failed,
    /// Cancelled by the user.
    Cancelled,
}

impl From<TurnOutcome> for TurnStatus {
    fn from(outcome: TurnOutcome) -> Self {
        match outcome {
            TurnOutcome::Completed => Self::Completed,
            TurnOutcome::Failed => Self::Failed,
            TurnOutcome::Cancelled => Self::Cancelled,
        }
    }
}

/// A stored turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Turn id; events of the turn carry it as `turn_id`.
    pub id: String,
    /// Session the turn belongs to.
    pub session_id: String,
    /// The client's idempotency key, unique within the session.
    pub request_id: Option<String>,
    /// The user's request.
    pub input: String,
    /// Where the turn stands.
    pub status: TurnStatus,
    /// Why the turn failed, if it did.
    pub error: Option<String>,
    /// When the turn began.
    pub started_at: DateTime<Utc>,
    /// When the turn ended, once it has.
    pub ended_at: Option<DateTime<Utc>>,
    /// The process serving the turn, if it took a [`TurnLease`].
    pub owner: Option<String>,
    /// Until when the owner's claim holds unless renewed; `None` for a turn begun without a
    /// lease (which no sweep of expired leases fails).
    pub lease_until: Option<DateTime<Utc>>,
}

/// A process's claim on the turns it serves. While the owner renews it
/// ([`Store::renew_turn_leases`](crate::Store::renew_turn_leases)) no other process fails
/// them; once it lapses, any process may
/// ([`Store::fail_expired_turns`](crate::Store::fail_expired_turns)). This is how several
/// processes share one database and still recover turns whose process died.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TurnLease {
    /// Who serves the turns: an id unique among the processes sharing the database, and stable
    /// across restarts if a restarted process should recover its own turns at once.
    pub owner: String,
    /// How long the claim holds without renewal. On PostgreSQL the database's clock measures
    /// it, so processes' clocks need not agree.
    pub ttl: Duration,
}

impl TurnLease {
    /// A claim by `owner` that holds for `ttl` without renewal.
    pub fn new(owner: impl Into<String>, ttl: Duration) -> Self {
        Self {
            owner: owner.into(),
            ttl,
        }
    }
}

/// What to begin a turn with. The turn starts [`TurnStatus::Running`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewTurn {
    /// Turn id; a UUID v7 is generated when `None`.
    pub id: Option<String>,
    /// Session the turn belongs to.
    pub session_id: String,
    /// The client's idempotency key: beginning a turn again with the same key returns the
    /// existing turn instead of a new one.
    pub request_id: Option<String>,
    /// The user's request.
    pub input: String,
    /// The serving process's claim; `None` leaves the turn unleased.
    pub lease: Option<TurnLease>,
}

impl NewTurn {
    /// A turn of `session_id` serving `input`.
    pub fn new(session_id: impl Into<String>, input: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            input: input.into(),
            ..Self::default()
        }
    }

    /// Uses `id` instead of a generated one.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets the client's idempotency key.
    pub fn with_request_id(mut self, request_id: impl Into<String>) -> Self {
        self.request_id = Some(request_id.into());
        self
    }

    /// Begins the turn under `lease`.
    pub fn with_lease(mut self, lease: TurnLease) -> Self {
        self.lease = Some(lease);
        self
    }
}

/// The result of [`Store::begin_turn`](crate::Store::begin_turn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnStart {
    /// The turn: new, or the one the request id already started.
    pub turn: Turn,
    /// False when the request id had already started this turn (a client retry).
    pub created: bool,
}

/// A running turn given to a new owner by
/// [`Store::take_over_turns`](crate::Store::take_over_turns), to continue it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnHandover {
    /// The turn, now under the new owner's lease.
    pub turn: Turn,
    /// Who ran it before (`None` for a turn begun without a lease).
    pub previous_owner: Option<String>,
}

/// The error recorded on turns that [`Store::fail_running_turns`](crate::Store::fail_running_turns)
/// and [`Store::fail_expired_turns`](crate::Store::fail_expired_turns) mark failed.
pub const INTERRUPTED_ERROR: &str = "interrupted: the process serving this turn stopped";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_round_trip() {
        for status in TurnStatus::ALL {
            assert_eq!(status.as_str().parse::<TurnStatus>(), Ok(status));
        }
        assert_eq!(
            "paused".parse::<TurnStatus>(),
            Err(UnknownTurnStatus("paused".to_owned()))
        );
        assert_eq!(
            TurnStatus::from(TurnOutcome::Cancelled),
            TurnStatus::Cancelled
        );
    }
}
