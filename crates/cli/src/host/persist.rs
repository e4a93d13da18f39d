//! Keeping a CLI session in the project's store: the session row, one turn row per turn (under
//! a lease the process renews while the turn runs), every event (through the writer's sink, an
//! inline bus handler) and the conversation after each turn. Store failures are warnings: the
//! run goes on without them.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use keel_context::Conversation;
use keel_events::{AgentStatus, Bus, Sequencer, SystemError};
use keel_store::{
    EventWriter, NewSession, NewTurn, SessionStatus, SessionUpdate, SqliteStore, Store, StoreError,
    TurnLease, TurnOutcome, WriterOptions, default_db_path,
};
use serde_json::{Map, Value};

/// The session metadata key holding the engine's conversation id.
pub const CONVERSATION_ID_KEY: &str = "conversation_id";

/// How long a CLI process's claim on its running turn holds without renewal, unless
/// [`TURN_LEASE_VAR`] says otherwise; it renews every third of it. A `keel` killed mid-turn has
/// its turn failed by the next `keel` to open the project's store this long after.
pub const TURN_LEASE: Duration = Duration::from_secs(30);

/// The environment variable overriding [`TURN_LEASE`], in whole seconds (at least 1).
pub const TURN_LEASE_VAR: &str = "KEEL_TURN_LEASE_SECS";

fn turn_lease() -> Duration {
    std::env::var(TURN_LEASE_VAR)
        .ok()
        .and_then(|secs| secs.trim().parse::<u64>().ok())
        .filter(|&secs| secs > 0)
        .map_or(TURN_LEASE, Duration::from_secs)
}

/// Opens the project's store, `<root>/.keel/keel.db`, creating it if needed, and fails the
/// turns a killed `keel` left running there ([`recover_lapsed_turns`]).
pub async fn open_project_store(root: &Path) -> Result<Arc<dyn Store>, String> {
    let store: Arc<dyn Store> = SqliteStore::open(default_db_path(root))
        .await
        .map(Arc::new)
        .map_err(|e| e.to_string())?;
    if let Err(e) = recover_lapsed_turns(store.as_ref()).await {
        warn("cannot recover interrupted turns", e);
    }
    Ok(store)
}

/// Fails the turns whose process stopped renewing its lease (it was killed mid-turn): each gets
/// a `system.error` continuing its session's seq, and its session is marked failed. Returns
/// how many.
pub async fn recover_lapsed_turns(store: &dyn Store) -> Result<usize, StoreError> {
    let turns = store.fail_expired_turns(None).await?;
    for turn in &turns {
        let session = store.get_session(&turn.session_id).await?;
        let last = store.last_seq(&session.id).await?;
        let sequencer = Sequencer::resume(&session.id, &session.project_id, last);
        let event = sequencer.stamp(
            None,
            SystemError {
                error: format!(
                    "turn `{}` was interrupted: the process running it stopped",
                    turn.id
                ),
                error_type: "interrupted".to_owned(),
                recoverable: true,
                stack: None,
                error_display: None,
            },
        );
        store.append_event(&event).await?;
        store
            .set_session_status(&session.id, SessionStatus::Failed)
            .await?;
    }
    Ok(turns.len())
}

/// Prints a store problem; the run carries on.
fn warn(what: &str, error: impl std::fmt::Display) {
    eprintln!("keel: warning: {what}: {error}");
}

/// The store side of one CLI session.
#[derive(Debug)]
pub struct Persistence {
    store: Arc<dyn Store>,
    writer: Option<EventWriter>,
    session_id: String,
    /// What to create the session row with, until it exists.
    pending: Option<NewSession>,
    /// The running turn's row, once begun.
    turn_id: Option<String>,
    /// This process's claim on the turns it runs.
    lease: TurnLease,
    /// Renews the lease while a turn runs.
    renewal: Option<tokio::task::JoinHandle<()>>,
}

impl Persistence {
    /// Persists the session `session_id` (created on its first turn from `new`, or already
    /// stored when `new` is `None`), storing every event `bus` publishes from now on.
    pub fn start(
        store: Arc<dyn Store>,
        bus: &Bus,
        session_id: String,
        new: Option<NewSession>,
    ) -> Option<Self> {
        let writer = match EventWriter::spawn(Arc::clone(&store), WriterOptions::default()) {
            Ok(writer) => writer,
            Err(e) => {
                warn("events will not be stored", e);
                return None;
            }
        };
        bus.add_handler(writer.sink());
        let pending = new.map(|new| new.with_id(session_id.clone()));
        Some(Self {
            store,
            writer: Some(writer),
            session_id,
            pending,
            turn_id: None,
            lease: TurnLease::new(
                format!(
                    "keel-cli-{}-{}",
                    std::process::id(),
                    uuid::Uuid::now_v7().simple()
                ),
                turn_lease(),
            ),
            renewal: None,
        })
    }

    /// Before a turn: creates the session row on the first turn (titled with `task`) and marks
    /// the session running.
    pub async fn before_turn(&mut self, task: &str, conversation_id: &str) {
        if let Some(mut new) = self.pending.take() {
            if new.title.is_empty() {
                new.title = title_of(task);
            }
            let mut metadata = Map::new();
            metadata.insert(
                CONVERSATION_ID_KEY.to_owned(),
                Value::String(conversation_id.to_owned()),
            );
            new.metadata = metadata;
            if let Err(e) = self.store.create_session(new).await {
                warn("cannot create the session in the store", e);
            }
        }
        if let Err(e) = self
            .store
            .set_session_status(&self.session_id, SessionStatus::Running)
            .await
        {
            warn("cannot update the session", e);
        }
    }

    /// Records the running turn `turn_id` (the id its events carry) and keeps its lease.
    pub async fn begin_turn(&mut self, turn_id: &str, task: &str) {
        let new = NewTurn::new(&self.session_id, task)
            .with_id(turn_id)
            .with_lease(self.lease.clone());
        match self.store.begin_turn(new).await {
            Ok(_) => {
                self.turn_id = Some(turn_id.to_owned());
                self.renewal = Some(tokio::spawn(renew(
                    Arc::clone(&self.store),
                    self.lease.clone(),
                )));
            }
            Err(e) => warn("cannot record the turn", e),
        }
    }

    /// After a turn (`None`: interrupted before it ended): waits for its events to be stored,
    /// ends the turn row, saves the conversation and the session's status.
    pub async fn after_turn(&mut self, status: Option<AgentStatus>, conversation: &Conversation) {
        if let Some(writer) = &self.writer
            && let Err(e) = writer.flush().await
        {
            warn("some events were not stored", e);
        }
        let (outcome, session_status, error) = match status {
            Some(AgentStatus::Completed) => {
                (TurnOutcome::Completed, SessionStatus::Completed, None)
            }
            Some(AgentStatus::Cancelled) => {
                (TurnOutcome::Cancelled, SessionStatus::Cancelled, None)
            }
            Some(AgentStatus::Failed) => (
                TurnOutcome::Failed,
                SessionStatus::Failed,
                Some("the turn failed".to_owned()),
            ),
            Some(AgentStatus::MaxIterations) => (
                TurnOutcome::Failed,
                SessionStatus::Failed,
                Some("the iteration limit was reached".to_owned()),
            ),
            None => (
                TurnOutcome::Cancelled,
                SessionStatus::Cancelled,
                Some("interrupted: Ctrl-C pressed twice".to_owned()),
            ),
        };
        if let Some(renewal) = self.renewal.take() {
            renewal.abort();
        }
        if let Some(turn_id) = self.turn_id.take()
            && let Err(e) = self.store.finish_turn(&turn_id, outcome, error).await
        {
            warn("cannot end the turn", e);
        }
        match serde_json::to_value(conversation) {
            Ok(value) => {
                if let Err(e) = self.store.save_conversation(&self.session_id, &value).await {
                    warn("cannot save the conversation", e);
                }
            }
            Err(e) => warn("cannot save the conversation", e),
        }
        if let Err(e) = self
            .store
            .update_session(&self.session_id, SessionUpdate::status(session_status))
            .await
        {
            warn("cannot update the session", e);
        }
    }

    /// Stores what is left and closes the writer and the store.
    pub async fn close(mut self) {
        if let Some(renewal) = self.renewal.take() {
            renewal.abort();
        }
        if let Some(writer) = self.writer.take() {
            match writer.close().await {
                Ok(report) if !report.is_clean() => {
                    let first = report
                        .errors
                        .first()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    warn(
                        &format!("{} event(s) were not stored", report.failed),
                        first,
                    );
                }
                Ok(_) => {}
                Err(e) => warn("the event writer stopped abnormally", e),
            }
        }
        self.store.close().await;
    }
}

/// Renews `lease` every third of its length, until aborted.
async fn renew(store: Arc<dyn Store>, lease: TurnLease) {
    let mut tick = tokio::time::interval(lease.ttl / 3);
    tick.tick().await;
    loop {
        tick.tick().await;
        if let Err(e) = store.renew_turn_leases(&lease).await {
            warn("cannot renew the running turn's lease", e);
        }
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
