//! Turn leases: telling a turn whose process died from one still running elsewhere.
//!
//! A process begins each turn under its [`TurnLease`] and renews it every [`renew_every`] of
//! its length while the turn runs ([`LeaseRenewal`] for one turn, or the server's keeper for
//! all of an instance's). A turn the renewal no longer returns was failed by another process
//! after this one stalled past its lease: its run is cancelled. [`recover_lapsed_turns`] fails
//! the turns whose lease lapsed, records a `system.error` on each one's session (continuing its
//! stored seq) and marks the session failed.

use std::sync::Arc;
use std::time::Duration;

use keel_events::{Sequencer, SystemError};
use keel_store::{SessionStatus, Store, StoreResult, Turn, TurnLease};
use tokio_util::sync::CancellationToken;

use crate::error::HostError;

/// How often a lease is renewed: a third of its length, so two renewals can fail before it
/// lapses.
pub fn renew_every(lease: Duration) -> Duration {
    (lease / 3).max(Duration::from_millis(50))
}

/// Renews `lease` for one running turn until dropped, cancelling `cancel` if the turn is lost
/// (failed by another process while this one stalled).
#[derive(Debug)]
pub struct LeaseRenewal {
    task: tokio::task::JoinHandle<()>,
}

impl LeaseRenewal {
    /// Starts renewing (inside a Tokio runtime).
    pub fn start(
        store: Arc<dyn Store>,
        lease: TurnLease,
        turn_id: String,
        cancel: CancellationToken,
    ) -> Self {
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(renew_every(lease.ttl));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                match store.renew_turn_leases(&lease).await {
                    Ok(held) if !held.contains(&turn_id) => {
                        tracing::warn!(turn_id, "the turn's lease was lost; cancelling it");
                        cancel.cancel();
                        return;
                    }
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!(turn_id, %error, "cannot renew the running turn's lease");
                    }
                }
            }
        });
        Self { task }
    }
}

impl Drop for LeaseRenewal {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Renews `lease` and returns the turns among `running` it no longer holds.
pub async fn renew_lease(
    store: &dyn Store,
    lease: &TurnLease,
    running: impl IntoIterator<Item = String>,
) -> StoreResult<Vec<String>> {
    let held = store.renew_turn_leases(lease).await?;
    Ok(running
        .into_iter()
        .filter(|turn| !held.contains(turn))
        .collect())
}

/// Where the `system.error` of an interrupted turn goes: onto its session's event log.
pub trait InterruptRecorder: Sync {
    /// Appends `error` to the session of `turn`, after its stored events.
    fn record(
        &self,
        turn: &Turn,
        error: SystemError,
    ) -> impl Future<Output = Result<(), HostError>> + Send;
}

/// Appends straight to the store: for a process that produces nothing else on those sessions.
#[derive(Debug, Clone, Copy)]
pub struct AppendToStore<'a>(pub &'a dyn Store);

impl InterruptRecorder for AppendToStore<'_> {
    async fn record(&self, turn: &Turn, error: SystemError) -> Result<(), HostError> {
        let store = self.0;
        let session = store.get_session(&turn.session_id).await?;
        let last = store.last_seq(&session.id).await?;
        let event = Sequencer::resume(&session.id, &session.project_id, last).stamp(None, error);
        store.append_event(&event).await?;
        Ok(())
    }
}

/// The `system.error` recorded on the session of a turn whose process stopped running it.
pub fn interrupted_error(turn: &Turn) -> SystemError {
    let by = match &turn.owner {
        Some(owner) => format!(" (instance `{owner}`)"),
        None => String::new(),
    };
    SystemError {
        error: format!(
            "turn `{}` was interrupted: the process running it{by} stopped",
            turn.id
        ),
        error_type: "interrupted".to_owned(),
        recoverable: true,
        stack: None,
        error_display: None,
    }
}

/// Fails the running turns whose lease lapsed — and, with `restarted_owner`, that owner's turns
/// whatever their lease (a process's own turns from before it restarted) — records each with
/// `recorder` and marks its session failed. Returns the failed turns, oldest first.
pub async fn recover_lapsed_turns(
    store: &dyn Store,
    restarted_owner: Option<&str>,
    recorder: &impl InterruptRecorder,
) -> Result<Vec<Turn>, HostError> {
    let turns = store.fail_expired_turns(restarted_owner).await?;
    for turn in &turns {
        recorder.record(turn, interrupted_error(turn)).await?;
        store
            .set_session_status(&turn.session_id, SessionStatus::Failed)
            .await?;
        tracing::info!(
            turn_id = turn.id,
            session_id = turn.session_id,
            "recovered an interrupted turn"
        );
    }
    Ok(turns)
}
