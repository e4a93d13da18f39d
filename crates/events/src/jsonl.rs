//! The JSONL handler: one event per line, display-only events skipped.

use std::io::Write;

use crate::bus::EventHandler;
use crate::envelope::Event;

/// Writes each event as one JSON line to any writer, skipping `system.cli_display`.
///
/// Write errors do not panic or stop the producer: the first one is kept and later events are
/// dropped; read it with [`JsonlHandler::error`].
#[derive(Debug)]
pub struct JsonlHandler<W: Write> {
    out: W,
    error: Option<std::io::Error>,
    written: u64,
}

impl<W: Write> JsonlHandler<W> {
    /// A handler writing to `out`.
    pub fn new(out: W) -> Self {
        Self {
            out,
            error: None,
            written: 0,
        }
    }

    /// Writes one event (unless it is display-only).
    pub fn write_event(&mut self, event: &Event) -> std::io::Result<()> {
        if event.kind.is_display_only() {
            return Ok(());
        }
        serde_json::to_writer(&mut self.out, event)?;
        self.out.write_all(b"\n")?;
        self.written += 1;
        Ok(())
    }

    /// Lines written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The first write error, if any.
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> EventHandler for JsonlHandler<W> {
    fn handle(&mut self, event: &Event) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.write_event(event) {
            self.error = Some(e);
        }
    }

    fn flush(&mut self) {
        if let Err(e) = self.out.flush() {
            self.error.get_or_insert(e);
        }
    }
}
