//! The store's size bound: what each checkpoint holds, and pruning the oldest past the limit.
//!
//! The store's total is counted from file sizes alone (no checkpoint is parsed) at each turn's
//! start, then kept up to date with what this process writes, so recording a file change does
//! not rescan the store; only going past the limit reads the checkpoints to prune them.

use std::collections::{HashMap, HashSet};
use std::io;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Checkpoint, CheckpointError, CheckpointStore};

/// The default size limit of a workspace's checkpoints (`checkpoint_max_mb = 512`).
pub const DEFAULT_MAX_BYTES: u64 = 512 * 1024 * 1024;

/// One checkpoint as `keel checkpoints list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointSize {
    /// Checkpoint id.
    pub id: String,
    /// The turn it covers.
    pub turn_id: String,
    /// The session the turn belongs to, when it was made in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Files it restores.
    pub files: usize,
    /// Bytes it holds: its file, and the blobs it refers to (blobs shared with other
    /// checkpoints count in each).
    pub bytes: u64,
}

/// The store's checkpoints with their sizes, and its total against its limit: what
/// `keel checkpoints list --json` prints and `GET /v1/sessions/{id}/checkpoints` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointUsage {
    /// The checkpoints, oldest first.
    pub checkpoints: Vec<CheckpointSize>,
    /// Bytes the whole store takes (every checkpoint of the root, and their blobs).
    pub total_bytes: u64,
    /// The limit (`checkpoint_max_mb`): past it the oldest checkpoints are pruned.
    pub max_bytes: u64,
}

impl CheckpointUsage {
    /// The same usage listing only the checkpoints made in session `session_id`'s turns.
    pub fn of_session(mut self, session_id: &str) -> Self {
        self.checkpoints
            .retain(|c| c.session_id.as_deref() == Some(session_id));
        self
    }
}

impl CheckpointStore {
    /// Every checkpoint with its size, oldest first, the bytes the store takes and its limit.
    pub fn usage(&self) -> Result<CheckpointUsage, CheckpointError> {
        let (checkpoints, total_bytes) = self.sizes()?;
        Ok(CheckpointUsage {
            checkpoints,
            total_bytes,
            max_bytes: self.max_bytes,
        })
    }

    /// Every checkpoint with its size, oldest first, and the bytes the whole store takes.
    pub fn sizes(&self) -> Result<(Vec<CheckpointSize>, u64), CheckpointError> {
        let all = self.list_sized()?;
        let blobs = self.blob_sizes()?;
        let mut total: u64 = blobs.values().sum();
        let mut rows = Vec::with_capacity(all.len());
        for (checkpoint, json) in &all {
            total += json;
            let bytes = json
                + blob_refs(checkpoint)
                    .iter()
                    .map(|h| blobs.get(*h).copied().unwrap_or(0))
                    .sum::<u64>();
            rows.push(CheckpointSize {
                id: checkpoint.id.clone(),
                turn_id: checkpoint.turn_id.clone(),
                session_id: checkpoint.session_id().map(str::to_owned),
                created_at: checkpoint.created_at,
                files: checkpoint.files.len(),
                bytes,
            });
        }
        Ok((rows, total))
    }

    /// Removes the oldest checkpoints (never `keep`, never the newest) and the blobs only they
    /// used until the store is within its size limit; returns the ids removed. Blobs no
    /// checkpoint refers to are left alone: another process may be about to refer to them.
    pub fn prune(&self, keep: &str) -> Result<Vec<String>, CheckpointError> {
        let mut open = self.lock();
        let counted = self.bytes_on_disk()?;
        open.bytes = Some(counted);
        if counted <= self.max_bytes {
            return Ok(Vec::new());
        }
        let blobs = self.blob_sizes()?;
        let (all, json_sizes): (Vec<Checkpoint>, Vec<u64>) = self.list_sized()?.into_iter().unzip();
        let mut total: u64 = blobs.values().sum::<u64>() + json_sizes.iter().sum::<u64>();
        let mut users: HashMap<&str, usize> = HashMap::new();
        for checkpoint in &all {
            for hash in blob_refs(checkpoint) {
                *users.entry(hash).or_default() += 1;
            }
        }
        let mut pruned = Vec::new();
        let newest = all.len().saturating_sub(1);
        for (index, checkpoint) in all.iter().enumerate() {
            if total <= self.max_bytes || index == newest {
                break;
            }
            if checkpoint.id == keep {
                continue;
            }
            let json = self.json_path(&checkpoint.id);
            std::fs::remove_file(&json).map_err(|source| self.io_err("removing", &json, source))?;
            total = total.saturating_sub(json_sizes[index]);
            for hash in blob_refs(checkpoint) {
                let count = users.entry(hash).or_default();
                *count = count.saturating_sub(1);
                if *count == 0 {
                    let path = self.blob_path(hash);
                    match std::fs::remove_file(&path) {
                        Ok(()) => {
                            total = total.saturating_sub(blobs.get(hash).copied().unwrap_or(0));
                        }
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        Err(source) => return Err(self.io_err("removing", &path, source)),
                    }
                }
            }
            open.turns.retain(|_, (c, _)| c.id != checkpoint.id);
            pruned.push(checkpoint.id.clone());
        }
        open.bytes = Some(total);
        Ok(pruned)
    }

    /// After this process wrote `added` bytes to the store: counts the store when it is not
    /// counted yet, else adds them, and prunes ([`CheckpointStore::prune`]) when past the
    /// limit. A failure is logged, never fails the change being recorded.
    pub(super) fn prune_over_limit(&self, keep: &str, added: u64) {
        let over = {
            let mut open = self.lock();
            let total = match open.bytes {
                Some(bytes) => Ok(bytes.saturating_add(added)),
                None => self.bytes_on_disk(),
            };
            match total {
                Ok(total) => {
                    open.bytes = Some(total);
                    total > self.max_bytes
                }
                Err(error) => {
                    tracing::warn!(%error, "checkpoints not counted");
                    return;
                }
            }
        };
        if !over {
            return;
        }
        match self.prune(keep) {
            Ok(pruned) if !pruned.is_empty() => {
                tracing::info!(count = pruned.len(), "pruned the oldest checkpoints");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "checkpoints not pruned"),
        }
    }

    pub(super) fn json_size(&self, id: &str) -> Result<u64, CheckpointError> {
        let path = self.json_path(id);
        std::fs::metadata(&path)
            .map(|m| m.len())
            .map_err(|source| self.io_err("reading", &path, source))
    }

    /// Bytes the store takes, from file sizes alone: every checkpoint file and every blob.
    fn bytes_on_disk(&self) -> Result<u64, CheckpointError> {
        let mut total: u64 = self.blob_sizes()?.values().sum();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(total),
            Err(source) => return Err(self.io_err("listing", &self.dir, source)),
        };
        for entry in entries {
            let entry = entry.map_err(|source| self.io_err("listing", &self.dir, source))?;
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") {
                let len = entry
                    .metadata()
                    .map_err(|source| self.io_err("reading", &path, source))?
                    .len();
                total = total.saturating_add(len);
            }
        }
        Ok(total)
    }

    /// The size of every blob, by hash.
    fn blob_sizes(&self) -> Result<HashMap<String, u64>, CheckpointError> {
        let dir = self.dir.join("blobs");
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(HashMap::new()),
            Err(source) => return Err(self.io_err("listing", &dir, source)),
        };
        let mut sizes = HashMap::new();
        for entry in entries {
            let entry = entry.map_err(|source| self.io_err("listing", &dir, source))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let len = entry
                .metadata()
                .map_err(|source| self.io_err("reading", &entry.path(), source))?
                .len();
            sizes.insert(name, len);
        }
        Ok(sizes)
    }
}

/// The distinct blobs a checkpoint refers to.
fn blob_refs(checkpoint: &Checkpoint) -> Vec<&str> {
    let mut seen = HashSet::new();
    checkpoint
        .files
        .iter()
        .filter_map(|f| f.blob.as_deref())
        .chain(checkpoint.conversation.as_ref().map(|m| m.blob.as_str()))
        .filter(|h| seen.insert(*h))
        .collect()
}
