//! `run.plan.*`, `run.execution.*`, `run.step.*`, `run.repair.attempt`, `run.anomaly.detect`:
//! plan mode. Lines printed while a step runs are indented under its `[n/total] title` line.

use std::io::Write;

use keel_events::{
    AnomalyKind, Complexity, Plan, Progress, RepairResult, RunAnomalyDetect, RunExecutionCancel,
    RunExecutionEnd, RunExecutionFail, RunExecutionStart, RunPlanComplete, RunPlanCreate,
    RunPlanModify, RunPlanReplan, RunPlanRespond, RunRepairAttempt, RunStepEnd, RunStepFail,
    RunStepOutput, RunStepStart,
};

use super::format::{count, one_line};
use super::renderer::{ConsoleRenderer, StreamKind};
use super::style::Tone;
use crate::i18n::Arg;

fn progress(p: &Progress) -> String {
    format!("[{}/{}]", p.current, p.total)
}

impl<W: Write> ConsoleRenderer<W> {
    /// ` at step N`, or nothing.
    fn step_suffix(&self, step_id: Option<u32>) -> String {
        step_id
            .map(|s| self.t("at-step", &[("step", Arg::from(s.to_string()))]))
            .unwrap_or_default()
    }

    /// A plan: `heading goal · complexity`, then the numbered steps.
    fn print_plan(&mut self, heading: &str, plan: &Plan) {
        let heading = self.t(heading, &[]);
        let complexity = match plan.estimated_complexity {
            Complexity::Low => "complexity-low",
            Complexity::Medium => "complexity-medium",
            Complexity::High => "complexity-high",
        };
        let meta = self.t(
            "plan-meta",
            &[
                ("count", Arg::from(plan.steps.len())),
                ("n", Arg::from(count(plan.steps.len() as u64))),
                ("complexity", Arg::from(self.t(complexity, &[]))),
            ],
        );
        self.line(&[
            (Tone::Bold, &heading),
            (Tone::Bold, plan.goal.trim()),
            (Tone::Dim, &meta),
        ]);
        for step in &plan.steps {
            let number = format!("  {}. ", step.index);
            let description = if step.description.trim().is_empty() {
                String::new()
            } else if self.verbose {
                format!(" — {}", step.description.trim())
            } else {
                format!(" — {}", one_line(&step.description, 80))
            };
            self.line(&[
                (Tone::Plain, &number),
                (Tone::Bold, step.title.trim()),
                (Tone::Dim, &description),
            ]);
            if self.verbose && !step.expected_tools.is_empty() {
                let tools = self.t(
                    "plan-step-tools",
                    &[("tools", Arg::from(self.list(&step.expected_tools)))],
                );
                let tools = format!("     {tools}");
                self.line(&[(Tone::Dim, &tools)]);
            }
        }
    }

    /// `run.plan.create`: the plan as a numbered list with goal and complexity.
    pub(super) fn print_run_plan_create(&mut self, p: &RunPlanCreate) {
        self.print_plan("plan-created", &p.plan);
    }

    /// `run.plan.modify`: the plan as it now stands.
    pub(super) fn print_run_plan_modify(&mut self, p: &RunPlanModify) {
        self.print_plan("plan-updated", &p.plan);
    }

    /// `run.plan.replan`: a yellow warning with its reason.
    pub(super) fn print_run_plan_replan(&mut self, p: &RunPlanReplan) {
        let text = self.t(
            "plan-replan",
            &[("message", Arg::from(one_line(&p.message, 160)))],
        );
        self.line(&[(Tone::Warning, &text)]);
        if !p.reason.trim().is_empty() {
            let reason = self.t(
                "plan-replan-reason",
                &[("reason", Arg::from(one_line(&p.reason, 160)))],
            );
            let reason = format!("  {reason}");
            self.line(&[(Tone::Dim, &reason)]);
        }
    }

    /// `run.plan.complete`: success or failure with the summary and files changed.
    pub(super) fn print_run_plan_complete(&mut self, p: &RunPlanComplete) {
        self.in_step = false;
        let (tone, head) = if p.success {
            (Tone::Success, self.t("plan-complete", &[]))
        } else {
            (Tone::Error, self.t("plan-failed", &[]))
        };
        let summary = if p.summary.trim().is_empty() {
            String::new()
        } else {
            self.t(
                "plan-summary",
                &[("summary", Arg::from(one_line(&p.summary, 160)))],
            )
        };
        let files = if p.files_changed.is_empty() {
            String::new()
        } else {
            format!(" · {}", self.files_changed(p.files_changed.len()))
        };
        self.line(&[(tone, &head), (tone, &summary), (Tone::Dim, &files)]);
    }

    /// `run.plan.respond`: the planning reply and its numbered options (it waits for the
    /// user's answer, like a question).
    pub(super) fn print_run_plan_respond(&mut self, p: &RunPlanRespond) {
        self.awaiting_person = !p.question_id.is_empty();
        self.block("", Tone::Plain, p.response.trim());
        for (i, option) in p.options.iter().enumerate() {
            let text = format!("  {}. {}", i + 1, one_line(option, 160));
            self.line(&[(Tone::Plain, &text)]);
        }
    }

    /// `run.execution.start`: `▶ executing N steps: goal`.
    pub(super) fn print_run_execution_start(&mut self, p: &RunExecutionStart) {
        let text = self.t(
            "execution-start",
            &[
                ("count", Arg::from(p.plan.steps.len())),
                ("n", Arg::from(count(p.plan.steps.len() as u64))),
                ("goal", Arg::from(one_line(&p.plan.goal, 160))),
            ],
        );
        self.line(&[(Tone::Bold, &text)]);
    }

    /// `run.execution.end`: `✓ all steps done: goal` and the summary.
    pub(super) fn print_run_execution_end(&mut self, p: &RunExecutionEnd) {
        self.in_step = false;
        let text = self.t(
            "execution-end",
            &[("goal", Arg::from(one_line(&p.plan.goal, 160)))],
        );
        self.line(&[(Tone::Success, &text)]);
        if !p.summary.trim().is_empty() {
            self.block("  ", Tone::Plain, p.summary.trim());
        }
    }

    /// `run.execution.fail`: red, with the failing step.
    pub(super) fn print_run_execution_fail(&mut self, p: &RunExecutionFail) {
        self.in_step = false;
        let text = self.t(
            "execution-failed",
            &[
                ("step", Arg::from(self.step_suffix(p.step_id))),
                ("error", Arg::from(one_line(&p.error, 200))),
            ],
        );
        self.line(&[(Tone::ErrorBold, &text)]);
    }

    /// `run.execution.cancel`: yellow, with the step that was running.
    pub(super) fn print_run_execution_cancel(&mut self, p: &RunExecutionCancel) {
        self.in_step = false;
        let text = self.t(
            "execution-cancelled",
            &[("step", Arg::from(self.step_suffix(p.step_id)))],
        );
        self.line(&[(Tone::Warning, &text)]);
    }

    /// `run.step.start`: `[n/total] title` (verbose adds the description); later lines are
    /// indented under it.
    pub(super) fn print_run_step_start(&mut self, p: &RunStepStart) {
        self.in_step = false;
        let text = format!("{} ", progress(&p.progress));
        self.line(&[(Tone::Accent, &text), (Tone::Bold, p.title.trim())]);
        self.in_step = true;
        if self.verbose && !p.description.trim().is_empty() {
            self.block("", Tone::Dim, p.description.trim());
        }
    }

    /// `run.step.output`: the text, streamed under the step — unless it is the text of the
    /// model response just shown (the engine reports each step response's text this way after
    /// streaming it as `run.llm.delta`).
    pub(super) fn print_run_step_output(&mut self, p: &RunStepOutput) {
        if std::mem::take(&mut self.answer_shown) {
            return;
        }
        self.stream(StreamKind::StepOutput, "", Tone::Plain, &p.content);
    }

    /// `run.step.end`: `✓ [n/total] title` with the files it changed.
    pub(super) fn print_run_step_end(&mut self, p: &RunStepEnd) {
        self.close_line();
        self.in_step = false;
        let text = format!("✓ {} {}", progress(&p.progress), p.title.trim());
        let files = if p.files_changed.is_empty() {
            String::new()
        } else {
            format!(" · {}", self.list(&p.files_changed))
        };
        self.line(&[(Tone::Success, &text), (Tone::Dim, &files)]);
    }

    /// `run.step.fail`: `✗ [n/total] title: error` in red.
    pub(super) fn print_run_step_fail(&mut self, p: &RunStepFail) {
        self.close_line();
        self.in_step = false;
        let text = format!(
            "✗ {} {}: {}",
            progress(&p.progress),
            p.title.trim(),
            one_line(&p.error, 200)
        );
        self.line(&[(Tone::Error, &text)]);
    }

    /// `run.repair.attempt`: `↻ repair n/max (trigger): error` with its outcome and suggestion.
    pub(super) fn print_run_repair_attempt(&mut self, p: &RunRepairAttempt) {
        let what = match (&p.error_type, &p.error_message) {
            (Some(t), Some(m)) => format!("{t}: {}", one_line(m, 160)),
            (None, Some(m)) => one_line(m, 160),
            (Some(t), None) => t.clone(),
            (None, None) => String::new(),
        };
        let trigger = if p.trigger.trim().is_empty() {
            String::new()
        } else {
            format!(" ({})", p.trigger.trim())
        };
        let head = self.t(
            "repair-attempt",
            &[
                ("attempt", Arg::from(p.attempt_number.to_string())),
                ("max", Arg::from(p.max_attempts.to_string())),
            ],
        );
        let head = format!(
            "{head}{trigger}{}{what}",
            if what.is_empty() { "" } else { ": " }
        );
        let (outcome_tone, outcome) = match p.result {
            RepairResult::Pending => (Tone::Dim, String::new()),
            RepairResult::Success => (Tone::Success, self.t("repair-fixed", &[])),
            RepairResult::Failed => (Tone::Error, self.t("repair-not-fixed", &[])),
        };
        self.line(&[(Tone::Warning, &head), (outcome_tone, &outcome)]);
        if let Some(suggestion) = p.suggestion.as_deref().filter(|s| !s.trim().is_empty()) {
            let text = format!("  → {}", one_line(suggestion, 160));
            self.line(&[(Tone::Dim, &text)]);
        }
    }

    /// `run.anomaly.detect`: a yellow warning naming the pattern.
    pub(super) fn print_run_anomaly_detect(&mut self, p: &RunAnomalyDetect) {
        let kind = match p.anomaly {
            AnomalyKind::RepeatedCall => "anomaly-repeated-call",
            AnomalyKind::ConsecutiveFailures => "anomaly-consecutive-failures",
            AnomalyKind::NoProgress => "anomaly-no-progress",
        };
        let text = self.t(
            "anomaly",
            &[
                ("kind", Arg::from(self.t(kind, &[]))),
                ("message", Arg::from(one_line(&p.message, 160))),
            ],
        );
        self.line(&[(Tone::Warning, &text)]);
    }
}
