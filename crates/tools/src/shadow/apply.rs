//! Applying staged changes to the real tree (per path, only when the real file is still as the
//! agent saw it; anything else is a conflict, reported and left alone), or discarding some.

use std::path::Path;

use keel_events::{LogLevel, SystemLog};
use serde::{Deserialize, Serialize};

use super::batch::{ChangeKind, Pending};
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
    /// Paths left alone because the real file changed since the agent saw it; they stay staged.
    pub conflicts: Vec<Conflict>,
    /// Paths still staged afterwards (conflicts and paths not asked for).
    pub remaining: Vec<String>,
    /// Whether the shadow workspace was removed (nothing is left staged).
    pub closed: bool,
}

/// What discarding some paths did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscardReport {
    /// The session.
    pub session: String,
    /// Paths whose staged change was thrown away (the agent sees the real file there again).
    pub discarded: Vec<String>,
    /// Paths still staged.
    pub remaining: Vec<String>,
    /// Whether the shadow workspace was removed (nothing is left staged).
    pub closed: bool,
}

impl ApplyReport {
    /// The `system.log` that leaves a trace of this apply in the session's log (the same from
    /// the CLI and the server): info naming what was applied, a warning when paths conflicted.
    pub fn log(&self) -> SystemLog {
        let mut message = format!(
            "shadow apply: {} change(s) applied to the real tree{}",
            self.applied.len(),
            listed(&self.applied)
        );
        if !self.conflicts.is_empty() {
            let conflicts: Vec<String> = self
                .conflicts
                .iter()
                .map(|c| format!("{} ({})", c.path, c.reason))
                .collect();
            message.push_str(&format!(
                "; not overwritten, the real file changed meanwhile: {}",
                conflicts.join(", ")
            ));
        }
        let mut metadata = serde_json::Map::new();
        metadata.insert("session".to_owned(), self.session.clone().into());
        metadata.insert("applied".to_owned(), self.applied.clone().into());
        metadata.insert(
            "conflicts".to_owned(),
            serde_json::to_value(&self.conflicts).unwrap_or_default(),
        );
        metadata.insert("remaining".to_owned(), self.remaining.clone().into());
        metadata.insert("closed".to_owned(), self.closed.into());
        SystemLog {
            level: if self.conflicts.is_empty() {
                LogLevel::Info
            } else {
                LogLevel::Warn
            },
            message,
            metadata: Some(metadata),
        }
    }
}

impl DiscardReport {
    /// The `system.log` that leaves a trace of this discard in the session's log.
    pub fn log(&self) -> SystemLog {
        let mut metadata = serde_json::Map::new();
        metadata.insert("session".to_owned(), self.session.clone().into());
        metadata.insert("discarded".to_owned(), self.discarded.clone().into());
        metadata.insert("remaining".to_owned(), self.remaining.clone().into());
        metadata.insert("closed".to_owned(), self.closed.into());
        SystemLog {
            level: LogLevel::Info,
            message: format!(
                "shadow discard: {} staged change(s) thrown away{}",
                self.discarded.len(),
                listed(&self.discarded)
            ),
            metadata: Some(metadata),
        }
    }
}

/// `": a, b"`, or nothing for no paths.
fn listed(paths: &[String]) -> String {
    if paths.is_empty() {
        String::new()
    } else {
        format!(": {}", paths.join(", "))
    }
}

impl Shadow {
    /// Applies the staged changes of `paths` (all of them when empty; a move is named by
    /// either of its paths) to the real tree. A path that is not staged fails the whole call
    /// before anything is written; a path whose real file changed since the agent saw it is a
    /// [`Conflict`] and the others still apply. When nothing stays staged, the shadow
    /// workspace is removed.
    pub fn apply(mut self, paths: &[String]) -> Result<ApplyReport, ShadowError> {
        self.capture()?;
        let staged = self.pending()?;
        if staged.is_empty() {
            self.base.save(&self.dir)?;
            return Err(ShadowError::NothingToApply(self.session.clone()));
        }
        let wanted = self.selection(&staged, paths, "applied")?;
        let workspace = crate::Workspace::new(&self.root)?;
        let mut report = ApplyReport {
            session: self.session.clone(),
            applied: Vec::new(),
            conflicts: Vec::new(),
            remaining: Vec::new(),
            closed: false,
        };
        for pending in staged {
            if !wanted.is_empty() && !wanted.iter().any(|p| pending.names(p)) {
                report.remaining.push(pending.path);
                continue;
            }
            match self.apply_one(&workspace, &pending)? {
                None => report.applied.push(pending.path),
                Some(reason) => {
                    tracing::warn!(path = %pending.path, "shadow apply: conflict, not overwritten: {reason}");
                    report.remaining.push(pending.path.clone());
                    report.conflicts.push(Conflict {
                        path: pending.path,
                        reason,
                    });
                }
            }
        }
        report.closed = self.close_if_empty()?;
        Ok(report)
    }

    /// Throws away the staged changes of `paths` (a move is named by either of its paths):
    /// the agent sees the real files there again. A path that is not staged fails the whole
    /// call before anything is discarded. When nothing stays staged, the shadow workspace is
    /// removed. (To throw everything away, even a damaged workspace, see [`discard`].)
    ///
    /// [`discard`]: super::discard
    pub fn discard_paths(mut self, paths: &[String]) -> Result<DiscardReport, ShadowError> {
        self.capture()?;
        let staged = self.pending()?;
        let wanted = self.selection(&staged, paths, "discarded")?;
        let mut report = DiscardReport {
            session: self.session.clone(),
            discarded: Vec::new(),
            remaining: Vec::new(),
            closed: false,
        };
        for pending in staged {
            if !wanted.is_empty() && !wanted.iter().any(|p| pending.names(p)) {
                report.remaining.push(pending.path);
                continue;
            }
            for rel in pending.paths() {
                self.untouch(rel)?;
            }
            report.discarded.push(pending.path);
        }
        report.closed = self.close_if_empty()?;
        Ok(report)
    }

    /// `paths` normalised; `Err` naming those the batch does not hold (`action` says what
    /// was not done to the others).
    fn selection(
        &self,
        staged: &[Pending],
        paths: &[String],
        action: &'static str,
    ) -> Result<Vec<String>, ShadowError> {
        let workspace = crate::Workspace::new(&self.root)?;
        let mut wanted = Vec::new();
        for path in paths {
            // A path outside the root is refused as the tools refuse it.
            let resolved = workspace.resolve(path)?;
            wanted.push(workspace.relative(&resolved));
        }
        let missing: Vec<String> = wanted
            .iter()
            .filter(|p| !staged.iter().any(|s| s.names(p)))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(ShadowError::NotInBatch {
                session: self.session.clone(),
                missing,
                staged: staged.iter().map(|s| s.path.clone()).collect(),
                action,
            });
        }
        Ok(wanted)
    }

    /// Saves the manifest, or removes the whole workspace when nothing is staged any more;
    /// returns whether it was removed.
    fn close_if_empty(self) -> Result<bool, ShadowError> {
        if self.pending()?.is_empty() {
            self.discard()?;
            return Ok(true);
        }
        self.base.save(&self.dir)?;
        Ok(false)
    }

    /// Applies one change; `Some(reason)` when it conflicts (nothing written).
    fn apply_one(
        &mut self,
        workspace: &crate::Workspace,
        pending: &Pending,
    ) -> Result<Option<String>, ShadowError> {
        if let Some(reason) = self.conflict_of(pending)? {
            return Ok(Some(reason));
        }
        let to = workspace.resolve_for_write(&pending.path)?;
        match (&pending.from, pending.kind) {
            (Some(from), _) => {
                let from_real = workspace.resolve_for_write(from)?;
                let copy = self.tree().join(&pending.path);
                if std::fs::symlink_metadata(&from_real).is_ok() {
                    if let Some(parent) = to.parent() {
                        std::fs::create_dir_all(parent).map_err(|e| ShadowError::io(parent, e))?;
                    }
                    std::fs::rename(&from_real, &to).map_err(|e| ShadowError::io(&to, e))?;
                } else if state_of(&to)? != state_of(&copy)? {
                    // Someone else already removed the source: the moved file is still put.
                    write(&copy, &to)?;
                }
            }
            (None, ChangeKind::Deleted) => remove(&to)?,
            (None, _) => {
                let copy = self.tree().join(&pending.path);
                if state_of(&to)? != state_of(&copy)? {
                    write(&copy, &to)?;
                }
            }
        }
        // Real and view now agree: the paths are no longer the session's changes.
        let rels: Vec<String> = pending.paths().map(str::to_owned).collect();
        for rel in rels {
            self.untouch(&rel)?;
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
