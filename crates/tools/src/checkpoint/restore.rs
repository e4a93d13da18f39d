//! Rolling back: working out, for every file the undone checkpoints cover, the state it must
//! get back, then changing only the files that differ from it.
//!
//! Each path is restored once, to its snapshot in the oldest undone checkpoint. A file whose
//! size and BLAKE3 hash already match is left alone; every other one has its blob read and
//! checked before the first file is touched, so a damaged store changes nothing.

use std::collections::HashSet;
use std::io;
use std::path::PathBuf;

use super::{Checkpoint, CheckpointError, CheckpointStore, FileSnapshot, RollbackReport};

/// Past this many bytes of verified blobs held for writing, the rest are read again (and
/// checked again) when written, so a huge rollback does not hold the whole store in memory.
const HELD_BYTES: usize = 64 * 1024 * 1024;

/// What rolling back does to one path.
#[derive(Debug)]
enum Step {
    /// The file already holds its earlier content.
    Keep,
    /// Write the earlier content: the blob's bytes, when held (else read again by hash).
    Write {
        hash: String,
        bytes: Option<Vec<u8>>,
    },
    /// The file did not exist before: remove it.
    Remove,
}

/// One path's step, with where it is.
#[derive(Debug)]
struct Planned {
    rel: String,
    path: PathBuf,
    step: Step,
}

impl CheckpointStore {
    /// Undoes checkpoint `id` and every later one, and forgets them. Only files whose content
    /// differs from what they held before `id`'s turn are written; nothing is changed when a
    /// blob that is needed is missing or damaged, or a recorded path is not writable.
    pub fn rollback(&self, id: &str) -> Result<RollbackReport, CheckpointError> {
        let mut open = self.lock();
        let all = self.list()?;
        let Some(index) = all.iter().position(|c| c.id == id) else {
            return Err(CheckpointError::NotFound(id.to_owned()));
        };
        let undone = &all[index..];
        let plan = self.plan(undone)?;
        let mut report = RollbackReport::default();
        for planned in plan.iter().filter(|p| matches!(p.step, Step::Remove)) {
            match std::fs::remove_file(&planned.path) {
                Ok(()) => report.removed.push(planned.rel.clone()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => return Err(self.io_err("removing", &planned.path, source)),
            }
            self.remove_empty_parents(&planned.path);
        }
        for planned in plan {
            match planned.step {
                Step::Remove => continue,
                Step::Keep => {}
                Step::Write { hash, bytes } => {
                    let bytes = match bytes {
                        Some(bytes) => bytes,
                        None => self.reread(&hash)?,
                    };
                    if let Some(parent) = planned.path.parent()
                        && !parent.is_dir()
                    {
                        std::fs::create_dir_all(parent)
                            .map_err(|source| self.io_err("creating", parent, source))?;
                    }
                    std::fs::write(&planned.path, bytes)
                        .map_err(|source| self.io_err("writing", &planned.path, source))?;
                }
            }
            report.restored.push(planned.rel);
        }
        for checkpoint in undone.iter().rev() {
            let json = self.json_path(&checkpoint.id);
            std::fs::remove_file(&json).map_err(|source| self.io_err("removing", &json, source))?;
            open.turns.retain(|_, (c, _)| c.id != checkpoint.id);
            report.checkpoints.push(checkpoint.id.clone());
        }
        open.bytes = None;
        report.restored.sort();
        report.removed.sort();
        Ok(report)
    }

    /// Each path the `undone` checkpoints cover, with what restoring it takes: checked
    /// against the working tree, needed blobs read and verified, paths resolved for writing.
    fn plan(&self, undone: &[Checkpoint]) -> Result<Vec<Planned>, CheckpointError> {
        let mut seen = HashSet::new();
        let mut plan = Vec::new();
        let mut held = 0usize;
        for checkpoint in undone {
            for file in &checkpoint.files {
                // The oldest undone checkpoint holds the state to go back to.
                if !seen.insert(file.path.as_str()) {
                    continue;
                }
                let path = self.workspace.resolve_for_write(&file.path)?;
                let step = self.step(checkpoint, file, &path, &mut held)?;
                plan.push(Planned {
                    rel: file.path.clone(),
                    path,
                    step,
                });
            }
        }
        Ok(plan)
    }

    fn step(
        &self,
        checkpoint: &Checkpoint,
        file: &FileSnapshot,
        path: &std::path::Path,
        held: &mut usize,
    ) -> Result<Step, CheckpointError> {
        let current = std::fs::symlink_metadata(path);
        let Some(hash) = &file.blob else {
            return match current {
                Ok(meta) if meta.is_dir() => Err(self.io_err(
                    "removing",
                    path,
                    io::Error::other("a folder is there now, where the checkpoint has no file"),
                )),
                Ok(_) => Ok(Step::Remove),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Step::Keep),
                Err(source) => Err(self.io_err("reading", path, source)),
            };
        };
        if let Ok(meta) = &current
            && meta.is_file()
            && file.size.is_none_or(|size| size == meta.len())
            && std::fs::read(path).is_ok_and(|bytes| blake3::hash(&bytes).to_hex().as_str() == hash)
        {
            return Ok(Step::Keep);
        }
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
        *held += bytes.len();
        Ok(Step::Write {
            hash: hash.clone(),
            bytes: (*held <= HELD_BYTES).then_some(bytes),
        })
    }

    /// A blob verified earlier but not held, read again when it is written.
    fn reread(&self, hash: &str) -> Result<Vec<u8>, CheckpointError> {
        let bytes = self.get_blob(hash)?;
        if blake3::hash(&bytes).to_hex().as_str() != hash {
            return Err(self.io_err(
                "reading",
                &self.blob_path(hash),
                io::Error::other("the blob changed during the rollback"),
            ));
        }
        Ok(bytes)
    }
}
