//! The session's tap on its own bus: records the turn's file changes and forwards every event
//! to a `run()` stream while one is open.

use std::sync::{Arc, Mutex, MutexGuard};

use keel_events::{Event, EventHandler, EventKind};
use tokio::sync::mpsc::UnboundedSender;

/// What the bus handler shares with the session.
#[derive(Debug, Default)]
struct TapState {
    /// Where `run()` wants the events.
    forward: Option<UnboundedSender<Arc<Event>>>,
    /// Paths of `run.file.change` events since the turn started, in order (with repeats).
    changes: Vec<String>,
}

/// Inline bus handler: records file changes and forwards events to a `run()` stream.
struct Tap(Arc<Mutex<TapState>>);

impl EventHandler for Tap {
    fn handle(&mut self, event: &Event) {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let EventKind::RunFileChange(change) = &event.kind {
            if let Some(from) = &change.from_path {
                state.changes.push(from.clone());
            }
            state.changes.push(change.path.clone());
        }
        if let Some(tx) = &state.forward {
            // An error only means the stream was dropped.
            let _ = tx.send(Arc::new(event.clone()));
        }
    }
}

/// The session's side of the tap: the file changes of the running turn, and where events are
/// forwarded. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChangeLog(Arc<Mutex<TapState>>);

impl ChangeLog {
    /// A log fed by a handler added to `bus`.
    pub(crate) fn attach(bus: &keel_events::Bus) -> Self {
        let log = Self::default();
        bus.add_handler(Tap(Arc::clone(&log.0)));
        log
    }

    /// Forgets the changes recorded so far (a turn starts).
    pub(crate) fn clear(&self) {
        self.state().changes.clear();
    }

    /// Number of file-change paths recorded so far in the turn.
    pub(crate) fn count(&self) -> usize {
        self.state().changes.len()
    }

    /// Distinct paths changed since change number `from`, in first-change order.
    pub(crate) fn since(&self, from: usize) -> Vec<String> {
        let state = self.state();
        let mut out: Vec<String> = Vec::new();
        for path in state.changes.iter().skip(from) {
            if !out.contains(path) {
                out.push(path.clone());
            }
        }
        out
    }

    /// Sends every later event to `tx` (`None`: stop forwarding).
    pub(crate) fn forward(&self, tx: Option<UnboundedSender<Arc<Event>>>) {
        self.state().forward = tx;
    }

    fn state(&self) -> MutexGuard<'_, TapState> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
