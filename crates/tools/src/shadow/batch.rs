//! The staged batch: every path where the shadow copy differs from its baseline, with a
//! unified diff against the real file.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::manifest::Manifest;
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
    /// The path is removed (a move is a removal plus a creation).
    Deleted,
}

/// One path of the batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedChange {
    /// Workspace-relative path, `/`-separated.
    pub path: String,
    /// What applying it does.
    pub kind: ChangeKind,
    /// Lines added.
    pub lines_added: u64,
    /// Lines removed.
    pub lines_removed: u64,
    /// Unified diff against the real file, when both sides are text and it is small enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why applying it now would be refused: the real file changed since it was copied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
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
    /// The staged paths.
    pub fn paths(&self) -> Vec<String> {
        self.changes.iter().map(|c| c.path.clone()).collect()
    }
}

impl Shadow {
    /// The staged batch: what differs between the shadow copy and its baseline.
    pub fn batch(&self) -> Result<Batch, ShadowError> {
        let tree = self.tree();
        let mut changes = Vec::new();
        for (rel, kind) in changed_paths(&tree, &self.base)? {
            changes.push(self.describe(&rel, kind)?);
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
    fn describe(&self, rel: &str, kind: ChangeKind) -> Result<StagedChange, ShadowError> {
        let real = self.root.join(rel);
        let copy = self.tree().join(rel);
        let baseline = self.base.files.get(rel).map(|e| e.hash.clone());
        let current = state_of(&real)?;
        let target = state_of(&copy)?;
        let conflict = conflict(&current, &baseline, &target);
        let before = text_of(&real)?;
        let after = text_of(&copy)?;
        let change = text_change(rel, before.as_deref(), after.as_deref());
        Ok(StagedChange {
            path: rel.to_owned(),
            kind,
            lines_added: change.added,
            lines_removed: change.removed,
            diff: change.diff,
            conflict,
        })
    }
}

/// Why applying a path whose real state is `current` would be refused (the baseline is
/// `baseline`, the shadow's is `target`): `None` when the real path is as it was copied (or
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
        (None, Some(_)) => "created outside the session since the shadow copy was made".to_owned(),
        (Some(_), None) => "deleted outside the session since the shadow copy was made".to_owned(),
        _ => "changed outside the session since the shadow copy was made".to_owned(),
    })
}

/// The paths whose shadow copy differs from the baseline, sorted.
pub(super) fn changed_paths(
    tree: &Path,
    base: &Manifest,
) -> Result<Vec<(String, ChangeKind)>, ShadowError> {
    let mut seen = BTreeSet::new();
    let mut changed = Vec::new();
    // Ignore files of folders above the copy are not the project's: the copy has its own.
    let mut walker = crate::walk::walker(tree);
    walker.parents(false);
    for entry in walker.build() {
        let entry = entry.map_err(|e| ShadowError::Io {
            path: tree.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        if entry.file_type().is_none_or(|t| t.is_dir()) {
            continue;
        }
        let Some(rel) = entry
            .path()
            .strip_prefix(tree)
            .ok()
            .and_then(|p| p.to_str())
            .map(|s| s.replace('\\', "/"))
        else {
            continue;
        };
        seen.insert(rel.clone());
        match base.files.get(&rel) {
            Some(entry_base) if Manifest::untouched(entry_base, entry.path()) => {}
            Some(entry_base) => {
                if state_of(entry.path())?.as_deref() != Some(entry_base.hash.as_str()) {
                    changed.push((rel, ChangeKind::Updated));
                }
            }
            None => changed.push((rel, ChangeKind::Created)),
        }
    }
    for rel in base.files.keys() {
        if seen.contains(rel) {
            continue;
        }
        match state_of(&tree.join(rel))? {
            None => changed.push((rel.clone(), ChangeKind::Deleted)),
            // Still there but no longer walked (now ignored, or a folder): compare directly.
            Some(state) if state == FOLDER => changed.push((rel.clone(), ChangeKind::Deleted)),
            Some(state) if Some(&state) != base.files.get(rel).map(|e| &e.hash) => {
                changed.push((rel.clone(), ChangeKind::Updated));
            }
            Some(_) => {}
        }
    }
    changed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(changed)
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
