//! Finding the files to index: a `.gitignore`-aware walk of the root that keeps text files
//! and counts what it skips (binary, too large, unreadable).

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use serde::{Deserialize, Serialize};

/// Files larger than this are skipped by default.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;
/// How many leading bytes are checked for NUL to call a file binary.
const BINARY_SNIFF_BYTES: usize = 8000;

/// Why a file was left out of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// It has NUL bytes or is not UTF-8.
    Binary,
    /// It is larger than the size limit.
    TooLarge,
    /// It could not be read.
    Unreadable,
}

/// A candidate file found by the walk.
#[derive(Debug, Clone)]
pub struct FoundFile {
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// Absolute path.
    pub abs: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: u64,
}

pub use keel_repomap::{mtime_ns, relative};

/// Whether `rel` lies in Keel's own or git's directory.
pub fn is_internal(rel: &str) -> bool {
    let first = rel.split('/').next().unwrap_or("");
    first == ".keel" || first == ".git"
}

/// Every file under `root` that is not ignored or hidden, sorted by path.
pub fn walk(root: &Path) -> Vec<FoundFile> {
    let mut found = Vec::new();
    for entry in WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        if is_internal(&rel) {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        found.push(FoundFile {
            rel,
            abs: entry.path().to_path_buf(),
            size: metadata.len(),
            mtime_ns: mtime_ns(&metadata),
        });
    }
    found.sort_by(|a, b| a.rel.cmp(&b.rel));
    found
}

/// Reads `file` as text, or says why it is skipped.
pub fn read_text(file: &FoundFile, max_bytes: u64) -> Result<String, SkipReason> {
    if file.size > max_bytes {
        return Err(SkipReason::TooLarge);
    }
    let bytes = std::fs::read(&file.abs).map_err(|_| SkipReason::Unreadable)?;
    if bytes.len() as u64 > max_bytes {
        return Err(SkipReason::TooLarge);
    }
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes).map_err(|_| SkipReason::Binary)
}
