//! `base.json`: the baseline a shadow copy was made from (each copied path's hash), and the
//! stamp of each copy so unchanged copies are not read again.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ShadowError;
use super::state::{bytes_hash, link_hash, stamp};

/// File name of the baseline in a session's shadow folder.
const BASE_FILE: &str = "base.json";
/// Format version of `base.json`.
const VERSION: u32 = 1;

/// The baseline of one shadow copy.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Manifest {
    version: u32,
    /// Workspace-relative path → what the real file held when it was copied.
    pub(super) files: BTreeMap<String, Entry>,
}

/// One copied path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry {
    /// Hash of the content (or symlink target) copied.
    pub(super) hash: String,
    /// Size of the shadow copy when it last matched `hash`.
    pub(super) size: u64,
    /// Modification time (ns) of the shadow copy when it last matched `hash`.
    pub(super) mtime_ns: u64,
}

impl Manifest {
    /// Reads `dir/base.json`; `Err` says what is wrong with it.
    pub(super) fn load(dir: &Path) -> Result<Self, String> {
        let path = dir.join(BASE_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{BASE_FILE}`: {e}"))?;
        let manifest: Self =
            serde_json::from_str(&text).map_err(|e| format!("`{BASE_FILE}` is not valid: {e}"))?;
        if manifest.version != VERSION {
            return Err(format!(
                "`{BASE_FILE}` has format version {}, this Keel reads {VERSION}",
                manifest.version
            ));
        }
        Ok(manifest)
    }

    /// Writes `dir/base.json` (through a temporary file, so it is never half written).
    pub(super) fn save(&self, dir: &Path) -> Result<(), ShadowError> {
        let path = dir.join(BASE_FILE);
        let tmp = dir.join(format!("{BASE_FILE}.tmp"));
        let text = serde_json::to_vec(self).map_err(|e| ShadowError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        std::fs::write(&tmp, text).map_err(|e| ShadowError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| ShadowError::io(&path, e))
    }

    /// Records that the shadow copy at `copy` now holds `hash` (it matches the real file).
    pub(super) fn record(&mut self, rel: &str, hash: String, copy: &Path) {
        let (size, mtime_ns) = stamp(copy).unwrap_or((0, 0));
        self.files.insert(
            rel.to_owned(),
            Entry {
                hash,
                size,
                mtime_ns,
            },
        );
    }

    /// Whether the copy at `copy` is untouched since it was recorded for `entry`.
    pub(super) fn untouched(entry: &Entry, copy: &Path) -> bool {
        stamp(copy).is_ok_and(|(size, mtime)| size == entry.size && mtime == entry.mtime_ns)
    }
}

/// Copies every file the workspace walker sees under `root` (`.git`, `.keel` and ignored files
/// left out) into `tree`, and returns the baseline.
pub(super) fn copy_tree(root: &Path, tree: &Path) -> Result<Manifest, ShadowError> {
    let mut manifest = Manifest {
        version: VERSION,
        files: BTreeMap::new(),
    };
    for entry in crate::walk::walker(root).build() {
        let entry = entry.map_err(|e| ShadowError::Io {
            path: root.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        let Ok(rel_path) = entry.path().strip_prefix(root) else {
            continue;
        };
        if rel_path.as_os_str().is_empty() {
            continue;
        }
        let Some(rel) = rel_path.to_str().map(|s| s.replace('\\', "/")) else {
            // A name that is not UTF-8 cannot be named in a batch; it stays out of the copy.
            tracing::warn!(path = %entry.path().display(), "not copied to the shadow: the name is not UTF-8");
            continue;
        };
        let target = tree.join(rel_path);
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| ShadowError::io(&target, e))?;
        } else if kind.is_symlink() {
            let link =
                std::fs::read_link(entry.path()).map_err(|e| ShadowError::io(entry.path(), e))?;
            std::os::unix::fs::symlink(&link, &target).map_err(|e| ShadowError::io(&target, e))?;
            manifest.record(&rel, link_hash(&link), &target);
        } else if kind.is_file() {
            // One read gives both the bytes copied and the hash of exactly those bytes.
            let bytes =
                std::fs::read(entry.path()).map_err(|e| ShadowError::io(entry.path(), e))?;
            std::fs::write(&target, &bytes).map_err(|e| ShadowError::io(&target, e))?;
            let perms = entry
                .metadata()
                .map(|m| m.permissions())
                .map_err(|e| ShadowError::Io {
                    path: entry.path().display().to_string(),
                    source: std::io::Error::other(e),
                })?;
            std::fs::set_permissions(&target, perms).map_err(|e| ShadowError::io(&target, e))?;
            manifest.record(&rel, bytes_hash(&bytes), &target);
        }
    }
    Ok(manifest)
}
