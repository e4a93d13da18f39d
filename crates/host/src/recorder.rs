//! Keeping a session hosted by one process in its store: the session row (created on the first
//! turn), one turn row per turn under a lease renewed while it runs, every event (the session's
//! [`EventLog`]) and the conversation after each turn. Store failures are warnings, given to
//! the front end's [`Warnings`]: the run goes on without them.

use std::sync::Arc;

use keel_store::{NewSession, NewTurn, SessionStatus, Store, TurnLease};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::event_log::EventLog;
use crate::lease::LeaseRenewal;
use crate::saved::SavedConversation;
use crate::turn::{TurnEnd, finish_turn};

/// Where a hosted session's store problems go (the CLI shows them as notices); each is
/// `what failed: why`.
pub type Warnings = Arc<dyn Fn(String) + Send + Sync>;

/// The store side of one session hosted by this process.
pub(crate) struct SessionRecorder {
    store: Arc<dyn Store>,
    log: Option<EventLog>,
    session_id: String,
    /// What to create the session row with, until it exists.
    pending: Option<NewSession>,
    /// The running turn's row, once begun.
    turn_id: Option<String>,
    /// This process's claim on the turns it runs.
    lease: TurnLease,
    /// Renews the lease while a turn runs.
    renewal: Option<LeaseRenewal>,
    /// Where store problems are told.
    warnings: Option<Warnings>,
}

impl std::fmt::Debug for SessionRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRecorder")
            .field("session_id", &self.session_id)
            .field("turn_id", &self.turn_id)
            .finish_non_exhaustive()
    }
}

impl SessionRecorder {
    /// Records the session of `log` (created on its first turn from `new`, or already stored
    /// when `new` is `None`), its turns under `lease`.
    pub(crate) fn new(
        store: Arc<dyn Store>,
        log: EventLog,
        new: Option<NewSession>,
        lease: TurnLease,
    ) -> Self {
        let session_id = log.emitter().sequencer().session_id().to_owned();
        let pending = new.map(|new| new.with_id(session_id.clone()));
        Self {
            store,
            log: Some(log),
            session_id,
            pending,
            turn_id: None,
            lease,
            renewal: None,
            warnings: None,
        }
    }

    /// Where problems go from now on.
    pub(crate) fn tell(&mut self, warnings: Warnings) {
        self.warnings = Some(warnings);
    }

    /// Tells a store problem; the run carries on.
    fn warn(&self, what: &str, error: impl std::fmt::Display) {
        match &self.warnings {
            Some(warnings) => warnings(format!("{what}: {error}")),
            None => tracing::warn!(session_id = self.session_id, %error, "{what}"),
        }
    }

    /// Before a turn: creates the session row on the first turn (titled with `task`) and marks
    /// the session running.
    pub(crate) async fn before_turn(&mut self, task: &str, conversation_id: &str) {
        if let Some(mut new) = self.pending.take() {
            if new.title.is_empty() {
                new.title = title_of(task);
            }
            let mut metadata = Map::new();
            metadata.insert(
                crate::saved::CONVERSATION_ID_KEY.to_owned(),
                Value::String(conversation_id.to_owned()),
            );
            new.metadata = metadata;
            if let Err(e) = self.store.create_session(new).await {
                self.warn("cannot create the session in the store", e);
            }
        }
        if let Err(e) = self
            .store
            .set_session_status(&self.session_id, SessionStatus::Running)
            .await
        {
            self.warn("cannot update the session", e);
        }
    }

    /// Records the running turn `turn_id` (the id its events carry) and keeps its lease;
    /// `cancel` is cancelled if another process fails the turn meanwhile.
    pub(crate) async fn begin_turn(
        &mut self,
        turn_id: &str,
        task: &str,
        cancel: CancellationToken,
    ) {
        let new = NewTurn::new(&self.session_id, task)
            .with_id(turn_id)
            .with_lease(self.lease.clone());
        match self.store.begin_turn(new).await {
            Ok(_) => {
                self.turn_id = Some(turn_id.to_owned());
                self.renewal = Some(LeaseRenewal::start(
                    Arc::clone(&self.store),
                    self.lease.clone(),
                    turn_id.to_owned(),
                    cancel,
                ));
            }
            Err(e) => self.warn("cannot record the turn", e),
        }
    }

    /// After a turn: waits for its events to be stored, then saves the conversation, the
    /// session's status and the turn row.
    pub(crate) async fn after_turn(&mut self, end: &TurnEnd, saved: &SavedConversation) {
        if let Some(log) = &self.log
            && let Err(e) = log.flush().await
        {
            self.warn("some events were not stored", e);
        }
        self.renewal = None;
        let turn_id = self.turn_id.take();
        if let Err(e) = finish_turn(
            self.store.as_ref(),
            &self.session_id,
            turn_id.as_deref(),
            end,
            Some(saved),
        )
        .await
        {
            self.warn("cannot store the end of the turn", e);
        }
    }

    /// Stores what is left and closes the event log and the store.
    pub(crate) async fn close(mut self) {
        self.renewal = None;
        if let Some(log) = self.log.take() {
            match log.close().await {
                Ok(report) if !report.is_clean() => {
                    let first = report
                        .errors
                        .first()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    self.warn(
                        &format!("{} event(s) were not stored", report.failed),
                        first,
                    );
                }
                Ok(_) => {}
                Err(e) => self.warn("the event writer stopped abnormally", e),
            }
        }
        self.store.close().await;
    }
}

/// A session title from a task: its first line, at most 80 characters.
pub fn title_of(task: &str) -> String {
    let line = task.trim().lines().next().unwrap_or("").trim();
    match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_short_line() {
        assert_eq!(title_of("  Fix the bug\nand more"), "Fix the bug");
        let long = "x".repeat(100);
        assert_eq!(title_of(&long).chars().count(), 81);
        assert_eq!(title_of(""), "");
    }
}
