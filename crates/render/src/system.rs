//! `system.*`: status lines, logs by level, errors, and display-only lines by style.

use std::io::Write;

use keel_events::{
    DisplayStyle, LogLevel, StatusKind, SystemCliDisplay, SystemError, SystemLog, SystemStatus,
};

use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

impl<W: Write> ConsoleRenderer<W> {
    /// `system.status`: a dim `· message`; a wait (a status with a `kind`) prints nothing and
    /// names what the spinner shows until the next event (waiting for the model, indexing),
    /// or keeps the spinner off while the person is asked (approval, answer).
    pub(super) fn print_system_status(&mut self, p: &SystemStatus) {
        match p.kind {
            None => {
                let text = format!("· {}", p.message.trim());
                self.line(&[(Tone::Dim, &text)]);
            }
            Some(kind) => {
                if matches!(
                    kind,
                    StatusKind::WaitingForApproval | StatusKind::WaitingForAnswer
                ) {
                    self.awaiting_person = true;
                }
                self.status = Some(p.clone());
            }
        }
    }

    /// `system.log`: debug (verbose only) dim, info dim, warn yellow, error red; verbose adds
    /// the metadata as JSON.
    pub(super) fn print_system_log(&mut self, p: &SystemLog) {
        let (tone, mark) = match p.level {
            LogLevel::Debug if !self.verbose => return,
            LogLevel::Debug => (Tone::Dim, "[debug] "),
            LogLevel::Info => (Tone::Dim, "· "),
            LogLevel::Warn => (Tone::Warning, "⚠ "),
            LogLevel::Error => (Tone::Error, "✗ "),
        };
        let mut lines = p.message.trim().lines();
        let first = lines.next().unwrap_or("");
        let metadata = match &p.metadata {
            Some(map) if self.verbose && !map.is_empty() => {
                format!(" {}", serde_json::Value::Object(map.clone()))
            }
            _ => String::new(),
        };
        self.line(&[(tone, mark), (tone, first), (Tone::Dim, &metadata)]);
        let rest: Vec<&str> = lines.collect();
        if !rest.is_empty() {
            self.block("  ", tone, &rest.join("\n"));
        }
    }

    /// `system.error`: red `✗ error [type]: message`; verbose adds the full display and stack.
    pub(super) fn print_system_error(&mut self, p: &SystemError) {
        self.waiting_for_model = false;
        let mut lines = p.error.trim().lines();
        let first = lines.next().unwrap_or("");
        let head = self.t(
            "error-line",
            &[
                ("kind", Arg::from(&p.error_type)),
                ("message", Arg::from(first)),
            ],
        );
        let note = if p.recoverable {
            self.t("error-recoverable", &[])
        } else {
            String::new()
        };
        self.line(&[(Tone::ErrorBold, &head), (Tone::Dim, &note)]);
        let rest: Vec<&str> = lines.collect();
        if !rest.is_empty() {
            self.block("  ", Tone::Error, &rest.join("\n"));
        }
        if self.verbose {
            if let Some(display) = p
                .error_display
                .as_deref()
                .filter(|d| d.trim() != p.error.trim() && !d.trim().is_empty())
            {
                self.block("  ", Tone::Error, display.trim());
            }
            if let Some(stack) = p.stack.as_deref().filter(|s| !s.trim().is_empty()) {
                self.block("  ", Tone::Dim, stack.trim_end());
            }
        }
    }

    /// `system.cli_display`: the message in the colour of its style.
    pub(super) fn print_system_cli_display(&mut self, p: &SystemCliDisplay) {
        let tone = match p.style {
            DisplayStyle::Info => Tone::Plain,
            DisplayStyle::Warning => Tone::Warning,
            DisplayStyle::Success => Tone::Success,
            DisplayStyle::Error => Tone::Error,
        };
        self.block("", tone, p.message.trim_end());
    }
}
