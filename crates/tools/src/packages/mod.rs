//! Packages on this machine: the manifest a project path belongs to (`manifest`; Python's
//! other metadata and dynamic versions in `python`), the versions the project's lock files
//! pin (`lock`), and where a locked dependency's source lives (`locate`: the cargo registry,
//! `node_modules`, a Python environment, the Go module cache).

pub mod locate;
pub mod lock;
pub mod manifest;
pub mod python;

use std::path::{Path, PathBuf};

pub use lock::{LOCK_FILES, LockedPackage, find_locked, parse_lock};
pub use manifest::{
    Dependency, MANIFEST_FILES, Manifest, PackageLookup, ecosystem_of, ecosystem_of_manifest,
    find_package, inherit_workspace, nearest_manifest, parse_manifest,
};
pub use python::{PYTHON_FILES, complete_python};

/// The package ecosystems Keel knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ecosystem {
    /// Rust: `Cargo.toml`, `Cargo.lock`, the cargo registry.
    Cargo,
    /// JavaScript: `package.json`, `package-lock.json`, `node_modules`.
    Npm,
    /// Python: `pyproject.toml` / `setup.cfg` / `setup.py` / `PKG-INFO`, `poetry.lock` /
    /// `uv.lock`, site-packages.
    Python,
    /// Go: `go.mod`, `go.sum`, the module cache.
    Go,
}

impl Ecosystem {
    /// A short name: `cargo`, `npm`, `python`, `go`.
    pub fn name(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "cargo",
            Ecosystem::Npm => "npm",
            Ecosystem::Python => "python",
            Ecosystem::Go => "go",
        }
    }

    /// `name` in the form the ecosystem compares names in: crates and Python distributions
    /// ignore case and treat `-`, `_` (and for Python `.`) alike; npm and Go names are exact.
    pub fn normalise(self, name: &str) -> String {
        match self {
            Ecosystem::Cargo => name.to_ascii_lowercase().replace('_', "-"),
            Ecosystem::Python => name.to_ascii_lowercase().replace(['_', '.'], "-"),
            Ecosystem::Npm | Ecosystem::Go => name.to_owned(),
        }
    }
}

/// Why package information could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A lock file or manifest is not valid.
    #[error("{} does not parse at line {line}: {message}", file.display())]
    Parse {
        /// The file.
        file: PathBuf,
        /// The line the problem is on (1-based).
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl PackageError {
    pub(crate) fn read(file: &Path, source: std::io::Error) -> Self {
        PackageError::Read {
            file: file.to_owned(),
            source,
        }
    }

    pub(crate) fn parse(file: &Path, line: usize, message: impl Into<String>) -> Self {
        PackageError::Parse {
            file: file.to_owned(),
            line,
            message: message.into(),
        }
    }

    /// A TOML error in `file` (whose text is `text`), at the line its span starts on.
    pub(crate) fn toml(file: &Path, text: &str, error: &toml::de::Error) -> Self {
        let line = error.span().map_or(1, |span| line_of(text, span.start));
        let message = error.message().trim().to_owned();
        Self::parse(file, line, message)
    }

    /// A JSON error in `file`.
    pub(crate) fn json(file: &Path, error: &serde_json::Error) -> Self {
        let message = error.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_owned(),
            None => message,
        };
        Self::parse(file, error.line().max(1), message)
    }
}

/// The 1-based line holding byte `offset` of `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// README file names, in the order they are preferred.
const README_NAMES: &[&str] = &[
    "README.md",
    "README",
    "README.rst",
    "README.txt",
    "readme.md",
    "Readme.md",
];

/// The README in `dir`, if it has one.
pub fn readme_in(dir: &Path) -> Option<PathBuf> {
    README_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// The opening of `text`: whole lines up to about `max_chars` characters, with a note when
/// more follows.
pub fn opening(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    let total_lines = text.lines().count();
    for (n, line) in text.lines().enumerate() {
        let len = line.chars().count() + 1;
        if chars + len > max_chars {
            if n == 0 {
                out.extend(line.chars().take(max_chars));
                out.push_str(" …\n");
            } else {
                out.push_str(&format!("[… {} more lines]\n", total_lines - n));
            }
            break;
        }
        chars += len;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Reads `file` as text.
pub(crate) fn read_text(file: &Path) -> Result<String, PackageError> {
    std::fs::read_to_string(file).map_err(|e| PackageError::read(file, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_the_ecosystem_way() {
        assert_eq!(Ecosystem::Cargo.normalise("Tokio_Util"), "tokio-util");
        assert_eq!(
            Ecosystem::Python.normalise("Zope.Interface"),
            "zope-interface"
        );
        assert_eq!(Ecosystem::Npm.normalise("@types/Node"), "@types/Node");
    }

    #[test]
    fn lines_are_counted_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
