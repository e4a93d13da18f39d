//! The shadow workspace (`--shadow`, seed 004's 影子文件系统), copy-on-write: a session's
//! tools and commands work in a view of the project under `<root>/.keel/shadow/<session>/tree/`,
//! and the real tree changes only when the staged batch is applied.
//!
//! The session's own state is `base.json`: every path it changed (written, created, deleted or
//! moved away — a deletion is a whiteout), with the real content it was based on. Every other
//! path of the view is the real tree's: before each tool call [`Shadow::sync`] records what
//! the last call changed in the view, then refreshes the unchanged paths from the real tree
//! (copying only files whose stamp moved on), so reads fall through to the real file as it is
//! now, and a command sees a whole directory. The batch is the changed paths whose view differs
//! from their baseline (a file moved unchanged is one move); applying a path first checks that
//! the real file still has its baseline content (a file changed by someone else meanwhile is a
//! conflict, reported and never overwritten).

mod apply;
mod batch;
mod manifest;
mod state;
mod sync;

use std::io;
use std::path::{Path, PathBuf};

pub use apply::{ApplyReport, Conflict, DiscardReport};
pub use batch::{Batch, ChangeKind, StagedChange};
use manifest::Manifest;

/// Where shadow workspaces live, relative to the project root.
pub const SHADOW_DIR: &str = ".keel/shadow";
/// The copy of the tree inside one session's shadow folder.
const TREE: &str = "tree";
/// Longest session id accepted as a folder name.
const MAX_SESSION_LEN: usize = 128;

/// Why a shadow workspace could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ShadowError {
    /// The session id cannot name a folder.
    #[error(
        "session id `{0}` cannot name a shadow folder: use letters, digits, `-` and `_` (at most 128)"
    )]
    InvalidSession(String),
    /// The session has no shadow workspace.
    #[error("session `{session}` has no pending shadow batch in `{root}`")]
    NoPending {
        /// The session id.
        session: String,
        /// The project root.
        root: String,
    },
    /// No session id was given and the project has no shadow workspace.
    #[error("no session in `{0}` has a pending shadow batch")]
    NoneAtAll(String),
    /// No session id was given and more than one session has a shadow workspace.
    #[error("several sessions have pending shadow batches ({}); pass --session ID", .0.join(", "))]
    Several(Vec<String>),
    /// The shadow workspace exists but holds no change.
    #[error("session `{0}`'s shadow workspace has no changes to apply")]
    NothingToApply(String),
    /// Paths asked for that the batch does not hold; nothing was applied (or discarded).
    #[error(
        "not in session `{session}`'s staged batch: {}; nothing was {action} (staged: {})",
        .missing.join(", "),
        if .staged.is_empty() { "none".to_owned() } else { .staged.join(", ") }
    )]
    NotInBatch {
        /// The session id.
        session: String,
        /// The paths that are not staged.
        missing: Vec<String>,
        /// The paths that are.
        staged: Vec<String>,
        /// What was not done: `applied` or `discarded`.
        action: &'static str,
    },
    /// The shadow folder is missing a part or holds something unreadable.
    #[error(
        "session `{session}`'s shadow workspace is damaged ({why}); nothing was changed. Run `keel shadow discard --session {session}` to remove it"
    )]
    Damaged {
        /// The session id.
        session: String,
        /// What is wrong.
        why: String,
    },
    /// The project root cannot be used.
    #[error(transparent)]
    Root(#[from] crate::PathError),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// The error.
        source: io::Error,
    },
}

impl ShadowError {
    fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// One session's shadow workspace: the copy of the tree and the baseline it was copied from.
#[derive(Debug)]
pub struct Shadow {
    /// The real project root (canonical).
    root: PathBuf,
    session: String,
    /// `<root>/.keel/shadow/<session>`.
    dir: PathBuf,
    base: Manifest,
}

impl Shadow {
    /// The shadow folder of `session` under `root` (whether or not it exists).
    pub fn dir_for(root: &Path, session: &str) -> Result<PathBuf, ShadowError> {
        check_session(session)?;
        Ok(root.join(SHADOW_DIR).join(session))
    }

    /// Opens `session`'s shadow workspace, or makes it (an empty change set and a view of the
    /// real tree of `root`).
    pub fn open_or_create(root: &Path, session: &str) -> Result<Self, ShadowError> {
        let root = canonical_root(root)?;
        let dir = Self::dir_for(&root, session)?;
        if dir.exists() {
            return Self::open_at(root, session, dir);
        }
        // Made in a folder no reader opens (its name is not a session's), then renamed into
        // place whole: a reader never sees the view without its `base.json`.
        let building = building_dir(&dir, session);
        let tree = building.join(TREE);
        std::fs::create_dir_all(&tree).map_err(|e| ShadowError::io(&tree, e))?;
        let mut shadow = Self {
            root,
            session: session.to_owned(),
            dir: building.clone(),
            base: Manifest::default(),
        };
        if let Err(e) = shadow.sync() {
            let _ = std::fs::remove_dir_all(&building);
            return Err(e);
        }
        match std::fs::rename(&building, &dir) {
            Ok(()) => {
                shadow.dir = dir;
                Ok(shadow)
            }
            // Another process made it first: that one is the session's.
            Err(_) if dir.is_dir() => {
                let _ = std::fs::remove_dir_all(&building);
                Self::open_at(shadow.root, session, dir)
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&building);
                Err(ShadowError::io(&dir, e))
            }
        }
    }

    /// Opens `session`'s existing shadow workspace.
    pub fn open(root: &Path, session: &str) -> Result<Self, ShadowError> {
        let root = canonical_root(root)?;
        let dir = Self::dir_for(&root, session)?;
        if !dir.exists() {
            return Err(ShadowError::NoPending {
                session: session.to_owned(),
                root: root.display().to_string(),
            });
        }
        Self::open_at(root, session, dir)
    }

    /// Opens the shadow workspace of `session`, or when `None`, of the only session under
    /// `root` that has one.
    pub fn open_pending(root: &Path, session: Option<&str>) -> Result<Self, ShadowError> {
        Self::open(root, &pick_session(root, session)?)
    }

    fn open_at(root: PathBuf, session: &str, dir: PathBuf) -> Result<Self, ShadowError> {
        let damaged = |why: String| ShadowError::Damaged {
            session: session.to_owned(),
            why,
        };
        if !dir.join(TREE).is_dir() {
            return Err(damaged("its `tree` folder is missing".to_owned()));
        }
        let base = Manifest::load(&dir).map_err(damaged)?;
        Ok(Self {
            root,
            session: session.to_owned(),
            dir,
            base,
        })
    }

    /// The view of the tree the session's tools and commands work in.
    pub fn tree(&self) -> PathBuf {
        self.dir.join(TREE)
    }

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The real project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Removes this shadow workspace and every change staged in it.
    pub fn discard(self) -> Result<(), ShadowError> {
        remove_shadow_dir(&self.dir)
    }
}

/// Removes a shadow folder so that no reader sees it half removed (a page asking for the
/// staged batch while it is discarded gets "nothing staged", never "damaged"): renamed aside
/// to a name no session has, then deleted.
fn remove_shadow_dir(dir: &Path) -> Result<(), ShadowError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let aside = dir.with_file_name(format!(".{name}.removing-{}-{nanos}", std::process::id()));
    std::fs::rename(dir, &aside).map_err(|e| ShadowError::io(dir, e))?;
    std::fs::remove_dir_all(&aside).map_err(|e| ShadowError::io(&aside, e))
}

/// The environment of a command run in the shadow copy `tree`: this process's, with git kept
/// from finding the real repository above the copy (`GIT_CEILING_DIRECTORIES`), so a command
/// such as `git add` can never reach the real `.git` from the shadow.
pub fn command_env(tree: &Path) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let ceiling = tree.parent().unwrap_or(tree).as_os_str().to_owned();
    let mut env: Vec<_> = std::env::vars_os()
        .filter(|(name, _)| name != "GIT_CEILING_DIRECTORIES" && name != "GIT_DIR")
        .collect();
    env.push(("GIT_CEILING_DIRECTORIES".into(), ceiling));
    env
}

/// Removes `session`'s shadow folder under `root`, damaged or not (or, with `None`, the only
/// one there is). Returns the session id.
pub fn discard(root: &Path, session: Option<&str>) -> Result<String, ShadowError> {
    let root = canonical_root(root)?;
    let session = pick_session(&root, session)?;
    let dir = Shadow::dir_for(&root, &session)?;
    if !dir.exists() {
        return Err(ShadowError::NoPending {
            session,
            root: root.display().to_string(),
        });
    }
    remove_shadow_dir(&dir)?;
    Ok(session)
}

/// Where `session`'s shadow folder `dir` is made before it is renamed into place: beside it,
/// under a name no session has (it starts with a dot), unique to this process and moment.
fn building_dir(dir: &Path, session: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    dir.with_file_name(format!(".{session}.new-{}-{nanos}", std::process::id()))
}

/// The sessions under `root` that have a shadow folder, sorted.
pub fn pending_sessions(root: &Path) -> Result<Vec<String>, ShadowError> {
    let dir = root.join(SHADOW_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ShadowError::io(&dir, e)),
    };
    let mut sessions = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ShadowError::io(&dir, e))?;
        if entry.path().is_dir()
            && let Some(name) = entry.file_name().to_str()
            && check_session(name).is_ok()
        {
            sessions.push(name.to_owned());
        }
    }
    sessions.sort();
    Ok(sessions)
}

/// `session` when given, else the only session with a shadow folder.
fn pick_session(root: &Path, session: Option<&str>) -> Result<String, ShadowError> {
    if let Some(session) = session {
        check_session(session)?;
        return Ok(session.to_owned());
    }
    let mut sessions = pending_sessions(root)?;
    match sessions.len() {
        0 => Err(ShadowError::NoneAtAll(root.display().to_string())),
        1 => Ok(sessions.remove(0)),
        _ => Err(ShadowError::Several(sessions)),
    }
}

fn check_session(session: &str) -> Result<(), ShadowError> {
    let ok = !session.is_empty()
        && session.len() <= MAX_SESSION_LEN
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ShadowError::InvalidSession(session.to_owned()))
    }
}

fn canonical_root(root: &Path) -> Result<PathBuf, ShadowError> {
    Ok(crate::Workspace::new(root)?.root().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_must_be_folder_names() {
        assert!(check_session("sess_0192-ab").is_ok());
        for bad in ["", "../x", "a/b", ".", "a b", &"x".repeat(129)] {
            assert!(
                matches!(check_session(bad), Err(ShadowError::InvalidSession(_))),
                "{bad}"
            );
        }
    }
}
