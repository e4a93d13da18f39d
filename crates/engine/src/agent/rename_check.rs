//! A rename the task asks for ("Rename `getUserName` to `getDisplayName` across the whole
//! project"), under the compact profile (small models rename the definition and the callers
//! they were shown, and miss the rest; a whole-file rewrite of six files takes a small local
//! model longer than the task's time):
//!
//! - is carried out first, before the model's first call, when both names are identifiers
//!   and the old one is used in the project: every text file the workspace walk sees is
//!   renamed ([`identifier_rename`]: whole words and the names built from it), each file
//!   written with `write_file` as Keel's own call, and the model is told what was done and
//!   asked to finish what a text rename cannot know about;
//! - is checked once the turn has changed files: Keel searches the project for the old name
//!   (`search_files`, reported as Keel's own call), shows the files still using it, and tells
//!   the model where — at most [`MAX_ROUNDS`] times a turn.
//!
//! [`identifier_rename`]: super::identifier_rename

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::answer_review::log;
use super::identifier_rename::{Renamed, identifiers, is_identifier, rename_in};
use super::tool_loop::TurnRun;

/// Most files a rename carried out first may change; a wider one is left to the model.
const MAX_RENAMED_FILES: usize = 100;

/// Largest file (bytes) the rename reads.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Heading of the note saying what the rename carried out first did.
pub(crate) const RENAMED_HEADING: &str = "## Renamed by Keel";

/// Times a turn is told about old names left.
const MAX_ROUNDS: u32 = 2;

/// Most uses listed in the note.
const MAX_LISTED: usize = 20;

/// A rename the task asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rename {
    /// The old name.
    pub(crate) from: String,
    /// The new name.
    pub(crate) to: String,
}

/// The rename `task` asks for: "rename `A` … to `B`" (the first name in backticks after
/// "rename"), or "rename it to `B`" (`A` the task's first name in backticks).
pub(crate) fn asked_rename(task: &str) -> Option<Rename> {
    static RENAME: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\brenam(?:e|ing)\b(?P<what>(?:`[^`\n]*`|[^.;\n`])*?)\bto\s+`(?P<to>[A-Za-z_][\w.:]*)`",
        )
            .ok()
    });
    static NAME: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"`(?P<name>[A-Za-z_]\w*)`").ok());
    let (rename, name) = (RENAME.as_ref()?, NAME.as_ref()?);
    let found = rename.captures(task)?;
    let what = found.name("what")?.as_str();
    let to = found.name("to")?.as_str().to_owned();
    let from = match name.captures(what) {
        Some(first) => first.name("name")?.as_str().to_owned(),
        None if what
            .split_whitespace()
            .any(|w| w.eq_ignore_ascii_case("it")) =>
        {
            name.captures(task)?.name("name")?.as_str().to_owned()
        }
        None => return None,
    };
    (from != to).then_some(Rename { from, to })
}

/// A line still using the old name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Use {
    path: String,
    /// The listing's line: `path:n:text`.
    line: String,
    /// The line's text.
    text: String,
}

impl TurnRun<'_> {
    /// Before the model's first call: carries out the rename the task asks for (see the
    /// module's docs) and tells the model in the turn's notes.
    pub(crate) async fn rename_first(&mut self) {
        if !self.state.asks_for_change || self.state.only_asks || self.state.cancel.is_cancelled() {
            return;
        }
        let Some(rename) = asked_rename(&self.state.task) else {
            return;
        };
        if !self.settle_profile().await {
            return;
        }
        if !is_identifier(&rename.from) || !is_identifier(&rename.to) {
            return;
        }
        let files = text_files(&self.config.root);
        let taken: BTreeSet<&str> = files.values().flat_map(|text| identifiers(text)).collect();
        if !taken.contains(rename.from.as_str()) {
            return;
        }
        let renamed: Vec<(&String, Renamed)> = files
            .iter()
            .filter_map(|(path, text)| {
                Some((path, rename_in(text, &rename.from, &rename.to, &taken)?))
            })
            .collect();
        if renamed.len() > MAX_RENAMED_FILES {
            log(
                self.emitter,
                format!(
                    "`{}` is used in {} files, more than the {MAX_RENAMED_FILES} a rename by Keel changes; left to the model",
                    rename.from,
                    renamed.len()
                ),
            );
            return;
        }
        let mut written = Vec::new();
        let mut places = 0;
        let mut derived = BTreeMap::new();
        for (n, (path, change)) in renamed.into_iter().enumerate() {
            if !self
                .write_baseline(&format!("keel_rename_{n}"), path, &change.text)
                .await
            {
                continue;
            }
            written.push(path.clone());
            places += change.places;
            derived.extend(change.derived);
        }
        if written.is_empty() {
            return;
        }
        log(
            self.emitter,
            format!(
                "renamed `{}` to `{}` in {} ({places} places) before the model's first call",
                rename.from,
                rename.to,
                written.join(", ")
            ),
        );
        self.state.done_by_keel.push(format!(
            "Renamed `{}` to `{}` ({places} places in {} files).",
            rename.from,
            rename.to,
            written.len()
        ));
        self.context
            .turn_notes
            .push(renamed_note(&rename, &written, places, &derived));
    }

    /// After an answer that ends the loop: when the task renames something and the old name
    /// is still used, focuses the files using it and tells the model; true when it did (the
    /// loop goes on).
    pub(crate) async fn rename_leftovers(&mut self) -> bool {
        if self.state.rename_rounds >= MAX_ROUNDS
            || !self.state.compact
            || !self.state.asks_for_change
            || self.state.cancel.is_cancelled()
            || self.state.iterations >= self.config.max_iterations
            || !self.changed_files()
        {
            return false;
        }
        let Some(rename) = asked_rename(&self.state.task) else {
            return false;
        };
        self.state.rename_rounds += 1;
        let call_id = format!("keel_check_{}", self.state.rename_rounds);
        let arguments = serde_json::json!({
            "path": ".",
            "regex": format!(r"\b{}\b", regex::escape(&rename.from)),
        });
        let result = self.run_own_tool(&call_id, "search_files", arguments).await;
        // A use the rename itself leaves alone (the word in prose) is not one left over.
        let uses: Vec<Use> = uses_in(result.content.as_deref().unwrap_or_default())
            .into_iter()
            .filter(|u| rename_in(&u.text, &rename.from, &rename.to, &BTreeSet::new()).is_some())
            .collect();
        if uses.is_empty() {
            return false;
        }
        let mut paths: Vec<&str> = uses.iter().map(|u| u.path.as_str()).collect();
        paths.dedup();
        for path in &paths {
            if let Ok(content) = std::fs::read_to_string(self.config.root.join(path)) {
                // The turn's focus is what the prompt shows.
                self.context
                    .turn_focus
                    .upsert(*path, content.clone(), false);
                self.context.focused.upsert(*path, content, false);
            }
        }
        log(
            self.emitter,
            format!(
                "`{}` is still used in {}; the model was told where",
                rename.from,
                paths.join(", ")
            ),
        );
        self.context.conversation.push_note(note(&rename, &uses));
        true
    }
}

/// The workspace's text files (as the walk sees them, at most [`MAX_FILE_BYTES`] each) by
/// path relative to `root`.
pub(crate) fn text_files(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in keel_tools::walk::walker(root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file())
            || entry.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES)
        {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str() else {
            continue;
        };
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        if keel_tools::file_text::looks_binary(&bytes) {
            continue;
        }
        if let Ok(text) = String::from_utf8(bytes) {
            files.insert(rel.replace('\\', "/"), text);
        }
    }
    files
}

/// The note telling the model what the rename carried out first changed.
fn renamed_note(
    rename: &Rename,
    written: &[String],
    places: usize,
    derived: &BTreeMap<String, String>,
) -> String {
    let mut note = format!(
        "{RENAMED_HEADING}\n\nKeel has already renamed `{from}` to `{to}` in these files ({places} places): {}.",
        written.join(", "),
        from = rename.from,
        to = rename.to,
    );
    if !derived.is_empty() {
        let names: Vec<String> = derived
            .iter()
            .map(|(old, new)| format!("`{old}` → `{new}`"))
            .collect();
        note.push_str(&format!(
            " Names built from it were renamed too: {}.",
            names.join(", ")
        ));
    }
    note.push_str(" The files shown above are the result. Check that the task is done: if something it asks for is still missing, change it; otherwise answer DONE.");
    note
}

/// The uses `search_files` listed (its `path:line:text` lines).
fn uses_in(listing: &str) -> Vec<Use> {
    static MATCH: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^(?P<path>[^:\n]+):(?P<n>\d+):(?P<text>.*)$").ok());
    let Some(matcher) = MATCH.as_ref() else {
        return Vec::new();
    };
    listing
        .lines()
        .filter_map(|line| {
            let found = matcher.captures(line)?;
            Some(Use {
                path: found.name("path")?.as_str().to_owned(),
                line: line.to_owned(),
                text: found.name("text")?.as_str().to_owned(),
            })
        })
        .collect()
}

/// The note telling the model where the old name is still used.
fn note(rename: &Rename, uses: &[Use]) -> String {
    let mut listed: Vec<&str> = uses
        .iter()
        .take(MAX_LISTED)
        .map(|u| u.line.as_str())
        .collect();
    if uses.len() > MAX_LISTED {
        listed.push("…");
    }
    format!(
        "The task renames `{from}` to `{to}`, but `{from}` is still used:\n\n```\n{}\n```\n\nRename these too (the files are shown above). For each file to change, write its path on a line by itself, then its complete new content in a code block.",
        listed.join("\n"),
        from = rename.from,
        to = rename.to,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rename(from: &str, to: &str) -> Option<Rename> {
        Some(Rename {
            from: from.to_owned(),
            to: to.to_owned(),
        })
    }

    #[test]
    fn the_renames_tasks_ask_for() {
        assert_eq!(
            asked_rename(
                "Rename the function `parse_cfg` to `parse_config` everywhere in this project: the definition, every import and call."
            ),
            rename("parse_cfg", "parse_config")
        );
        assert_eq!(
            asked_rename(
                "Rename the method `Fetch` of `store.Store` to `Get`, which is what the rest of our Go code calls such methods."
            ),
            rename("Fetch", "Get")
        );
        assert_eq!(
            asked_rename(
                "`getUserName` doesn't return a user name, it returns the name we display. Rename it to `getDisplayName` across the whole project."
            ),
            rename("getUserName", "getDisplayName")
        );
        assert_eq!(
            asked_rename("Rename the struct `Temp` to `Temperature` throughout the crate."),
            rename("Temp", "Temperature")
        );
        assert_eq!(asked_rename("Fix the failing test"), None);
        assert_eq!(asked_rename("Move `crc16` to src/checksum.rs."), None);
    }

    #[test]
    fn uses_are_the_listings_match_lines() {
        let listing = "src/index.js-1-'use strict'\nsrc/index.js:2:const { getUserName } = require('./users')\nsrc/index.js-3-\n--\nREADME.md:4:- `getUserName(user)`: the name";
        let uses = uses_in(listing);
        assert_eq!(uses.len(), 2);
        assert_eq!(uses[0].path, "src/index.js");
        assert_eq!(uses[1].path, "README.md");
    }
}
