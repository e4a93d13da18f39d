//! Finding the files to map: a `.gitignore`-aware walk, skipping huge, hidden and unsupported
//! files, and a matching filter for single paths reported by the watcher.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{Match, WalkBuilder, WalkState};

use crate::language::Language;

/// A file found by the walk.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// Absolute path.
    pub abs: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 when unknown).
    pub mtime_ns: u64,
}

/// Modification time of `metadata` in nanoseconds since the epoch.
pub fn mtime_ns(metadata: &std::fs::Metadata) -> u64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// `path` relative to `root`, `/`-separated, or `None` if it is not under `root`.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_owned()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

/// Every supported source file under `dir` (the root or a directory inside it) that is not
/// ignored, hidden or larger than `max_bytes`. Walks in parallel.
pub fn scan(root: &Path, dir: &Path, max_bytes: u64) -> Vec<ScannedFile> {
    let found = Mutex::new(Vec::new());
    WalkBuilder::new(dir)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(false)
        .git_global(false)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                let path = entry.path();
                if Language::from_path(path).is_none() {
                    return WalkState::Continue;
                }
                let Ok(metadata) = entry.metadata() else {
                    return WalkState::Continue;
                };
                if metadata.len() > max_bytes {
                    return WalkState::Continue;
                }
                let Some(rel) = relative(root, path) else {
                    return WalkState::Continue;
                };
                let file = ScannedFile {
                    rel,
                    abs: path.to_path_buf(),
                    size: metadata.len(),
                    mtime_ns: mtime_ns(&metadata),
                };
                if let Ok(mut found) = found.lock() {
                    found.push(file);
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_default();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

/// Decides whether a single path is ignored the way [`scan`] would: hidden components and
/// `.gitignore` / `.ignore` files in the root and every directory down to the path.
#[derive(Debug, Default)]
pub struct PathFilter {
    matchers: HashMap<PathBuf, Option<Gitignore>>,
}

impl PathFilter {
    /// Forgets loaded ignore files (call when one of them changes).
    pub fn clear(&mut self) {
        self.matchers.clear();
    }

    /// Whether `rel` (relative to `root`) is hidden or ignored.
    pub fn is_ignored(&mut self, root: &Path, rel: &str, is_dir: bool) -> bool {
        if rel.split('/').any(|part| part.starts_with('.')) {
            return true;
        }
        let abs = root.join(rel);
        let mut verdict = false;
        let mut dir = root.to_path_buf();
        let parts: Vec<&str> = rel.split('/').collect();
        for (index, part) in parts.iter().enumerate() {
            let matcher = self
                .matchers
                .entry(dir.clone())
                .or_insert_with(|| load_ignores(&dir));
            if let Some(matcher) = matcher {
                match matcher.matched_path_or_any_parents(&abs, is_dir) {
                    Match::Ignore(_) => verdict = true,
                    Match::Whitelist(_) => verdict = false,
                    Match::None => {}
                }
            }
            if index + 1 < parts.len() {
                dir.push(part);
            }
        }
        verdict
    }
}

fn load_ignores(dir: &Path) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    let mut any = false;
    for name in [".gitignore", ".ignore"] {
        let path = dir.join(name);
        if path.is_file() {
            any = true;
            // A malformed line is skipped by the builder; the rest still applies.
            let _ = builder.add(path);
        }
    }
    if !any {
        return None;
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_use_slashes() {
        let root = Path::new("/r");
        assert_eq!(
            relative(root, Path::new("/r/a/b.rs")).as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(relative(root, Path::new("/elsewhere/b.rs")), None);
        assert_eq!(relative(root, Path::new("/r")), None);
    }
}
