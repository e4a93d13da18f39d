//! What a path holds, as a hash: compared between the real tree, the shadow copy and the
//! baseline.

use std::io;
use std::path::Path;
use std::time::UNIX_EPOCH;

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

/// Size and modification time (ns) of `path` itself (a symlink is not followed): when both
/// are as recorded, the file was not written since.
pub(super) fn stamp(path: &Path) -> Result<(u64, u64), io::Error> {
    let meta = std::fs::symlink_metadata(path)?;
    let modified = meta
        .modified()?
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    Ok((meta.len(), modified))
}
