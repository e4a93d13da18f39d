//! A session's event producer: events are stamped, then stored before anything else sees them.

use std::sync::Arc;

use keel_events::{Bus, Emitter, Sequencer};
use keel_store::{EventWriter, Store, StoreResult, WriterOptions, WriterReport};

/// An [`Emitter`] continuing a session's stored seq, whose bus stores every event through an
/// [`EventWriter`] registered as its first handler — so a handler added later (a renderer, a
/// JSONL writer) and the writer's `forward` channel only ever see events already queued for
/// storage in seq order.
#[derive(Debug)]
pub struct EventLog {
    emitter: Emitter,
    writer: EventWriter,
}

impl EventLog {
    /// Starts producing for session `session_id` of `project_id` after `last_seq`.
    pub fn open(
        store: Arc<dyn Store>,
        session_id: &str,
        project_id: &str,
        last_seq: u64,
        options: WriterOptions,
    ) -> StoreResult<Self> {
        let emitter = Emitter::new(
            Sequencer::resume(session_id, project_id, last_seq),
            Bus::default(),
        );
        let writer = EventWriter::spawn(store, options)?;
        emitter.bus().add_handler(writer.sink());
        Ok(Self { emitter, writer })
    }

    /// The emitter (cheap to clone; every clone feeds this log).
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// The highest seq stamped so far.
    pub fn last_seq(&self) -> u64 {
        self.emitter.sequencer().last_seq()
    }

    /// Waits until every event emitted so far is stored.
    pub async fn flush(&self) -> StoreResult<()> {
        self.writer.flush().await
    }

    /// Stores what is left and stops the writer.
    pub async fn close(self) -> StoreResult<WriterReport> {
        self.writer.close().await
    }
}
