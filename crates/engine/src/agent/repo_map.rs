//! The repo map of a turn: built or refreshed at the start of each turn (off the async threads,
//! cached under `.keel/cache`), personalised toward the focused files and what the user
//! mentioned, reported as `prepare.repomap.build`, and shown in the system prompt.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use keel_context::repomap::{MapOptions, MapRequest, RepoMap, RepoMapError};
use keel_events::{LogLevel, PrepareRepomapBuild, SystemLog};

use super::session::AgentSession;

/// Longest word taken as a mention.
const MAX_MENTION_CHARS: usize = 80;

/// What the user's input points at: workspace files it names and identifiers it mentions.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Mentions {
    /// Workspace-relative paths of existing files named in the input.
    pub(crate) files: Vec<String>,
    /// Identifier-like words (the map raises the files defining them).
    pub(crate) identifiers: Vec<String>,
}

/// Splits `input` into words and sorts them into existing files under `root` and identifiers.
pub(crate) fn mentions(root: &Path, input: &str) -> Mentions {
    let mut files = BTreeSet::new();
    let mut identifiers = BTreeSet::new();
    let words = input.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '\'' | '"' | ',' | ';' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>'
            )
    });
    for word in words {
        let word = word.trim_end_matches(['.', ':', '?', '!']);
        if word.is_empty() || word.chars().count() > MAX_MENTION_CHARS {
            continue;
        }
        let looks_like_path = word.contains('/') || word.contains('.');
        if looks_like_path {
            let rel = word.trim_start_matches("./");
            if !rel.starts_with('/')
                && !rel.split('/').any(|p| p == "..")
                && root.join(rel).is_file()
            {
                files.insert(rel.to_owned());
            }
        }
        // Identifiers, also inside dotted or pathed words (`stats.mean` → `stats`, `mean`).
        for part in word.split(['.', '/', ':']) {
            let identifier = part
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                && part.chars().count() >= 3;
            if identifier {
                identifiers.insert(part.to_owned());
            }
        }
    }
    Mentions {
        files: files.into_iter().collect(),
        identifiers: identifiers.into_iter().collect(),
    }
}

impl AgentSession {
    /// Builds or refreshes the repo map for a turn on `input` and keeps its rendering for the
    /// system prompt. Emits `prepare.repomap.build`; a failure is logged as a warning and the
    /// turn goes on without a (new) map.
    pub(crate) async fn prepare_repo_map(&mut self, input: &str) {
        if !self.config.repo_map.enabled || self.repo_map_fixed {
            return;
        }
        let root = self.config.root.clone();
        let mentioned = mentions(&root, input);
        let mut focus: Vec<String> = self.focused.iter().map(|f| f.path().to_owned()).collect();
        focus.extend(mentioned.files);
        let request = MapRequest {
            token_budget: self.config.repo_map.token_budget,
            focus,
            mentions: mentioned.identifiers,
        };
        let engine = self.repo_map_engine.take();
        let task = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            let mut map = match engine {
                Some(map) => map,
                None => RepoMap::open(&root, MapOptions::default())?,
            };
            let mut stats = map.refresh()?;
            let rendered = map.render(&request);
            // An unwritable cache costs the next session a full parse, nothing more.
            let saved = map.save().map_err(|e| e.to_string());
            stats.tokens = rendered.tokens;
            stats.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            Ok::<_, RepoMapError>((map, rendered, stats, saved))
        });
        match task.await {
            Ok(Ok((map, rendered, stats, saved))) => {
                self.repo_map_engine = Some(map);
                self.repo_map = (!rendered.text.trim().is_empty()).then_some(rendered.text);
                self.emitter.emit(PrepareRepomapBuild::from(stats));
                if let Err(error) = saved {
                    self.repo_map_warning(format!("repo map cache not saved: {error}"));
                }
            }
            Ok(Err(error)) => self.repo_map_warning(format!(
                "repo map not built ({error}); this turn goes on without an updated map"
            )),
            Err(error) => self.repo_map_warning(format!(
                "repo map not built (the build task failed: {error}); this turn goes on without an updated map"
            )),
        }
    }

    fn repo_map_warning(&self, message: String) {
        self.emitter.emit(SystemLog {
            level: LogLevel::Warn,
            message,
            metadata: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_mentions_files_and_identifiers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("calc")).unwrap();
        std::fs::write(dir.path().join("calc/stats.py"), "").unwrap();
        let found = mentions(
            dir.path(),
            "Fix `mean()` in calc/stats.py, not ../etc/passwd or missing.rs. Use stats.median?",
        );
        assert_eq!(found.files, ["calc/stats.py"]);
        for word in ["mean", "calc", "stats", "median", "Fix", "missing"] {
            assert!(
                found.identifiers.iter().any(|i| i == word),
                "{word}: {found:?}"
            );
        }
        assert!(!found.identifiers.iter().any(|i| i == "py" || i == "in"));
    }
}
