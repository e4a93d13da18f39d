//! Lock files: the exact versions a project pins (`Cargo.lock`, `package-lock.json`,
//! `poetry.lock`, `uv.lock`, `go.sum`). A lock file that does not parse is an error naming the
//! file and line.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Ecosystem, PackageError, read_text};

/// The lock files read, in the order they are searched, with their ecosystem.
pub const LOCK_FILES: &[(&str, Ecosystem)] = &[
    ("Cargo.lock", Ecosystem::Cargo),
    ("package-lock.json", Ecosystem::Npm),
    ("poetry.lock", Ecosystem::Python),
    ("uv.lock", Ecosystem::Python),
    ("go.sum", Ecosystem::Go),
];

/// One package version pinned by a lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedPackage {
    /// Its ecosystem.
    pub ecosystem: Ecosystem,
    /// Its name as the lock file spells it.
    pub name: String,
    /// The pinned version.
    pub version: String,
    /// The lock file pinning it.
    pub lock_file: PathBuf,
}

/// What a search of the lock files found: every pinned version of the name, and the lock files
/// read (to say where the search looked).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LockSearch {
    /// The matching packages, in lock-file order.
    pub found: Vec<LockedPackage>,
    /// The lock files read.
    pub looked_in: Vec<PathBuf>,
}

/// Searches the lock files in `dirs` (each folder's files in [`LOCK_FILES`] order) for `name`.
/// A lock file that exists but does not parse is an error.
pub fn find_locked(dirs: &[PathBuf], name: &str) -> Result<LockSearch, PackageError> {
    let mut search = LockSearch::default();
    for dir in dirs {
        for (file, _) in LOCK_FILES {
            let path = dir.join(file);
            if !path.is_file() || search.looked_in.contains(&path) {
                continue;
            }
            let packages = parse_lock(&path)?;
            search.found.extend(packages.into_iter().filter(|p| {
                let wanted = p.ecosystem.normalise(name);
                p.ecosystem.normalise(&p.name) == wanted
                    || (p.ecosystem == Ecosystem::Go && p.name.rsplit('/').next() == Some(name))
            }));
            search.looked_in.push(path);
        }
    }
    Ok(search)
}

/// Every package pinned by the lock file `path` (its ecosystem from its file name).
pub fn parse_lock(path: &Path) -> Result<Vec<LockedPackage>, PackageError> {
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let text = read_text(path)?;
    match file_name {
        "Cargo.lock" => toml_packages(path, &text, Ecosystem::Cargo),
        "poetry.lock" | "uv.lock" => toml_packages(path, &text, Ecosystem::Python),
        "package-lock.json" => npm_packages(path, &text),
        "go.sum" => go_packages(path, &text),
        _ => Err(PackageError::parse(
            path,
            1,
            "not a lock file Keel reads (Cargo.lock, package-lock.json, poetry.lock, uv.lock, go.sum)",
        )),
    }
}

#[derive(Deserialize)]
struct TomlLock {
    #[serde(default)]
    package: Vec<TomlPackage>,
}

#[derive(Deserialize)]
struct TomlPackage {
    name: String,
    #[serde(default)]
    version: Option<String>,
}

/// `[[package]]` tables with `name` and `version` (Cargo.lock, poetry.lock, uv.lock).
fn toml_packages(
    path: &Path,
    text: &str,
    ecosystem: Ecosystem,
) -> Result<Vec<LockedPackage>, PackageError> {
    let lock: TomlLock = toml::from_str(text).map_err(|e| PackageError::toml(path, text, &e))?;
    Ok(lock
        .package
        .into_iter()
        .filter_map(|p| {
            Some(LockedPackage {
                ecosystem,
                name: p.name,
                version: p.version?,
                lock_file: path.to_owned(),
            })
        })
        .collect())
}

/// `package-lock.json`: `packages["node_modules/NAME"].version` (lockfile v2/v3), else the v1
/// `dependencies[NAME].version`.
fn npm_packages(path: &Path, text: &str) -> Result<Vec<LockedPackage>, PackageError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| PackageError::json(path, &e))?;
    let Some(object) = value.as_object() else {
        return Err(PackageError::parse(path, 1, "expected a JSON object"));
    };
    let mut found = Vec::new();
    let version_of = |entry: &serde_json::Value| {
        entry
            .get("version")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    if let Some(packages) = object.get("packages").and_then(|p| p.as_object()) {
        for (key, entry) in packages {
            // Nested copies (`node_modules/a/node_modules/b`) count under their own name.
            let Some(at) = key.rfind("node_modules/") else {
                continue;
            };
            if let Some(version) = version_of(entry) {
                found.push(LockedPackage {
                    ecosystem: Ecosystem::Npm,
                    name: key[at + "node_modules/".len()..].to_owned(),
                    version,
                    lock_file: path.to_owned(),
                });
            }
        }
    } else if let Some(dependencies) = object.get("dependencies").and_then(|d| d.as_object()) {
        for (name, entry) in dependencies {
            if let Some(version) = version_of(entry) {
                found.push(LockedPackage {
                    ecosystem: Ecosystem::Npm,
                    name: name.clone(),
                    version,
                    lock_file: path.to_owned(),
                });
            }
        }
    }
    Ok(found)
}

/// `go.sum`: `MODULE VERSION[/go.mod] h1:HASH` per line; each module version once.
fn go_packages(path: &Path, text: &str) -> Result<Vec<LockedPackage>, PackageError> {
    let mut found: Vec<LockedPackage> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [module, version, hash] = fields[..] else {
            return Err(PackageError::parse(
                path,
                n + 1,
                format!(
                    "expected `MODULE VERSION HASH`, found {} field(s)",
                    fields.len()
                ),
            ));
        };
        if !version.starts_with('v') || !hash.contains(':') {
            return Err(PackageError::parse(
                path,
                n + 1,
                format!("`{version} {hash}` is not a module version and hash"),
            ));
        }
        let version = version.trim_end_matches("/go.mod");
        if !found
            .iter()
            .any(|p| p.name == module && p.version == version)
        {
            found.push(LockedPackage {
                ecosystem: Ecosystem::Go,
                name: module.to_owned(),
                version: version.to_owned(),
                lock_file: path.to_owned(),
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn reads_each_lock_format() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            d,
            "Cargo.lock",
            "version = 4\n\n[[package]]\nname = \"tokio\"\nversion = \"1.54.1\"\n",
        );
        write(
            d,
            "package-lock.json",
            r#"{"lockfileVersion":3,"packages":{"":{"name":"app"},"node_modules/left-pad":{"version":"1.3.0"},"node_modules/a/node_modules/left-pad":{"version":"1.1.0"}}}"#,
        );
        write(
            d,
            "uv.lock",
            "version = 1\n[[package]]\nname = \"Requests\"\nversion = \"2.32.3\"\n",
        );
        write(
            d,
            "go.sum",
            "golang.org/x/text v0.3.0 h1:abc=\ngolang.org/x/text v0.3.0/go.mod h1:def=\n",
        );
        let dirs = [d.to_owned()];
        let tokio = find_locked(&dirs, "tokio").unwrap();
        assert_eq!(tokio.found[0].version, "1.54.1");
        assert_eq!(tokio.looked_in.len(), 4);
        let pad = find_locked(&dirs, "left-pad").unwrap();
        let mut versions: Vec<_> = pad.found.iter().map(|p| p.version.as_str()).collect();
        versions.sort_unstable();
        assert_eq!(versions, ["1.1.0", "1.3.0"]);
        assert_eq!(
            find_locked(&dirs, "requests").unwrap().found[0].version,
            "2.32.3"
        );
        let text = find_locked(&dirs, "text").unwrap();
        assert_eq!(text.found.len(), 1);
        assert_eq!(text.found[0].name, "golang.org/x/text");
    }

    #[test]
    fn a_broken_lock_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let cargo = write(
            dir.path(),
            "Cargo.lock",
            "version = 4\n\n[[package]]\nname = \"tokio\nversion = \"1\"\n",
        );
        let message = parse_lock(&cargo).unwrap_err().to_string();
        assert!(
            message.contains("Cargo.lock does not parse at line 4"),
            "{message}"
        );
        let npm = write(
            dir.path(),
            "package-lock.json",
            "{\n  \"packages\": {\n    oops\n}",
        );
        let message = parse_lock(&npm).unwrap_err().to_string();
        assert!(
            message.contains("package-lock.json does not parse at line 3"),
            "{message}"
        );
        let go = write(dir.path(), "go.sum", "a v1 h1:x=\nbroken line\n");
        let message = parse_lock(&go).unwrap_err().to_string();
        assert!(
            message.contains("go.sum does not parse at line 2"),
            "{message}"
        );
    }
}
