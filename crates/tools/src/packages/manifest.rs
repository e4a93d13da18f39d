//! Package manifests: `Cargo.toml`, `package.json`, `pyproject.toml` / `setup.cfg` /
//! `setup.py` / `PKG-INFO`, `go.mod` — a package's name, version, description and declared
//! dependencies — and which one a project path belongs to: the nearest manifest of the path's
//! own language ([`find_package`]).

use std::path::{Path, PathBuf};

use super::{Ecosystem, PackageError, read_text};

/// The manifest files read, in the order a folder is checked, with their ecosystem.
pub const MANIFEST_FILES: &[(&str, Ecosystem)] = &[
    ("Cargo.toml", Ecosystem::Cargo),
    ("package.json", Ecosystem::Npm),
    ("pyproject.toml", Ecosystem::Python),
    ("setup.cfg", Ecosystem::Python),
    ("setup.py", Ecosystem::Python),
    ("PKG-INFO", Ecosystem::Python),
    ("go.mod", Ecosystem::Go),
];

/// What a `Cargo.toml` field inherited with `{ workspace = true }` reads as until
/// [`inherit_workspace`] fills it in.
pub const FROM_WORKSPACE: &str = "(from the workspace)";

/// A declared dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// Its name.
    pub name: String,
    /// The version requirement as written (`^1.2`, `>=2`, `workspace`, `path ../x`), or empty.
    pub requirement: String,
    /// The section it is declared in (`dependencies`, `dev-dependencies`, `require`, …).
    pub section: String,
}

/// What a manifest says about its package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Its ecosystem.
    pub ecosystem: Ecosystem,
    /// The manifest file.
    pub file: PathBuf,
    /// The package name (`None` for a workspace-only manifest).
    pub name: Option<String>,
    /// The version (`None` when unset, as in `go.mod`).
    pub version: Option<String>,
    /// Where the version came from when not from this file's own field: a dynamic version
    /// found in `PKG-INFO`, a `__version__`, a `VERSION` file (see
    /// [`complete_python`](super::complete_python)).
    pub version_source: Option<String>,
    /// The one-line description.
    pub description: Option<String>,
    /// Declared dependencies, section by section.
    pub dependencies: Vec<Dependency>,
}

/// The ecosystem a source file's language belongs to, by its extension (`None` for folders
/// and for files no ecosystem claims, such as `README.md`).
pub fn ecosystem_of(path: &Path) -> Option<Ecosystem> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => Ecosystem::Cargo,
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => {
            Ecosystem::Npm
        }
        "py" | "pyi" | "pyx" | "pxd" => Ecosystem::Python,
        "go" => Ecosystem::Go,
        _ => return None,
    })
}

/// Which manifest a project path belongs to, and why that one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageLookup {
    /// The manifest.
    pub manifest: PathBuf,
    /// The path's language, when its extension names one.
    pub language: Option<Ecosystem>,
    /// The path's language has no manifest at or above it: the manifest is the nearest of
    /// another ecosystem.
    pub other_language: bool,
    /// Manifests of other ecosystems in the same folder as the chosen one.
    pub beside: Vec<PathBuf>,
}

/// The manifest `path` belongs to, not climbing above `root`: a manifest file is its own; a
/// source file belongs to the nearest manifest of its language (a Python file under a folder
/// holding both `package.json` and `pyproject.toml` belongs to the Python package), or, when
/// its language has none, to the nearest manifest of any; a folder or another file to the
/// nearest manifest of any kind.
pub fn find_package(root: &Path, path: &Path) -> Option<PackageLookup> {
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let own = MANIFEST_FILES
        .iter()
        .find(|(name, _)| *name == file_name)
        .map(|(_, eco)| *eco)
        .filter(|_| path.is_file());
    let language = own.or_else(|| path.is_file().then(|| ecosystem_of(path)).flatten());
    let found = match language {
        Some(eco) => nearest_of(root, path, Some(eco)).map(|m| (m, false)),
        None => None,
    };
    let (manifest, other_language) = match found {
        Some(found) => found,
        None => (nearest_of(root, path, None)?, language.is_some()),
    };
    let chosen = MANIFEST_FILES
        .iter()
        .find(|(name, _)| manifest.file_name().and_then(|n| n.to_str()) == Some(name))
        .map(|(_, eco)| *eco);
    let mut beside: Vec<PathBuf> = Vec::new();
    if let Some(dir) = manifest.parent() {
        for (name, eco) in MANIFEST_FILES {
            let candidate = dir.join(name);
            let new_ecosystem = Some(*eco) != chosen
                && !beside
                    .iter()
                    .any(|b| ecosystem_of_manifest(b) == Some(*eco));
            if new_ecosystem && candidate.is_file() {
                beside.push(candidate);
            }
        }
    }
    Some(PackageLookup {
        manifest,
        language,
        other_language,
        beside,
    })
}

/// The ecosystem of a manifest file, by its name.
pub fn ecosystem_of_manifest(path: &Path) -> Option<Ecosystem> {
    let name = path.file_name()?.to_str()?;
    MANIFEST_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, eco)| *eco)
}

/// The nearest manifest (of `ecosystem`, or of any) at or above `path`, inside `root`.
fn nearest_of(root: &Path, path: &Path, ecosystem: Option<Ecosystem>) -> Option<PathBuf> {
    let mut dir = if path.is_dir() {
        Some(path)
    } else {
        path.parent()
    };
    while let Some(current) = dir {
        if !current.starts_with(root) {
            return None;
        }
        for (name, eco) in MANIFEST_FILES {
            if ecosystem.is_some_and(|wanted| wanted != *eco) {
                continue;
            }
            let candidate = current.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        dir = current.parent();
    }
    None
}

/// The nearest manifest at or above `path` (a file or folder), not climbing above `root`,
/// whatever its ecosystem (see [`find_package`] for the one a source file belongs to).
pub fn nearest_manifest(root: &Path, path: &Path) -> Option<PathBuf> {
    nearest_of(root, path, None)
}

/// Fills a Cargo package's fields inherited from its workspace (`version.workspace = true`)
/// from the nearest `Cargo.toml` with `[workspace.package]` above it, not above `root`. Fields
/// it cannot find keep [`FROM_WORKSPACE`].
pub fn inherit_workspace(manifest: &mut Manifest, root: &Path) {
    let inherited = |field: &Option<String>| field.as_deref() == Some(FROM_WORKSPACE);
    if manifest.ecosystem != Ecosystem::Cargo
        || !(inherited(&manifest.version) || inherited(&manifest.description))
    {
        return;
    }
    let mut dir = manifest.file.parent().and_then(Path::parent);
    while let Some(current) = dir.filter(|d| d.starts_with(root)) {
        let candidate = current.join("Cargo.toml");
        let package = std::fs::read_to_string(&candidate)
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .and_then(|doc| doc.get("workspace")?.get("package")?.as_table().cloned());
        if let Some(package) = package {
            for (field, key) in [
                (&mut manifest.version, "version"),
                (&mut manifest.description, "description"),
            ] {
                if inherited(field)
                    && let Some(value) = package.get(key).and_then(|v| v.as_str())
                {
                    *field = Some(value.to_owned());
                }
            }
            return;
        }
        dir = current.parent();
    }
}

/// Parses the manifest `path` (its kind from its file name).
pub fn parse_manifest(path: &Path) -> Result<Manifest, PackageError> {
    let text = read_text(path)?;
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match file_name {
        "Cargo.toml" => cargo(path, &text),
        "package.json" => npm(path, &text),
        "pyproject.toml" => pyproject(path, &text),
        "setup.cfg" => Ok(setup_cfg(path, &text)),
        "setup.py" => Ok(super::python::setup_py(path, &text)),
        "PKG-INFO" => Ok(super::python::pkg_info(path, &text)),
        "go.mod" => Ok(go_mod(path, &text)),
        _ => Err(PackageError::parse(path, 1, "not a manifest Keel reads")),
    }
}

pub(crate) fn empty(ecosystem: Ecosystem, file: &Path) -> Manifest {
    Manifest {
        ecosystem,
        file: file.to_owned(),
        name: None,
        version: None,
        version_source: None,
        description: None,
        dependencies: Vec::new(),
    }
}

fn toml_value(path: &Path, text: &str) -> Result<toml::Table, PackageError> {
    text.parse::<toml::Table>()
        .map_err(|e| PackageError::toml(path, text, &e))
}

fn string_at(table: Option<&toml::Table>, key: &str) -> Option<String> {
    let value = table?.get(key)?;
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Table(t) if t.get("workspace").and_then(|w| w.as_bool()) == Some(true) => {
            Some(FROM_WORKSPACE.to_owned())
        }
        _ => None,
    }
}

/// `Cargo.toml`: `[package]` (or only `[workspace]`) and the three dependency tables.
fn cargo(path: &Path, text: &str) -> Result<Manifest, PackageError> {
    let doc = toml_value(path, text)?;
    let package = doc.get("package").and_then(|p| p.as_table());
    let mut manifest = empty(Ecosystem::Cargo, path);
    manifest.name = string_at(package, "name");
    manifest.version = string_at(package, "version");
    manifest.description = string_at(package, "description");
    let workspace = doc.get("workspace").and_then(|w| w.as_table());
    let mut sections: Vec<(&str, Option<&toml::Table>)> =
        ["dependencies", "dev-dependencies", "build-dependencies"]
            .into_iter()
            .map(|s| (s, doc.get(s).and_then(|d| d.as_table())))
            .collect();
    if package.is_none() {
        sections.push((
            "workspace.dependencies",
            workspace
                .and_then(|w| w.get("dependencies"))
                .and_then(|d| d.as_table()),
        ));
    }
    for (section, table) in sections {
        for (name, spec) in table.into_iter().flatten() {
            let requirement = match spec {
                toml::Value::String(v) => v.clone(),
                toml::Value::Table(t) => {
                    if t.get("workspace").and_then(|w| w.as_bool()) == Some(true) {
                        "workspace".to_owned()
                    } else if let Some(v) = t.get("version").and_then(|v| v.as_str()) {
                        v.to_owned()
                    } else if let Some(p) = t.get("path").and_then(|v| v.as_str()) {
                        format!("path {p}")
                    } else if let Some(g) = t.get("git").and_then(|v| v.as_str()) {
                        format!("git {g}")
                    } else {
                        String::new()
                    }
                }
                _ => String::new(),
            };
            manifest.dependencies.push(Dependency {
                name: name.clone(),
                requirement,
                section: section.to_owned(),
            });
        }
    }
    Ok(manifest)
}

/// `package.json`: name, version, description and the dependency objects.
fn npm(path: &Path, text: &str) -> Result<Manifest, PackageError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| PackageError::json(path, &e))?;
    let mut manifest = empty(Ecosystem::Npm, path);
    let text_at = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    manifest.name = text_at("name");
    manifest.version = text_at("version");
    manifest.description = text_at("description");
    for section in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        if let Some(deps) = value.get(section).and_then(|d| d.as_object()) {
            for (name, requirement) in deps {
                manifest.dependencies.push(Dependency {
                    name: name.clone(),
                    requirement: requirement.as_str().unwrap_or("").to_owned(),
                    section: section.to_owned(),
                });
            }
        }
    }
    Ok(manifest)
}

/// A PEP 508 requirement split into its name and the rest (`requests>=2; python_version>'3'`).
pub(crate) fn split_requirement(text: &str) -> Dependency {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(text.len());
    Dependency {
        name: text[..end].to_owned(),
        requirement: text[end..].trim().to_owned(),
        section: String::new(),
    }
}

/// `pyproject.toml`: PEP 621 `[project]`, else `[tool.poetry]`.
fn pyproject(path: &Path, text: &str) -> Result<Manifest, PackageError> {
    let doc = toml_value(path, text)?;
    let mut manifest = empty(Ecosystem::Python, path);
    if let Some(project) = doc.get("project").and_then(|p| p.as_table()) {
        manifest.name = string_at(Some(project), "name");
        manifest.version = string_at(Some(project), "version");
        manifest.description = string_at(Some(project), "description");
        let list = |v: &toml::Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        if let Some(deps) = project.get("dependencies") {
            for requirement in list(deps) {
                let mut dep = split_requirement(&requirement);
                dep.section = "dependencies".to_owned();
                manifest.dependencies.push(dep);
            }
        }
        if let Some(extras) = project
            .get("optional-dependencies")
            .and_then(|o| o.as_table())
        {
            for (extra, deps) in extras {
                for requirement in list(deps) {
                    let mut dep = split_requirement(&requirement);
                    dep.section = format!("optional-dependencies.{extra}");
                    manifest.dependencies.push(dep);
                }
            }
        }
    } else if let Some(poetry) = doc
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(|p| p.as_table())
    {
        manifest.name = string_at(Some(poetry), "name");
        manifest.version = string_at(Some(poetry), "version");
        manifest.description = string_at(Some(poetry), "description");
        if let Some(deps) = poetry.get("dependencies").and_then(|d| d.as_table()) {
            for (name, spec) in deps {
                let requirement = match spec {
                    toml::Value::String(v) => v.clone(),
                    toml::Value::Table(t) => t
                        .get("version")
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_owned(),
                    _ => String::new(),
                };
                manifest.dependencies.push(Dependency {
                    name: name.clone(),
                    requirement,
                    section: "dependencies".to_owned(),
                });
            }
        }
    }
    Ok(manifest)
}

/// `setup.cfg`: `[metadata]` name, version, description and `[options] install_requires`.
fn setup_cfg(path: &Path, text: &str) -> Manifest {
    let mut manifest = empty(Ecosystem::Python, path);
    let mut section = String::new();
    let mut in_requires = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = name.trim().to_owned();
            in_requires = false;
            continue;
        }
        let continuation = line.starts_with([' ', '\t']);
        if in_requires && continuation {
            if !trimmed.is_empty() {
                let mut dep = split_requirement(trimmed);
                dep.section = "install_requires".to_owned();
                manifest.dependencies.push(dep);
            }
            continue;
        }
        in_requires = false;
        let Some((key, value)) = trimmed.split_once(['=', ':']) else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match (section.as_str(), key) {
            ("metadata", "name") => manifest.name = Some(value.to_owned()),
            // `attr: pkg.__version__` and `file: VERSION` are resolved by `complete_python`.
            ("metadata", "version")
                if !value.starts_with("attr:") && !value.starts_with("file:") =>
            {
                manifest.version = Some(value.to_owned());
            }
            ("metadata", "description") => manifest.description = Some(value.to_owned()),
            ("options", "install_requires") => {
                in_requires = true;
                if !value.is_empty() {
                    let mut dep = split_requirement(value);
                    dep.section = "install_requires".to_owned();
                    manifest.dependencies.push(dep);
                }
            }
            _ => {}
        }
    }
    manifest
}

/// `go.mod`: `module`, and `require` lines or blocks.
fn go_mod(path: &Path, text: &str) -> Manifest {
    let mut manifest = empty(Ecosystem::Go, path);
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            if line == ")" {
                in_block = false;
            } else if let [name, version, ..] = line.split_whitespace().collect::<Vec<_>>()[..] {
                manifest.dependencies.push(Dependency {
                    name: name.to_owned(),
                    requirement: version.to_owned(),
                    section: "require".to_owned(),
                });
            }
            continue;
        }
        if let Some(module) = line.strip_prefix("module ") {
            manifest.name = Some(module.trim().trim_matches('"').to_owned());
        } else if line == "require (" || line == "require(" {
            in_block = true;
        } else if let Some(rest) = line.strip_prefix("require ")
            && let [name, version, ..] = rest.split_whitespace().collect::<Vec<_>>()[..]
        {
            manifest.dependencies.push(Dependency {
                name: name.to_owned(),
                requirement: version.to_owned(),
                section: "require".to_owned(),
            });
        }
    }
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(name: &str, text: &str) -> Manifest {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        parse_manifest(&path).unwrap()
    }

    #[test]
    fn reads_cargo_toml() {
        let m = parse(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.2.0\"\ndescription = \"A demo\"\n\
             [dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nlocal = { path = \"../local\" }\n\
             [dev-dependencies]\ntempfile = \"3\"\n",
        );
        assert_eq!(m.name.as_deref(), Some("demo"));
        assert_eq!(m.version.as_deref(), Some("0.2.0"));
        let deps: Vec<_> = m
            .dependencies
            .iter()
            .map(|d| format!("{} {} [{}]", d.name, d.requirement, d.section))
            .collect();
        assert_eq!(
            deps,
            [
                "local path ../local [dependencies]",
                "serde 1 [dependencies]",
                "tempfile 3 [dev-dependencies]"
            ]
        );
    }

    #[test]
    fn reads_python_and_go_manifests() {
        let m = parse(
            "pyproject.toml",
            "[project]\nname = \"tool\"\nversion = \"1.0\"\ndependencies = [\"requests>=2.31\", \"rich\"]\n",
        );
        assert_eq!(m.dependencies[0].name, "requests");
        assert_eq!(m.dependencies[0].requirement, ">=2.31");
        let m = parse(
            "setup.cfg",
            "[metadata]\nname = legacy\nversion = 0.1\n\n[options]\ninstall_requires =\n    click>=8\n    attrs\n",
        );
        assert_eq!(m.name.as_deref(), Some("legacy"));
        assert_eq!(m.dependencies.len(), 2);
        let m = parse(
            "go.mod",
            "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/text v0.3.0 // indirect\n)\nrequire github.com/a/b v1.2.3\n",
        );
        assert_eq!(m.name.as_deref(), Some("example.com/app"));
        assert_eq!(m.dependencies.len(), 2);
    }

    #[test]
    fn inherits_workspace_fields() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("crates/a")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/a\"]\n[workspace.package]\nversion = \"2.3.4\"\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/a/Cargo.toml"),
            "[package]\nname = \"a\"\nversion.workspace = true\ndescription.workspace = true\n",
        )
        .unwrap();
        let mut m = parse_manifest(&root.join("crates/a/Cargo.toml")).unwrap();
        inherit_workspace(&mut m, root);
        assert_eq!(m.version.as_deref(), Some("2.3.4"));
        assert_eq!(m.description.as_deref(), Some(FROM_WORKSPACE));
    }

    #[test]
    fn finds_the_nearest_manifest_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("crates/a/src")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(root.join("crates/a/Cargo.toml"), "[package]\nname='a'\n").unwrap();
        std::fs::write(root.join("crates/a/src/lib.rs"), "").unwrap();
        assert_eq!(
            nearest_manifest(root, &root.join("crates/a/src/lib.rs")),
            Some(root.join("crates/a/Cargo.toml"))
        );
        assert_eq!(
            nearest_manifest(root, &root.join("crates")),
            Some(root.join("Cargo.toml"))
        );
    }
}
