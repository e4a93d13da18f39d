//! The project's tests around the model's work (`test_command`, `auto_test`), run by Keel as
//! `execute_command` under the session's sandbox and approvals and reported like any tool call
//! (`run.tool.start` and `run.tool.end` with call id `keel_test_N`):
//!
//! - before the first model call of a turn that asks for changes, so the model starts from
//!   what fails: the output joins the turn's context ("Tests before any change"), next to the
//!   focused files, where a small model reads it as part of the task rather than as a tool
//!   result to sum up;
//! - when a turn that changed files ends with an answer: when they fail, their output goes
//!   back to the model as a note and the loop goes on, at most [`AgentConfig::test_rounds`]
//!   times; when they still fail after that, `agent.end` says so. Once they pass, the
//!   examples in the docstrings of what the turn changed run the same way
//!   ([`super::doc_examples`]).
//!
//! [`AgentConfig::test_rounds`]: super::AgentConfig::test_rounds

use std::sync::LazyLock;

use regex::Regex;

use super::answer_review::log;
use super::tool_loop::TurnRun;
use super::turn::NO_CHANGE_WARNING;

/// How to change a file, when the model edits by writing files whole (for an answer that
/// changed nothing since the tests failed).
const UNCHANGED_BLOCKS: &str =
    "write the file's path on a line by itself, then its complete new content in a code block.";

/// How to change a file, when the model edits with the tools.
const UNCHANGED_TOOLS: &str = "change it with the edit tools.";

/// Heading of the tests' output in the turn's context.
pub(crate) const TESTS_HEADING: &str = "## Tests before any change";

/// Most seconds a test run may take.
const TEST_TIMEOUT_SECS: u64 = 600;

/// Most characters of a failing run's output given to the model (its end, where test
/// runners put the summary).
const MAX_OUTPUT_CHARS: usize = 6_000;

/// How the latest test run went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TestState {
    /// Not run in this turn.
    NotRun,
    /// The tests passed.
    Passed,
    /// The tests failed.
    Failed,
}

impl TurnRun<'_> {
    /// Before the first model call of a turn that asks for changes: runs the tests and puts
    /// their output in the turn's context, so the model sees what fails.
    pub(crate) async fn test_before_start(&mut self) {
        let Some(command) = self.config.test_command.clone() else {
            return;
        };
        if !self.config.auto_test || !self.state.asks_for_change {
            return;
        }
        let (passed, output) = self.run_tests("keel_test_0", &command).await;
        // Passing tests the task says nothing about are not the model's to rewrite: small
        // models "fix" them into ones that no longer check anything, or no longer import.
        if passed && !super::task_intent::mentions_tests(&self.state.task) {
            self.state.keeps_tests = true;
            self.state.tests_passed_at_start = true;
        }
        let verdict = if passed {
            "pass"
        } else {
            "fail (change the code so that they pass; the tests are right unless the task says otherwise)"
        };
        self.context.turn_notes.push(format!(
            "{TESTS_HEADING}\n\n`{command}` {verdict}:\n\n```\n{}\n```",
            tail(&output, MAX_OUTPUT_CHARS).trim_end()
        ));
        // What the run wrote (caches) is not the turn's change.
        if self.state.stamps.is_some() {
            self.state.stamps = Some(super::stamps::Stamps::take(&self.config.root));
        }
    }

    /// After an answer: runs the tests when the turn changed files and the command is set;
    /// true when they failed and the model is to go on (their output is in the conversation).
    pub(crate) async fn tests_to_rerun(&mut self) -> bool {
        let Some(command) = self.config.test_command.clone() else {
            return false;
        };
        if !self.config.auto_test
            || self.state.cancel.is_cancelled()
            || self.state.iterations >= self.config.max_iterations
            || !self.changed_files()
        {
            return false;
        }
        if self.state.test_rounds > self.config.test_rounds {
            return false;
        }
        if self.unchanged_since_failure() {
            return true;
        }
        self.state.test_rounds += 1;
        let call_id = format!("keel_test_{}", self.state.test_rounds);
        let (passed, output) = self.run_tests(&call_id, &command).await;
        let examples = if passed {
            let call_id = format!("keel_examples_{}", self.state.test_rounds);
            self.failing_doc_examples(&call_id).await
        } else {
            None
        };
        self.state.examples_failed = examples.is_some();
        let passed = passed && examples.is_none();
        self.state.tests = if passed {
            TestState::Passed
        } else {
            TestState::Failed
        };
        self.state.failed_on = (!passed).then(|| super::stamps::Stamps::take(&self.config.root));
        // A check of the task's parts that broke the tests gets the rounds left to mend them,
        // then is put back.
        let last_round = self.state.test_rounds > self.config.test_rounds;
        if !passed && last_round && self.undo_parts_review(&command).await {
            return false;
        }
        if passed || self.state.test_rounds > self.config.test_rounds {
            return false;
        }
        let note = match examples {
            Some((_, output)) => format!(
                "The tests pass, but I ran the examples in the docstrings of what you changed and they fail:\n\n```\n{}\n```\n\nFix the code so that each example gives what its docstring shows (the docstring is right).",
                tail(&output, MAX_OUTPUT_CHARS)
            ),
            None => format!(
                "I ran the tests (`{command}`) after your change and they fail:\n\n```\n{}\n```\n\nFix the code so that they pass (do not change the tests unless they are wrong).",
                tail(&output, MAX_OUTPUT_CHARS)
            ),
        };
        self.context.conversation.push_note(note);
        true
    }

    /// When the answer changed nothing since the tests last failed and a round is left after
    /// this one: tells the model so instead of running them again (a small model that answers
    /// in prose after a failure otherwise gets the same failure back, round after round); true
    /// when it did (the loop goes on).
    fn unchanged_since_failure(&mut self) -> bool {
        let unchanged = self.state.tests == TestState::Failed
            && self
                .state
                .failed_on
                .as_ref()
                .is_some_and(|stamps| !stamps.changed(&self.config.root));
        if !unchanged || self.state.test_rounds + 1 > self.config.test_rounds {
            return false;
        }
        self.state.test_rounds += 1;
        log(
            self.emitter,
            "the answer changed no file since the tests failed; they were not run again",
        );
        let how = if self.state.blocks {
            UNCHANGED_BLOCKS
        } else {
            UNCHANGED_TOOLS
        };
        let what = if self.state.examples_failed {
            "the docstrings' examples"
        } else {
            "the tests"
        };
        self.context.conversation.push_note(format!(
            "Your answer changed no file, so {what} still fail as shown above. Fix the code now: {how}"
        ));
        true
    }

    /// Why the turn's answer may not be what was asked: no change where one was asked for, or
    /// tests that still fail.
    pub(crate) fn unfinished_warning(&self) -> Option<String> {
        if self.state.asks_for_change && !self.changed_files() {
            return Some(NO_CHANGE_WARNING.to_owned());
        }
        match (self.state.tests, &self.config.test_command) {
            (TestState::Failed, Some(_)) if self.state.examples_failed => Some(format!(
                "the examples in the docstrings of the changed code still fail after {} run(s)",
                self.state.test_rounds
            )),
            (TestState::Failed, Some(command)) => Some(format!(
                "the project's tests (`{command}`) still fail after {} run(s)",
                self.state.test_rounds
            )),
            _ => None,
        }
    }

    /// Runs `command` as `execute_command` call `call_id` and reports it; whether it passed,
    /// and its output.
    pub(crate) async fn run_tests(&mut self, call_id: &str, command: &str) -> (bool, String) {
        let arguments = serde_json::json!({
            "command": command,
            "timeout_secs": TEST_TIMEOUT_SECS,
        });
        let result = self
            .run_own_tool(call_id, "execute_command", arguments)
            .await;
        let output = super::summary::result_text(&result);
        (result.success, for_the_model(&output, &self.config.root))
    }
}

/// Test output as the model reads it: paths relative to the project, TAP's passing tests on one
/// line each ([`super::tap_output`]), no timings (they differ
/// on every run, which would change the prompt's stable part and so defeat the provider's
/// prompt cache when the tests run again), and a Python traceback's frames without their
/// source lines and column marks (`^^^^`, `~~~^~~`), which small models copy into their edits
/// as if they were the file's text.
fn for_the_model(output: &str, root: &std::path::Path) -> String {
    let prefix = format!("{}/", root.display());
    let relative = super::tap_output::condensed(&without_timings(&output.replace(&prefix, "")));
    let mut kept = Vec::new();
    // The indentation of the traceback frame whose source lines are being skipped.
    let mut frame: Option<usize> = None;
    for line in relative.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(depth) = frame {
            if indent > depth && !line.trim().is_empty() {
                continue;
            }
            frame = None;
        }
        let marks = line.trim();
        if !marks.is_empty() && marks.chars().all(|c| matches!(c, '^' | '~')) {
            continue;
        }
        if marks.starts_with("File \"") && marks.contains("\", line ") {
            frame = Some(indent);
        }
        kept.push(line);
    }
    kept.join("\n")
}

/// `text` without the times test runners print: TAP's `duration_ms` lines (node), pytest's
/// `in 0.12s`, Go's `(0.00s)` and package times, cargo's `finished in 0.00s`.
fn without_timings(text: &str) -> String {
    static TAP_DURATION: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^\s*(?:# )?duration_ms:? [0-9.]+\s*$").ok());
    static TIMES: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?: in [0-9]+(?:\.[0-9]+)?m?s\b| \([0-9]+(?:\.[0-9]+)?m?s\)|\t[0-9]+(?:\.[0-9]+)?m?s$)")
            .ok()
    });
    let (Some(tap), Some(times)) = (TAP_DURATION.as_ref(), TIMES.as_ref()) else {
        return text.to_owned();
    };
    text.lines()
        .filter(|line| !tap.is_match(line))
        .map(|line| times.replace_all(line, ""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last `max` characters of `text`, marked when cut.
fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(count - max).collect();
    format!("[… {} earlier characters]\n{kept}", count - max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_output_is_relative_to_the_project_without_column_marks() {
        let root = std::path::Path::new("/tmp/keel-eval-x/project");
        let output = "  File \"/tmp/keel-eval-x/project/calc/stats.py\", line 8, in mean\n    return sum(values) / (len(values) - 1)\n           ~~~~~~~~~~~~^~~~~~~~~~~~~~~~~~~\n    self.assertEqual(mean([5]), 5)\n                     ^^^^^^^^^\n\nZeroDivisionError: division by zero";
        assert_eq!(
            for_the_model(output, root),
            "  File \"calc/stats.py\", line 8, in mean\n\nZeroDivisionError: division by zero"
        );
    }

    #[test]
    fn timings_are_left_out() {
        let tap = "ok 1 - parsePort\n  ---\n  duration_ms: 1.441374\n  ...\n# pass 3\n# duration_ms 129.176391";
        assert_eq!(
            without_timings(tap),
            "ok 1 - parsePort\n  ---\n  ...\n# pass 3"
        );
        assert_eq!(
            without_timings("=== 1 failed, 2 passed in 0.12s ==="),
            "=== 1 failed, 2 passed ==="
        );
        assert_eq!(
            without_timings("--- FAIL: TestTies (0.00s)\nFAIL\texample.com/wf\t0.003s"),
            "--- FAIL: TestTies\nFAIL\texample.com/wf"
        );
        assert_eq!(
            without_timings("test result: FAILED. 1 passed; 1 failed; finished in 0.00s"),
            "test result: FAILED. 1 passed; 1 failed; finished"
        );
        assert_eq!(
            without_timings("took 5 tries in total"),
            "took 5 tries in total"
        );
    }

    #[test]
    fn tails_keep_the_end() {
        assert_eq!(tail("abc", 5), "abc");
        assert_eq!(tail("abcdef", 2), "[… 4 earlier characters]\nef");
    }
}
