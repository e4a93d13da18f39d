//! `base.json`: what a session changed (each touched path with the real content it was based
//! on; a touched path missing from the view is a whiteout), and the stamps of every path the
//! view holds unchanged from the real tree, so refreshing it copies only what moved on.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ShadowError;
use super::state::Stamp;

/// File name of the manifest in a session's shadow folder.
const BASE_FILE: &str = "base.json";
/// Format version of `base.json` (1: a full copy of the tree with a hash per path).
const VERSION: u32 = 2;

/// The state of one shadow workspace.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Manifest {
    version: u32,
    /// Paths the session changed (wrote, created, deleted, moved away), by workspace-relative
    /// path. The view holds their truth; they are never refreshed from the real tree.
    pub(super) touched: BTreeMap<String, Touched>,
    /// Paths the view holds as the real tree had them, with both stamps at the last refresh.
    pub(super) synced: BTreeMap<String, Synced>,
}

impl Default for Manifest {
    fn default() -> Self {
        Self {
            version: VERSION,
            touched: BTreeMap::new(),
            synced: BTreeMap::new(),
        }
    }
}

/// A path the session changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Touched {
    /// The real path's state (content or link hash) when the session first changed it, as the
    /// agent had seen it; `None` when nothing was there. [`SEEN_CHANGED`] when the real file
    /// had changed after the agent last saw it, so it cannot be applied without a conflict.
    pub(super) baseline: Option<String>,
    /// Whether the session removed the path (a whiteout: the view no longer has it).
    pub(super) whiteout: bool,
}

/// The baseline of a path whose real file changed between the agent's last look and its write.
pub(super) const SEEN_CHANGED: &str = "changed-after-the-agent-saw-it";

/// A path of the view copied unchanged from the real tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Synced {
    /// The real path's stamp when it was copied.
    pub(super) real: Stamp,
    /// The view's copy's stamp right after.
    pub(super) view: Stamp,
}

impl Manifest {
    /// Reads `dir/base.json`; `Err` says what is wrong with it.
    pub(super) fn load(dir: &Path) -> Result<Self, String> {
        let path = dir.join(BASE_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{BASE_FILE}`: {e}"))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("`{BASE_FILE}` is not valid: {e}"))?;
        let version = value.get("version").and_then(serde_json::Value::as_u64);
        if version != Some(u64::from(VERSION)) {
            return Err(format!(
                "`{BASE_FILE}` has format version {}, this Keel reads {VERSION}",
                version.map_or_else(|| "none".to_owned(), |v| v.to_string())
            ));
        }
        serde_json::from_value(value).map_err(|e| format!("`{BASE_FILE}` is not valid: {e}"))
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
}
