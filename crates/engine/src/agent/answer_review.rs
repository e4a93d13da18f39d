//! What the loop does with an answer that holds no tool call before taking it as the turn's
//! final answer — what small models get wrong most:
//!
//! - calls written off-template are read as calls ([`recover`]), so their text never passes
//!   for the answer; a call whose arguments cannot be read is answered "not run, send it
//!   again", as a native one is; with the compact tool profile, when the task asks for
//!   changes, a file given whole in a code block after a line naming it is a `write_file`
//!   call ([`super::whole_file`]);
//! - a tool result the model wrote itself is answered: no tool ran;
//! - when the task asked for changes and none was made, an answer that only shows code is
//!   pointed back at the edit tools, once per turn; with the compact tool profile (small
//!   models, which often say they changed a file they never touched) any such answer is
//!   told that nothing changed.
//!
//! Each correction is a user message in the conversation and a `system.log` that says what
//! was corrected.

use keel_events::{Emitter, LogLevel, SystemLog};

use super::definition_edit::definition_edits;
use super::forgotten_imports::add_forgotten_imports;
use super::left_out::keep_left_out;
use super::look_alike::as_quoted;
use super::test_files::is_test_path;
use super::tool_loop::TurnRun;
use super::whole_file::{WholeFile, json_written_files, whole_files};
use crate::assemble::{ArgumentsStatus, AssembledResponse, AssembledToolCall};
use crate::text_tool_calls::recover::{Recovered, recover};

/// Told when the model wrote a tool's result itself.
pub(crate) const MADE_UP_RESULT: &str = "No tool ran: you wrote a tool result yourself. Tools run only when you call them, and their results come back in the next message. Call the tool you need now.";

/// Told after calls that came with a made-up result.
const MADE_UP_AFTER_CALLS: &str = "Note: the results above are the real ones. Do not write tool results yourself; call a tool and wait for its result.";

/// Told when the answer is empty.
const EMPTY_ANSWER: &str =
    "Your answer was empty. Answer now: say what you found or did, or call the tool you need.";

/// Told when the answer shows code but no file changed.
const CODE_ONLY: &str = "No file was changed: your answer shows code, but only a tool call changes a file. Make the change now: call replace_in_file with a SEARCH/REPLACE block, or write_file with the complete new content of the file.";

/// Told, with the compact profile, when the answer shows code but no file changed.
const CODE_ONLY_COMPACT: &str = "No file was changed: your answer shows code, but not which file it is. Write the file's path on a line by itself, then its complete new content in a code block; or call replace_in_file with a SEARCH/REPLACE block.";

/// Told, when the model edits by writing files whole, when the answer shows code but no file
/// changed.
const CODE_ONLY_BLOCKS: &str = "No file was changed: your answer shows code, but not which file it is. Write the file's path on a line by itself, then its complete new content in a code block.";

/// Told, when the model edits by writing files whole, when no file changed.
const NOTHING_CHANGED_BLOCKS: &str = "No file has been changed yet, so the task is not done. For each file to change, write its path on a line by itself, then its complete new content in a code block. If no change is needed, answer why.";

/// Told when the answer says the work is done but no file changed.
const NOTHING_CHANGED: &str = "No file has been changed yet, so the task is not done. Make the change now with replace_in_file or write_file, then run the tests. If no change is needed, answer why.";

/// Told when the answer only rewrote test files the turn keeps: the task said they are right,
/// or they passed and the task does not speak of them (`passed_at_start`).
fn tests_are_right(paths: &[String], passed_at_start: bool) -> String {
    let why = if passed_at_start {
        "The tests passed before your change and the task does not ask to change them"
    } else {
        "The task says the tests are right"
    };
    format!(
        "{why}, so {} stays as it is: change the code the tests check, not the tests.",
        paths.join(", ")
    )
}

/// What the loop is to do with an answer that has no call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Review {
    /// It is the final answer.
    Accept,
    /// Tell the model this and ask again.
    Correct(String),
}

impl TurnRun<'_> {
    /// Reads calls out of the text of an answer that has none (native tool format only); the
    /// response then carries them and its text is the prose before them.
    pub(crate) fn recover_text_calls(&mut self, response: &mut AssembledResponse) {
        self.state.made_up_result = false;
        if !response.tool_calls.is_empty() || response.text.trim().is_empty() {
            return;
        }
        let tools = self.tools.registry().names();
        let Some(recovered) = recover(&response.text, &tools) else {
            self.recover_whole_files(response);
            return;
        };
        match recovered {
            Recovered::MadeUpResult => self.state.made_up_result = true,
            Recovered::Calls {
                prose,
                calls,
                made_up_result,
            } => {
                let count = calls.len();
                let repaired = calls.iter().filter(|c| c.repaired).count();
                let unreadable = calls.iter().filter(|c| c.arguments.is_err()).count();
                response.tool_calls = calls
                    .into_iter()
                    .enumerate()
                    .map(|(index, call)| {
                        let (arguments, status) = match call.arguments {
                            Ok(map) => (
                                serde_json::Value::Object(map).to_string(),
                                ArgumentsStatus::Complete,
                            ),
                            Err(reason) => (String::new(), ArgumentsStatus::Invalid(reason)),
                        };
                        AssembledToolCall {
                            index: u32::try_from(index).unwrap_or(u32::MAX),
                            id: String::new(),
                            name: call.name,
                            arguments,
                            pieces: 1,
                            status,
                        }
                    })
                    .collect();
                response.text = prose;
                if made_up_result {
                    self.state.hints.push(MADE_UP_AFTER_CALLS.to_owned());
                }
                log(
                    self.emitter,
                    format!(
                        "read {count} tool call(s) from the answer's text ({repaired} after repairing their JSON, {unreadable} unreadable){}",
                        if made_up_result {
                            "; a tool result the model wrote itself was dropped"
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
    }

    /// With the compact profile, in a turn asked to change files: the files the answer gives
    /// whole in code blocks become `write_file` calls, or else the definitions it gives whole
    /// become `replace_in_file` calls ([`super::definition_edit`]).
    fn recover_whole_files(&mut self, response: &mut AssembledResponse) {
        if !self.state.compact || !self.state.asks_for_change {
            return;
        }
        // A turn whose tools leave out `write_file` (a custom command's `allowed-tools`) gets
        // no call the model could not make itself: the definitions, if it may edit.
        let mut files = if self.tools.registry().get("write_file").is_some() {
            let blocks = whole_files(&response.text, &self.config.root, &self.focused_paths());
            if blocks.is_empty() {
                json_written_files(&response.text)
            } else {
                blocks
            }
        } else {
            Vec::new()
        };
        if self.state.keeps_tests {
            let (tests, code): (Vec<_>, Vec<_>) =
                files.into_iter().partition(|f| is_test_path(&f.path));
            self.leave_tests_alone(tests.into_iter().map(|f| f.path).collect());
            files = code;
        }
        let Some(first) = files.first() else {
            self.recover_definitions(response);
            return;
        };
        let start = first.start;
        for file in &mut files {
            self.complete_whole_file(file);
        }
        let prose = response.text[..start].trim_end().to_owned();
        let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
        response.tool_calls = files
            .into_iter()
            .enumerate()
            .map(|(index, file)| AssembledToolCall {
                index: u32::try_from(index).unwrap_or(u32::MAX),
                id: String::new(),
                name: "write_file".to_owned(),
                arguments: serde_json::json!({"path": file.path, "content": file.content})
                    .to_string(),
                pieces: 1,
                status: ArgumentsStatus::Complete,
            })
            .collect();
        response.text = prose;
        log(
            self.emitter,
            format!(
                "the answer gives {} whole in a code block: written with write_file",
                paths.join(", ")
            ),
        );
    }

    /// Completes a file given whole: what its rewrite left out of the file on disk put back
    /// ([`super::left_out`]), look-alikes of the strings the task quotes written as it quotes
    /// them ([`super::look_alike`]), and for Python the standard modules it uses without importing
    /// them imported ([`super::forgotten_imports`]).
    fn complete_whole_file(&self, file: &mut WholeFile) {
        if let Ok(old) = std::fs::read_to_string(self.config.root.join(&file.path)) {
            if let Some(kept) = keep_left_out(&file.path, &old, &file.content, &self.state.task) {
                file.content = kept.content;
                log(
                    self.emitter,
                    format!(
                        "the answer's {} leaves out {} of the file; kept as it was",
                        file.path,
                        kept.parts.join(", ")
                    ),
                );
            }
            if let Some((content, replaced)) =
                as_quoted(&file.path, &old, &file.content, &self.state.task)
            {
                file.content = content;
                log(
                    self.emitter,
                    format!(
                        "the answer's {} writes {}, a look-alike of the string the task quotes; written as the task writes it",
                        file.path,
                        replaced.join(", ")
                    ),
                );
            }
        }
        if file.path.ends_with(".py") {
            let (fixed, added) = add_forgotten_imports(&file.content);
            if !added.is_empty() {
                file.content = fixed;
                log(
                    self.emitter,
                    format!(
                        "the answer's {} uses {} without importing it; imported",
                        file.path,
                        added.join(", ")
                    ),
                );
            }
        }
    }

    /// Notes the test files an answer gave and the turn does not write, the task having said
    /// its tests are right.
    fn leave_tests_alone(&mut self, paths: Vec<String>) {
        if paths.is_empty() {
            return;
        }
        log(
            self.emitter,
            format!(
                "the answer rewrites {}; left as it is, {}",
                paths.join(", "),
                if self.state.tests_passed_at_start {
                    "the tests passed and the task does not ask to change them"
                } else {
                    "the task says the tests are right"
                }
            ),
        );
        for path in paths {
            if !self.state.tests_left_alone.contains(&path) {
                self.state.tests_left_alone.push(path);
            }
        }
    }

    /// The paths of the files now focused.
    fn focused_paths(&self) -> Vec<String> {
        self.context
            .focused
            .iter()
            .map(|f| f.path().to_owned())
            .collect()
    }

    /// The definitions the answer gives whole, as `replace_in_file` calls (one per file).
    fn recover_definitions(&mut self, response: &mut AssembledResponse) {
        if self.tools.registry().get("replace_in_file").is_none() {
            return;
        }
        let mut edits = definition_edits(&response.text, &self.config.root, &self.focused_paths());
        if self.state.keeps_tests {
            let tests: Vec<String> = edits
                .keys()
                .filter(|path| is_test_path(path))
                .cloned()
                .collect();
            for path in &tests {
                edits.remove(path);
            }
            self.leave_tests_alone(tests);
        }
        if edits.is_empty() {
            return;
        }
        let paths: Vec<String> = edits.keys().cloned().collect();
        response.tool_calls = edits
            .into_values()
            .enumerate()
            .map(|(index, file_edits)| {
                let path = file_edits[0].path.clone();
                let diff = file_edits
                    .iter()
                    .map(super::definition_edit::DefinitionEdit::diff)
                    .collect::<Vec<_>>()
                    .join("\n");
                AssembledToolCall {
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    id: String::new(),
                    name: "replace_in_file".to_owned(),
                    arguments: serde_json::json!({"path": path, "diff": diff}).to_string(),
                    pieces: 1,
                    status: ArgumentsStatus::Complete,
                }
            })
            .collect();
        log(
            self.emitter,
            format!(
                "the answer gives definitions of {} whole in code blocks: each replaces the old one with replace_in_file",
                paths.join(", ")
            ),
        );
    }

    /// Whether `text`, an answer without calls in the main loop, ends the turn.
    pub(crate) fn review_answer(&mut self, text: &str) -> Review {
        if text.trim().is_empty() && !self.state.corrected.empty {
            self.state.corrected.empty = true;
            log(
                self.emitter,
                "the answer was empty; the model was asked again",
            );
            return Review::Correct(EMPTY_ANSWER.to_owned());
        }
        if self.state.made_up_result && !self.state.corrected.made_up {
            self.state.corrected.made_up = true;
            log(
                self.emitter,
                "the answer held a tool result the model wrote itself; it was told no tool ran",
            );
            return Review::Correct(MADE_UP_RESULT.to_owned());
        }
        if !self.state.asks_for_change || self.state.corrected.no_change || self.changed_files() {
            return Review::Accept;
        }
        let shows_code = holds_code_block(text);
        if !shows_code && !self.state.compact {
            return Review::Accept;
        }
        self.state.corrected.no_change = true;
        log(
            self.emitter,
            if shows_code {
                "the task asks for changes and the answer only shows code; the model was pointed at the edit tools"
            } else {
                "the task asks for changes and none was made; the model was told so"
            },
        );
        if !self.state.tests_left_alone.is_empty() {
            return Review::Correct(format!(
                "{} {}",
                tests_are_right(
                    &self.state.tests_left_alone,
                    self.state.tests_passed_at_start
                ),
                NOTHING_CHANGED_BLOCKS
            ));
        }
        Review::Correct(
            match (shows_code, self.state.compact, self.state.blocks) {
                (true, _, true) => CODE_ONLY_BLOCKS,
                (false, _, true) => NOTHING_CHANGED_BLOCKS,
                (true, true, false) => CODE_ONLY_COMPACT,
                (true, false, false) => CODE_ONLY,
                (false, _, false) => NOTHING_CHANGED,
            }
            .to_owned(),
        )
    }

    /// Whether the turn has changed any file so far: its file tools' changes, or anything
    /// else (commands) under the root since the turn began.
    pub(crate) fn changed_files(&self) -> bool {
        self.changes.count() > 0
            || self
                .state
                .stamps
                .as_ref()
                .is_some_and(|stamps| stamps.changed(&self.config.root))
    }
}

/// Whether `text` holds a fenced block of code (not a one-liner).
fn holds_code_block(text: &str) -> bool {
    let mut inside: Option<usize> = None;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            match inside {
                Some(lines) if lines >= 2 => return true,
                Some(_) => inside = None,
                None => inside = Some(0),
            }
        } else if let Some(lines) = inside.as_mut() {
            *lines += 1;
        }
    }
    inside.is_some_and(|lines| lines >= 2)
}

/// A `system.log` saying how an answer was read.
pub(crate) fn log(emitter: &Emitter, message: impl Into<String>) {
    let message = message.into();
    tracing::info!(%message, "answer reviewed");
    emitter.emit(SystemLog {
        level: LogLevel::Info,
        message,
        metadata: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_two_lines_or_more() {
        assert!(holds_code_block(
            "Here:\n```python\ndef mean(v):\n    return sum(v) / len(v)\n```"
        ));
        assert!(holds_code_block("```\na\nb"));
        assert!(!holds_code_block("Run `pytest`.\n```\npytest -q\n```"));
        assert!(!holds_code_block("I changed the divisor."));
    }
}
