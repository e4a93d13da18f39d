//! Focused files: the current, complete content of the files the model is working with, shown
//! once in the system prompt, under a character budget.

use serde::{Deserialize, Serialize};

/// Default budget for the content of all focused files together (seed 002: 100,000 characters).
pub const DEFAULT_FOCUS_BUDGET_CHARS: usize = 100_000;

/// One focused file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "FocusedFileRecord")]
pub struct FocusedFile {
    path: String,
    content: String,
    #[serde(skip_serializing)]
    chars: usize,
    editing: bool,
}

#[derive(Deserialize)]
struct FocusedFileRecord {
    path: String,
    content: String,
    #[serde(default)]
    editing: bool,
}

impl From<FocusedFileRecord> for FocusedFile {
    fn from(record: FocusedFileRecord) -> Self {
        Self {
            chars: record.content.chars().count(),
            path: record.path,
            content: record.content,
            editing: record.editing,
        }
    }
}

impl FocusedFile {
    /// Path relative to the project root, as the tools report it.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The file's current, complete content.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Length of the content in characters.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Whether the file is being edited (pinned: never evicted to make room).
    pub fn editing(&self) -> bool {
        self.editing
    }
}

/// What [`FocusedFiles::upsert`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FocusOutcome {
    /// Whether the file is now focused (false when it alone is over the budget).
    pub kept: bool,
    /// Files evicted to make room, oldest first.
    pub evicted: Vec<String>,
    /// Whether the focused files are still over budget (only pinned files are left to evict).
    pub over_budget: bool,
}

/// The focused files, oldest first, under a character budget.
///
/// Adding or refreshing a file makes it the newest. When the total goes over the budget, the
/// oldest files not being edited are evicted until it fits; files being edited are pinned. A
/// single file larger than the whole budget is not kept (the model reads such files in ranges).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusedFiles {
    budget_chars: usize,
    files: Vec<FocusedFile>,
}

impl Default for FocusedFiles {
    fn default() -> Self {
        Self::with_budget(DEFAULT_FOCUS_BUDGET_CHARS)
    }
}

impl FocusedFiles {
    /// No files, the default budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// No files, a budget of `budget_chars` characters.
    pub fn with_budget(budget_chars: usize) -> Self {
        Self {
            budget_chars,
            files: Vec::new(),
        }
    }

    /// The budget in characters.
    pub fn budget_chars(&self) -> usize {
        self.budget_chars
    }

    /// Total characters of all focused files.
    pub fn total_chars(&self) -> usize {
        self.files.iter().map(|f| f.chars).sum()
    }

    /// The files, oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &FocusedFile> {
        self.files.iter()
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is focused.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file at `path`, if focused.
    pub fn get(&self, path: &str) -> Option<&FocusedFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Whether `path` is focused.
    pub fn contains(&self, path: &str) -> bool {
        self.get(path).is_some()
    }

    /// Adds `path` with its full current `content`, or refreshes it (new content, now newest).
    /// `editing` pins the file; a file already pinned stays pinned until [`Self::set_editing`]
    /// releases it. Then evicts the oldest unpinned files while over budget.
    pub fn upsert(
        &mut self,
        path: impl Into<String>,
        content: impl Into<String>,
        editing: bool,
    ) -> FocusOutcome {
        let path = path.into();
        let content = content.into();
        let chars = content.chars().count();
        let was_editing = self.take(&path).is_some_and(|old| old.editing);
        if chars > self.budget_chars {
            return FocusOutcome {
                kept: false,
                evicted: Vec::new(),
                over_budget: self.total_chars() > self.budget_chars,
            };
        }
        self.files.push(FocusedFile {
            path,
            content,
            chars,
            editing: editing || was_editing,
        });
        let evicted = self.evict_to_budget();
        FocusOutcome {
            kept: true,
            evicted,
            over_budget: self.total_chars() > self.budget_chars,
        }
    }

    /// Pins (`true`) or releases (`false`) a file; releasing may evict files now over budget.
    /// Returns the evicted paths; nothing happens when `path` is not focused.
    pub fn set_editing(&mut self, path: &str, editing: bool) -> Vec<String> {
        match self.files.iter_mut().find(|f| f.path == path) {
            Some(file) => file.editing = editing,
            None => return Vec::new(),
        }
        self.evict_to_budget()
    }

    /// Releases every pin (e.g. at the end of a turn); may evict files now over budget.
    pub fn release_all(&mut self) -> Vec<String> {
        for file in &mut self.files {
            file.editing = false;
        }
        self.evict_to_budget()
    }

    /// Stops focusing `path` (e.g. it was deleted). Returns whether it was focused.
    pub fn remove(&mut self, path: &str) -> bool {
        self.take(path).is_some()
    }

    /// Follows a move: the file focused as `from` is now `to` (replacing any file at `to`).
    /// Returns whether `from` was focused.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        if from == to {
            return self.contains(from);
        }
        self.take(to);
        match self.files.iter_mut().find(|f| f.path == from) {
            Some(file) => {
                file.path = to.to_owned();
                true
            }
            None => false,
        }
    }

    fn take(&mut self, path: &str) -> Option<FocusedFile> {
        let index = self.files.iter().position(|f| f.path == path)?;
        Some(self.files.remove(index))
    }

    /// Evicts the oldest unpinned files (never the newest one) while over budget.
    fn evict_to_budget(&mut self) -> Vec<String> {
        let mut evicted = Vec::new();
        let mut total = self.total_chars();
        let mut index = 0;
        while total > self.budget_chars && index + 1 < self.files.len() {
            if self.files[index].editing {
                index += 1;
                continue;
            }
            let file = self.files.remove(index);
            total -= file.chars;
            evicted.push(file.path);
        }
        evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(f: &FocusedFiles) -> Vec<&str> {
        f.iter().map(|f| f.path()).collect()
    }

    #[test]
    fn evicts_oldest_unpinned_first() {
        let mut f = FocusedFiles::with_budget(10);
        f.upsert("a", "aaaa", false);
        f.upsert("b", "bbbb", true);
        f.upsert("c", "cc", false);
        let outcome = f.upsert("d", "dddd", false);
        assert_eq!(outcome.evicted, ["a"]);
        assert_eq!(paths(&f), ["b", "c", "d"]);
        let outcome = f.upsert("e", "eeee", false);
        assert_eq!(outcome.evicted, ["c", "d"]);
        assert_eq!(paths(&f), ["b", "e"]);
        assert!(!outcome.over_budget);
    }

    #[test]
    fn refreshing_updates_content_and_recency() {
        let mut f = FocusedFiles::with_budget(10);
        f.upsert("a", "1111", false);
        f.upsert("b", "2222", false);
        f.upsert("a", "new!", false);
        assert_eq!(paths(&f), ["b", "a"]);
        assert_eq!(f.get("a").unwrap().content(), "new!");
        let outcome = f.upsert("c", "333", false);
        assert_eq!(outcome.evicted, ["b"]);
    }

    #[test]
    fn pins_survive_reads_until_released() {
        let mut f = FocusedFiles::with_budget(8);
        f.upsert("a", "aaaa", true);
        f.upsert("a", "aaaa", false);
        assert!(f.get("a").unwrap().editing());
        let outcome = f.upsert("b", "bbbbbb", false);
        assert!(outcome.over_budget);
        assert_eq!(paths(&f), ["a", "b"]);
        assert_eq!(f.release_all(), ["a"]);
        assert_eq!(paths(&f), ["b"]);
    }

    #[test]
    fn a_file_over_the_whole_budget_is_not_kept() {
        let mut f = FocusedFiles::with_budget(4);
        f.upsert("a", "aa", false);
        f.upsert("big", "aa", false);
        let outcome = f.upsert("big", "12345", true);
        assert!(!outcome.kept);
        assert_eq!(paths(&f), ["a"]);
    }

    #[test]
    fn counts_characters_not_bytes() {
        let mut f = FocusedFiles::with_budget(3);
        assert!(f.upsert("z", "中文字", false).kept);
        assert_eq!(f.total_chars(), 3);
    }

    #[test]
    fn round_trips_through_json() {
        let mut f = FocusedFiles::with_budget(50);
        f.upsert("a.rs", "fn a() {}", true);
        let json = serde_json::to_string(&f).unwrap();
        assert!(!json.contains("\"chars\""));
        let back: FocusedFiles = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
    }

    #[test]
    fn follows_moves_and_deletes() {
        let mut f = FocusedFiles::new();
        f.upsert("a", "1", false);
        f.upsert("b", "2", false);
        assert!(f.rename("a", "b"));
        assert_eq!(paths(&f), ["b"]);
        assert_eq!(f.get("b").unwrap().content(), "1");
        assert!(f.remove("b"));
        assert!(f.is_empty());
    }
}
