//! Checkpoints: the before-content of every file a turn changes, so the turn can be undone.
//!
//! Before the first change to a file in a turn, the file's content (or the fact that it did not
//! exist) is saved. Rolling back to a checkpoint undoes that checkpoint's turn and every later
//! one: modified, deleted and moved files get their old content back and created files are
//! removed. Checkpoints persist under `<root>/.keel/checkpoints/` (one JSON file per checkpoint,
//! contents as blobs named by their BLAKE3 hash) so a later process can roll back.
//!
//! A turn run by an agent session also records where its conversation stood before the turn
//! ([`ConversationMark`], in `mark.rs`), so the session can be rewound or forked there. The
//! store is bounded: past its size limit the oldest checkpoints are pruned (`prune.rs`, which
//! also reports the usage). Rolling back rewrites only the files that differ from the
//! checkpoint (`restore.rs`).

mod mark;
mod prune;
mod restore;

pub use mark::ConversationMark;
pub use prune::{CheckpointSize, CheckpointUsage, DEFAULT_MAX_BYTES};

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::workspace::{PathError, Workspace};

/// Where checkpoints live, relative to the workspace root.
pub const CHECKPOINT_DIR: &str = ".keel/checkpoints";

/// What went wrong with a checkpoint.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing a file failed.
    #[error("checkpoint store: {action} `{path}`: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// A checkpoint file is not valid JSON.
    #[error("checkpoint file `{path}` is damaged: {source}")]
    Json {
        /// The file.
        path: String,
        /// The error.
        source: serde_json::Error,
    },
    /// No checkpoint has that id.
    #[error("no checkpoint `{0}` (list them to see the ids)")]
    NotFound(String),
    /// A path recorded in a checkpoint is not inside the workspace.
    #[error(transparent)]
    Path(#[from] PathError),
    /// A blob a checkpoint needs is missing or does not hold what was saved.
    #[error("checkpoint `{id}` is damaged: {reason}; nothing was restored")]
    Damaged {
        /// The checkpoint.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// The workspace root is inside a `.git` folder, where checkpoints are never written.
    #[error("workspace root `{0}` is inside `.git`; checkpoints are never written there")]
    InsideGit(String),
}

/// One file's state before a turn first changed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSnapshot {
    /// Workspace-relative path.
    pub path: String,
    /// BLAKE3 hash of the content blob; `None` when the file did not exist.
    pub blob: Option<String>,
    /// Size in bytes of the saved content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// The saved state of the files one turn changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Checkpoint id (a UUID v7, so ids sort by creation).
    pub id: String,
    /// The turn (or, outside a turn, the tool call) whose changes it covers.
    pub turn_id: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Each changed file's state before its first change in the turn, in order of first change.
    pub files: Vec<FileSnapshot>,
    /// Where the session's conversation stood before the turn (absent for checkpoints made
    /// outside a session, e.g. by `keel tool call`, or by older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<ConversationMark>,
}

/// What a rollback did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RollbackReport {
    /// Checkpoints undone, newest first.
    pub checkpoints: Vec<String>,
    /// Files given back their earlier content.
    pub restored: Vec<String>,
    /// Files removed because they did not exist before.
    pub removed: Vec<String>,
}

impl Checkpoint {
    /// An empty checkpoint for `turn_id`, with a fresh id.
    fn new(turn_id: &str) -> Self {
        Self {
            id: uuid::Uuid::now_v7().to_string(),
            turn_id: turn_id.to_owned(),
            created_at: keel_events::now_millis(),
            files: Vec::new(),
            conversation: None,
        }
    }

    /// The session whose turn it covers, when it was made in one.
    pub fn session_id(&self) -> Option<&str> {
        self.conversation.as_ref().map(|m| m.session_id.as_str())
    }
}

/// Records file states per turn and rolls turns back.
#[derive(Debug)]
pub struct CheckpointStore {
    workspace: Workspace,
    dir: PathBuf,
    /// What this process knows of the store, under one lock.
    open: Mutex<Open>,
    /// Past this many bytes (checkpoint files and blobs) the oldest checkpoints are pruned.
    max_bytes: u64,
}

/// The checkpoints this process has open, and the store's size as last counted.
#[derive(Debug, Default)]
struct Open {
    /// Turn id → its checkpoint as this process last saved it, with that file's length.
    turns: HashMap<String, (Checkpoint, u64)>,
    /// Bytes the store takes: counted on disk, plus what this process wrote since; `None`
    /// until counted again (each turn's start recounts, so other processes' writes show).
    bytes: Option<u64>,
}

impl CheckpointStore {
    /// The store of the workspace at `root` (nothing is written until something is recorded).
    pub fn open(root: impl AsRef<Path>) -> Result<Self, CheckpointError> {
        let workspace = Workspace::new(root)?;
        if workspace
            .root()
            .components()
            .any(|c| c.as_os_str() == ".git")
        {
            return Err(CheckpointError::InsideGit(
                workspace.root().display().to_string(),
            ));
        }
        let dir = workspace.root().join(CHECKPOINT_DIR);
        Ok(Self {
            workspace,
            dir,
            open: Mutex::new(Open::default()),
            max_bytes: DEFAULT_MAX_BYTES,
        })
    }

    /// The same store, pruned to at most `max_bytes` (`checkpoint_max_mb`).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The size limit, in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The folder checkpoints are stored in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves the current state of `path` (absolute, inside the root) in `turn_id`'s checkpoint,
    /// unless the turn already saved it. Call it before changing the file.
    pub fn record_before(&self, turn_id: &str, path: &Path) -> Result<(), CheckpointError> {
        let mut open = self.lock();
        let (mut checkpoint, saved_len) = match open.turns.get(turn_id) {
            // Pruned by another process since: its blobs may be gone, so it is not rewritten.
            Some((checkpoint, _)) if !self.json_path(&checkpoint.id).is_file() => {
                return Err(CheckpointError::NotFound(checkpoint.id.clone()));
            }
            Some((checkpoint, len)) => (checkpoint.clone(), *len),
            None => match self
                .list()?
                .into_iter()
                .rev()
                .find(|c| c.turn_id == turn_id)
            {
                Some(found) => {
                    let len = self.json_size(&found.id)?;
                    (found, len)
                }
                None => (Checkpoint::new(turn_id), 0),
            },
        };
        let rel = self.workspace.relative(path);
        if checkpoint.files.iter().any(|f| f.path == rel) {
            open.turns
                .insert(turn_id.to_owned(), (checkpoint, saved_len));
            return Ok(());
        }
        let mut added = 0;
        let snapshot = match std::fs::read(path) {
            Ok(bytes) => {
                let (hash, written) = self.put_blob(&bytes)?;
                added += written;
                FileSnapshot {
                    path: rel,
                    blob: Some(hash),
                    size: Some(bytes.len() as u64),
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => FileSnapshot {
                path: rel,
                blob: None,
                size: None,
            },
            Err(source) => {
                return Err(CheckpointError::Io {
                    action: "reading",
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        checkpoint.files.push(snapshot);
        let len = self.save(&checkpoint)?;
        added += len.saturating_sub(saved_len);
        let id = checkpoint.id.clone();
        open.turns.insert(turn_id.to_owned(), (checkpoint, len));
        drop(open);
        self.prune_over_limit(&id, added);
        Ok(())
    }

    /// Every checkpoint, oldest first.
    pub fn list(&self) -> Result<Vec<Checkpoint>, CheckpointError> {
        Ok(self.list_sized()?.into_iter().map(|(c, _)| c).collect())
    }

    /// Every checkpoint with the length of its file, oldest first.
    fn list_sized(&self) -> Result<Vec<(Checkpoint, u64)>, CheckpointError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(self.io_err("listing", &self.dir, source)),
        };
        let mut checkpoints = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| self.io_err("listing", &self.dir, source))?;
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") {
                checkpoints.push(self.load_sized(&path)?);
            }
        }
        checkpoints.sort_by(|(a, _), (b, _)| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(checkpoints)
    }

    /// The checkpoint with this id.
    pub fn get(&self, id: &str) -> Result<Checkpoint, CheckpointError> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(CheckpointError::NotFound(id.to_owned()));
        }
        let path = self.json_path(id);
        if !path.is_file() {
            return Err(CheckpointError::NotFound(id.to_owned()));
        }
        self.load(&path)
    }

    /// Removes folders left empty by removing a created file (they were created with it).
    fn remove_empty_parents(&self, path: &Path) {
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == self.workspace.root() || !d.starts_with(self.workspace.root()) {
                break;
            }
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }

    /// Checks that every blob `checkpoint` needs is there and holds what was saved, so a
    /// rollback never stops half-way on a damaged store.
    fn verify(&self, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
        let blobs = checkpoint
            .files
            .iter()
            .filter_map(|f| f.blob.as_deref())
            .chain(checkpoint.conversation.as_ref().map(|m| m.blob.as_str()));
        for hash in blobs {
            let damaged = |reason: String| CheckpointError::Damaged {
                id: checkpoint.id.clone(),
                reason,
            };
            let bytes = self
                .get_blob(hash)
                .map_err(|e| damaged(format!("blob {hash}: {e}")))?;
            if blake3::hash(&bytes).to_hex().as_str() != hash {
                return Err(damaged(format!("blob {hash} does not match its hash")));
            }
        }
        Ok(())
    }

    fn blob_path(&self, hash: &str) -> PathBuf {
        self.dir.join("blobs").join(hash)
    }

    /// Stores `bytes` as a blob (once per content); returns its hash and the bytes written
    /// (0 when the blob was already there).
    fn put_blob(&self, bytes: &[u8]) -> Result<(String, u64), CheckpointError> {
        let hash = blake3::hash(bytes).to_hex().to_string();
        let path = self.blob_path(&hash);
        if path.exists() {
            return Ok((hash, 0));
        }
        self.write(&path, bytes)?;
        Ok((hash, bytes.len() as u64))
    }

    fn get_blob(&self, hash: &str) -> Result<Vec<u8>, CheckpointError> {
        if !hash.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(CheckpointError::NotFound(format!("blob {hash}")));
        }
        let path = self.blob_path(hash);
        std::fs::read(&path).map_err(|source| self.io_err("reading", &path, source))
    }

    /// Writes `checkpoint`'s file; returns its length.
    fn save(&self, checkpoint: &Checkpoint) -> Result<u64, CheckpointError> {
        let path = self.json_path(&checkpoint.id);
        let json = serde_json::to_vec(checkpoint).map_err(|source| CheckpointError::Json {
            path: path.display().to_string(),
            source,
        })?;
        self.write(&path, &json)?;
        Ok(json.len() as u64)
    }

    fn json_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes a file of the store; never recreates a workspace root that has gone away.
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
        let written = if self.workspace.root().is_dir() {
            write_atomically(path, bytes)
        } else {
            Err(io::Error::new(
                io::ErrorKind::NotFound,
                "the workspace root no longer exists",
            ))
        };
        written.map_err(|source| self.io_err("writing", path, source))
    }

    fn load(&self, path: &Path) -> Result<Checkpoint, CheckpointError> {
        self.load_sized(path).map(|(checkpoint, _)| checkpoint)
    }

    /// The checkpoint in `path`, with the file's length.
    fn load_sized(&self, path: &Path) -> Result<(Checkpoint, u64), CheckpointError> {
        let bytes = std::fs::read(path).map_err(|source| self.io_err("reading", path, source))?;
        let checkpoint =
            serde_json::from_slice(&bytes).map_err(|source| CheckpointError::Json {
                path: path.display().to_string(),
                source,
            })?;
        Ok((checkpoint, bytes.len() as u64))
    }

    fn io_err(&self, action: &'static str, path: &Path, source: io::Error) -> CheckpointError {
        CheckpointError::Io {
            action,
            path: path.display().to_string(),
            source,
        }
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let parent = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent folder"))?;
    std::fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        uuid::Uuid::now_v7().simple()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
