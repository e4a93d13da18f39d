//! `run.subagent.*`: a subagent's start and end, one line each. Its own events (those with a
//! `parent_call_id`) are indented under the `task` call that started it, one step per level;
//! its streamed text and model-call bookkeeping are shown only when verbose (its report is the
//! `task` call's result).

use std::io::Write;

use keel_events::{AgentStatus, Event, EventKind, RunSubagentEnd, RunSubagentStart};

use super::format::{count, duration, one_line, usd};
use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

impl<W: Write> ConsoleRenderer<W> {
    /// How deep `event` is nested (0: the top agent's), learning the depth of a subagent from
    /// its `run.subagent.start`.
    pub(super) fn nesting_of(&mut self, event: &Event) -> usize {
        let Some(parent) = &event.parent_call_id else {
            return 0;
        };
        if let EventKind::RunSubagentStart(p) = &event.kind {
            self.subagent_depths
                .insert(p.call_id.clone(), p.depth as usize);
        }
        self.subagent_depths.get(parent).copied().unwrap_or(1)
    }

    /// Whether a subagent's event is left out: its streamed text, reasoning and model-call
    /// bookkeeping, unless verbose.
    pub(super) fn hides_child_event(&self, event: &Event) -> bool {
        event.parent_call_id.is_some()
            && !self.verbose
            && matches!(
                event.kind,
                EventKind::RunLlmStart(_)
                    | EventKind::RunLlmDelta(_)
                    | EventKind::RunLlmEnd(_)
                    | EventKind::RunThinkingStart(_)
                    | EventKind::RunThinkingDelta(_)
                    | EventKind::RunThinkingEnd(_)
                    | EventKind::RunUsageReport(_)
                    | EventKind::RunContextWindow(_)
                    | EventKind::SystemStatus(_)
                    | EventKind::PrepareInstructionsLoad(_)
            )
    }

    /// `run.subagent.start`: its kind and job.
    pub(super) fn print_run_subagent_start(&mut self, p: &RunSubagentStart) {
        self.close_line();
        let text = self.t(
            "subagent-start",
            &[
                ("kind", Arg::from(&p.subagent_type)),
                ("description", Arg::from(one_line(&p.description, 100))),
            ],
        );
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `run.subagent.end`: how it ended, its tokens, cost and time.
    pub(super) fn print_run_subagent_end(&mut self, p: &RunSubagentEnd) {
        self.close_line();
        let status = self.t(&format!("subagent-status-{}", status_id(p.status)), &[]);
        let mut text = self.t(
            "subagent-end",
            &[
                ("kind", Arg::from(&p.subagent_type)),
                ("status", Arg::from(status)),
                ("tokens", Arg::from(count(p.usage.total_tokens))),
                ("duration", Arg::from(duration(p.duration_ms))),
            ],
        );
        if let Some(cost) = p.cost_usd {
            text.push_str(&format!(", {}", usd(cost)));
        }
        let tone = match p.status {
            AgentStatus::Completed => Tone::Dim,
            _ => Tone::Warning,
        };
        self.line(&[(tone, &text)]);
    }
}

fn status_id(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Completed => "completed",
        AgentStatus::Failed => "failed",
        AgentStatus::Cancelled => "cancelled",
        AgentStatus::MaxIterations => "max-iterations",
    }
}
