//! `run.hook.*`: a hook's run as one line when it ends — dim when it let things go on, a
//! warning with its reason when it blocked or asked. A hook that failed is told by the
//! `system.log` that follows it, so its end line is left out.

use std::io::Write;

use keel_events::{HookDecision, RunHookEnd, RunHookStart};

use super::format::{duration, one_line};
use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

impl<W: Write> ConsoleRenderer<W> {
    /// `run.hook.start`: shown only when verbose.
    pub(super) fn print_run_hook_start(&mut self, p: &RunHookStart) {
        if !self.verbose {
            return;
        }
        let text = self.t(
            "hook-start",
            &[
                ("event", Arg::from(&p.hook_event)),
                ("command", Arg::from(one_line(&p.command, 80))),
            ],
        );
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `run.hook.end`: the event, the decision, the command and how long it took; the reason
    /// under it when it blocked or asked.
    pub(super) fn print_run_hook_end(&mut self, p: &RunHookEnd) {
        if p.error.is_some() {
            return;
        }
        let decision = self.t(&format!("hook-decision-{}", p.decision.as_str()), &[]);
        let text = self.t(
            "hook-end",
            &[
                ("event", Arg::from(&p.hook_event)),
                ("decision", Arg::from(decision)),
                ("command", Arg::from(one_line(&p.command, 80))),
                ("duration", Arg::from(duration(p.duration_ms))),
            ],
        );
        let tone = match p.decision {
            HookDecision::Block | HookDecision::Ask => Tone::Warning,
            HookDecision::Continue | HookDecision::Allow => Tone::Dim,
        };
        self.line(&[(tone, &text)]);
        if let Some(reason) = &p.reason {
            let line = self.t(
                "hook-reason",
                &[("reason", Arg::from(one_line(reason, 160)))],
            );
            self.line(&[(Tone::Dim, &line)]);
        }
    }
}
