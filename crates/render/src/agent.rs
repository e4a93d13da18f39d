//! `agent.*` and `prepare.*`: the task line, the final status line, and dim preparation notes.

use std::io::Write;

use keel_events::{
    AgentEnd, AgentStart, AgentStatus, ConversationAction, ModeHint, PrepareConversationOpen,
    PrepareHistoryLoad, PrepareInstructionsLoad, PrepareModelSelect, PrepareRepomapBuild, Usage,
};

use super::format::{count, duration, one_line};
use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

/// Files listed by name in the final status line; more are only counted.
const NAMED_FILES: usize = 3;

impl<W: Write> ConsoleRenderer<W> {
    /// `agent.start`: `› task` (its first line; verbose adds the rest of a multi-line task).
    pub(super) fn print_agent_start(&mut self, p: &AgentStart) {
        let mode = match p.mode_hint {
            Some(ModeHint::Plan) => format!(" {}", self.t("mode-plan", &[])),
            Some(ModeHint::Direct) => format!(" {}", self.t("mode-direct", &[])),
            Some(ModeHint::Auto) | None => String::new(),
        };
        let task = one_line(&p.task_input, 120);
        self.line(&[(Tone::Bold, "› "), (Tone::Bold, &task), (Tone::Dim, &mode)]);
        let rest: Vec<&str> = p
            .task_input
            .trim()
            .lines()
            .skip_while(|l| l.trim().is_empty())
            .skip(1)
            .collect();
        if self.verbose && !rest.is_empty() {
            self.block("  ", Tone::Plain, &rest.join("\n"));
        }
    }

    /// `agent.end`: one status line with the outcome, files changed and token totals.
    pub(super) fn print_agent_end(&mut self, p: &AgentEnd) {
        self.drain_pending_tools();
        self.in_step = false;
        self.awaiting_person = false;
        let (tone, head) = match p.status {
            AgentStatus::Completed => (Tone::Success, self.t("end-completed", &[])),
            AgentStatus::Failed => (
                Tone::ErrorBold,
                self.t(
                    "end-failed",
                    &[("reason", Arg::from(one_line(&p.result, 160)))],
                ),
            ),
            AgentStatus::Cancelled => (Tone::Warning, self.t("end-cancelled", &[])),
            AgentStatus::MaxIterations => (Tone::Warning, self.t("end-max-iterations", &[])),
        };
        let mut tail = String::new();
        if !p.files_changed.is_empty() {
            tail.push_str(" · ");
            tail.push_str(&self.files_changed(p.files_changed.len()));
            if p.files_changed.len() <= NAMED_FILES {
                tail.push_str(&format!(" ({})", self.list(&p.files_changed)));
            }
        }
        if p.usage.total_tokens > 0 {
            tail.push_str(" · ");
            tail.push_str(&self.usage_text(&p.usage));
        }
        self.line(&[(tone, &head), (Tone::Dim, &tail)]);
        if self.verbose && p.files_changed.len() > NAMED_FILES {
            for file in &p.files_changed {
                self.line(&[(Tone::Dim, "  "), (Tone::Dim, file)]);
            }
        }
    }

    /// `prepare.model.select`: the model, in yellow when it is a fallback.
    pub(super) fn print_prepare_model_select(&mut self, p: &PrepareModelSelect) {
        if p.is_fallback {
            let model = Arg::from(&p.final_model);
            let requested = Arg::from(&p.requested_model);
            let text = match p.reason.as_deref() {
                Some(r) => self.t(
                    "model-fallback-reason",
                    &[
                        ("model", model),
                        ("requested", requested),
                        ("reason", Arg::from(one_line(r, 120))),
                    ],
                ),
                None => self.t(
                    "model-fallback",
                    &[("model", model), ("requested", requested)],
                ),
            };
            self.line(&[(Tone::Warning, &text)]);
        } else {
            let text = self.t("model-selected", &[("model", Arg::from(&p.final_model))]);
            self.line(&[(Tone::Dim, &text)]);
        }
    }

    /// `prepare.conversation.open`: a dim note with the conversation id.
    pub(super) fn print_prepare_conversation_open(&mut self, p: &PrepareConversationOpen) {
        let id = match p.action {
            ConversationAction::New => "conversation-new",
            ConversationAction::Resume => "conversation-resumed",
        };
        let text = self.t(id, &[("id", Arg::from(&p.conversation_id))]);
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `prepare.history.load`: a dim note with the history size.
    pub(super) fn print_prepare_history_load(&mut self, p: &PrepareHistoryLoad) {
        let mut text = self.t(
            "history-loaded",
            &[
                ("count", Arg::from(p.action_history_len)),
                ("n", Arg::from(count(p.action_history_len))),
                ("turn", Arg::from(p.start_turn.to_string())),
            ],
        );
        if p.pending_tool_count > 0 {
            let pending = self.t(
                "history-pending",
                &[
                    ("count", Arg::from(p.pending_tool_count)),
                    ("n", Arg::from(count(p.pending_tool_count))),
                ],
            );
            text.push_str(&format!(" · {pending}"));
        }
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `prepare.instructions.load`: a dim note naming the instruction files and their tokens.
    pub(super) fn print_prepare_instructions_load(&mut self, p: &PrepareInstructionsLoad) {
        let files: Vec<String> = p
            .files
            .iter()
            .map(|f| {
                let id = if f.truncated {
                    "instructions-file-cut"
                } else {
                    "instructions-file"
                };
                self.t(
                    id,
                    &[
                        ("path", Arg::from(&f.path)),
                        ("tokens", Arg::from(count(f.tokens))),
                    ],
                )
            })
            .collect();
        let text = if files.is_empty() {
            self.t("instructions-none", &[])
        } else {
            self.t(
                "instructions-files",
                &[("files", Arg::from(self.list(&files)))],
            )
        };
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `prepare.repomap.build`: a dim note with the map's size and build time.
    pub(super) fn print_prepare_repomap_build(&mut self, p: &PrepareRepomapBuild) {
        let id = if p.cached {
            "repomap-built-cached"
        } else {
            "repomap-built"
        };
        let text = self.t(
            id,
            &[
                ("files", Arg::from(count(p.files))),
                ("symbols", Arg::from(count(p.symbols))),
                ("tokens", Arg::from(count(p.tokens))),
                ("duration", Arg::from(duration(p.duration_ms))),
            ],
        );
        self.line(&[(Tone::Dim, &text)]);
    }

    /// `3 files changed`.
    pub(super) fn files_changed(&self, n: usize) -> String {
        self.t(
            "files-changed",
            &[("count", Arg::from(n)), ("n", Arg::from(count(n as u64)))],
        )
    }

    /// `1,234 tokens (1,000 in, 234 out, 200 cached)`.
    pub(super) fn usage_text(&self, usage: &Usage) -> String {
        let mut args = vec![
            ("total", Arg::from(count(usage.total_tokens))),
            ("prompt", Arg::from(count(usage.prompt_tokens))),
            ("completion", Arg::from(count(usage.completion_tokens))),
        ];
        match usage.cached_tokens.filter(|c| *c > 0) {
            Some(cached) => {
                args.push(("cached", Arg::from(count(cached))));
                self.t("usage-tokens-cached", &args)
            }
            None => self.t("usage-tokens", &args),
        }
    }
}
