//! Turn leases and writer claims for an instance: the keeper that renews this instance's lease
//! on every turn it runs and its claim on every session it writes, and continues the turns of
//! instances that stopped renewing.
//!
//! Each turn is begun under this instance's lease ([`AppState::lease`]), and each session's
//! events are written under its writer claim; the keeper renews both every third of the lease.
//! A sweep, at start and after each renewal, takes over the running turns whose lease lapsed
//! (their instance died, stalled or drained) and, at start, the turns this instance itself
//! left running before it restarted, and continues each from its last committed state
//! ([`LiveSession::continue_turn`](crate::live::LiveSession::continue_turn)); a turn that
//! cannot be continued ends failed, properly. A turn or a session this instance runs that the
//! renewal no longer covers was taken over by another instance (this one stalled past its
//! lease): the work here stops and writes nothing more.

use std::sync::Arc;

use keel_host::renew_every;

use crate::error::ServerError;
use crate::state::{AppState, SharedState};

/// Takes over the running turns whose lease lapsed, and this instance's own turns that do not
/// run here (left by its previous run, or whose session was busy at the last sweep), and
/// continues each. Returns how many it began continuing. Nothing while draining.
pub async fn recover(state: &Arc<AppState>) -> Result<usize, ServerError> {
    if state.is_draining() {
        return Ok(0);
    }
    let handovers = state.host.take_over_turns().await?;
    let mut continued = 0;
    for handover in handovers {
        let live = state.live(&handover.turn.session_id);
        if live.turn_running() {
            // Running here: the sweep only renewed its lease.
            continue;
        }
        if live.continue_turn(state, handover).await {
            continued += 1;
        }
    }
    Ok(continued)
}

/// Renews this instance's lease and claims, stops the work it lost, and sweeps lapsed leases,
/// until the instance drains.
pub async fn keep(state: SharedState) {
    let mut tick = tokio::time::interval(renew_every(state.lease.ttl));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        // Held for the whole tick: a drain waits for it, so no renewal follows a hand-over.
        let _tick = state.keeper.lock().await;
        if state.is_draining() {
            return;
        }
        renew(&state).await;
        if let Err(error) = recover(&state).await {
            // Retried at the next tick.
            tracing::warn!(%error, "cannot sweep lapsed turn leases");
        }
    }
}

/// Renews the lease and the writer claims; a turn running here that the lease no longer
/// covers is given up, a session whose claim it no longer covers stops its work.
async fn renew(state: &Arc<AppState>) {
    // Taken before renewing: work begun after this is not judged by this renewal.
    let running = state.running_turns();
    let claims: Vec<_> = state
        .live_sessions()
        .into_iter()
        .filter_map(|live| Some((live.held_claim()?, live)))
        .collect();
    let ids = running.iter().map(|(_, turn)| turn.clone());
    match state.host.renew_lease(ids).await {
        Ok(lost) => {
            for (session, turn_id) in running {
                if lost.contains(&turn_id) {
                    tracing::warn!(
                        session_id = session.id,
                        turn_id,
                        "the turn's lease was taken over: stopping it here"
                    );
                    session.hand_over(state).await;
                }
            }
        }
        Err(error) => tracing::warn!(%error, "cannot renew the turn lease"),
    }
    match state.host.renew_writers().await {
        Ok(held) => {
            for (claim, live) in claims {
                if !held.contains(&claim) {
                    live.claim_lost(&claim);
                }
            }
        }
        Err(error) => tracing::warn!(%error, "cannot renew the writer claims"),
    }
}

/// Drains the instance: no new turns, every turn running here handed over to the other
/// instances (its lease let go, its writer claim given up), then waits — at most `budget` —
/// for the local runs to stop.
pub async fn drain(state: &Arc<AppState>, budget: std::time::Duration) {
    let deadline = tokio::time::Instant::now() + budget;
    state.start_draining();
    // A renewal in flight would take a handed-over lease back: wait for it.
    let _keeper = state.keeper.lock().await;
    let mut handed = Vec::new();
    for live in state.live_sessions() {
        if live.turn_running()
            && let Some(turn_id) = live.hand_over(state).await
        {
            handed.push(turn_id);
        }
    }
    tracing::info!(turns = handed.len(), "draining: running turns handed over");
    while tokio::time::Instant::now() < deadline
        && state.live_sessions().iter().any(|live| live.is_busy())
    {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
