//! Applying staged changes to the real tree: per path, only when the real file is still as
//! it was copied; anything else is a conflict, reported and left alone.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::batch::{ChangeKind, changed_paths, conflict};
use super::state::state_of;
use super::{Shadow, ShadowError};

/// A staged path that was not applied because the real file changed meanwhile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// Workspace-relative path.
    pub path: String,
    /// What happened to the real file.
    pub reason: String,
}

/// What applying did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyReport {
    /// The session.
    pub session: String,
    /// Paths written to (or removed from) the real tree.
    pub applied: Vec<String>,
    /// Paths left alone because the real file changed since it was copied; they stay staged.
    pub conflicts: Vec<Conflict>,
    /// Paths still staged afterwards (conflicts and paths not asked for).
    pub remaining: Vec<String>,
    /// Whether the shadow workspace was removed (nothing is left staged).
    pub closed: bool,
}

impl Shadow {
    /// Applies the staged changes of `paths` (all of them when empty) to the real tree.
    /// A path that is not staged fails the whole call before anything is written; a path
    /// whose real file changed since it was copied is a [`Conflict`] and the others still
    /// apply. When nothing stays staged, the shadow workspace is removed.
    pub fn apply(mut self, paths: &[String]) -> Result<ApplyReport, ShadowError> {
        // The staged paths without their diffs: applying needs no diff.
        let staged = changed_paths(&self.tree(), &self.base)?;
        if staged.is_empty() {
            return Err(ShadowError::NothingToApply(self.session.clone()));
        }
        let wanted: Vec<String> = paths.iter().map(|p| normalise(p)).collect();
        let missing: Vec<String> = wanted
            .iter()
            .filter(|p| !staged.iter().any(|(path, _)| path == *p))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(ShadowError::NotInBatch {
                session: self.session.clone(),
                missing,
                staged: staged.iter().map(|(path, _)| path.clone()).collect(),
            });
        }
        let workspace = crate::Workspace::new(&self.root)?;
        let mut report = ApplyReport {
            session: self.session.clone(),
            applied: Vec::new(),
            conflicts: Vec::new(),
            remaining: Vec::new(),
            closed: false,
        };
        for (path, kind) in staged {
            if !wanted.is_empty() && !wanted.contains(&path) {
                report.remaining.push(path);
                continue;
            }
            match self.apply_one(&workspace, &path, kind)? {
                None => report.applied.push(path),
                Some(reason) => {
                    tracing::warn!(path = %path, "shadow apply: conflict, not overwritten: {reason}");
                    report.remaining.push(path.clone());
                    report.conflicts.push(Conflict { path, reason });
                }
            }
        }
        self.base.save(&self.dir)?;
        if report.remaining.is_empty() {
            self.discard()?;
            report.closed = true;
        }
        Ok(report)
    }

    /// Applies one path; `Some(reason)` when it conflicts (nothing written).
    fn apply_one(
        &mut self,
        workspace: &crate::Workspace,
        rel: &str,
        kind: ChangeKind,
    ) -> Result<Option<String>, ShadowError> {
        let real = workspace.resolve_for_write(rel)?;
        let copy = self.tree().join(rel);
        let baseline = self.base.files.get(rel).map(|e| e.hash.clone());
        let current = state_of(&real)?;
        let target = state_of(&copy)?;
        if let Some(reason) = conflict(&current, &baseline, &target) {
            return Ok(Some(reason));
        }
        if current != target {
            match kind {
                ChangeKind::Deleted => remove(&real)?,
                ChangeKind::Created | ChangeKind::Updated => write(&copy, &real)?,
            }
        }
        match target {
            Some(hash) => self.base.record(rel, hash, &copy),
            None => {
                self.base.files.remove(rel);
            }
        }
        Ok(None)
    }
}

/// Puts the shadow's `copy` (a file or a symlink) at `real`, creating its folders.
fn write(copy: &Path, real: &Path) -> Result<(), ShadowError> {
    if let Some(parent) = real.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ShadowError::io(parent, e))?;
    }
    let meta = std::fs::symlink_metadata(copy).map_err(|e| ShadowError::io(copy, e))?;
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(copy).map_err(|e| ShadowError::io(copy, e))?;
        if std::fs::symlink_metadata(real).is_ok() {
            remove(real)?;
        }
        return std::os::unix::fs::symlink(&link, real).map_err(|e| ShadowError::io(real, e));
    }
    if std::fs::symlink_metadata(real).is_ok_and(|m| m.file_type().is_symlink()) {
        // Replace the link itself, never the file it points at.
        remove(real)?;
    }
    std::fs::copy(copy, real)
        .map(|_| ())
        .map_err(|e| ShadowError::io(real, e))
}

fn remove(real: &Path) -> Result<(), ShadowError> {
    match std::fs::remove_file(real) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ShadowError::io(real, e)),
    }
}

/// A path as the model or a person may write it (`./a/b`, `a\\b`), as the batch names it.
fn normalise(path: &str) -> String {
    let path = path.replace('\\', "/");
    path.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect::<Vec<_>>()
        .join("/")
}
