//! A task that asks for more than one thing ([`super::task_parts`]) is checked part by part:
//! small models often do the first request and stop ("add the parameter" done, "make German
//! invoices use it" forgotten). Under the compact profile, once the turn has changed files and
//! the tests pass (or there are none), the model is shown the task's parts and asked to
//! finish any that is not done; a second time only when a part is still plainly not done.
//! When what it then writes breaks the tests, the failures go back to it for the test rounds
//! left; when they still fail, the files are put back as they were before the check (through
//! the file tools, so checkpoints and events record it) and the turn ends with its earlier
//! answer.

use std::collections::BTreeMap;
use std::time::Instant;

use keel_events::{RunToolStart, ToolStatus};
use keel_protocol::ToolResult;

use super::answer_review::log;
use super::auto_test::TestState;
use super::rename_check::text_files;
use super::tool_call::ToolEnd;
use super::tool_loop::TurnRun;
use super::turn_state::LoopEnd;
use super::undone_parts::{FileThen, is_checked_code, undone_parts};

/// Most times one turn checks the task's parts.
const MAX_PARTS_ROUNDS: u32 = 2;

/// The check under way: what to put back if it breaks the tests.
#[derive(Debug, Clone, Default)]
pub(crate) struct PartsReview {
    /// The files it may touch as they were when it began (`None`: the file did not exist).
    before: BTreeMap<String, Option<String>>,
    /// The turn's change count when it began.
    from: usize,
    /// The answer the turn had before it.
    answer: String,
    /// Its changes were put back.
    undone: bool,
}

impl TurnRun<'_> {
    /// After an answer that ends the loop with the tests passing: asks the model to check the
    /// task's parts (again, at most [`MAX_PARTS_ROUNDS`] times a turn, while a part is plainly
    /// not done); true when it was asked (the loop goes on).
    pub(crate) fn review_parts(&mut self, answer: &str) -> bool {
        let again = self.state.parts_rounds > 0;
        if self.state.parts_rounds >= MAX_PARTS_ROUNDS
            || self.state.parts_review.as_ref().is_some_and(|r| r.undone)
            || !self.state.compact
            || !self.state.asks_for_change
            || self.state.tests == TestState::Failed
            || self.state.cancel.is_cancelled()
            || self.state.iterations >= self.config.max_iterations
            || !self.changed_files()
        {
            return false;
        }
        let parts = super::task_parts::requests(&self.state.task);
        let errors: Vec<String> = self.state.edit_errors.values().flatten().cloned().collect();
        if parts.is_empty() && errors.is_empty() {
            return false;
        }
        let undone = undone_parts(&parts, &self.code_then());
        let open = undone.iter().filter(|u| u.is_some()).count();
        if again && open == 0 {
            return false;
        }
        self.state.parts_rounds += 1;
        // The turn's answer stays the one before the first check.
        let answer = match &self.state.parts_review {
            Some(review) => review.answer.clone(),
            None => answer.to_owned(),
        };
        let mut paths: Vec<String> = self
            .context
            .focused
            .iter()
            .map(|f| f.path().to_owned())
            .collect();
        paths.extend(self.changes.since(0));
        let before = paths
            .into_iter()
            .map(|path| {
                let content = std::fs::read_to_string(self.config.root.join(&path)).ok();
                (path, content)
            })
            .collect();
        self.state.parts_review = Some(PartsReview {
            before,
            from: self.changes.count(),
            answer,
            undone: false,
        });
        let mut why = Vec::new();
        if !parts.is_empty() {
            why.push(format!(
                "the task asks for {} things; the model was asked to check each",
                parts.len()
            ));
        }
        if !errors.is_empty() {
            why.push(format!(
                "the language servers report {} error(s) in the changed files; the model was shown them",
                errors.len()
            ));
        }
        if open > 0 {
            why.push(format!("{open} of them plainly not done yet"));
        }
        log(self.emitter, why.join("; "));
        self.context
            .conversation
            .push_note(checklist(&parts, &undone, &errors));
        true
    }

    /// When the tests still fail after the check's changes and the rounds to mend them: puts
    /// the files it changed back as they were before it, then runs the tests again; true
    /// when it did.
    pub(crate) async fn undo_parts_review(&mut self, command: &str) -> bool {
        let Some(review) = self.state.parts_review.as_mut() else {
            return false;
        };
        if review.undone {
            return false;
        }
        review.undone = true;
        let before = review.before.clone();
        let changed = self.changes.since(review.from);
        if changed.is_empty() {
            return false;
        }
        let (_, unknown) = self.put_back(&before, &changed).await;
        let mut message = format!(
            "the tests failed after the check of the task's parts; {} put back as before it",
            changed
                .iter()
                .filter(|p| !unknown.contains(p))
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !unknown.is_empty() {
            message.push_str(&format!(
                " ({} left as written: the turn had not seen them before)",
                unknown.join(", ")
            ));
        }
        log(self.emitter, message);
        let call_id = format!("keel_test_{}", self.state.test_rounds + 1);
        let (passed, _) = self.run_tests(&call_id, command).await;
        self.state.tests = if passed {
            TestState::Passed
        } else {
            TestState::Failed
        };
        true
    }

    /// How the turn ends after the check: with the answer before it when the check changed
    /// nothing or was put back, else as the loop ended.
    pub(crate) fn after_parts_review(&mut self, end: LoopEnd) -> LoopEnd {
        match (self.state.parts_review.take(), end) {
            (Some(review), LoopEnd::Answered(_) | LoopEnd::Completed(_))
                if review.undone || self.changes.count() == review.from =>
            {
                LoopEnd::Answered(review.answer)
            }
            (_, end) => end,
        }
    }

    /// The project's code (see [`super::undone_parts`]) as the turn found it (before Keel's
    /// own work for the task too) and as it is.
    fn code_then(&self) -> BTreeMap<String, FileThen> {
        let found = |path: &String| self.as_found(path);
        let mut files: BTreeMap<String, FileThen> = text_files(&self.config.root)
            .into_iter()
            .filter(|(path, _)| is_checked_code(path))
            .map(|(path, now)| {
                let before = match found(&path) {
                    Some(before) => before.clone(),
                    None => Some(now.clone()),
                };
                let now = Some(now);
                (path, FileThen { before, now })
            })
            .collect();
        for (path, before) in self.state.before_keel.iter().chain(&self.state.originals) {
            if is_checked_code(path) && !files.contains_key(path) {
                files.insert(
                    path.clone(),
                    FileThen {
                        before: before.clone(),
                        now: None,
                    },
                );
            }
        }
        files
    }

    /// The file at `path` (relative to the project) as the turn found it, before Keel's own
    /// work and the model's edits (`Some(None)`: it did not exist); `None` when the turn
    /// neither wrote it with its tools nor saw it written.
    pub(crate) fn as_found(&self, path: &str) -> Option<&Option<String>> {
        self.state
            .before_keel
            .get(path)
            .or_else(|| self.state.originals.get(path))
    }

    /// Runs one of Keel's own calls of a built-in tool (`call_id`), reported as the model's
    /// calls are; its result.
    pub(crate) async fn run_own_tool(
        &mut self,
        call_id: &str,
        tool: &'static str,
        arguments: serde_json::Value,
    ) -> ToolResult {
        self.emitter.emit(RunToolStart {
            call_id: call_id.to_owned(),
            tool_name: tool.to_owned(),
            arguments: arguments.clone(),
            step_id: None,
            mcp_server: None,
        });
        let started = Instant::now();
        let ctx = self.tools.tool_context(self.tool_env(), call_id, None);
        let result = self
            .tools
            .registry()
            .call(&ctx, tool, arguments.clone())
            .await;
        let status = if result.success {
            ToolStatus::Success
        } else {
            ToolStatus::Error
        };
        ToolEnd {
            call_id: call_id.to_owned(),
            tool,
            arguments: &arguments,
            result: &result,
            status,
            started,
            step: None,
            mcp_server: None,
            diagnostics: None,
        }
        .emit(self.emitter);
        result
    }
}

/// The note asking the model to check each of the task's `parts` and to fix the `errors`
/// the language servers report in the files it changed.
/// A part marked with why it is plainly not done yet ([`super::undone_parts`]) is told so.
fn checklist(parts: &[String], undone: &[Option<String>], errors: &[String]) -> String {
    const WRITE: &str = "write each file to change, its path on a line by itself, then its complete new content in a code block";
    let mut note = String::from("The tests pass.");
    if !errors.is_empty() {
        note.push_str(&format!(
            " But the language server reports errors in the files you changed:\n\n{}\n\nFix them now: {WRITE}.",
            errors.join("\n")
        ));
    }
    if !parts.is_empty() {
        let list: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(n, part)| match undone.get(n) {
                Some(Some(why)) => format!("{}. {part} — NOT DONE YET: {why}", n + 1),
                _ => format!("{}. {part}", n + 1),
            })
            .collect();
        note.push_str(&format!(
            " Before you finish, check the task part by part against the files as they are now:\n\n{}\n\nIf a part is not done yet, do it now: {WRITE}.",
            list.join("\n")
        ));
    }
    if undone.iter().any(Option::is_some) {
        note.push_str(" A part marked NOT DONE YET needs a change.");
    } else if !parts.is_empty() {
        note.push_str(" If every part is done, answer DONE.");
    }
    note
}

#[cfg(test)]
mod tests {
    use super::checklist;

    #[test]
    fn the_note_lists_parts_and_errors() {
        let parts = vec![
            "Add a `decimal_sep` parameter to `format_amount`".to_owned(),
            "make German invoices use a comma".to_owned(),
        ];
        let errors = vec!["textutils/slug.py:12: \"re\" is not defined".to_owned()];
        insta::assert_snapshot!("parts_only", checklist(&parts, &[], &[]));
        insta::assert_snapshot!("errors_only", checklist(&[], &[], &errors));
        insta::assert_snapshot!("parts_and_errors", checklist(&parts, &[], &errors));
        let undone = vec![
            None,
            Some("invoicer/render.py using `lang` is not changed".to_owned()),
        ];
        insta::assert_snapshot!("a_part_not_done", checklist(&parts, &undone, &[]));
    }
}
