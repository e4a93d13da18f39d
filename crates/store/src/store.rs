//! The backend trait every store (SQLite, PostgreSQL) implements.

use async_trait::async_trait;
use keel_events::Event;
use serde_json::Value;

use crate::claim::{FencedTurnEnd, WriterClaim};
use crate::error::StoreResult;
use crate::range::EventRange;
use crate::session::{NewSession, Session, SessionFilter, SessionStatus, SessionUpdate};
use crate::turn::{NewTurn, Turn, TurnHandover, TurnLease, TurnOutcome, TurnStart};
use crate::watch::{AppendWatch, ControlMessage};

/// Sessions, their turns and their event log.
///
/// Events are append-only: each session's events are unique by `seq`, and appending a seq that
/// is already stored fails with [`StoreError::DuplicateSeq`](crate::StoreError::DuplicateSeq)
/// rather than overwriting it. Display-only events (`system.cli_display`) are never stored.
/// Events and turns belong to a session that must exist; deleting the session deletes them.
///
/// Object safe: front ends hold an `Arc<dyn Store>`.
#[async_trait]
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Short backend name (`"sqlite"` or `"postgres"`).
    fn backend(&self) -> &'static str;

    /// Creates a session, [`SessionStatus::Idle`], with no conversation yet.
    async fn create_session(&self, new: NewSession) -> StoreResult<Session>;

    /// One session by id.
    async fn get_session(&self, id: &str) -> StoreResult<Session>;

    /// Sessions matching `filter`, in its order (newest created first by default).
    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>>;

    /// Applies `update` and returns the session as stored afterwards.
    async fn update_session(&self, id: &str, update: SessionUpdate) -> StoreResult<Session>;

    /// Sets the session's status.
    async fn set_session_status(&self, id: &str, status: SessionStatus) -> StoreResult<Session> {
        self.update_session(id, SessionUpdate::status(status)).await
    }

    /// Deletes a session with its turns and events.
    async fn delete_session(&self, id: &str) -> StoreResult<()>;

    /// Replaces the session's conversation (opaque JSON, as the context crate serialises it).
    async fn save_conversation(&self, id: &str, conversation: &Value) -> StoreResult<()>;

    /// The session's conversation; `None` if none was saved yet.
    async fn load_conversation(&self, id: &str) -> StoreResult<Option<Value>>;

    /// Appends events in one transaction: either all storable events are stored or none is.
    /// Display-only events are skipped. Returns how many were stored.
    async fn append_batch(&self, events: &[&Event]) -> StoreResult<usize>;

    /// [`Store::append_batch`] for a slice of owned events.
    async fn append_events(&self, events: &[Event]) -> StoreResult<usize> {
        let refs: Vec<&Event> = events.iter().collect();
        self.append_batch(&refs).await
    }

    /// Appends one event; returns false if it was display-only and so not stored.
    async fn append_event(&self, event: &Event) -> StoreResult<bool> {
        Ok(self.append_batch(&[event]).await? == 1)
    }

    /// The session's events in `range`, in seq order.
    async fn read_events(&self, session_id: &str, range: EventRange) -> StoreResult<Vec<Event>>;

    /// The highest stored seq of the session, 0 when it has none (pass it to
    /// `Sequencer::resume`).
    async fn last_seq(&self, session_id: &str) -> StoreResult<u64>;

    /// How many events of the session are stored.
    async fn count_events(&self, session_id: &str) -> StoreResult<u64>;

    /// The lowest stored seq of the session, 0 when it has none. After
    /// [`Store::prune_events`], a client whose cursor is below `oldest_seq - 1` has missed events
    /// that are gone and must reload.
    async fn oldest_seq(&self, session_id: &str) -> StoreResult<u64>;

    /// Deletes the session's events with `seq <= keep_after_seq` (and, on PostgreSQL, their
    /// `agent_events` timeline rows); returns how many events were deleted. The session's newest
    /// event is always kept, so [`Store::last_seq`] never goes back.
    async fn prune_events(&self, session_id: &str, keep_after_seq: u64) -> StoreResult<u64>;

    /// Starts watching appends: one [`AppendNotice`](crate::AppendNotice) per session and
    /// committed append, from this process (SQLite: appends through this store value and its
    /// clones) or, on PostgreSQL, from every process using the database (LISTEN/NOTIFY). Appends
    /// committed after this returns are never missed silently: a gap is announced as
    /// [`WatchNotice::Resync`](crate::WatchNotice::Resync).
    async fn watch(&self) -> StoreResult<AppendWatch>;

    /// Sends `message` to every watch ([`WatchNotice::Control`](crate::WatchNotice::Control)):
    /// on PostgreSQL to every process on the database (`NOTIFY keel_control`), on SQLite to this
    /// store value and its clones. Fire and forget: nobody acknowledges it. A message larger than
    /// [`MAX_CONTROL_BYTES`](crate::MAX_CONTROL_BYTES) fails with
    /// [`StoreError::ControlTooLarge`](crate::StoreError::ControlTooLarge).
    async fn send_control(&self, message: &ControlMessage) -> StoreResult<()>;

    /// Begins a turn, or, when `new.request_id` already started one in this session, returns
    /// that turn with `created: false`. Reusing a request id for a different input fails with
    /// [`StoreError::RequestConflict`](crate::StoreError::RequestConflict). Does not change the
    /// session's status.
    async fn begin_turn(&self, new: NewTurn) -> StoreResult<TurnStart>;

    /// One turn by id.
    async fn get_turn(&self, turn_id: &str) -> StoreResult<Turn>;

    /// The turn a request id started in a session, if any.
    async fn turn_by_request_id(
        &self,
        session_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<Turn>>;

    /// The session's turns, oldest first.
    async fn list_turns(&self, session_id: &str) -> StoreResult<Vec<Turn>>;

    /// Ends a running turn. Ending a turn twice fails with
    /// [`StoreError::TurnNotRunning`](crate::StoreError::TurnNotRunning).
    async fn finish_turn(
        &self,
        turn_id: &str,
        outcome: TurnOutcome,
        error: Option<String>,
    ) -> StoreResult<Turn>;

    /// Marks every running turn failed with [`INTERRUPTED_ERROR`](crate::INTERRUPTED_ERROR) and
    /// returns them, for a process starting up after one that stopped mid-turn, when no other
    /// process uses the database. Sessions are left as they are.
    async fn fail_running_turns(&self) -> StoreResult<Vec<Turn>>;

    /// Extends the claim of `lease.owner` on its running turns to `lease.ttl` from now; returns
    /// the ids of the turns it still holds (one missing from them was failed by another
    /// process after the lease lapsed).
    async fn renew_turn_leases(&self, lease: &TurnLease) -> StoreResult<Vec<String>>;

    /// Marks failed, with [`INTERRUPTED_ERROR`](crate::INTERRUPTED_ERROR), the running turns
    /// whose lease has lapsed, and those held by `restarted_owner` whatever their lease (the
    /// caller's own turns from before it restarted); returns them, oldest first. Unleased
    /// turns are left alone, and so are the turns of every process that keeps renewing.
    /// Each turn is failed by one caller only, however many sweep at once.
    async fn fail_expired_turns(&self, restarted_owner: Option<&str>) -> StoreResult<Vec<Turn>>;

    /// Gives `lease.owner` the running turns whose lease has lapsed — and, with `include_own`,
    /// the running turns it already owns — to continue them; returns each with its previous
    /// owner, oldest first. Each lapsed turn goes to one caller only, however many sweep at
    /// once; unleased turns are left alone.
    async fn take_over_turns(
        &self,
        lease: &TurnLease,
        include_own: bool,
    ) -> StoreResult<Vec<TurnHandover>>;

    /// Lets `owner`'s running turn `turn_id` go: its lease lapses now, so the next sweep of
    /// any process takes it over ([`Store::take_over_turns`]). False when `owner` did not
    /// hold it running.
    async fn release_turn_lease(&self, turn_id: &str, owner: &str) -> StoreResult<bool>;

    /// Claims the writing of session `session_id` for `lease.owner`, for `lease.ttl` unless
    /// renewed: granted when nobody holds it, when the owner already does (same epoch) or when
    /// the holder's claim has lapsed (a new epoch). Otherwise
    /// [`StoreError::WriterHeld`](crate::StoreError::WriterHeld) names the holder.
    async fn claim_writer(&self, session_id: &str, lease: &TurnLease) -> StoreResult<WriterClaim>;

    /// Extends every claim `lease.owner` still holds to `lease.ttl` from now; returns them (a
    /// session missing from them was taken over by another process, or released).
    async fn renew_writers(&self, lease: &TurnLease) -> StoreResult<Vec<WriterClaim>>;

    /// Gives up `claim`; false when it was no longer held.
    async fn release_writer(&self, claim: &WriterClaim) -> StoreResult<bool>;

    /// Who holds session `session_id`'s writer claim (lapsed or not), if anyone.
    async fn writer_of(&self, session_id: &str) -> StoreResult<Option<String>>;

    /// [`Store::append_batch`] under `claim`: the events (all of the claim's session) are
    /// stored only while the claim is current — checked by the database in the same
    /// transaction — and refused whole with [`StoreError::Fenced`](crate::StoreError::Fenced)
    /// otherwise.
    async fn append_fenced(&self, claim: &WriterClaim, events: &[&Event]) -> StoreResult<usize>;

    /// Ends work under `claim`: saves the conversation, sets the session's status, ends the
    /// turn — in that order, each refused with [`StoreError::Fenced`](crate::StoreError::Fenced)
    /// (and the rest not attempted) once the claim is stale.
    async fn end_turn_fenced(&self, claim: &WriterClaim, end: FencedTurnEnd<'_>)
    -> StoreResult<()>;

    /// Closes the backend's connections; later calls fail.
    async fn close(&self);
}
