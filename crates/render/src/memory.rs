//! `run.memory.*`: what was written to project memory.

use std::io::Write;

use keel_events::{MemorySource, RunMemoryUpdate};

use super::format::{count, one_line};
use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

impl<W: Write> ConsoleRenderer<W> {
    /// `run.memory.update`: a dim line saying what was kept, then one line per entry (`+` new,
    /// `=` already known).
    pub(super) fn print_run_memory_update(&mut self, p: &RunMemoryUpdate) {
        let source = match p.source {
            MemorySource::Remember => self.t("memory-remembered", &[]),
            MemorySource::Distill => self.t("memory-distilled", &[]),
        };
        let new = p.entries.iter().filter(|e| e.new).count();
        let mut text = if p.entries.is_empty() {
            self.t("memory-nothing-new", &[("source", Arg::from(source))])
        } else {
            self.t(
                "memory-kept",
                &[
                    ("source", Arg::from(source)),
                    ("new", Arg::from(new.to_string())),
                    ("known", Arg::from((p.entries.len() - new).to_string())),
                ],
            )
        };
        if p.dropped > 0 {
            text.push_str(&self.t(
                "memory-dropped",
                &[("dropped", Arg::from(p.dropped.to_string()))],
            ));
        }
        text.push_str(&self.t(
            "memory-total",
            &[
                ("count", Arg::from(u64::from(p.total))),
                ("n", Arg::from(count(u64::from(p.total)))),
            ],
        ));
        self.line(&[(Tone::Dim, &text)]);
        for entry in &p.entries {
            let mark = if entry.new { "  + " } else { "  = " };
            let body = format!(
                "{}: {} ({})",
                entry.kind,
                one_line(&entry.text, 120),
                entry.id
            );
            self.line(&[(Tone::Dim, mark), (Tone::Plain, &body)]);
        }
    }
}
