//! `run.tool.*`, `run.approval.*`, `run.question.*`, `run.completion.attempt`: what the agent
//! does and what it asks.
//!
//! A tool call is shown as ONE line when it ends (`✓ read_file src/main.rs (12 ms) — 120 lines`):
//! the start is held until its end arrives, paired by call id. In verbose mode a call's output is
//! streamed, indented, under a `▸ tool args` header as it arrives.

use std::io::Write;

use keel_events::{
    ApprovalDecision, ApprovalKind, OutputStream, RunApprovalRequest, RunApprovalResolve,
    RunCompletionAttempt, RunQuestionAnswer, RunQuestionAsk, RunToolEnd, RunToolOutput,
    RunToolStart, ToolStatus,
};

use super::files::diff_tone;
use super::format::{brief_arguments, count, duration, one_line};
use super::renderer::{ConsoleRenderer, StreamKind};
use super::style::Tone;
use crate::i18n::Arg;

/// Prefix of streamed tool output lines.
const OUTPUT_PREFIX: &str = "  │ ";

impl<W: Write> ConsoleRenderer<W> {
    /// `run.tool.start`: held until the call ends, so the call is shown on one line.
    pub(super) fn print_run_tool_start(&mut self, p: &RunToolStart) {
        self.waiting_for_model = false;
        self.pending_tools.retain(|s| s.call_id != p.call_id);
        self.pending_tools.push(p.clone());
    }

    /// `run.tool.output`: verbose only, streamed and indented under a header line.
    pub(super) fn print_run_tool_output(&mut self, p: &RunToolOutput) {
        if !self.verbose {
            return;
        }
        let kind = StreamKind::ToolOutput(p.call_id.clone());
        if !self.tool_headers.contains(&p.call_id) {
            self.tool_headers.insert(p.call_id.clone());
            let header = match self.pending_tools.iter().find(|s| s.call_id == p.call_id) {
                Some(start) => format!(
                    "▸ {} {}",
                    start.tool_name,
                    brief_arguments(&start.arguments)
                ),
                None => self.t("tool-output-of", &[("call", Arg::from(&p.call_id))]),
            };
            self.line(&[(Tone::Dim, &header)]);
        }
        let tone = match p.stream {
            OutputStream::Stdout => Tone::Plain,
            OutputStream::Stderr => Tone::Error,
        };
        self.stream(kind, OUTPUT_PREFIX, tone, &p.content);
    }

    /// `run.tool.end`: the call's one line: status, tool, arguments, duration, result summary.
    pub(super) fn print_run_tool_end(&mut self, p: &RunToolEnd) {
        let start = self
            .pending_tools
            .iter()
            .position(|s| s.call_id == p.call_id)
            .map(|i| self.pending_tools.remove(i));
        self.close_stream(&StreamKind::ToolOutput(p.call_id.clone()));
        self.tool_headers.remove(&p.call_id);

        let args = if !p.args_summary.trim().is_empty() {
            one_line(&p.args_summary, 80)
        } else if let (Some(from), Some(to)) = (&p.from_path, &p.to_path) {
            format!("{from} → {to}")
        } else {
            start
                .as_ref()
                .map(|s| brief_arguments(&s.arguments))
                .unwrap_or_default()
        };
        let summary = if !p.result_summary.trim().is_empty() {
            one_line(&p.result_summary, 120)
        } else {
            one_line(&p.result, 120)
        };
        let (mark, tone, name_tone) = match p.status {
            ToolStatus::Success => ("✓ ", Tone::Success, Tone::Bold),
            ToolStatus::Error => ("✗ ", Tone::Error, Tone::Error),
            ToolStatus::Denied => ("⊘ ", Tone::Warning, Tone::Warning),
            ToolStatus::Cancelled => ("⊘ ", Tone::Warning, Tone::Warning),
        };
        let status_word = match p.status {
            ToolStatus::Denied => self.t("call-denied", &[]),
            ToolStatus::Cancelled => self.t("call-cancelled", &[]),
            ToolStatus::Success | ToolStatus::Error => String::new(),
        };
        let args = if args.is_empty() {
            args
        } else {
            format!(" {args}")
        };
        let timing = match p.status {
            ToolStatus::Denied => String::new(),
            _ => format!(" ({})", duration(p.duration_ms)),
        };
        let summary = if summary.is_empty() {
            summary
        } else {
            format!(" — {summary}")
        };
        let summary_tone = match p.status {
            ToolStatus::Success => Tone::Dim,
            _ => tone,
        };
        self.line(&[
            (tone, mark),
            (name_tone, &p.tool_name),
            (Tone::Plain, &args),
            (tone, &status_word),
            (Tone::Dim, &timing),
            (summary_tone, &summary),
        ]);
        if self.verbose && p.status != ToolStatus::Success && p.result.trim().lines().count() > 1 {
            self.block("    ", tone, p.result.trim());
        }
        if let Some(diagnostics) = &p.diagnostics {
            self.print_diagnostics(diagnostics);
        }
    }

    /// The language servers' diagnostics of an edit, under its line: one line each, then
    /// what was left out and the change elsewhere.
    fn print_diagnostics(&mut self, d: &keel_events::EditDiagnostics) {
        for item in &d.items {
            let tone = match item.severity {
                keel_events::DiagnosticSeverity::Error => Tone::Error,
                keel_events::DiagnosticSeverity::Warning => Tone::Warning,
                _ => Tone::Dim,
            };
            self.line(&[(Tone::Dim, "    "), (tone, &item.line())]);
        }
        if d.omitted > 0 {
            let more = self.t(
                "diagnostics-more",
                &[("n", Arg::from(count(u64::from(d.omitted))))],
            );
            self.line(&[(Tone::Dim, "    "), (Tone::Dim, &more)]);
        }
        if let Some(change) = d.elsewhere {
            let text = self.t(
                "diagnostics-elsewhere",
                &[
                    ("after", Arg::from(count(u64::from(change.after)))),
                    ("before", Arg::from(count(u64::from(change.before)))),
                ],
            );
            self.line(&[(Tone::Dim, "    "), (Tone::Dim, &text)]);
        }
        if d.timed_out && d.items.is_empty() {
            let late = self.t("diagnostics-late", &[]);
            self.line(&[(Tone::Dim, "    "), (Tone::Dim, &late)]);
        }
    }

    /// Shows every started call that never ended (`… tool args — no result`).
    pub(super) fn drain_pending_tools(&mut self) {
        let no_result = self.t("call-no-result", &[]);
        for start in std::mem::take(&mut self.pending_tools) {
            self.close_stream(&StreamKind::ToolOutput(start.call_id.clone()));
            let args = brief_arguments(&start.arguments);
            let args = if args.is_empty() {
                args
            } else {
                format!(" {args}")
            };
            self.line(&[
                (Tone::Warning, "… "),
                (Tone::Warning, &start.tool_name),
                (Tone::Plain, &args),
                (Tone::Dim, &no_result),
            ]);
        }
        self.tool_headers.clear();
    }

    /// `run.approval.request`: what is asked and why; a change put up for approval
    /// (`approval_edits = "ask"`) shows its diff coloured, whole. The prompt with the choices
    /// is the asker's (the CLI's terminal approver), on the line after.
    pub(super) fn print_run_approval_request(&mut self, p: &RunApprovalRequest) {
        self.awaiting_person = true;
        let id = match p.kind {
            ApprovalKind::Plan => "approval-needed-plan",
            ApprovalKind::Command => "approval-needed-command",
            ApprovalKind::Tool => "approval-needed-tool",
        };
        let head = self.t(id, &[]);
        let mut lines = p.subject.trim().lines();
        let first = lines.next().unwrap_or("");
        self.line(&[(Tone::Attention, &head), (Tone::Bold, first)]);
        let rest: Vec<&str> = lines.collect();
        if rest.iter().any(|l| l.starts_with("@@")) {
            for line in rest {
                let line = line.trim_end_matches('\r');
                self.line(&[(Tone::Plain, "    "), (diff_tone(line), line)]);
            }
        } else if !rest.is_empty() {
            self.block("  ", Tone::Plain, &rest.join("\n"));
        }
        if !p.reason.trim().is_empty() {
            let reason = format!("  {}", p.reason.trim());
            self.line(&[(Tone::Dim, &reason)]);
        }
    }

    /// `run.approval.resolve`: the decision, coloured by what it was.
    pub(super) fn print_run_approval_resolve(&mut self, p: &RunApprovalResolve) {
        self.awaiting_person = false;
        let reason = p
            .reason
            .as_deref()
            .filter(|r| !r.trim().is_empty())
            .map(|r| one_line(r, 160));
        let (tone, id) = match p.decision {
            ApprovalDecision::Approve => (Tone::Success, "approval-approved"),
            ApprovalDecision::Reject => (Tone::Error, "approval-rejected"),
            ApprovalDecision::Modify => (Tone::Warning, "approval-modified"),
        };
        let text = match reason {
            Some(reason) => self.t(&format!("{id}-reason"), &[("reason", Arg::from(reason))]),
            None => self.t(id, &[]),
        };
        self.line(&[(tone, &text)]);
        if self.verbose
            && let Some(modified) = &p.modified
        {
            let json = serde_json::to_string_pretty(modified).unwrap_or_default();
            self.block("  ", Tone::Dim, &json);
        }
    }

    /// `run.question.ask`: the question and its numbered options.
    pub(super) fn print_run_question_ask(&mut self, p: &RunQuestionAsk) {
        self.awaiting_person = true;
        let mut lines = p.question.trim().lines();
        let first = lines.next().unwrap_or("");
        self.line(&[(Tone::Attention, "? "), (Tone::Bold, first)]);
        let rest: Vec<&str> = lines.collect();
        if !rest.is_empty() {
            self.block("  ", Tone::Plain, &rest.join("\n"));
        }
        for (i, option) in p.options.iter().enumerate() {
            let text = format!("  {}. {}", i + 1, one_line(option, 160));
            self.line(&[(Tone::Plain, &text)]);
        }
    }

    /// `run.question.answer`: `› answer`.
    pub(super) fn print_run_question_answer(&mut self, p: &RunQuestionAnswer) {
        self.awaiting_person = false;
        self.line(&[(Tone::Dim, "› "), (Tone::Plain, &one_line(&p.answer, 200))]);
    }

    /// `run.completion.attempt`: the result block, and the command that demonstrates it.
    pub(super) fn print_run_completion_attempt(&mut self, p: &RunCompletionAttempt) {
        self.close_line();
        let head = self.t("result", &[]);
        self.line(&[(Tone::Success, &head)]);
        self.block("  ", Tone::Plain, p.result.trim());
        if let Some(command) = p.command.as_deref().filter(|c| !c.trim().is_empty()) {
            self.line(&[(Tone::Dim, "  $ "), (Tone::Bold, command.trim())]);
        }
    }
}
