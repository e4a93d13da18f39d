//! What a path holds, as a hash: compared between the real tree, the shadow copy and the
//! baseline.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ShadowError;

/// A file's content hash, a symlink's target hash, or `None` when nothing is there. A folder
/// where a file is expected has its own marker.
pub(super) fn state_of(path: &Path) -> Result<Option<String>, ShadowError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ShadowError::io(path, e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).map_err(|e| ShadowError::io(path, e))?;
        return Ok(Some(link_hash(&target)));
    }
    if meta.is_dir() {
        return Ok(Some(FOLDER.to_owned()));
    }
    let bytes = std::fs::read(path).map_err(|e| ShadowError::io(path, e))?;
    Ok(Some(bytes_hash(&bytes)))
}

/// The marker of a folder standing where a file is expected.
pub(super) const FOLDER: &str = "folder";

/// Hash of file content.
pub(super) fn bytes_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Hash of a symlink, by its target.
pub(super) fn link_hash(target: &Path) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"symlink\0");
    hasher.update(target.as_os_str().as_encoded_bytes());
    hasher.finalize().to_hex().to_string()
}

/// What the file system says of a path itself (a symlink is not followed): size, modification
/// and change times (ns) and inode. While all four are as recorded, the path was not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Stamp {
    size: u64,
    mtime_ns: u64,
    ctime_ns: u64,
    ino: u64,
}

/// The stamp of `path`, `None` when nothing is there.
pub(super) fn stamp(path: &Path) -> Result<Option<Stamp>, ShadowError> {
    use std::os::unix::fs::MetadataExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ShadowError::io(path, e)),
    };
    let ns = |secs: i64, nsec: i64| {
        u64::try_from(secs)
            .unwrap_or(0)
            .saturating_mul(1_000_000_000)
            .saturating_add(u64::try_from(nsec).unwrap_or(0))
    };
    Ok(Some(Stamp {
        size: meta.len(),
        mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
        ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        ino: meta.ino(),
    }))
}

/// Whether `a` and `b` hold the same thing: equal bytes, or symlinks to the same target.
pub(super) fn same_content(a: &Path, b: &Path) -> Result<bool, ShadowError> {
    Ok(state_of(a)? == state_of(b)?)
}
