//! `list_package_info`: the package a project path belongs to (name, version, description,
//! dependencies with their locked versions, the README's opening, the last commits that
//! touched it), or, for a dependency name, the version the lock file pins and where its
//! source lives on this machine.

use std::fmt::Write as _;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::workspace;
use crate::packages::locate;
use crate::packages::{
    Ecosystem, LockedPackage, MANIFEST_FILES, Manifest, PackageError, complete_python,
    ecosystem_of_manifest, find_locked, find_package, inherit_workspace, opening, parse_manifest,
    readme_in,
};
use crate::tool::{ToolContext, ToolResult, TypedTool};
use crate::workspace::{PathError, Workspace};

/// Characters of the README shown.
const README_CHARS: usize = 1_200;
/// Commits shown under recent changes.
const RECENT_COMMITS: usize = 5;
/// Dependencies listed before the rest are counted.
const MAX_DEPENDENCIES: usize = 60;

/// Arguments of `list_package_info`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPackageInfoArgs {
    /// A path in the project (file or folder, relative to the workspace root), or the name of a
    /// dependency (e.g. `tokio`, `left-pad`, `requests`).
    pub path: String,
}

/// Describes a project package or a locked dependency.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListPackageInfo;

#[async_trait]
impl TypedTool for ListPackageInfo {
    type Args = ListPackageInfoArgs;

    fn name(&self) -> &'static str {
        "list_package_info"
    }

    fn description(&self) -> &'static str {
        "Show the package a project path belongs to (for a source file, the nearest manifest of its own language: Cargo.toml, package.json, pyproject.toml/setup.cfg/setup.py/PKG-INFO or go.mod): name, version, description, dependencies with their locked versions, the README's opening and the last commits that touched it. Given a dependency name instead of a path, show the version the project's lock file pins and where its source is on this machine."
    }

    async fn run(&self, ctx: &ToolContext, args: ListPackageInfoArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let query = args.path.trim().to_owned();
        let root = ws.root().to_owned();
        let resolved = match ws.resolve(&query) {
            Ok(path) => Some(path),
            Err(PathError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                None
            }
            Err(e) => return ToolResult::error(format!("Cannot use `{query}`: {e}")),
        };
        let outcome = match resolved.filter(|p| p.exists()) {
            Some(path) => tokio::task::spawn_blocking(move || describe_path(&ws, &path)).await,
            None => tokio::task::spawn_blocking(move || describe_dependency(&root, &query)).await,
        };
        match outcome {
            Ok(Ok((message, content))) => ToolResult::ok_with(message, content),
            Ok(Err(message)) => ToolResult::error(message),
            Err(e) => ToolResult::error(format!("list_package_info stopped: {e}")),
        }
    }
}

/// The report on the package holding `path`.
fn describe_path(ws: &Workspace, path: &Path) -> Result<(String, String), String> {
    let rel = ws.relative(path);
    let Some(lookup) = find_package(ws.root(), path) else {
        let names: Vec<&str> = MANIFEST_FILES.iter().map(|(name, _)| *name).collect();
        return Err(format!(
            "`{rel}` is not inside a package: no {} at or above it in the workspace.",
            names.join(", ")
        ));
    };
    let manifest_path = lookup.manifest.clone();
    let mut manifest = parse_manifest(&manifest_path).map_err(|e| shown(ws, &e))?;
    inherit_workspace(&mut manifest, ws.root());
    complete_python(&mut manifest);
    let package_dir = manifest_path.parent().unwrap_or(ws.root()).to_owned();
    let locked =
        locked_versions(ws.root(), &package_dir, manifest.ecosystem).map_err(|e| shown(ws, &e))?;
    let mut out = String::new();
    if let (Some(language), true) = (lookup.language, lookup.other_language) {
        let files: Vec<&str> = MANIFEST_FILES
            .iter()
            .filter(|(_, eco)| *eco == language)
            .map(|(name, _)| *name)
            .collect();
        let _ = writeln!(
            out,
            "No {} package metadata ({}) at or above `{rel}`; the nearest manifest is {}'s.\n",
            language.name(),
            files.join(", "),
            manifest.ecosystem.name()
        );
    }
    let name = manifest.name.as_deref().unwrap_or("(workspace)");
    let version = match (&manifest.version, &manifest.version_source) {
        (Some(version), Some(source)) => format!("{version} (version from {source})"),
        (Some(version), None) => version.clone(),
        (None, _) => "(no version)".to_owned(),
    };
    let _ = writeln!(
        out,
        "Package `{name}` {version} ({}, {})",
        manifest.ecosystem.name(),
        ws.relative(&manifest_path)
    );
    if let Some(description) = &manifest.description {
        let _ = writeln!(out, "{description}");
    }
    write_dependencies(&mut out, &manifest, &locked);
    match readme_in(&package_dir) {
        Some(readme) => {
            let text = std::fs::read_to_string(&readme).unwrap_or_default();
            let _ = writeln!(out, "\nREADME ({}), opening:", ws.relative(&readme));
            out.push_str(&opening(&text, README_CHARS));
        }
        None => out.push_str("\nNo README in the package folder.\n"),
    }
    if !lookup.beside.is_empty() {
        let others: Vec<String> = lookup
            .beside
            .iter()
            .map(|b| {
                let eco = ecosystem_of_manifest(b).map_or("", Ecosystem::name);
                format!("`{}` ({eco})", ws.relative(b))
            })
            .collect();
        let _ = writeln!(
            out,
            "\nThe same folder also has {}: a file in that language belongs to that package.",
            others.join(", ")
        );
    }
    let package_rel = ws.relative(&package_dir);
    out.push('\n');
    out.push_str(&recent_changes(ws.root(), &package_rel));
    let message = format!(
        "`{rel}` belongs to {} package `{name}` ({} dependencies).",
        manifest.ecosystem.name(),
        manifest.dependencies.len()
    );
    Ok((message, out))
}

/// The lock file's versions for an ecosystem: the nearest lock file of that ecosystem at or
/// above `from`, inside `root`.
fn locked_versions(
    root: &Path,
    from: &Path,
    ecosystem: Ecosystem,
) -> Result<Vec<LockedPackage>, PackageError> {
    let mut dir = Some(from);
    while let Some(current) = dir.filter(|d| d.starts_with(root)) {
        for (file, kind) in crate::packages::LOCK_FILES {
            let path = current.join(file);
            if *kind == ecosystem && path.is_file() {
                return crate::packages::parse_lock(&path);
            }
        }
        dir = current.parent();
    }
    Ok(Vec::new())
}

fn write_dependencies(out: &mut String, manifest: &Manifest, locked: &[LockedPackage]) {
    if manifest.dependencies.is_empty() {
        out.push_str("\nNo dependencies declared.\n");
        return;
    }
    let _ = writeln!(out, "\nDependencies ({}):", manifest.dependencies.len());
    for dep in manifest.dependencies.iter().take(MAX_DEPENDENCIES) {
        let wanted = manifest.ecosystem.normalise(&dep.name);
        let pinned: Vec<&str> = locked
            .iter()
            .filter(|p| p.ecosystem.normalise(&p.name) == wanted)
            .map(|p| p.version.as_str())
            .collect();
        let _ = write!(out, "  [{}] {}", dep.section, dep.name);
        if !dep.requirement.is_empty() {
            let _ = write!(out, " {}", dep.requirement);
        }
        if !pinned.is_empty() {
            let _ = write!(out, " (locked {})", pinned.join(", "));
        }
        out.push('\n');
    }
    if manifest.dependencies.len() > MAX_DEPENDENCIES {
        let _ = writeln!(
            out,
            "  [… {} more]",
            manifest.dependencies.len() - MAX_DEPENDENCIES
        );
    }
}

/// The last commits touching `rel` (git CLI), or why there are none.
fn recent_changes(root: &Path, rel: &str) -> String {
    let pathspec = if rel.is_empty() { "." } else { rel };
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "log",
            &format!("-n{RECENT_COMMITS}"),
            "--date=short",
            "--format=%h %ad %an: %s",
            "--",
            pathspec,
        ])
        .stdin(std::process::Stdio::null())
        .output();
    match output {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            "Recent changes: unknown, git is not installed.\n".to_owned()
        }
        Err(e) => format!("Recent changes: unknown, git could not run ({e}).\n"),
        Ok(out) if !out.status.success() => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if stderr.contains("not a git repository") {
                "Recent changes: unknown, the workspace is not a git repository.\n".to_owned()
            } else if stderr.contains("does not have any commits") {
                "Recent changes: none, the repository has no commits yet.\n".to_owned()
            } else {
                format!(
                    "Recent changes: unknown, git log failed: {}\n",
                    stderr.trim()
                )
            }
        }
        Ok(out) => {
            let log = String::from_utf8_lossy(&out.stdout);
            if log.trim().is_empty() {
                format!("Recent changes: no commits touch `{pathspec}` yet.\n")
            } else {
                format!("Recent changes to `{pathspec}` (git, newest first):\n{log}")
            }
        }
    }
}

/// The report on dependency `name`: its locked versions and where its source is.
fn describe_dependency(root: &Path, name: &str) -> Result<(String, String), String> {
    let ws = Workspace::new(root).map_err(|e| e.to_string())?;
    if name.is_empty() {
        return Err("Give a path in the project or a dependency name.".to_owned());
    }
    let search = find_locked(&[root.to_owned()], name).map_err(|e| shown(&ws, &e))?;
    let mut out = String::new();
    let mut found_any = false;
    for package in &search.found {
        found_any = true;
        let located = locate::source_of(
            root,
            package.ecosystem,
            &package.name,
            Some(&package.version),
        );
        let _ = writeln!(
            out,
            "Dependency `{}` ({}) locked at {} in {}",
            package.name,
            package.ecosystem.name(),
            package.version,
            ws.relative(&package.lock_file)
        );
        match located {
            (Some(found), _) => {
                let _ = writeln!(out, "  source: {}", found.path.display());
                if let Some(installed) = found.version.filter(|v| *v != package.version) {
                    let _ = writeln!(
                        out,
                        "  note: the installed copy is {installed}, not the locked version"
                    );
                }
            }
            (None, places) => {
                let _ = writeln!(
                    out,
                    "  source: not on this machine (looked in {})",
                    places.describe()
                );
            }
        }
    }
    if !found_any {
        // Not pinned by a lock file: an installed copy still says which version is used.
        for ecosystem in [Ecosystem::Npm, Ecosystem::Python] {
            if let (Some(found), _) = locate::source_of(root, ecosystem, name, None) {
                found_any = true;
                let _ = writeln!(
                    out,
                    "Dependency `{name}` ({}) is not pinned by a lock file; installed version {} at {}",
                    ecosystem.name(),
                    found.version.as_deref().unwrap_or("unknown"),
                    found.path.display()
                );
            }
        }
    }
    if !found_any {
        let locks = if search.looked_in.is_empty() {
            "there is no lock file (Cargo.lock, package-lock.json, poetry.lock, uv.lock, go.sum) in the workspace root".to_owned()
        } else {
            let names: Vec<String> = search
                .looked_in
                .iter()
                .map(|p| format!("`{}`", ws.relative(p)))
                .collect();
            format!("it is not in {}", names.join(", "))
        };
        return Err(format!(
            "`{name}` is neither a path in the workspace nor a known dependency: {locks}, and no installed copy is in {} or {}.",
            locate::node_modules_dirs(root, root).describe(),
            locate::python_site_packages(root).describe()
        ));
    }
    let message = format!("`{name}`: {} locked version(s) found.", search.found.len());
    Ok((message, out))
}

/// A package error with paths shown relative to the workspace.
fn shown(ws: &Workspace, error: &PackageError) -> String {
    let text = error.to_string();
    let root = format!("{}/", ws.root().display());
    text.replace(&root, "")
}
