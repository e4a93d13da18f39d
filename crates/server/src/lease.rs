//! Turn leases: how instances sharing one database tell a turn whose instance died from one
//! that is still running elsewhere.
//!
//! Each turn is begun under this instance's lease ([`AppState::lease`]), which the keeper
//! renews every third of its length. A sweep, at start and after each renewal, fails the
//! running turns whose lease lapsed (their instance stopped renewing: it died), and at start
//! also the turns this instance itself left running before it restarted, so a lone instance
//! recovers at once. Each failed turn gets a `system.error` on its session, continuing the
//! stored seq, and its session is marked failed. A turn this instance runs that the renewal no
//! longer returns was failed by another instance (this one stalled past its lease): it is
//! cancelled here.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use keel_store::{SessionStatus, Turn};

use crate::server::ServerError;
use crate::state::{AppState, SharedState};

/// Fails the turns whose lease lapsed and, when `restarted` is set, the turns this instance
/// left running before it restarted; records each on its session. Returns how many.
pub async fn recover(state: &AppState, restarted: bool) -> Result<usize, ServerError> {
    let owner = restarted.then_some(state.lease.owner.as_str());
    let turns = state.store.fail_expired_turns(owner).await?;
    for turn in &turns {
        record_failed(state, turn).await?;
    }
    Ok(turns.len())
}

async fn record_failed(state: &AppState, turn: &Turn) -> Result<(), ServerError> {
    let live = state.live(&turn.session_id);
    live.record_interrupted(state, turn).await?;
    state
        .store
        .set_session_status(&turn.session_id, SessionStatus::Failed)
        .await?;
    Ok(())
}

/// How often the lease is renewed (and lapsed leases swept): a third of its length, so two
/// renewals can fail before it lapses.
pub fn renew_every(lease: Duration) -> Duration {
    (lease / 3).max(Duration::from_millis(50))
}

/// Renews this instance's lease, cancels the turns it lost, and sweeps lapsed leases, forever.
pub async fn keep(state: SharedState) {
    let mut tick = tokio::time::interval(renew_every(state.lease.ttl));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        renew(&state).await;
        // A store error here is retried at the next tick.
        let _ = recover(&state, false).await;
    }
}

/// Renews the lease; a turn running here that it no longer covers is cancelled.
async fn renew(state: &Arc<AppState>) {
    // Taken before renewing: a turn begun after this is not judged by this renewal.
    let running = state.running_turns();
    let Ok(held) = state.store.renew_turn_leases(&state.lease).await else {
        return;
    };
    let held: HashSet<String> = held.into_iter().collect();
    for (session, turn_id) in running {
        if !held.contains(&turn_id) {
            session.cancel_turn(&turn_id);
        }
    }
}
