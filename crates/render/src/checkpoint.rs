//! `run.checkpoint.*`: a session taken back to one of its checkpoints.

use std::io::Write;

use keel_events::RunCheckpointRewind;

use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

impl<W: Write> ConsoleRenderer<W> {
    /// `run.checkpoint.rewind`: what was undone, then the files restored and removed.
    pub(super) fn print_run_checkpoint_rewind(&mut self, p: &RunCheckpointRewind) {
        let text = self.t(
            "checkpoint-rewound",
            &[
                ("checkpoint", Arg::from(&p.checkpoint_id)),
                (
                    "scope",
                    Arg::from(self.t(&format!("rewind-scope-{}", p.scope.as_str()), &[])),
                ),
                ("count", Arg::from(p.turn_ids.len())),
                ("n", Arg::from(p.turn_ids.len().to_string())),
                ("from", Arg::from(p.from_seq.to_string())),
                ("to", Arg::from(p.to_seq.to_string())),
            ],
        );
        self.line(&[(Tone::Warning, &text)]);
        for path in &p.files_restored {
            let line = self.t("checkpoint-restored", &[("path", Arg::from(path))]);
            self.line(&[(Tone::Dim, &line)]);
        }
        for path in &p.files_removed {
            let line = self.t("checkpoint-removed", &[("path", Arg::from(path))]);
            self.line(&[(Tone::Dim, &line)]);
        }
    }
}
