//! Path confinement: every path a tool touches resolves inside the workspace root.
//!
//! A path is refused when it contains a NUL byte, is longer than [`MAX_PATH_BYTES`] or has a
//! component longer than [`MAX_COMPONENT_BYTES`], climbs out with `..`, is absolute and
//! elsewhere, or passes through a symlink that leads out of the root. Writes are also refused
//! anywhere inside a `.git` folder.

use std::io;
use std::path::{Component, Path, PathBuf};

/// Longest path accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest path component accepted, in bytes.
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// The path contains a NUL byte.
    #[error("path `{path}` contains a NUL byte")]
    NulByte {
        /// The path as given (NUL shown as `\0`).
        path: String,
    },
    /// The path is longer than [`MAX_PATH_BYTES`].
    #[error("path is {len} bytes long; the limit is {MAX_PATH_BYTES}")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A component is longer than [`MAX_COMPONENT_BYTES`].
    #[error("a component of path `{path}` is {len} bytes long; the limit is {MAX_COMPONENT_BYTES}")]
    ComponentTooLong {
        /// The path as given (shortened).
        path: String,
        /// The component's length in bytes.
        len: usize,
    },
    /// `..` climbs above the workspace root.
    #[error("path `{path}` climbs out of the workspace with `..`; use a path inside the workspace")]
    ClimbsOut {
        /// The path as given.
        path: String,
    },
    /// An absolute path outside the workspace.
    #[error(
        "path `{path}` is outside the workspace `{root}`; use a path relative to the workspace root"
    )]
    OutsideRoot {
        /// The path as given.
        path: String,
        /// The workspace root.
        root: String,
    },
    /// A symlink on the way leads out of the workspace.
    #[error(
        "path `{path}` goes through a symlink that leads outside the workspace (to `{target}`)"
    )]
    SymlinkEscapes {
        /// The path as given.
        path: String,
        /// Where it actually leads.
        target: String,
    },
    /// A symlink on the way points at nothing, so where the path leads cannot be checked.
    #[error("path `{path}` goes through a symlink whose target does not exist")]
    DanglingSymlink {
        /// The path as given.
        path: String,
    },
    /// A write inside a `.git` folder.
    #[error("path `{path}` is inside a `.git` folder; tools may read it but never write there")]
    InsideGit {
        /// The path as given.
        path: String,
    },
    /// The workspace root itself cannot be used.
    #[error("workspace root `{root}` cannot be used: {source}")]
    Root {
        /// The root as given.
        root: String,
        /// Why.
        source: io::Error,
    },
    /// The file system refused to tell where the path leads.
    #[error("cannot check path `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// The error.
        source: io::Error,
    },
}

/// A workspace root and the rules for resolving paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// A workspace rooted at `root`, which must be an existing directory (it is canonicalised).
    pub fn new(root: impl AsRef<Path>) -> Result<Self, PathError> {
        let given = root.as_ref();
        let root_err = |source| PathError::Root {
            root: given.display().to_string(),
            source,
        };
        let root = given.canonicalize().map_err(root_err)?;
        if !root.is_dir() {
            return Err(root_err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        Ok(Self { root })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `input` (relative to the root, or absolute inside it) for reading.
    /// The empty path and `.` are the root itself.
    pub fn resolve(&self, input: &str) -> Result<PathBuf, PathError> {
        check_shape(input)?;
        let lexical = self.lexical(input)?;
        self.physical(input, &lexical)
    }

    /// Resolves `input` for writing: as [`Workspace::resolve`], and never inside `.git`.
    pub fn resolve_for_write(&self, input: &str) -> Result<PathBuf, PathError> {
        let resolved = self.resolve(input)?;
        let inside_git = self
            .relative_path(&resolved)
            .components()
            .any(|c| matches!(c, Component::Normal(name) if name.eq_ignore_ascii_case(".git")));
        if inside_git {
            return Err(PathError::InsideGit {
                path: input.to_owned(),
            });
        }
        Ok(resolved)
    }

    /// `path` (inside the root) relative to the root, with `/` separators; `.` for the root.
    pub fn relative(&self, path: &Path) -> String {
        let rel = self.relative_path(path);
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        }
    }

    fn relative_path<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }

    /// Joins and normalises `input` without touching the file system.
    fn lexical(&self, input: &str) -> Result<PathBuf, PathError> {
        let path = Path::new(input);
        let mut out = PathBuf::new();
        let mut depth: usize = 0;
        let absolute = path.has_root();
        if absolute {
            for component in path.components() {
                match component {
                    Component::Prefix(p) => out.push(p.as_os_str()),
                    Component::RootDir => out.push(Component::RootDir.as_os_str()),
                    Component::CurDir => {}
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::Normal(name) => out.push(name),
                }
            }
            if !out.starts_with(&self.root) {
                return Err(PathError::OutsideRoot {
                    path: input.to_owned(),
                    root: self.root.display().to_string(),
                });
            }
            return Ok(out);
        }
        out.push(&self.root);
        for component in path.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    if depth == 0 {
                        return Err(PathError::ClimbsOut {
                            path: input.to_owned(),
                        });
                    }
                    depth -= 1;
                    out.pop();
                }
                Component::Normal(name) => {
                    depth += 1;
                    out.push(name);
                }
                // A drive prefix without a root (Windows `C:foo`) is outside.
                Component::Prefix(_) | Component::RootDir => {
                    return Err(PathError::OutsideRoot {
                        path: input.to_owned(),
                        root: self.root.display().to_string(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Follows symlinks through the deepest existing ancestor of `lexical` and checks that
    /// where it leads is still inside the root.
    fn physical(&self, input: &str, lexical: &Path) -> Result<PathBuf, PathError> {
        let mut existing = lexical.to_path_buf();
        let mut rest: Vec<std::ffi::OsString> = Vec::new();
        loop {
            match std::fs::symlink_metadata(&existing) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(PathError::Io {
                        path: input.to_owned(),
                        source,
                    });
                }
            }
            match (
                existing.file_name().map(|n| n.to_os_string()),
                existing.parent(),
            ) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let canonical = match existing.canonicalize() {
            Ok(canonical) => canonical,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(PathError::DanglingSymlink {
                    path: input.to_owned(),
                });
            }
            Err(source) => {
                return Err(PathError::Io {
                    path: input.to_owned(),
                    source,
                });
            }
        };
        if !canonical.starts_with(&self.root) {
            return Err(PathError::SymlinkEscapes {
                path: input.to_owned(),
                target: canonical.display().to_string(),
            });
        }
        let mut resolved = canonical;
        for name in rest.into_iter().rev() {
            resolved.push(name);
        }
        Ok(resolved)
    }
}

/// Refuses NUL bytes and over-long paths or components.
fn check_shape(input: &str) -> Result<(), PathError> {
    if input.contains('\0') {
        return Err(PathError::NulByte {
            path: input.replace('\0', "\\0"),
        });
    }
    if input.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong { len: input.len() });
    }
    if let Some(long) = input
        .split(['/', '\\'])
        .find(|c| c.len() > MAX_COMPONENT_BYTES)
    {
        let shown: String = input.chars().take(80).collect();
        return Err(PathError::ComponentTooLong {
            path: format!("{shown}…"),
            len: long.len(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_of_root_is_dot() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        assert_eq!(ws.relative(ws.root()), ".");
        assert_eq!(ws.relative(&ws.root().join("a").join("b.rs")), "a/b.rs");
    }

    #[test]
    fn shape_checks() {
        assert!(matches!(
            check_shape("a\0b"),
            Err(PathError::NulByte { .. })
        ));
        assert!(matches!(
            check_shape(&"a/".repeat(3000)),
            Err(PathError::TooLong { .. })
        ));
        assert!(matches!(
            check_shape(&"x".repeat(256)),
            Err(PathError::ComponentTooLong { len: 256, .. })
        ));
        assert!(check_shape(&"x".repeat(255)).is_ok());
    }
}
