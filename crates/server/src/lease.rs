//! Turn leases for an instance: the keeper that renews this instance's lease on every turn it
//! runs and sweeps the turns of instances that stopped renewing.
//!
//! Each turn is begun under this instance's lease ([`AppState::lease`]), which the keeper
//! renews every third of its length. A sweep, at start and after each renewal, fails the
//! running turns whose lease lapsed (their instance stopped renewing: it died), and at start
//! also the turns this instance itself left running before it restarted, so a lone instance
//! recovers at once. The session host ([`keel_host::recover_lapsed_turns`]) records each
//! failed turn on its session through that session's producer here. A turn this instance runs
//! that the renewal no longer covers was failed by another instance (this one stalled past its
//! lease): it is cancelled here.

use std::sync::Arc;

use keel_events::SystemError;
use keel_host::{HostError, InterruptRecorder, recover_lapsed_turns, renew_every, renew_lease};
use keel_store::Turn;

use crate::error::ServerError;
use crate::state::{AppState, SharedState};

/// Records an interrupted turn on its session's live producer.
struct LiveRecorder<'a>(&'a AppState);

impl InterruptRecorder for LiveRecorder<'_> {
    async fn record(&self, turn: &Turn, error: SystemError) -> Result<(), HostError> {
        let live = self.0.live(&turn.session_id);
        Ok(live.record_interrupted(self.0, error).await?)
    }
}

/// Fails the turns whose lease lapsed and, when `restarted` is set, the turns this instance
/// left running before it restarted; records each on its session. Returns how many.
pub async fn recover(state: &AppState, restarted: bool) -> Result<usize, ServerError> {
    let owner = restarted.then_some(state.lease.owner.as_str());
    let turns = recover_lapsed_turns(state.store.as_ref(), owner, &LiveRecorder(state)).await?;
    Ok(turns.len())
}

/// Renews this instance's lease, cancels the turns it lost, and sweeps lapsed leases, forever.
pub async fn keep(state: SharedState) {
    let mut tick = tokio::time::interval(renew_every(state.lease.ttl));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        renew(&state).await;
        if let Err(error) = recover(&state, false).await {
            // Retried at the next tick.
            tracing::warn!(%error, "cannot sweep lapsed turn leases");
        }
    }
}

/// Renews the lease; a turn running here that it no longer covers is cancelled.
async fn renew(state: &Arc<AppState>) {
    // Taken before renewing: a turn begun after this is not judged by this renewal.
    let running = state.running_turns();
    let ids = running.iter().map(|(_, turn)| turn.clone());
    let lost = match renew_lease(state.store.as_ref(), &state.lease, ids).await {
        Ok(lost) => lost,
        Err(error) => {
            tracing::warn!(%error, "cannot renew the turn lease");
            return;
        }
    };
    for (session, turn_id) in running {
        if lost.contains(&turn_id) {
            session.cancel_turn(&turn_id);
        }
    }
}
