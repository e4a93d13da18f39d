//! The "waiting" indicator shown while the model or a tool is busy.
//!
//! The renderer only says *when* something is being waited for; a [`Spinner`] decides how to
//! show it. [`TerminalSpinner`] draws an `indicatif` spinner on a terminal; [`NoSpinner`] shows
//! nothing, so output written to a pipe, a file or a test buffer stays deterministic.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shows or hides a transient "busy" line.
pub trait Spinner: Send {
    /// Shows the indicator with `message`, or changes the message of the one shown.
    fn show(&mut self, message: &str);
    /// Removes the indicator, leaving the line it was on blank; a no-op when hidden.
    fn hide(&mut self);
}

/// Shows nothing: for pipes, files and tests.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoSpinner;

impl Spinner for NoSpinner {
    fn show(&mut self, _message: &str) {}
    fn hide(&mut self) {}
}

/// An `indicatif` spinner drawn on standard output (use it only when that is a terminal).
#[derive(Debug, Default)]
pub struct TerminalSpinner {
    bar: Option<ProgressBar>,
}

impl TerminalSpinner {
    /// A spinner for standard output, hidden until first shown.
    pub fn stdout() -> Self {
        Self::default()
    }
}

impl Spinner for TerminalSpinner {
    fn show(&mut self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_owned());
            return;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
        let style = ProgressStyle::with_template("{spinner:.cyan} {msg:.dim} {elapsed:.dim}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_message(message.to_owned());
        bar.enable_steady_tick(Duration::from_millis(100));
        self.bar = Some(bar);
    }

    fn hide(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for TerminalSpinner {
    fn drop(&mut self) {
        self.hide();
    }
}
