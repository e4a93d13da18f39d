//! Shared helpers: stores on real SQLite files in temporary folders, and stamped events.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use keel_events::{DisplayStyle, Event, Sequencer, SystemCliDisplay, SystemStatus};
use keel_store::{NewSession, SqliteStore, Store};
use tempfile::TempDir;

/// A store on a fresh file; keep the `TempDir` alive as long as the store.
pub async fn temp_store() -> (TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_project(dir.path()).await.unwrap();
    (dir, store)
}

/// The same as [`temp_store`], behind the trait object front ends use.
pub async fn temp_dyn_store() -> (TempDir, Arc<dyn Store>) {
    let (dir, store) = temp_store().await;
    (dir, Arc::new(store))
}

/// Creates session `id` of project `p`.
pub async fn session(store: &dyn Store, id: &str) {
    store
        .create_session(NewSession::new("p", PathBuf::from("/work/project")).with_id(id))
        .await
        .unwrap();
}

/// `n` status events of `session`, seq 1..=n, stamped by a fresh sequencer.
pub fn status_events(session: &str, n: u64) -> Vec<Event> {
    let seq = Sequencer::new(session, "p");
    (1..=n)
        .map(|i| {
            seq.stamp(
                Some("turn-1"),
                SystemStatus {
                    message: format!("status {i}"),
                },
            )
        })
        .collect()
}

/// One status event with an explicit seq.
pub fn status_event(session: &str, seq: u64, message: &str) -> Event {
    Sequencer::resume(session, "p", seq - 1).stamp(
        None,
        SystemStatus {
            message: message.to_owned(),
        },
    )
}

/// One display-only event with an explicit seq.
pub fn display_event(session: &str, seq: u64) -> Event {
    // Display-only events repeat the latest durable seq: this one follows durable event `seq`.
    Sequencer::resume(session, "p", seq).stamp(
        None,
        SystemCliDisplay {
            message: "shown, never stored".to_owned(),
            style: DisplayStyle::Info,
        },
    )
}

/// The messages of status events, for compact comparisons.
pub fn messages(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|event| match &event.kind {
            keel_events::EventKind::SystemStatus(status) => status.message.clone(),
            other => other.type_name().to_owned(),
        })
        .collect()
}
