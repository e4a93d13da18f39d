//! Trusted folders: a repository's own hooks (and command templates allowed to run commands)
//! are code someone else wrote, so they run only in a folder the person trusts. The list is
//! `trusted-folders.json` in the user's config folder — `{"folders": ["/abs/path", …]}` — and a
//! folder is trusted when it or a folder above it is listed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file in the user's config folder listing the trusted folders.
pub const TRUST_FILE: &str = "trusted-folders.json";

/// Why the trusted folders could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The file cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not what Keel wrote.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A folder to trust does not exist.
    #[error("{}: {source}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    #[serde(default)]
    folders: BTreeSet<PathBuf>,
}

/// The folders the person trusts, as kept in the user's config folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedFolders {
    path: PathBuf,
    folders: BTreeSet<PathBuf>,
}

impl TrustedFolders {
    /// The list kept in `user_dir` (empty when the file does not exist yet).
    pub fn load(user_dir: &Path) -> Result<Self, TrustError> {
        let path = user_dir.join(TRUST_FILE);
        let folders = match std::fs::read_to_string(&path) {
            Ok(text) => {
                serde_json::from_str::<TrustFile>(&text)
                    .map_err(|e| TrustError::Invalid {
                        path: path.clone(),
                        line: e.line().max(1),
                        message: e.to_string(),
                    })?
                    .folders
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
            Err(source) => return Err(TrustError::Io { path, source }),
        };
        Ok(Self { path, folders })
    }

    /// The file the list is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trusted folders, sorted.
    pub fn folders(&self) -> impl Iterator<Item = &Path> {
        self.folders.iter().map(PathBuf::as_path)
    }

    /// Whether `dir` (canonicalised) or a folder above it is trusted.
    pub fn is_trusted(&self, dir: &Path) -> bool {
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        dir.ancestors().any(|d| self.folders.contains(d))
    }

    /// Trusts `dir` (canonicalised), returning it; saved by [`TrustedFolders::save`].
    pub fn trust(&mut self, dir: &Path) -> Result<PathBuf, TrustError> {
        let dir = dir.canonicalize().map_err(|source| TrustError::Folder {
            path: dir.to_path_buf(),
            source,
        })?;
        self.folders.insert(dir.clone());
        Ok(dir)
    }

    /// Stops trusting `dir` (as given, or canonicalised); whether it was listed.
    pub fn revoke(&mut self, dir: &Path) -> bool {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        self.folders.remove(&canonical) | self.folders.remove(dir)
    }

    /// Writes the list (creating the user's config folder if needed).
    pub fn save(&self) -> Result<(), TrustError> {
        let io = |source| TrustError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = TrustFile {
            folders: self.folders.clone(),
        };
        let mut text = serde_json::to_string_pretty(&file).map_err(|e| TrustError::Invalid {
            path: self.path.clone(),
            line: 1,
            message: e.to_string(),
        })?;
        text.push('\n');
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_persists_and_covers_subfolders() {
        let user = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let inner = project.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        let mut trusted = TrustedFolders::load(user.path()).unwrap();
        assert!(!trusted.is_trusted(project.path()));
        trusted.trust(project.path()).unwrap();
        trusted.save().unwrap();
        let again = TrustedFolders::load(user.path()).unwrap();
        assert!(again.is_trusted(project.path()));
        assert!(again.is_trusted(&inner));
        let mut again = again;
        assert!(again.revoke(project.path()));
        again.save().unwrap();
        assert!(
            !TrustedFolders::load(user.path())
                .unwrap()
                .is_trusted(&inner)
        );
    }

    #[test]
    fn a_broken_file_names_its_line() {
        let user = tempfile::tempdir().unwrap();
        std::fs::write(user.path().join(TRUST_FILE), "{\n \"folders\": [1]\n}").unwrap();
        let err = TrustedFolders::load(user.path()).unwrap_err();
        assert!(err.to_string().contains("trusted-folders.json:2:"), "{err}");
    }
}
