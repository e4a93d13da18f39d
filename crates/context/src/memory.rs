//! Long-term memory (seed 002 §3.2.2): project conventions and decisions (decision + reason),
//! stored in the project as `.keel/memory.json`, shown to the model as background, and updated
//! at the end of a session.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Where memory lives inside a project.
pub const MEMORY_FILE: &str = ".keel/memory.json";

/// Current version of the memory file format.
pub const MEMORY_VERSION: u32 = 1;

/// A decision and the reason for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What was decided, e.g. "cache parsed configs".
    pub decision: String,
    /// Why, e.g. "parsing dominated start-up time".
    #[serde(default)]
    pub reason: String,
    /// When it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_at: Option<DateTime<Utc>>,
}

impl Decision {
    /// A decision recorded now.
    pub fn new(decision: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            decision: decision.into(),
            reason: reason.into(),
            recorded_at: Some(Utc::now()),
        }
    }
}

/// How much memory keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimits {
    /// Most conventions kept (the newest).
    pub max_conventions: usize,
    /// Most decisions kept (the newest).
    pub max_decisions: usize,
    /// Longest entry, in characters; longer ones are cut.
    pub max_entry_chars: usize,
}

impl Default for MemoryLimits {
    fn default() -> Self {
        Self {
            max_conventions: 50,
            max_decisions: 50,
            max_entry_chars: 500,
        }
    }
}

/// What the project remembers across sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// File format version.
    #[serde(default = "current_version")]
    pub version: u32,
    /// Project conventions, oldest first, e.g. "tests use pytest".
    #[serde(default)]
    pub conventions: Vec<String>,
    /// Decisions, oldest first.
    #[serde(default)]
    pub decisions: Vec<Decision>,
}

fn current_version() -> u32 {
    MEMORY_VERSION
}

impl Default for Memory {
    fn default() -> Self {
        Self {
            version: MEMORY_VERSION,
            conventions: Vec::new(),
            decisions: Vec::new(),
        }
    }
}

/// What a merge changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeOutcome {
    /// Conventions added.
    pub conventions_added: usize,
    /// Decisions added or updated.
    pub decisions_added: usize,
    /// Entries dropped to respect the limits.
    pub dropped: usize,
}

impl Memory {
    /// Empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether there is nothing to remember.
    pub fn is_empty(&self) -> bool {
        self.conventions.is_empty() && self.decisions.is_empty()
    }

    /// Adds `conventions` and `decisions` (e.g. distilled at the end of a session) without
    /// duplicates, then applies `limits`. Entries are compared ignoring case and spacing; a
    /// repeated convention or decision moves to the newest place, and a repeated decision takes
    /// the new reason. Blank entries are ignored, long ones cut to `max_entry_chars`.
    pub fn merge(
        &mut self,
        conventions: impl IntoIterator<Item = String>,
        decisions: impl IntoIterator<Item = Decision>,
        limits: &MemoryLimits,
    ) -> MergeOutcome {
        let mut outcome = MergeOutcome::default();
        for convention in conventions {
            let convention = clip(convention.trim(), limits.max_entry_chars);
            if convention.is_empty() {
                continue;
            }
            let key = normalise(&convention);
            match self.conventions.iter().position(|c| normalise(c) == key) {
                Some(index) => {
                    self.conventions.remove(index);
                }
                None => outcome.conventions_added += 1,
            }
            self.conventions.push(convention);
        }
        for decision in decisions {
            let text = clip(decision.decision.trim(), limits.max_entry_chars);
            if text.is_empty() {
                continue;
            }
            let key = normalise(&text);
            let mut reason = clip(decision.reason.trim(), limits.max_entry_chars);
            if let Some(index) = self
                .decisions
                .iter()
                .position(|d| normalise(&d.decision) == key)
            {
                let old = self.decisions.remove(index);
                if reason.is_empty() {
                    reason = old.reason;
                }
            }
            outcome.decisions_added += 1;
            self.decisions.push(Decision {
                decision: text,
                reason,
                recorded_at: decision.recorded_at.or_else(|| Some(Utc::now())),
            });
        }
        outcome.dropped = self.enforce(limits);
        outcome
    }

    /// Applies `limits` to what is already there (e.g. after loading a hand-edited file):
    /// removes duplicates, cuts long entries and keeps the newest. Returns entries dropped.
    pub fn enforce(&mut self, limits: &MemoryLimits) -> usize {
        let before = self.conventions.len() + self.decisions.len();
        let conventions = std::mem::take(&mut self.conventions);
        let decisions = std::mem::take(&mut self.decisions);
        let mut deduped = Memory::new();
        deduped.merge_raw(conventions, decisions, limits.max_entry_chars);
        let excess = deduped
            .conventions
            .len()
            .saturating_sub(limits.max_conventions);
        deduped.conventions.drain(..excess);
        let excess = deduped.decisions.len().saturating_sub(limits.max_decisions);
        deduped.decisions.drain(..excess);
        self.conventions = deduped.conventions;
        self.decisions = deduped.decisions;
        before - (self.conventions.len() + self.decisions.len())
    }

    fn merge_raw(&mut self, conventions: Vec<String>, decisions: Vec<Decision>, max_chars: usize) {
        for convention in conventions {
            let convention = clip(convention.trim(), max_chars);
            let key = normalise(&convention);
            if convention.is_empty() {
                continue;
            }
            self.conventions.retain(|c| normalise(c) != key);
            self.conventions.push(convention);
        }
        for decision in decisions {
            let text = clip(decision.decision.trim(), max_chars);
            if text.is_empty() {
                continue;
            }
            let key = normalise(&text);
            self.decisions.retain(|d| normalise(&d.decision) != key);
            self.decisions.push(Decision {
                decision: text,
                reason: clip(decision.reason.trim(), max_chars),
                recorded_at: decision.recorded_at,
            });
        }
    }

    /// The memory as a system-prompt section body, or `None` when empty.
    pub fn render(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut out = String::new();
        if !self.conventions.is_empty() {
            out.push_str("Project conventions:\n");
            for convention in &self.conventions {
                out.push_str("- ");
                out.push_str(convention);
                out.push('\n');
            }
        }
        if !self.decisions.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("Earlier decisions (decision — reason):\n");
            for decision in &self.decisions {
                out.push_str("- ");
                out.push_str(&decision.decision);
                if !decision.reason.is_empty() {
                    out.push_str(" — ");
                    out.push_str(&decision.reason);
                }
                out.push('\n');
            }
        }
        Some(out.trim_end().to_owned())
    }
}

fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// Why memory could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// Reading or writing the file failed.
    #[error("memory file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid memory JSON. It was moved aside to `moved_to` (when that
    /// succeeded) so the next save starts fresh without losing it.
    #[error("memory file {path} is corrupt ({source}); {}", match moved_to {
        Some(to) => format!("moved it to {}", to.display()),
        None => "could not move it aside".to_owned(),
    })]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Where the corrupt file now is.
        moved_to: Option<PathBuf>,
        /// The parse failure.
        #[source]
        source: serde_json::Error,
    },
    /// Memory could not be serialised.
    #[error("could not serialise memory: {0}")]
    Serialize(#[source] serde_json::Error),
}

/// Loads and saves a project's memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryStore {
    path: PathBuf,
    limits: MemoryLimits,
}

impl MemoryStore {
    /// The store for the project at `root` (`<root>/.keel/memory.json`), default limits.
    pub fn for_project(root: impl AsRef<Path>) -> Self {
        Self::at(root.as_ref().join(MEMORY_FILE))
    }

    /// A store at an explicit file path, default limits.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            limits: MemoryLimits::default(),
        }
    }

    /// The same store with other limits.
    pub fn with_limits(mut self, limits: MemoryLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The limits applied on load and save.
    pub fn limits(&self) -> &MemoryLimits {
        &self.limits
    }

    /// The stored memory (empty when there is no file yet), within the limits. A corrupt file
    /// is renamed to `memory.json.bad` and reported as [`MemoryError::Corrupt`].
    pub fn load(&self) -> Result<Memory, MemoryError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Memory::new()),
            Err(source) => {
                return Err(MemoryError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        match serde_json::from_str::<Memory>(&text) {
            Ok(mut memory) => {
                memory.enforce(&self.limits);
                Ok(memory)
            }
            Err(source) => {
                let aside = self.corrupt_path();
                let moved_to = std::fs::rename(&self.path, &aside).ok().map(|()| aside);
                Err(MemoryError::Corrupt {
                    path: self.path.clone(),
                    moved_to,
                    source,
                })
            }
        }
    }

    /// Writes `memory` atomically (a temporary file in the same folder, then a rename), creating
    /// `.keel/` if needed.
    pub fn save(&self, memory: &Memory) -> Result<(), MemoryError> {
        let io = |source| MemoryError::Io {
            path: self.path.clone(),
            source,
        };
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut json = serde_json::to_string_pretty(memory).map_err(MemoryError::Serialize)?;
        json.push('\n');
        let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
        file.write_all(json.as_bytes()).map_err(io)?;
        file.as_file().sync_all().map_err(io)?;
        file.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// Loads, merges `conventions` and `decisions` (see [`Memory::merge`]), and saves: the
    /// end-of-session update. A corrupt file is moved aside and replaced by the new entries;
    /// the returned outcome says what changed.
    pub fn update(
        &self,
        conventions: impl IntoIterator<Item = String>,
        decisions: impl IntoIterator<Item = Decision>,
    ) -> Result<(Memory, MergeOutcome), MemoryError> {
        let mut memory = match self.load() {
            Ok(memory) => memory,
            Err(MemoryError::Corrupt {
                moved_to: Some(_), ..
            }) => Memory::new(),
            Err(e) => return Err(e),
        };
        let outcome = memory.merge(conventions, decisions, &self.limits);
        self.save(&memory)?;
        Ok((memory, outcome))
    }

    fn corrupt_path(&self) -> PathBuf {
        let mut name = self
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(".bad");
        self.path.with_file_name(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_without_duplicates_and_keeps_the_newest() {
        let limits = MemoryLimits {
            max_conventions: 2,
            max_decisions: 2,
            max_entry_chars: 20,
        };
        let mut m = Memory::new();
        let outcome = m.merge(
            ["Use pytest".into(), "use  PYTEST".into(), "black".into()],
            [Decision::new("cache", "slow")],
            &limits,
        );
        assert_eq!(m.conventions, ["use  PYTEST", "black"]);
        assert_eq!(outcome.conventions_added, 2);
        m.merge(["ruff".into()], [Decision::new("Cache", "")], &limits);
        assert_eq!(m.conventions, ["black", "ruff"]);
        assert_eq!(m.decisions.len(), 1);
        assert_eq!(m.decisions[0].reason, "slow");
        m.merge(
            Vec::new(),
            [Decision::new("x".repeat(30), "r"), Decision::new("y", "r")],
            &limits,
        );
        assert_eq!(m.decisions.len(), 2);
        assert_eq!(m.decisions[0].decision, format!("{}…", "x".repeat(20)));
    }

    #[test]
    fn renders_as_background() {
        let mut m = Memory::new();
        assert_eq!(m.render(), None);
        m.merge(
            ["tests use pytest".into()],
            [Decision::new("use a cache", "avoid recomputation")],
            &MemoryLimits::default(),
        );
        assert_eq!(
            m.render().unwrap(),
            "Project conventions:\n- tests use pytest\n\nEarlier decisions (decision — reason):\n- use a cache — avoid recomputation"
        );
    }
}
