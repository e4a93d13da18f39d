//! The store logic, written once for every [`Backend`]: the [`Store`] implementation over the
//! `sessions`, `turns` and `events` tables, with the SQL both dialects share. A backend adds
//! only what is its own (see [`crate::backend`]).

pub(crate) mod events;
mod sessions;
mod turns;
pub(crate) mod usage;
mod writers;

use async_trait::async_trait;
use keel_events::Event;
use serde_json::Value;

use crate::backend::{Backend, Statement};
use crate::claim::{FencedTurnEnd, WriterClaim};
use crate::error::{StoreError, StoreResult};
use crate::range::EventRange;
use crate::session::{NewSession, Session, SessionFilter, SessionUpdate};
use crate::store::Store;
use crate::turn::{NewTurn, Turn, TurnHandover, TurnLease, TurnOutcome, TurnStart};
use crate::watch::{AppendWatch, ControlMessage};

pub(crate) use sessions::session_columns;
pub(crate) use turns::turn_columns;

/// The row `statement` yields, or the error `missing` makes when it yields none.
async fn expect_row<B: Backend>(
    backend: &B,
    statement: Statement<'_>,
    missing: impl FnOnce() -> StoreError,
) -> StoreResult<B::Row> {
    backend.row(statement).await?.ok_or_else(missing)
}

#[async_trait]
impl<B: Backend> Store for B {
    fn backend(&self) -> &'static str {
        B::NAME
    }

    async fn create_session(&self, new: NewSession) -> StoreResult<Session> {
        sessions::create(self, new).await
    }

    async fn get_session(&self, id: &str) -> StoreResult<Session> {
        sessions::get(self, id).await
    }

    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
        sessions::list(self, filter).await
    }

    async fn update_session(&self, id: &str, update: SessionUpdate) -> StoreResult<Session> {
        sessions::update(self, id, update).await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        self.remove_session(id).await
    }

    async fn save_conversation(&self, id: &str, conversation: &Value) -> StoreResult<()> {
        sessions::save_conversation(self, id, conversation).await
    }

    async fn load_conversation(&self, id: &str) -> StoreResult<Option<Value>> {
        sessions::load_conversation(self, id).await
    }

    async fn append_batch(&self, events: &[&Event]) -> StoreResult<usize> {
        self.append(events).await
    }

    async fn read_events(&self, session_id: &str, range: EventRange) -> StoreResult<Vec<Event>> {
        events::read(self, session_id, range).await
    }

    async fn last_seq(&self, session_id: &str) -> StoreResult<u64> {
        events::last_seq(self, session_id).await
    }

    async fn count_events(&self, session_id: &str) -> StoreResult<u64> {
        events::count(self, session_id).await
    }

    async fn oldest_seq(&self, session_id: &str) -> StoreResult<u64> {
        events::oldest_seq(self, session_id).await
    }

    async fn prune_events(&self, session_id: &str, keep_after_seq: u64) -> StoreResult<u64> {
        // Seqs above i64::MAX are never stored: clamping keeps the meaning "everything up to it".
        let keep_after = i64::try_from(keep_after_seq).unwrap_or(i64::MAX);
        self.prune(session_id, keep_after).await
    }

    async fn watch(&self) -> StoreResult<AppendWatch> {
        self.subscribe().await
    }

    async fn send_control(&self, message: &ControlMessage) -> StoreResult<()> {
        self.relay_control(message).await
    }

    async fn begin_turn(&self, new: NewTurn) -> StoreResult<TurnStart> {
        turns::begin(self, new).await
    }

    async fn get_turn(&self, turn_id: &str) -> StoreResult<Turn> {
        turns::get(self, turn_id).await
    }

    async fn turn_by_request_id(
        &self,
        session_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<Turn>> {
        turns::by_request_id(self, session_id, request_id).await
    }

    async fn list_turns(&self, session_id: &str) -> StoreResult<Vec<Turn>> {
        turns::list(self, session_id).await
    }

    async fn finish_turn(
        &self,
        turn_id: &str,
        outcome: TurnOutcome,
        error: Option<String>,
    ) -> StoreResult<Turn> {
        turns::finish(self, turn_id, outcome, error).await
    }

    async fn fail_running_turns(&self) -> StoreResult<Vec<Turn>> {
        turns::fail_running(self).await
    }

    async fn renew_turn_leases(&self, lease: &TurnLease) -> StoreResult<Vec<String>> {
        turns::renew_leases(self, lease).await
    }

    async fn fail_expired_turns(&self, restarted_owner: Option<&str>) -> StoreResult<Vec<Turn>> {
        turns::fail_expired(self, restarted_owner).await
    }

    async fn take_over_turns(
        &self,
        lease: &TurnLease,
        include_own: bool,
    ) -> StoreResult<Vec<TurnHandover>> {
        turns::take_over(self, lease, include_own).await
    }

    async fn release_turn_lease(&self, turn_id: &str, owner: &str) -> StoreResult<bool> {
        turns::release_lease(self, turn_id, owner).await
    }

    async fn claim_writer(&self, session_id: &str, lease: &TurnLease) -> StoreResult<WriterClaim> {
        writers::claim(self, session_id, lease).await
    }

    async fn renew_writers(&self, lease: &TurnLease) -> StoreResult<Vec<WriterClaim>> {
        writers::renew(self, lease).await
    }

    async fn release_writer(&self, claim: &WriterClaim) -> StoreResult<bool> {
        writers::release(self, claim).await
    }

    async fn writer_of(&self, session_id: &str) -> StoreResult<Option<String>> {
        writers::holder(self, session_id).await
    }

    async fn append_fenced(&self, claim: &WriterClaim, events: &[&Event]) -> StoreResult<usize> {
        if let Some(other) = events.iter().find(|e| e.session_id != claim.session_id) {
            return Err(StoreError::InvalidInput {
                field: "fenced append",
                reason: format!(
                    "an event of session `{}` under the claim on session `{}`",
                    other.session_id, claim.session_id
                ),
            });
        }
        match self.append_claimed(claim, events).await {
            Err(StoreError::Fenced { .. }) => Err(writers::fenced(self, claim).await),
            other => other,
        }
    }

    async fn end_turn_fenced(
        &self,
        claim: &WriterClaim,
        end: FencedTurnEnd<'_>,
    ) -> StoreResult<()> {
        writers::end_turn(self, claim, end).await
    }

    async fn close(&self) {
        self.close_connections().await
    }
}
