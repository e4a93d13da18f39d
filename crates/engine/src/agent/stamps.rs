//! The workspace's files as they stood when a turn began (size and modification time of each,
//! as the workspace walk sees them): tells whether a turn changed anything, commands included,
//! when its file tools reported no change. What tools leave behind when they run (bytecode,
//! test and type-checker caches, build output) is not a change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Folders that running a project's tools fills on its own.
const BYPRODUCT_DIRS: &[&str] = &[
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    "node_modules",
    "target",
    ".gradle",
    ".next",
    ".cache",
];

/// Files that running a project's tools writes on its own.
fn is_byproduct(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "pyc" || e == "pyo" || e == "class")
        || path.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|name| BYPRODUCT_DIRS.contains(&name))
        })
}

/// Size and modification time of every file under a root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Stamps(HashMap<PathBuf, (u64, Option<SystemTime>)>);

impl Stamps {
    /// The files under `root` now.
    pub(crate) fn take(root: &Path) -> Self {
        let mut stamps = HashMap::new();
        for entry in keel_tools::walk::walker(root).build().flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            if is_byproduct(rel) {
                continue;
            }
            if let Ok(meta) = entry.metadata() {
                stamps.insert(
                    entry.path().to_path_buf(),
                    (meta.len(), meta.modified().ok()),
                );
            }
        }
        Self(stamps)
    }

    /// Whether the files under `root` differ from these stamps (a file added, removed, or
    /// of another size or time).
    pub(crate) fn changed(&self, root: &Path) -> bool {
        Self::take(root) != *self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_adds_and_removes_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let stamps = Stamps::take(dir.path());
        assert!(!stamps.changed(dir.path()));
        std::fs::write(dir.path().join("a.txt"), "ab").unwrap();
        assert!(stamps.changed(dir.path()));
        let stamps = Stamps::take(dir.path());
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        assert!(stamps.changed(dir.path()));
        let stamps = Stamps::take(dir.path());
        std::fs::remove_file(dir.path().join("a.txt")).unwrap();
        assert!(stamps.changed(dir.path()));
        // Bytecode and test caches are not changes.
        let stamps = Stamps::take(dir.path());
        std::fs::create_dir_all(dir.path().join("__pycache__")).unwrap();
        std::fs::write(dir.path().join("__pycache__/b.cpython-311.pyc"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join(".pytest_cache/v")).unwrap();
        std::fs::write(dir.path().join(".pytest_cache/v/x"), "x").unwrap();
        assert!(!stamps.changed(dir.path()));
        // Keel's own folder is not the project.
        let stamps = Stamps::take(dir.path());
        std::fs::create_dir_all(dir.path().join(".keel")).unwrap();
        std::fs::write(dir.path().join(".keel/x"), "x").unwrap();
        assert!(!stamps.changed(dir.path()));
    }
}
