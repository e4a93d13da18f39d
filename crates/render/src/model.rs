//! `run.response.*`, `run.llm.*`, `run.thinking.*`, `run.usage.report`, `run.context.*`: the
//! conversation with the model.
//!
//! Answer text is streamed as it arrives. Reasoning is collapsed to one dim `✻ thinking…` line
//! unless verbose, where it is streamed dim under that line. Model-call bookkeeping (request,
//! finish reason) is shown only in verbose mode, except finish reasons that cut the answer short,
//! which are always warned about.

use std::io::Write;

use keel_events::{
    CallPurpose, FinishReason, ResponseMode, RunContextCompress, RunContextWindow, RunLlmDelta,
    RunLlmEnd, RunLlmRetry, RunLlmStart, RunResponseEnd, RunResponseStart, RunThinkingDelta,
    RunThinkingEnd, RunThinkingFail, RunThinkingStart, RunUsageReport, SummarizerKind,
};

use super::format::{count, duration, one_line, usd};
use super::renderer::{ConsoleRenderer, StreamKind};
use super::style::Tone;
use crate::i18n::Arg;

/// Context-window use from which the window line turns yellow, in percent.
const WINDOW_WARNING_PERCENT: u64 = 80;

impl<W: Write> ConsoleRenderer<W> {
    /// `run.response.start`: verbose only, a dim mode marker.
    pub(super) fn print_run_response_start(&mut self, p: &RunResponseStart) {
        if self.verbose {
            let text = match p.mode {
                ResponseMode::Direct => self.t("response-direct", &[]),
                ResponseMode::Plan => self.t("response-plan", &[]),
            };
            self.line(&[(Tone::Dim, &text)]);
        }
    }

    /// `run.response.end`: ends any open line; nothing else to show.
    pub(super) fn print_run_response_end(&mut self, _p: &RunResponseEnd) {
        self.close_line();
    }

    /// `run.llm.start`: starts the wait (spinner on a terminal); verbose adds a dim line, and
    /// the system prompt when the event carries it — whole the first time and whenever it
    /// changed, otherwise one line saying it did not.
    pub(super) fn print_run_llm_start(&mut self, p: &RunLlmStart) {
        self.waiting_for_model = true;
        self.answer_streamed = false;
        self.answer_shown = false;
        if self.verbose {
            let text = self.t(
                "llm-call",
                &[
                    ("model", Arg::from(&p.model)),
                    ("iteration", Arg::from(p.iteration.to_string())),
                    ("count", Arg::from(u64::from(p.message_count))),
                    ("n", Arg::from(count(u64::from(p.message_count)))),
                ],
            );
            self.line(&[(Tone::Dim, &text)]);
            if let Some(prompt) = &p.system_prompt {
                self.print_system_prompt(prompt);
            }
        }
        // Recorded from here: what the attempt itself writes.
        self.begin_attempt();
    }

    /// The system prompt under a `system prompt` header, or a note that it is unchanged.
    fn print_system_prompt(&mut self, prompt: &str) {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(prompt, &mut hasher);
        let hash = std::hash::Hasher::finish(&hasher);
        let chars = prompt.chars().count();
        let size = [
            ("count", Arg::from(chars)),
            ("n", Arg::from(count(chars as u64))),
        ];
        if self.last_system_prompt == Some(hash) {
            let text = format!("  {}", self.t("system-prompt-unchanged", &size));
            self.line(&[(Tone::Dim, &text)]);
            return;
        }
        self.last_system_prompt = Some(hash);
        let text = format!("  {}", self.t("system-prompt", &size));
        self.line(&[(Tone::Dim, &text)]);
        self.block("  │ ", Tone::Dim, prompt.trim_end());
    }

    /// `run.llm.delta`: the text, as it arrives, without line breaks of our own.
    pub(super) fn print_run_llm_delta(&mut self, p: &RunLlmDelta) {
        self.waiting_for_model = false;
        if !p.text.is_empty() {
            self.answer_streamed = true;
        }
        self.stream(StreamKind::Answer, "", Tone::Plain, &p.text);
    }

    /// `run.llm.end`: ends the answer's line (printing the answer if it was not streamed) and
    /// warns when it was cut short; verbose adds the finish reason and tool calls.
    pub(super) fn print_run_llm_end(&mut self, p: &RunLlmEnd) {
        self.waiting_for_model = false;
        self.attempt_output = None;
        if !self.answer_streamed && !p.llm_output.is_empty() {
            self.stream(StreamKind::Answer, "", Tone::Plain, &p.llm_output);
        }
        self.answer_shown = self.answer_streamed || !p.llm_output.is_empty();
        self.answer_streamed = false;
        self.close_stream(&StreamKind::Answer);
        let warning = match p.finish_reason {
            FinishReason::Length => Some("finish-length"),
            FinishReason::ContentFilter => Some("finish-content-filter"),
            FinishReason::Truncated => Some("finish-truncated"),
            FinishReason::Cancelled => Some("finish-cancelled"),
            FinishReason::Stop | FinishReason::ToolCalls | FinishReason::Other => None,
        };
        if let Some(id) = warning {
            let warning = self.t(id, &[]);
            self.line(&[(Tone::Warning, &warning)]);
        }
        if self.verbose {
            let reason = serde_json::to_value(p.finish_reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let mut text = format!("← {reason}");
            if !p.tool_calls.is_empty() {
                let names: Vec<&str> = p.tool_calls.iter().map(|c| c.name.as_str()).collect();
                text.push_str(&format!(" · {}", names.join(", ")));
            }
            if let Some(usage) = &p.usage {
                text.push_str(&format!(" · {}", self.usage_text(usage)));
            }
            self.line(&[(Tone::Dim, &text)]);
        }
    }

    /// `run.llm.retry`: the discarded attempt's text and reasoning are erased from the
    /// terminal (in a pipe or a log they stay, after the warning that says they were
    /// discarded), then a yellow line with the error and the wait. The next attempt starts
    /// afresh: an answer it does not stream is printed whole at its end.
    pub(super) fn print_run_llm_retry(&mut self, p: &RunLlmRetry) {
        self.erase_attempt();
        self.answer_streamed = false;
        self.thought_streamed = false;
        self.thinking = false;
        self.close_line();
        self.waiting_for_model = true;
        let text = self.t(
            "llm-retry",
            &[
                ("attempt", Arg::from(p.attempt.to_string())),
                ("max", Arg::from(p.max_attempts.to_string())),
                ("error", Arg::from(one_line(&p.error, 160))),
                ("delay", Arg::from(duration(p.delay_ms))),
            ],
        );
        self.line(&[(Tone::Warning, &text)]);
        self.begin_attempt();
    }

    /// `run.thinking.start`: a dim `✻ thinking…` marker (verbose: a header for the text).
    pub(super) fn print_run_thinking_start(&mut self, _p: &RunThinkingStart) {
        self.waiting_for_model = false;
        self.thinking = true;
        self.thought_streamed = false;
        let marker = if self.verbose {
            self.t("thinking", &[])
        } else {
            self.t("thinking-collapsed", &[])
        };
        self.line(&[(Tone::Dim, &marker)]);
    }

    /// `run.thinking.delta`: verbose only, the reasoning streamed dim.
    pub(super) fn print_run_thinking_delta(&mut self, p: &RunThinkingDelta) {
        self.waiting_for_model = false;
        if self.verbose {
            self.thought_streamed |= !p.text.is_empty();
            self.stream(StreamKind::Thinking, "  ", Tone::Dim, &p.text);
        }
    }

    /// `run.thinking.end`: closes the reasoning (verbose: prints it if it was not streamed).
    pub(super) fn print_run_thinking_end(&mut self, p: &RunThinkingEnd) {
        self.thinking = false;
        if self.verbose && !self.thought_streamed && !p.result.trim().is_empty() {
            self.block("  ", Tone::Dim, &p.result);
        }
        self.thought_streamed = false;
        self.close_stream(&StreamKind::Thinking);
    }

    /// `run.thinking.fail`: a yellow line.
    pub(super) fn print_run_thinking_fail(&mut self, p: &RunThinkingFail) {
        self.thinking = false;
        self.thought_streamed = false;
        let text = self.t(
            "thinking-failed",
            &[("error", Arg::from(one_line(&p.error_message, 160)))],
        );
        self.line(&[(Tone::Warning, &text)]);
    }

    /// `run.usage.report`: one dim line with this call's tokens (and cost, when the model's
    /// price is known) and the session total; a session-level call (the memory distillation, a
    /// commit message, a pull request's text, after the turn ended) is named as such.
    pub(super) fn print_run_usage_report(&mut self, p: &RunUsageReport) {
        let cached = p
            .cached_tokens
            .filter(|c| *c > 0)
            .map(|c| self.t("usage-call-cached", &[("cached", Arg::from(count(c)))]))
            .unwrap_or_default();
        let cost = p
            .cost_usd
            .map(|c| format!(" · {}", usd(c)))
            .unwrap_or_default();
        let id = if p.purpose.is_some_and(CallPurpose::is_session_level) {
            "usage-session-call"
        } else {
            "usage-call"
        };
        let text = self.t(
            id,
            &[
                ("prompt", Arg::from(count(p.prompt_tokens))),
                ("completion", Arg::from(count(p.completion_tokens))),
                ("cached", Arg::from(cached)),
                ("cost", Arg::from(cost)),
                ("session", Arg::from(count(p.cumulative.total_tokens))),
                (
                    "purpose",
                    Arg::from(p.purpose.map_or("turn", CallPurpose::as_str)),
                ),
            ],
        );
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `run.context.window`: one dim line (yellow from 80 % full).
    pub(super) fn print_run_context_window(&mut self, p: &RunContextWindow) {
        let percent = (p.tokens_used.saturating_mul(100))
            .checked_div(p.limit)
            .unwrap_or(0);
        let text = self.t(
            "context-window",
            &[
                ("used", Arg::from(count(p.tokens_used))),
                ("limit", Arg::from(count(p.limit))),
                ("percent", Arg::from(percent.to_string())),
            ],
        );
        let tone = if percent >= WINDOW_WARNING_PERCENT {
            Tone::Warning
        } else {
            Tone::Dim
        };
        self.line(&[(tone, &text)]);
    }

    /// `run.context.compress`: one dim line (verbose adds the summary).
    pub(super) fn print_run_context_compress(&mut self, p: &RunContextCompress) {
        let mut text = self.t(
            "context-compressed",
            &[
                ("from", Arg::from(count(p.original_tokens))),
                ("to", Arg::from(count(p.compressed_tokens))),
            ],
        );
        let how = match (p.summarizer, &p.fallback_reason) {
            (Some(SummarizerKind::Model), _) => self.t("context-summary-model", &[]),
            (Some(SummarizerKind::Extractive), Some(reason)) => self.t(
                "context-summary-extractive-failed",
                &[("reason", Arg::from(one_line(reason, 160)))],
            ),
            (Some(SummarizerKind::Extractive), None) => self.t("context-summary-extractive", &[]),
            (Some(SummarizerKind::Other) | None, _) => String::new(),
        };
        text.push_str(&how);
        self.line(&[(Tone::Dim, &text)]);
        if self.verbose && !p.summary.trim().is_empty() {
            self.block("  ", Tone::Dim, &p.summary);
        }
    }
}
