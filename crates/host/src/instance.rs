//! A process that hosts sessions alongside other processes on one shared store (a server
//! instance): every turn it runs is begun under its [`TurnLease`], every session it writes is
//! written under its [`WriterClaim`], and every turn it takes over from a process that stopped
//! is continued or ended here. The store's session rows, turn rows, leases and claims are
//! written only through this type; the front end decides when (a request, a sweep, a drain)
//! and broadcasts.

use std::sync::Arc;

use keel_store::{
    NewSession, NewTurn, Session, SessionStatus, Store, StoreResult, Turn, TurnHandover, TurnLease,
    TurnStart, TurnStatus, WriterClaim,
};

use crate::error::HostError;
use crate::handover::{Continuation, plan_continuation};
use crate::lease::renew_lease;
use crate::saved::SavedConversation;
use crate::turn::{TurnEnd, finish_turn_fenced};

/// This instance's side of the sessions it hosts on a shared store.
#[derive(Debug, Clone)]
pub struct InstanceHost {
    store: Arc<dyn Store>,
    lease: TurnLease,
}

/// How recording a turn's end went, for the front end's log.
#[derive(Debug)]
pub enum EndRecorded {
    /// The conversation, the session's status and the turn row are stored.
    Stored,
    /// Another instance took the session over: nothing was recorded here.
    Fenced(HostError),
    /// The store failed.
    Failed(HostError),
}

impl EndRecorded {
    /// What went wrong, when the end was not stored.
    pub fn error(self) -> Option<HostError> {
        match self {
            Self::Stored => None,
            Self::Fenced(error) | Self::Failed(error) => Some(error),
        }
    }
}

impl InstanceHost {
    /// Hosts sessions on `store` under `lease` (this instance's id and lease length).
    pub fn new(store: Arc<dyn Store>, lease: TurnLease) -> Self {
        Self { store, lease }
    }

    /// The lease this instance begins its turns under.
    pub fn lease(&self) -> &TurnLease {
        &self.lease
    }

    /// Creates a session row (a session nobody works on yet).
    pub async fn create_session(&self, new: NewSession) -> StoreResult<Session> {
        self.store.create_session(new).await
    }

    /// The turn request `request_id` of session `session_id` started, if any.
    pub async fn turn_by_request_id(
        &self,
        session_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<Turn>> {
        self.store.turn_by_request_id(session_id, request_id).await
    }

    /// The session's turns, oldest first.
    pub async fn turns(&self, session_id: &str) -> StoreResult<Vec<Turn>> {
        self.store.list_turns(session_id).await
    }

    /// The session's running turn, as stored (on any instance).
    pub async fn running_turn(&self, session_id: &str) -> StoreResult<Option<Turn>> {
        Ok(self
            .store
            .list_turns(session_id)
            .await?
            .into_iter()
            .find(|t| t.status == TurnStatus::Running))
    }

    /// Whether turn `turn_id` still runs, as stored.
    pub async fn is_running(&self, turn_id: &str) -> StoreResult<bool> {
        Ok(self.store.get_turn(turn_id).await?.status == TurnStatus::Running)
    }

    /// Begins a turn of `session_id` with `input` for request `request_id` under this
    /// instance's lease, and marks the session running when the turn is new (a repeated
    /// request gives back the turn it started).
    pub async fn begin_turn(
        &self,
        session_id: &str,
        request_id: String,
        input: String,
    ) -> StoreResult<TurnStart> {
        let new = NewTurn::new(session_id.to_owned(), input)
            .with_request_id(request_id)
            .with_lease(self.lease.clone());
        let start = self.store.begin_turn(new).await?;
        if start.created {
            self.store
                .set_session_status(session_id, SessionStatus::Running)
                .await?;
        }
        Ok(start)
    }

    /// Records how turn `turn_id` ended under the session's writer `claim`: the conversation
    /// (`saved`), the session's status and the turn row, each refused once another instance
    /// took the session over.
    pub async fn end_turn(
        &self,
        claim: &WriterClaim,
        turn_id: &str,
        end: &TurnEnd,
        saved: Option<&SavedConversation>,
    ) -> EndRecorded {
        match finish_turn_fenced(self.store.as_ref(), claim, Some(turn_id), end, saved).await {
            Ok(()) => EndRecorded::Stored,
            Err(HostError::Store(e)) if e.is_fenced() => EndRecorded::Fenced(e.into()),
            Err(error) => EndRecorded::Failed(error),
        }
    }

    /// Renews this instance's lease; returns the turns among `running` it no longer holds
    /// (another instance took them over).
    pub async fn renew_lease(
        &self,
        running: impl IntoIterator<Item = String>,
    ) -> StoreResult<Vec<String>> {
        renew_lease(self.store.as_ref(), &self.lease, running).await
    }

    /// Takes over the running turns whose lease lapsed and this instance's own turns from
    /// before it restarted.
    pub async fn take_over_turns(&self) -> StoreResult<Vec<TurnHandover>> {
        self.store.take_over_turns(&self.lease, true).await
    }

    /// What to do with a turn handed to this instance (see [`plan_continuation`]).
    pub async fn plan_continuation(
        &self,
        handover: &TurnHandover,
    ) -> Result<Continuation, HostError> {
        plan_continuation(self.store.as_ref(), handover, &self.lease.owner).await
    }

    /// Lets turn `turn_id`'s lease go (drain): the next sweep elsewhere continues it.
    pub async fn release_turn_lease(&self, turn_id: &str) -> StoreResult<bool> {
        self.store
            .release_turn_lease(turn_id, &self.lease.owner)
            .await
    }

    /// Takes session `session_id`'s writer claim (refused with
    /// [`StoreError::WriterHeld`](keel_store::StoreError::WriterHeld) while another instance
    /// holds it).
    pub async fn claim_writer(&self, session_id: &str) -> StoreResult<WriterClaim> {
        self.store.claim_writer(session_id, &self.lease).await
    }

    /// Renews this instance's writer claims; returns those it still holds.
    pub async fn renew_writers(&self) -> StoreResult<Vec<WriterClaim>> {
        self.store.renew_writers(&self.lease).await
    }

    /// Gives `claim` up.
    pub async fn release_writer(&self, claim: &WriterClaim) -> StoreResult<bool> {
        self.store.release_writer(claim).await
    }
}
