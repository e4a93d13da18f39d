//! `run.checkpoint.*`: a session taken back to one of its checkpoints.

use std::io::Write;

use keel_events::RunCheckpointRewind;

use super::format::plural;
use super::renderer::ConsoleRenderer;
use super::style::Tone;

impl<W: Write> ConsoleRenderer<W> {
    /// `run.checkpoint.rewind`: what was undone, then the files restored and removed.
    pub(super) fn print_run_checkpoint_rewind(&mut self, p: &RunCheckpointRewind) {
        let text = format!(
            "rewound to before checkpoint {} ({}): {} undone (events {}–{} kept)",
            p.checkpoint_id,
            p.scope,
            plural(p.turn_ids.len(), "turn", "turns"),
            p.from_seq,
            p.to_seq
        );
        self.line(&[(Tone::Warning, &text)]);
        for path in &p.files_restored {
            self.line(&[(Tone::Dim, &format!("  restored {path}"))]);
        }
        for path in &p.files_removed {
            self.line(&[(Tone::Dim, &format!("  removed {path}"))]);
        }
    }
}
