//! Stamping: turning a payload into an [`Event`] with id, seq and timestamp.

use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{DateTime, SubsecRound, Utc};
use uuid::Uuid;

use crate::catalogue::EventKind;
use crate::envelope::Event;

/// Stamps events for one session: UUID v7 ids, gap-free `seq` from 1, millisecond timestamps.
///
/// `stamp` takes `&self` and may be called from many tasks at once; every call gets the next
/// number, so no two events share a seq and none is skipped.
///
/// Display-only events (`system.cli_display`) are never stored, so they do not advance the
/// sequence: they carry the seq of the latest durable event (0 before the first). The stored
/// stream therefore stays gap-free.
#[derive(Debug)]
pub struct Sequencer {
    session_id: String,
    project_id: String,
    next: AtomicU64,
}

impl Sequencer {
    /// A sequencer for a new session: the first event gets seq 1.
    pub fn new(session_id: impl Into<String>, project_id: impl Into<String>) -> Self {
        Self::resume(session_id, project_id, 0)
    }

    /// A sequencer continuing a session whose last stored event had `last_seq`.
    pub fn resume(
        session_id: impl Into<String>,
        project_id: impl Into<String>,
        last_seq: u64,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            project_id: project_id.into(),
            next: AtomicU64::new(last_seq + 1),
        }
    }

    /// The session this sequencer stamps for.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The project this sequencer stamps for.
    pub fn project_id(&self) -> &str {
        &self.project_id
    }

    /// The seq of the latest stamped event (0 before the first).
    pub fn last_seq(&self) -> u64 {
        self.next.load(Ordering::SeqCst) - 1
    }

    /// Builds the next event of this session around `kind`.
    pub fn stamp(&self, turn_id: Option<&str>, kind: impl Into<EventKind>) -> Event {
        let kind = kind.into();
        let seq = if kind.is_display_only() {
            self.last_seq()
        } else {
            self.next.fetch_add(1, Ordering::SeqCst)
        };
        Event {
            id: Uuid::now_v7(),
            seq,
            ts: now_millis(),
            session_id: self.session_id.clone(),
            turn_id: turn_id.map(str::to_owned),
            parent_call_id: None,
            project_id: self.project_id.clone(),
            kind,
        }
    }
}

/// The current time, truncated to the millisecond precision of the wire format.
pub fn now_millis() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(3)
}
