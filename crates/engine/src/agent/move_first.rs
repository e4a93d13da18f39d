//! A move the task asks for ("Move `parse_duration` and `format_duration` … into a new module
//! tasklog/durations.py and update every import"), under the compact profile, is carried out
//! by Keel before the model's first call when it is a move of Python definitions
//! ([`python_move`]) or of Rust items into a new module file ([`rust_move`]): a small local model never finished one within a task's time — it
//! explained the steps, or rewrote the old module with the moved code still in it. Each file
//! is written with `write_file` as Keel's own call, and the model is told what was done and
//! asked to finish what is left. A move Keel cannot make (another language, a target that
//! exists, names no single module defines) is the model's, as before, and a `system.log`
//! says why.
//!
//! [`python_move`]: super::python_move
//! [`rust_move`]: super::rust_move

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::answer_review::log;
use super::identifier_rename::is_identifier;
use super::python_move::move_definitions;
use super::rename_check::text_files;
use super::rust_move::move_items;
use super::tool_loop::TurnRun;

/// What a move changed: new contents by path (the new module among them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Moved {
    /// Every file to write, by workspace-relative path.
    pub(crate) files: BTreeMap<String, String>,
    /// What moved besides the names asked for (helpers only they used).
    pub(crate) along: Vec<String>,
}

/// Why a move cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MoveError {
    /// No module, or more than one, defines the names.
    #[error("no single module defines {0}")]
    NoSource(String),
    /// The target exists with content.
    #[error("{0} already exists")]
    TargetExists(String),
    /// The target is not a module file of the language moved.
    #[error("{0} is not a module file Keel can move code into")]
    BadTarget(String),
}

/// The languages Keel moves code in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Python,
    Rust,
}

/// Heading of the note saying what the move did.
pub(crate) const MOVED_HEADING: &str = "## Moved by Keel";

/// A move the task asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskedMove {
    /// The names to move.
    pub(crate) names: Vec<String>,
    /// The file to move them into.
    pub(crate) target: String,
}

/// The move `task` asks for: "move `a` and `b` … into|to … path/file.ext" (the names in
/// backticks between "move" and "into"/"to", the first path after it).
pub(crate) fn asked_move(task: &str) -> Option<AskedMove> {
    static MOVE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?i)\bmov(?:e|ing)\b(?P<what>[^\n]*?)\b(?:into|to)\b(?P<rest>[^\n]*)").ok()
    });
    let found = MOVE.as_ref()?.captures(task)?;
    let names: Vec<String> = found
        .name("what")?
        .as_str()
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| is_identifier(name))
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return None;
    }
    let rest = found.name("rest")?.as_str();
    let sentence = rest.split(". ").next().unwrap_or(rest);
    let target = sentence
        .split_whitespace()
        .map(|word| {
            word.trim_matches(|c: char| matches!(c, '`' | '(' | ')' | '*' | ',' | ';' | ':' | '"'))
                .trim_end_matches('.')
        })
        .find(|word| {
            word.contains('.')
                && word.rsplit('/').next().is_some_and(|name| {
                    name.rsplit_once('.').is_some_and(|(stem, ext)| {
                        !stem.is_empty() && ext.chars().all(char::is_alphanumeric)
                    })
                })
        })?
        .trim_start_matches("./")
        .to_owned();
    Some(AskedMove { names, target })
}

impl TurnRun<'_> {
    /// Before the model's first call: carries out the move the task asks for (see the
    /// module's docs) and tells the model in the turn's notes.
    pub(crate) async fn move_first(&mut self) {
        if !self.state.asks_for_change || self.state.only_asks || self.state.cancel.is_cancelled() {
            return;
        }
        let Some(asked) = asked_move(&self.state.task) else {
            return;
        };
        let language = if asked.target.ends_with(".py") {
            Language::Python
        } else if asked.target.ends_with(".rs") {
            Language::Rust
        } else {
            return;
        };
        if !self.settle_profile().await {
            return;
        }
        let files: BTreeMap<String, String> = text_files(&self.config.root)
            .into_iter()
            .filter(|(path, _)| match language {
                Language::Python => path.ends_with(".py"),
                Language::Rust => path.ends_with(".rs") || path.ends_with(".md"),
            })
            .collect();
        let made = match language {
            Language::Python => move_definitions(&files, &asked.names, &asked.target),
            Language::Rust => move_items(&files, &asked.names, &asked.target),
        };
        let moved = match made {
            Ok(moved) => moved,
            Err(why) => {
                log(
                    self.emitter,
                    format!("the move the task asks for is left to the model: {why}"),
                );
                return;
            }
        };
        let mut written = Vec::new();
        for (n, (path, content)) in moved.files.iter().enumerate() {
            if files.get(path) == Some(content) {
                continue;
            }
            if !self
                .write_baseline(&format!("keel_move_{n}"), path, content)
                .await
            {
                continue;
            }
            written.push(path.clone());
        }
        if written.is_empty() {
            return;
        }
        let quoted: Vec<String> = asked.names.iter().map(|n| format!("`{n}`")).collect();
        let along = if moved.along.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = moved.along.iter().map(|n| format!("`{n}`")).collect();
            format!(" (with {}, which only they use)", names.join(", "))
        };
        let others = written
            .iter()
            .filter(|p| **p != asked.target)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let quoted = quoted.join(", ");
        log(
            self.emitter,
            format!(
                "moved {quoted}{along} into {} before the model's first call; changed {others}",
                asked.target,
            ),
        );
        self.state
            .done_by_keel
            .push(format!("Moved {quoted}{along} into `{}`.", asked.target));
        self.context.turn_notes.push(format!(
            "{MOVED_HEADING}\n\nKeel has already moved {quoted}{along} into the new module {} and changed {others} to match (definitions removed, imports pointed at the new module). The files shown above are the result. Check that the task is done: if something it asks for is still missing, change it; otherwise answer DONE.",
            asked.target,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_moves_tasks_ask_for() {
        assert_eq!(
            asked_move(
                "tasklog/utils.py is becoming a junk drawer. Move `parse_duration` and `format_duration` (and whatever they need) into a new module tasklog/durations.py and update every import in the package and the tests."
            ),
            Some(AskedMove {
                names: vec!["parse_duration".to_owned(), "format_duration".to_owned()],
                target: "tasklog/durations.py".to_owned(),
            })
        );
        assert_eq!(
            asked_move(
                "Move `crc16` (with its unit test) out of src/util.rs into a new public module `checksum` (src/checksum.rs), so it is used as `framing::checksum::crc16`."
            ),
            Some(AskedMove {
                names: vec!["crc16".to_owned()],
                target: "src/checksum.rs".to_owned(),
            })
        );
        assert_eq!(asked_move("Fix the failing test"), None);
        assert_eq!(asked_move("Move the button to the left."), None);
        assert_eq!(asked_move("Move `x` somewhere nicer."), None);
    }
}
