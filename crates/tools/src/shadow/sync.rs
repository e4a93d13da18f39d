//! Keeping the view copy-on-write: what the session changed in the view is recorded as
//! touched (with the real content it was based on), and every other path is refreshed from the
//! real tree, so reads fall through to the real file as it is now.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::manifest::{SEEN_CHANGED, Synced, Touched};
use super::state::{FOLDER, same_content, stamp, state_of};
use super::{Shadow, ShadowError};

impl Shadow {
    /// The paths the view was synced with that are not in `seen`.
    fn synced_but_not(&self, seen: &BTreeSet<String>) -> Vec<String> {
        self.base
            .synced
            .keys()
            .filter(|rel| !seen.contains(*rel))
            .cloned()
            .collect()
    }

    /// Brings the view up to date before the session uses it: records what the session
    /// changed since the last sync (tools and commands alike), then makes every path it did
    /// not change equal to the real tree's (copied when the real file changed since it was
    /// last copied, removed when the real file is gone). Saves the manifest.
    pub fn sync(&mut self) -> Result<(), ShadowError> {
        self.capture()?;
        self.refresh()?;
        self.base.save(&self.dir)
    }

    /// Records every path of the view that no longer matches what was copied into it as
    /// touched, with its baseline; marks touched paths gone from the view as whiteouts.
    pub(super) fn capture(&mut self) -> Result<(), ShadowError> {
        let tree = self.tree();
        let mut seen = BTreeSet::new();
        for (rel, _) in files(&tree, false)? {
            seen.insert(rel.clone());
            self.capture_path(&rel)?;
        }
        let gone = self.synced_but_not(&seen);
        for rel in gone {
            // Still there but no longer walked (now ignored) is compared as any other path.
            self.capture_path(&rel)?;
        }
        for (rel, touched) in &mut self.base.touched {
            touched.whiteout = matches!(state_of(&tree.join(rel))?.as_deref(), None | Some(FOLDER));
        }
        Ok(())
    }

    /// Records `rel` as touched when its view no longer holds what was copied into it.
    fn capture_path(&mut self, rel: &str) -> Result<(), ShadowError> {
        if self.base.touched.contains_key(rel) {
            return Ok(());
        }
        let view = self.tree().join(rel);
        let real = self.root.join(rel);
        let view_stamp = stamp(&view)?;
        let synced = self.base.synced.get(rel).copied();
        if let Some(synced) = synced {
            if view_stamp == Some(synced.view) {
                return Ok(());
            }
            // Rewritten with the same bytes (or touched): still the real file's content.
            if let Some(now) = view_stamp
                && stamp(&real)? == Some(synced.real)
                && same_content(&view, &real)?
            {
                self.base.synced.insert(
                    rel.to_owned(),
                    Synced {
                        real: synced.real,
                        view: now,
                    },
                );
                return Ok(());
            }
        }
        let baseline = match synced {
            // What the agent saw is the real file as copied, if it is still so.
            Some(synced) if stamp(&real)? == Some(synced.real) => state_of(&real)?,
            Some(_) => Some(SEEN_CHANGED.to_owned()),
            // The agent saw nothing there.
            None => None,
        };
        self.base.synced.remove(rel);
        self.base.touched.insert(
            rel.to_owned(),
            Touched {
                baseline,
                whiteout: view_stamp.is_none(),
            },
        );
        Ok(())
    }

    /// Makes every untouched path of the view equal to the real tree's.
    fn refresh(&mut self) -> Result<(), ShadowError> {
        let tree = self.tree();
        let mut seen = BTreeSet::new();
        for (rel, real) in files(&self.root, true)? {
            seen.insert(rel.clone());
            if self.base.touched.contains_key(&rel) {
                continue;
            }
            let Some(real_stamp) = stamp(&real)? else {
                continue;
            };
            let view = tree.join(&rel);
            if let Some(synced) = self.base.synced.get(&rel)
                && synced.real == real_stamp
                && stamp(&view)? == Some(synced.view)
            {
                continue;
            }
            match copy_in(&real, &view) {
                Ok(()) => {
                    if let Some(view_stamp) = stamp(&view)? {
                        self.base.synced.insert(
                            rel,
                            Synced {
                                real: real_stamp,
                                view: view_stamp,
                            },
                        );
                    }
                }
                // One unreadable file does not make the workspace unusable: it stays out.
                Err(e) => tracing::warn!(path = %rel, "not copied into the shadow view: {e}"),
            }
        }
        let gone = self.synced_but_not(&seen);
        for rel in gone {
            remove_from_view(&tree, &rel)?;
            self.base.synced.remove(&rel);
        }
        Ok(())
    }

    /// Makes `rel` untouched again: the view takes the real tree's version (or loses the path
    /// when the real tree has none).
    pub(super) fn untouch(&mut self, rel: &str) -> Result<(), ShadowError> {
        let tree = self.tree();
        let real = self.root.join(rel);
        let view = tree.join(rel);
        self.base.touched.remove(rel);
        self.base.synced.remove(rel);
        match (stamp(&real)?, state_of(&real)?.as_deref()) {
            (Some(real_stamp), Some(state)) if state != FOLDER => {
                if !same_content(&real, &view)? {
                    copy_in(&real, &view)?;
                }
                if let Some(view_stamp) = stamp(&view)? {
                    self.base.synced.insert(
                        rel.to_owned(),
                        Synced {
                            real: real_stamp,
                            view: view_stamp,
                        },
                    );
                }
            }
            _ => remove_from_view(&tree, rel)?,
        }
        Ok(())
    }
}

/// The files and symlinks under `start` the workspace walker sees, as (relative path, path).
/// `parents`: whether ignore files above `start` count (they do for the real tree, not for the
/// view, whose parents are Keel's own folders).
fn files(start: &Path, parents: bool) -> Result<Vec<(String, PathBuf)>, ShadowError> {
    let mut walker = crate::walk::walker(start);
    walker.parents(parents);
    let mut out = Vec::new();
    for entry in walker.build() {
        let entry = entry.map_err(|e| ShadowError::Io {
            path: start.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        if entry.file_type().is_none_or(|t| t.is_dir()) {
            continue;
        }
        let Some(rel) = entry
            .path()
            .strip_prefix(start)
            .ok()
            .and_then(|p| p.to_str())
            .map(|s| s.replace('\\', "/"))
        else {
            // A name that is not UTF-8 cannot be named in a batch; it stays out of the view.
            tracing::warn!(path = %entry.path().display(), "left out of the shadow view: the name is not UTF-8");
            continue;
        };
        if rel.is_empty() {
            continue;
        }
        out.push((rel, entry.into_path()));
    }
    Ok(out)
}

/// Copies the real file or symlink `real` to `view`, keeping its modification time (so a later
/// write, which sets it to now, always changes the view's stamp).
pub(super) fn copy_in(real: &Path, view: &Path) -> Result<(), ShadowError> {
    if let Some(parent) = view.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ShadowError::io(parent, e))?;
    }
    let meta = std::fs::symlink_metadata(real).map_err(|e| ShadowError::io(real, e))?;
    if let Ok(old) = std::fs::symlink_metadata(view)
        && (old.file_type().is_symlink() || meta.file_type().is_symlink())
    {
        std::fs::remove_file(view).map_err(|e| ShadowError::io(view, e))?;
    }
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(real).map_err(|e| ShadowError::io(real, e))?;
        return std::os::unix::fs::symlink(&link, view).map_err(|e| ShadowError::io(view, e));
    }
    std::fs::copy(real, view).map_err(|e| ShadowError::io(view, e))?;
    let modified = meta.modified().map_err(|e| ShadowError::io(real, e))?;
    std::fs::File::open(view)
        .and_then(|file| file.set_modified(modified))
        .map_err(|e| ShadowError::io(view, e))
}

/// Removes `rel` from the view, and the folders it leaves empty.
fn remove_from_view(tree: &Path, rel: &str) -> Result<(), ShadowError> {
    let path = tree.join(rel);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(ShadowError::io(&path, e)),
    }
    let mut dir = path.parent();
    while let Some(folder) = dir {
        if folder == tree || std::fs::remove_dir(folder).is_err() {
            break;
        }
        dir = folder.parent();
    }
    Ok(())
}
