//! The repo map of a turn: built or refreshed at the start of each turn (off the async threads,
//! cached under `.keel/cache`), personalised toward the focused files and what the user
//! mentioned, reported as `prepare.repomap.build` (after a `system.status` of kind `indexing`
//! while it builds), and shown in the system prompt.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use keel_context::FocusedFiles;
use keel_events::{Emitter, LogLevel, PrepareRepomapBuild, StatusKind, SystemLog, SystemStatus};
use keel_repomap::{BuildStats, MapOptions, MapRequest, RenderedMap, RepoMap, RepoMapError};

use super::config::RepoMapConfig;
use super::model_context::ModelContext;

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
        if let Some(file) = root_document(root, word) {
            files.insert(file);
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

/// The project's own document a capitalised word names: `README` is `README.md` (or
/// `README.rst`, `README.txt`, `README`), likewise `CHANGELOG`, `CONTRIBUTING`… — a file at the
/// root whose name without extension is the word, written in capitals as such files are.
fn root_document(root: &Path, word: &str) -> Option<String> {
    let capitals = word.chars().count() >= 4
        && word.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        && word.chars().any(|c| c.is_ascii_uppercase());
    if !capitals {
        return None;
    }
    ["md", "rst", "txt", "markdown", ""]
        .iter()
        .map(|ext| {
            if ext.is_empty() {
                word.to_owned()
            } else {
                format!("{word}.{ext}")
            }
        })
        .find(|name| root.join(name).is_file())
}

/// The map a session shows: built or refreshed at each turn by an engine kept between turns,
/// unless one was given as it is.
#[derive(Default)]
pub(crate) struct RepoMapBuilder {
    /// Opened at the first turn that builds a map.
    engine: Option<RepoMap>,
    /// A map was given ([`super::AgentSession::with_repo_map`]): no building.
    fixed: bool,
}

impl std::fmt::Debug for RepoMapBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoMapBuilder")
            .field("open", &self.engine.is_some())
            .field("fixed", &self.fixed)
            .finish()
    }
}

/// What one build gives: the engine back, the rendering, its figures, and whether the cache
/// was saved.
type Built = (RepoMap, RenderedMap, BuildStats, Result<(), String>);

impl RepoMapBuilder {
    /// Stops building: the map given is shown as it is.
    pub(crate) fn fix(&mut self) {
        self.fixed = true;
    }

    /// The map as last built, if one was.
    pub(crate) fn map(&self) -> Option<&RepoMap> {
        self.engine.as_ref()
    }

    /// Builds or refreshes the repo map for a turn on `input`, ranked toward `context`'s
    /// focused files, and keeps its rendering in `context` for the system prompt. Emits
    /// `prepare.repomap.build`; a failure is logged as a warning and the turn goes on without
    /// a (new) map.
    pub(crate) async fn prepare(
        &mut self,
        config: &RepoMapConfig,
        root: &Path,
        emitter: &Emitter,
        context: &mut ModelContext,
        input: &str,
    ) {
        if !config.enabled || self.fixed {
            return;
        }
        let request = map_request(config, root, &context.focused, input);
        let what = if self.engine.is_some() {
            "refreshing the repository map"
        } else {
            "indexing the repository"
        };
        // Holds until `prepare.repomap.build` (or the warning that it failed).
        emitter.emit(SystemStatus::waiting(StatusKind::Indexing, what));
        match self.build(root.to_path_buf(), request).await {
            Ok((map, rendered, stats, saved)) => {
                self.engine = Some(map);
                context.repo_map = (!rendered.text.trim().is_empty()).then_some(rendered.text);
                emitter.emit(PrepareRepomapBuild::from(stats));
                if let Err(error) = saved {
                    warn(emitter, format!("repo map cache not saved: {error}"));
                }
            }
            Err(error) => warn(
                emitter,
                format!("repo map not built ({error}); this turn goes on without an updated map"),
            ),
        }
    }

    /// Opens (at first) and refreshes the map off the async threads, renders it for `request`
    /// and saves its cache.
    async fn build(&mut self, root: PathBuf, request: MapRequest) -> Result<Built, String> {
        let engine = self.engine.take();
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
            Ok(built) => built.map_err(|error| error.to_string()),
            Err(error) => Err(format!("the build task failed: {error}")),
        }
    }
}

/// What the map is ranked toward: the focused files and the files and identifiers `input`
/// mentions.
fn map_request(
    config: &RepoMapConfig,
    root: &Path,
    focused: &FocusedFiles,
    input: &str,
) -> MapRequest {
    let mentioned = mentions(root, input);
    let mut focus: Vec<String> = focused.iter().map(|f| f.path().to_owned()).collect();
    focus.extend(mentioned.files);
    MapRequest {
        token_budget: config.token_budget,
        focus,
        mentions: mentioned.identifiers,
    }
}

/// A `system.log` warning about the map.
fn warn(emitter: &Emitter, message: String) {
    tracing::warn!("{message}");
    emitter.emit(SystemLog {
        level: LogLevel::Warn,
        message,
        metadata: None,
    });
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

    #[test]
    fn a_capitalised_word_names_the_projects_own_document() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# x").unwrap();
        std::fs::write(dir.path().join("CHANGELOG"), "").unwrap();
        let found = mentions(
            dir.path(),
            "Make the port behave as the README documents; note it in the CHANGELOG. readme, NOTES, API.",
        );
        assert_eq!(found.files, ["CHANGELOG", "README.md"]);
    }
}
