//! The JSONL handler: one event per line, display-only events skipped, in a chosen wire format.

use std::io::Write;

use crate::bus::EventHandler;
use crate::envelope::Event;
use crate::projection::WireFormat;

/// Writes each event as one JSON line to any writer, skipping `system.cli_display`, in Keel's
/// format or another [`WireFormat`] (whose unnamed events are skipped too).
///
/// Write errors do not panic or stop the producer: the first one is kept and later events are
/// dropped; read it with [`JsonlHandler::error`].
#[derive(Debug)]
pub struct JsonlHandler<W: Write> {
    out: W,
    format: WireFormat,
    error: Option<std::io::Error>,
    written: u64,
}

impl<W: Write> JsonlHandler<W> {
    /// A handler writing to `out`.
    pub fn new(out: W) -> Self {
        Self::with_format(out, WireFormat::Keel)
    }

    /// A handler writing to `out` in `format`.
    pub fn with_format(out: W, format: WireFormat) -> Self {
        Self {
            out,
            format,
            error: None,
            written: 0,
        }
    }

    /// Writes one event (unless it is display-only).
    pub fn write_event(&mut self, event: &Event) -> std::io::Result<()> {
        if event.kind.is_display_only() {
            return Ok(());
        }
        if self.format == WireFormat::Keel {
            serde_json::to_writer(&mut self.out, event)?;
        } else {
            let Some(encoded) = self.format.encode(event) else {
                return Ok(());
            };
            self.out.write_all(encoded.json.as_bytes())?;
        }
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
