//! The staged batch: every path the session changed whose view differs from the real content
//! it was based on, with a unified diff against the real file; a file moved unchanged is one
//! move.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::state::{FOLDER, state_of};
use super::{Shadow, ShadowError};
use crate::file_change::text_change;
use crate::file_text::{FileText, decode};

/// What a staged change does to a path of the real tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The path is new.
    Created,
    /// The path's content changed.
    Updated,
    /// The path is removed.
    Deleted,
    /// The file at `from` moves to the path, unchanged.
    Moved,
}

/// One path of the batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedChange {
    /// Workspace-relative path, `/`-separated (for a move, where the file goes).
    pub path: String,
    /// What applying it does.
    pub kind: ChangeKind,
    /// For a move, the path the file comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Lines added.
    pub lines_added: u64,
    /// Lines removed.
    pub lines_removed: u64,
    /// Unified diff against the real file, when both sides are text and it is small enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why applying it now would be refused: the real file changed since the agent saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
}

impl StagedChange {
    /// Whether `path` names this change (a move is named by either of its paths).
    pub fn names(&self, path: &str) -> bool {
        self.path == path || self.from.as_deref() == Some(path)
    }
}

/// Every change staged in a session's shadow workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// The session.
    pub session: String,
    /// The changes, sorted by path.
    pub changes: Vec<StagedChange>,
    /// The combined unified diff of every change that has one.
    pub diff: String,
}

impl Batch {
    /// The staged paths (for a move, where the file goes).
    pub fn paths(&self) -> Vec<String> {
        self.changes.iter().map(|c| c.path.clone()).collect()
    }
}

/// One staged change before it is described: the path, its kind, and for a move the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pending {
    pub(super) path: String,
    pub(super) kind: ChangeKind,
    pub(super) from: Option<String>,
}

impl Pending {
    /// The paths of the real tree applying it changes.
    pub(super) fn paths(&self) -> impl Iterator<Item = &str> {
        self.from.as_deref().into_iter().chain([self.path.as_str()])
    }

    /// Whether `path` names it.
    pub(super) fn names(&self, path: &str) -> bool {
        self.path == path || self.from.as_deref() == Some(path)
    }
}

impl Shadow {
    /// The staged batch: every path the session changed whose view differs from what it was
    /// based on (what changed in the view since the last sync is recorded first).
    pub fn batch(&mut self) -> Result<Batch, ShadowError> {
        self.capture()?;
        self.base.save(&self.dir)?;
        let mut changes = Vec::new();
        for pending in self.pending()? {
            changes.push(self.describe(pending)?);
        }
        let diff = changes
            .iter()
            .filter_map(|c| c.diff.as_deref())
            .collect::<Vec<_>>()
            .join("");
        Ok(Batch {
            session: self.session.clone(),
            changes,
            diff,
        })
    }

    /// The change of one path: its diff against the real file and whether it conflicts.
    fn describe(&self, pending: Pending) -> Result<StagedChange, ShadowError> {
        let before_path = self
            .root
            .join(pending.from.as_deref().unwrap_or(&pending.path));
        let before = text_of(&before_path)?;
        let after = text_of(&self.tree().join(&pending.path))?;
        let change = text_change(&pending.path, before.as_deref(), after.as_deref());
        let conflict = self.conflict_of(&pending)?;
        Ok(StagedChange {
            path: pending.path,
            kind: pending.kind,
            from: pending.from,
            lines_added: change.added,
            lines_removed: change.removed,
            diff: change.diff,
            conflict,
        })
    }

    /// Why applying `pending` now would be refused, naming the path that conflicts.
    pub(super) fn conflict_of(&self, pending: &Pending) -> Result<Option<String>, ShadowError> {
        for rel in pending.paths() {
            let current = state_of(&self.root.join(rel))?;
            let baseline = self.base.touched.get(rel).and_then(|t| t.baseline.clone());
            let target = view_state(&self.tree().join(rel))?;
            if let Some(reason) = conflict(&current, &baseline, &target) {
                return Ok(Some(if rel == pending.path {
                    reason
                } else {
                    format!("`{rel}` {reason}")
                }));
            }
        }
        Ok(None)
    }

    /// The touched paths whose view differs from their baseline, sorted by path; a deletion
    /// and a creation of exactly the same content are one move.
    pub(super) fn pending(&self) -> Result<Vec<Pending>, ShadowError> {
        let tree = self.tree();
        let mut changed = Vec::new();
        for (rel, touched) in &self.base.touched {
            let target = view_state(&tree.join(rel))?;
            if target == touched.baseline {
                continue;
            }
            let kind = match (&touched.baseline, &target) {
                (None, _) => ChangeKind::Created,
                (Some(_), None) => ChangeKind::Deleted,
                (Some(_), Some(_)) => ChangeKind::Updated,
            };
            changed.push((rel.clone(), kind, target));
        }
        let mut moves: Vec<(String, String)> = Vec::new();
        for (from, kind, _) in &changed {
            if *kind != ChangeKind::Deleted {
                continue;
            }
            let Some(hash) = self
                .base
                .touched
                .get(from)
                .and_then(|t| t.baseline.as_ref())
            else {
                continue;
            };
            let to = changed.iter().find(|(to, kind, target)| {
                *kind == ChangeKind::Created
                    && target.as_ref() == Some(hash)
                    && !moves.iter().any(|(_, taken)| taken == to)
            });
            if let Some((to, _, _)) = to {
                moves.push((from.clone(), to.clone()));
            }
        }
        let mut pending: Vec<Pending> = changed
            .into_iter()
            .filter(|(rel, _, _)| !moves.iter().any(|(from, to)| from == rel || to == rel))
            .map(|(path, kind, _)| Pending {
                path,
                kind,
                from: None,
            })
            .collect();
        pending.extend(moves.into_iter().map(|(from, to)| Pending {
            path: to,
            kind: ChangeKind::Moved,
            from: Some(from),
        }));
        pending.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(pending)
    }
}

/// What the view holds at `path` for the batch: a folder where a file was is its removal.
fn view_state(path: &Path) -> Result<Option<String>, ShadowError> {
    Ok(state_of(path)?.filter(|state| state != FOLDER))
}

/// Why applying a path whose real state is `current` would be refused (the baseline is
/// `baseline`, the shadow's is `target`): `None` when the real path is as the agent saw it (or
/// already as the shadow has it).
pub(super) fn conflict(
    current: &Option<String>,
    baseline: &Option<String>,
    target: &Option<String>,
) -> Option<String> {
    if current == baseline || current == target {
        return None;
    }
    Some(match (baseline, current) {
        (None, Some(_)) => "created outside the session since the agent saw it".to_owned(),
        (Some(_), None) => "deleted outside the session since the agent saw it".to_owned(),
        _ => "changed outside the session since the agent saw it".to_owned(),
    })
}

/// The text of the file at `path`, `None` when absent, a folder, a symlink or binary.
fn text_of(path: &Path) -> Result<Option<String>, ShadowError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ShadowError::io(path, e)),
    }
    let bytes = std::fs::read(path).map_err(|e| ShadowError::io(path, e))?;
    Ok(match decode(bytes) {
        FileText::Text { text, .. } => Some(text),
        FileText::Binary => None,
    })
}
