//! `cargo xtask tidy`: ARCHITECTURE.md stays true to the code.
//!
//! Every workspace crate under `crates/` has a section on the code map (a `###` heading naming
//! `` `crates/DIR` ``) that names each of its top-level modules (the `mod` declarations of its
//! `lib.rs` and `main.rs`) in backticks, as `` `name` ``, `` `name.rs` `` or `` `name/` ``;
//! and the "Dependencies" list (`- keel-a → keel-b, keel-c`, or `→ nothing`) holds exactly the
//! `keel-*` edges of the crates' `[dependencies]` (optional ones included, dev and build ones
//! not). Fails listing every missing or extra name.
//!
//! It also fails on a crate re-exported whole by another ([`crate::tidy_reexports`]), on a
//! front-end file calling the store's session lifecycle ([`crate::tidy_frontends`]), and on a
//! repository path in the entry points, the code map or the "Where is…" table that does not
//! exist ([`crate::tidy_paths`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::Context as _;
use serde_json::Value;

use crate::codegen::repo_root;

/// What tidy knows of one crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateInfo {
    /// Folder under `crates/`.
    pub dir: String,
    /// Package name.
    pub name: String,
    /// Top-level modules.
    pub modules: BTreeSet<String>,
    /// `keel-*` crates it depends on.
    pub deps: BTreeSet<String>,
}

/// Runs the check on this repository.
pub fn run(args: &[String]) -> anyhow::Result<ExitCode> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask tidy");
    }
    let root = repo_root();
    let crates = collect(&root)?;
    let doc_path = root.join("ARCHITECTURE.md");
    let doc = std::fs::read_to_string(&doc_path)
        .with_context(|| format!("cannot read {}", doc_path.display()))?;
    let mut problems = check(&crates, &doc);
    let dirs: Vec<String> = crates.iter().map(|c| c.dir.clone()).collect();
    problems.extend(crate::tidy_paths::missing_paths(&doc, &dirs, |path| {
        root.join(path).exists()
    }));
    let mut code_problems = Vec::new();
    for dir in &dirs {
        for file in rust_files(&root, &format!("crates/{dir}/src"))? {
            let source = std::fs::read_to_string(root.join(&file))
                .with_context(|| format!("cannot read {file}"))?;
            for reexport in crate::tidy_reexports::whole_crate_reexports(&source) {
                code_problems.push(format!(
                    "{file} {reexport} re-exports a workspace crate whole, hiding the edge; \
                     callers depend on it directly"
                ));
            }
        }
    }
    for front_end in crate::tidy_frontends::FRONT_ENDS {
        for file in rust_files(&root, front_end)? {
            let source = std::fs::read_to_string(root.join(&file))
                .with_context(|| format!("cannot read {file}"))?;
            code_problems.extend(crate::tidy_frontends::check_file(
                &file,
                &source,
                crate::tidy_frontends::ALLOWED,
            ));
        }
    }
    for listed in crate::tidy_frontends::ALLOWED {
        if !root.join(listed).exists() {
            code_problems.push(format!(
                "{listed} is gone: take it off tidy_frontends::ALLOWED"
            ));
        }
    }
    if problems.is_empty() && code_problems.is_empty() {
        println!(
            "tidy: ARCHITECTURE.md names all {} crates, their modules, dependency edges and \
             paths; no crate re-exported whole; front ends leave the session lifecycle to \
             keel-host ({} files still allowed)",
            crates.len(),
            crate::tidy_frontends::ALLOWED.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !problems.is_empty() {
        eprintln!("tidy: ARCHITECTURE.md is out of date:");
        for problem in &problems {
            eprintln!("  - {problem}");
        }
    }
    if !code_problems.is_empty() {
        eprintln!("tidy: the code breaks the architecture's rules:");
        for problem in &code_problems {
            eprintln!("  - {problem}");
        }
    }
    Ok(ExitCode::FAILURE)
}

/// The `.rs` files under `dir` (relative to `root`), as sorted repository-relative paths.
fn rust_files(root: &Path, dir: &str) -> anyhow::Result<Vec<String>> {
    let mut files = Vec::new();
    let mut pending = vec![root.join(dir)];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && let Ok(relative) = path.strip_prefix(root)
            {
                files.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The workspace crates under `crates/`, from `cargo metadata` and their sources.
fn collect(root: &Path) -> anyhow::Result<Vec<CrateInfo>> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .context("cannot run cargo metadata")?;
    anyhow::ensure!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout)?;
    let crates_dir = root.join("crates");
    let mut crates = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or_default());
        let Some(dir) = manifest
            .parent()
            .filter(|d| d.parent() == Some(&crates_dir))
        else {
            continue;
        };
        let mut modules = BTreeSet::new();
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds = target["kind"].as_array().cloned().unwrap_or_default();
            if kinds.iter().any(|k| k == "lib" || k == "bin") {
                let src = target["src_path"].as_str().unwrap_or_default();
                let text =
                    std::fs::read_to_string(src).with_context(|| format!("cannot read {src}"))?;
                modules.extend(modules_of(&text));
            }
        }
        let deps = package["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|name| name.starts_with("keel-"))
            .map(str::to_owned)
            .collect();
        crates.push(CrateInfo {
            dir: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            name: package["name"].as_str().unwrap_or_default().to_owned(),
            modules,
            deps,
        });
    }
    crates.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(crates)
}

/// The modules a crate root declares with `mod name;` (not inline ones, not `tests`).
pub fn modules_of(source: &str) -> BTreeSet<String> {
    source
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = match line.rfind(']') {
                Some(end) if line.starts_with("#[") => line[end + 1..].trim(),
                _ => line,
            };
            let rest = match line.strip_prefix("pub") {
                Some(rest) => match rest.trim_start().strip_prefix('(') {
                    Some(scoped) => scoped.split_once(')')?.1,
                    None => rest,
                },
                None => line,
            };
            let name = rest.trim_start().strip_prefix("mod ")?.trim();
            let name = name.strip_suffix(';')?.trim();
            let valid = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && name != "tests";
            valid.then(|| name.to_owned())
        })
        .collect()
}

/// Every way `doc` disagrees with `crates`.
pub fn check(crates: &[CrateInfo], doc: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for krate in crates {
        let Some(section) = crate_section(doc, &krate.dir) else {
            problems.push(format!(
                "crate `{}` (crates/{}) has no code map section (a `###` heading naming \
                 `crates/{}`)",
                krate.name, krate.dir, krate.dir
            ));
            continue;
        };
        let named = backticked(&section);
        for module in &krate.modules {
            let forms = [module.clone(), format!("{module}.rs"), format!("{module}/")];
            if !forms.iter().any(|form| named.contains(form)) {
                problems.push(format!(
                    "module `{module}` of `{}` is not on the code map",
                    krate.name
                ));
            }
        }
    }
    match listed_dependencies(doc) {
        None => problems.push(
            "no \"Dependencies\" list (`- keel-a → keel-b, keel-c` lines under a \
             `## Dependencies` heading)"
                .to_owned(),
        ),
        Some(listed) => {
            for krate in crates {
                let documented = listed.get(&krate.name).cloned().unwrap_or_default();
                if !listed.contains_key(&krate.name) {
                    problems.push(format!(
                        "`{}` is missing from the Dependencies list",
                        krate.name
                    ));
                }
                for dep in krate.deps.difference(&documented) {
                    problems.push(format!(
                        "edge {} → {dep} is in Cargo.toml but not in the Dependencies list",
                        krate.name
                    ));
                }
                for dep in documented.difference(&krate.deps) {
                    problems.push(format!(
                        "edge {} → {dep} is in the Dependencies list but not in Cargo.toml",
                        krate.name
                    ));
                }
            }
            let known: BTreeSet<&str> = crates.iter().map(|c| c.name.as_str()).collect();
            for name in listed.keys().filter(|n| !known.contains(n.as_str())) {
                problems.push(format!(
                    "the Dependencies list names `{name}`, which is not a crate under crates/"
                ));
            }
        }
    }
    problems
}

/// The text under the `###` heading that names `` `crates/DIR` ``, up to the next heading.
fn crate_section(doc: &str, dir: &str) -> Option<String> {
    let needle = format!("`crates/{dir}`");
    let mut lines = doc.lines();
    lines.find(|line| line.starts_with("### ") && line.contains(&needle))?;
    Some(
        lines
            .take_while(|line| !line.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Every backticked span of `text`.
fn backticked(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The `- keel-a → keel-b, keel-c` lines under `## Dependencies`.
fn listed_dependencies(doc: &str) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let mut lines = doc.lines();
    lines.find(|line| line.trim() == "## Dependencies")?;
    let mut listed = BTreeMap::new();
    for line in lines.take_while(|line| !line.starts_with("## ")) {
        let Some(item) = line.trim().strip_prefix("- ") else {
            continue;
        };
        let Some((from, to)) = item.split_once('→') else {
            continue;
        };
        let clean = |s: &str| s.trim().trim_matches('`').trim().to_owned();
        let deps = to
            .split(',')
            .map(clean)
            .filter(|d| d.starts_with("keel-"))
            .collect();
        listed.insert(clean(from), deps);
    }
    Some(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(dir: &str, modules: &[&str], deps: &[&str]) -> CrateInfo {
        CrateInfo {
            dir: dir.to_owned(),
            name: format!("keel-{dir}"),
            modules: modules.iter().map(|m| (*m).to_owned()).collect(),
            deps: deps.iter().map(|d| (*d).to_owned()).collect(),
        }
    }

    const DOC: &str = "# Architecture\n\n## Code map\n\n### `crates/events` — keel-events\n\n\
        | `bus.rs` | dispatch |\n| `payload/` | payloads |\n\n\
        ### `crates/store` — keel-store\n\n`writer` stores.\n\n\
        ## Dependencies\n\n- keel-events → nothing\n- `keel-store` → `keel-events`\n";

    #[test]
    fn a_true_map_passes() {
        let crates = [
            krate("events", &["bus", "payload"], &[]),
            krate("store", &["writer"], &["keel-events"]),
        ];
        assert_eq!(check(&crates, DOC), Vec::<String>::new());
    }

    #[test]
    fn a_module_without_a_map_entry_fails_naming_it() {
        let crates = [
            krate("events", &["bus", "payload", "relay"], &[]),
            krate("store", &["writer"], &["keel-events"]),
        ];
        assert_eq!(
            check(&crates, DOC),
            ["module `relay` of `keel-events` is not on the code map"]
        );
    }

    #[test]
    fn a_crate_without_a_section_and_wrong_edges_fail() {
        let crates = [
            krate("events", &["bus", "payload"], &[]),
            krate("store", &["writer"], &[]),
            krate("host", &["agent"], &["keel-store"]),
        ];
        assert_eq!(
            check(&crates, DOC),
            [
                "crate `keel-host` (crates/host) has no code map section (a `###` heading \
                 naming `crates/host`)",
                "edge keel-store → keel-events is in the Dependencies list but not in Cargo.toml",
                "`keel-host` is missing from the Dependencies list",
                "edge keel-host → keel-store is in Cargo.toml but not in the Dependencies list",
            ]
        );
    }

    #[test]
    fn module_declarations_are_read_from_a_crate_root() {
        let source = "//! doc\nmod a;\npub mod b;\npub(crate) mod c;\n#[cfg(test)]\nmod tests;\n\
                      #[cfg(unix)] mod d;\nmod inline {\n}\n// mod commented;\nuse x::mod_y;\n";
        let modules: Vec<String> = modules_of(source).into_iter().collect();
        assert_eq!(modules, ["a", "b", "c", "d"]);
    }
}
