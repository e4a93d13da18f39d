//! The persistent cache in `.keel/cache/`: every file's tags keyed by path, size and
//! modification time (with a content hash for when those are in doubt), plus the last
//! rendered map so an unchanged repository maps without parsing or counting tokens.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::map::RenderedMap;
use crate::symbol::FileTags;

/// Bumped whenever the format or the extraction changes, so old caches are ignored.
const FORMAT: u32 = 2;
/// The cache file's name inside the cache directory.
const FILE_NAME: &str = "repomap-v1.postcard";

/// Where the cache of a repository rooted at `root` lives.
pub fn cache_path(root: &Path) -> PathBuf {
    root.join(".keel").join("cache").join(FILE_NAME)
}

/// One file as cached.
#[derive(Debug, Serialize, Deserialize)]
pub struct CachedFile<T> {
    /// Path relative to the root.
    pub rel: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: u64,
    /// blake3 of the content.
    pub hash: [u8; 32],
    /// The extracted tags.
    pub tags: T,
}

/// The cache's content. `F` is `FileTags` when loading and `&FileTags` when saving.
#[derive(Debug, Serialize, Deserialize)]
pub struct CacheData<F, R> {
    /// Format version ([`FORMAT`] plus the crate version).
    pub format: (u32, String),
    /// When it was written, nanoseconds since the epoch.
    pub written_ns: u64,
    /// Files.
    pub files: Vec<CachedFile<F>>,
    /// The last rendered map and the key it was rendered for.
    pub render: Option<([u8; 32], R)>,
}

/// The cache as loaded.
pub type Loaded = CacheData<FileTags, RenderedMap>;

fn format() -> (u32, String) {
    (FORMAT, env!("CARGO_PKG_VERSION").to_owned())
}

/// Loads the cache at `path`; `None` when it is missing, unreadable or of another format.
pub fn load(path: &Path) -> Option<Loaded> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            tracing::debug!(path = %path.display(), "repo map cache miss: {e}");
            return None;
        }
    };
    let data: Loaded = match postcard::from_bytes(&bytes) {
        Ok(data) => data,
        Err(e) => {
            tracing::warn!(path = %path.display(), "repo map cache unreadable, rebuilding: {e}");
            return None;
        }
    };
    if data.format != format() {
        tracing::debug!(path = %path.display(), "repo map cache of another format, rebuilding");
        return None;
    }
    tracing::debug!(path = %path.display(), files = data.files.len(), "repo map cache hit");
    Some(data)
}

/// Writes the cache atomically (a temporary file renamed over the old one).
pub fn save(
    path: &Path,
    written_ns: u64,
    files: Vec<CachedFile<&FileTags>>,
    render: Option<([u8; 32], &RenderedMap)>,
) -> std::io::Result<()> {
    let data = CacheData {
        format: format(),
        written_ns,
        files,
        render,
    };
    let bytes = postcard::to_stdvec(&data).map_err(std::io::Error::other)?;
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("cache path has no parent"))?;
    std::fs::create_dir_all(dir)?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n")?;
    }
    let tmp = dir.join(format!("{FILE_NAME}.{}.tmp", std::process::id()));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&bytes)?;
    }
    std::fs::rename(&tmp, path)
}
