//! `read_library_docs`: a dependency's documentation as found on this machine, at the version
//! the project locks — the cargo registry source (`rust.rs`: README, `//!` and `///` docs of
//! public items), `node_modules/NAME` (`node.rs`: README, `.d.ts` signatures with their JSDoc),
//! a Python environment's site-packages (`python.rs`: module, class and function docstrings) —
//! as a digest within a token budget (`digest.rs`), the items matching the topic first.
//! `preload.rs` renders the digests `[context] libraries` puts into the prompt.

mod digest;
mod node;
mod preload;
mod python;
mod rust;

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

pub use digest::{DocItem, LibraryDigest};
pub use preload::{PRELOAD_TOKENS, Preloaded, preload};

use super::workspace;
use crate::packages::locate::{self, Located};
use crate::packages::{Ecosystem, PackageError, find_locked};
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Tokens in the digest `read_library_docs` returns.
pub const DEFAULT_DOC_TOKENS: usize = 4_000;

/// Arguments of `read_library_docs`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadLibraryDocsArgs {
    /// The dependency's name as the project declares it (e.g. `tokio`, `left-pad`, `requests`).
    pub library: String,
    /// What you want to know (e.g. `spawn blocking`, `timeout`); the items matching it come
    /// first. Leave out for an overview.
    #[serde(default)]
    pub topic: Option<String>,
}

/// Reads a dependency's documentation from this machine.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadLibraryDocs;

#[async_trait]
impl TypedTool for ReadLibraryDocs {
    type Args = ReadLibraryDocsArgs;

    fn name(&self) -> &'static str {
        "read_library_docs"
    }

    fn description(&self) -> &'static str {
        "Read a third-party dependency's documentation as installed on this machine, at the version the project's lock file pins: for Rust crates the registry source (README, crate docs, `///` docs of public items), for npm packages node_modules (README, .d.ts signatures), for Python packages the environment's site-packages (docstrings). Give a topic to get the items about it first. Use this before guessing at a library's API."
    }

    async fn run(&self, ctx: &ToolContext, args: ReadLibraryDocsArgs) -> ToolResult {
        let root = match workspace(ctx) {
            Ok(ws) => ws.root().to_owned(),
            Err(result) => return result,
        };
        let outcome = tokio::task::spawn_blocking(move || {
            library_digest(
                &root,
                &args.library,
                args.topic.as_deref(),
                DEFAULT_DOC_TOKENS,
            )
        })
        .await;
        match outcome {
            Ok(Ok(digest)) => ToolResult::ok_with(digest.summary(), digest.text),
            Ok(Err(e)) => ToolResult::error(e.to_string()),
            Err(e) => ToolResult::error(format!("read_library_docs stopped: {e}")),
        }
    }
}

/// Why a library's docs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LibraryDocsError {
    /// The name is empty or not a package name.
    #[error("`{0}` is not a library name; give the dependency's name, e.g. `tokio`")]
    BadName(String),
    /// A lock file does not parse.
    #[error(transparent)]
    Lock(#[from] PackageError),
    /// The library is pinned, but its source is not on this machine.
    #[error(
        "`{name}` {version} is locked in {lock_file} but its source is not on this machine (looked in {looked}); fetch the dependencies first (cargo fetch, npm install, pip install)"
    )]
    NotInstalled {
        /// The library.
        name: String,
        /// The locked version.
        version: String,
        /// The lock file.
        lock_file: String,
        /// Where the source was looked for.
        looked: String,
    },
    /// The library is a Go module, whose docs are not read.
    #[error(
        "`{name}` is a Go module (locked in go.sum); read_library_docs reads Rust crates, npm packages and Python packages, so read its source with read_file instead"
    )]
    GoModule {
        /// The module.
        name: String,
    },
    /// The library is neither locked nor installed.
    #[error("no library `{name}` found: {looked}")]
    Unknown {
        /// The library.
        name: String,
        /// Where the search looked.
        looked: String,
    },
}

/// Where a library was found: its ecosystem, version, source and the lock file pinning it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundLibrary {
    /// Its ecosystem.
    pub ecosystem: Ecosystem,
    /// Its name as the lock file (or installed copy) spells it.
    pub name: String,
    /// The version documented.
    pub version: Option<String>,
    /// Its source folder (or Python module file).
    pub source: PathBuf,
    /// The lock file pinning it, relative to the root (`None`: installed but not locked).
    pub lock_file: Option<String>,
}

/// Finds `library` for the project at `root`: a version pinned by a lock file in the root whose
/// source is on this machine, else an installed copy in `node_modules` or site-packages.
pub fn find_library(root: &Path, library: &str) -> Result<FoundLibrary, LibraryDocsError> {
    let name = library.trim();
    let bad = name.is_empty()
        || name.len() > 214
        || name.starts_with(['/', '.', '\\'])
        || name.contains("..")
        || name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\\');
    if bad {
        return Err(LibraryDocsError::BadName(library.to_owned()));
    }
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let search = find_locked(&[root.to_owned()], name)?;
    let mut missing = None;
    // The newest locked version when a lock holds several.
    let mut locked = search.found.clone();
    locked.sort_by_key(|p| std::cmp::Reverse(version_key(&p.version)));
    for package in &locked {
        let (found, places) = locate::source_of(
            root,
            package.ecosystem,
            &package.name,
            Some(&package.version),
        );
        match found {
            Some(Located { path, .. }) => {
                return Ok(FoundLibrary {
                    ecosystem: package.ecosystem,
                    name: package.name.clone(),
                    version: Some(package.version.clone()),
                    source: path,
                    lock_file: Some(relative(&package.lock_file)),
                });
            }
            None => {
                missing.get_or_insert(LibraryDocsError::NotInstalled {
                    name: package.name.clone(),
                    version: package.version.clone(),
                    lock_file: relative(&package.lock_file),
                    looked: places.describe(),
                });
            }
        }
    }
    if let Some(error) = missing {
        return Err(error);
    }
    let mut looked = Vec::new();
    for ecosystem in [Ecosystem::Npm, Ecosystem::Python] {
        let (found, places) = locate::source_of(root, ecosystem, name, None);
        if let Some(Located { path, version }) = found {
            return Ok(FoundLibrary {
                ecosystem,
                name: name.to_owned(),
                version,
                source: path,
                lock_file: None,
            });
        }
        looked.push(format!("{} in {}", ecosystem.name(), places.describe()));
    }
    let locks = if search.looked_in.is_empty() {
        "no lock file in the workspace root".to_owned()
    } else {
        let names: Vec<String> = search.looked_in.iter().map(|p| relative(p)).collect();
        format!("not in {}", names.join(", "))
    };
    Err(LibraryDocsError::Unknown {
        name: name.to_owned(),
        looked: format!("{locks}; no installed copy ({})", looked.join("; ")),
    })
}

/// A sortable form of a version: its numeric parts, then the text.
fn version_key(version: &str) -> (Vec<u64>, String) {
    let numbers = version
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    (numbers, version.to_owned())
}

/// The documentation digest of `library` for the project at `root`, the items matching `topic`
/// first, within `budget_tokens` tokens.
pub fn library_digest(
    root: &Path,
    library: &str,
    topic: Option<&str>,
    budget_tokens: usize,
) -> Result<LibraryDigest, LibraryDocsError> {
    let found = find_library(root, library)?;
    let docs = match found.ecosystem {
        Ecosystem::Cargo => rust::docs(&found.source),
        Ecosystem::Npm => node::docs(&found.source),
        Ecosystem::Python => python::docs(&found.source),
        Ecosystem::Go => return Err(LibraryDocsError::GoModule { name: found.name }),
    };
    Ok(digest::render(&found, docs, topic, budget_tokens))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// The scanners take any text: every item they report has a name and a signature.
        #[test]
        fn scanners_never_panic(lines in prop::collection::vec(prop_oneof![
            Just("/// Doc.".to_owned()),
            Just("pub fn f(".to_owned()),
            Just("/**".to_owned()),
            Just(" * doc".to_owned()),
            Just("*/".to_owned()),
            Just("export function g(".to_owned()),
            Just("def h(".to_owned()),
            Just("    \"\"\"Doc".to_owned()),
            Just("class C:".to_owned()),
            "[ -~]{0,12}",
        ], 0..30)) {
            let text = lines.join("\n");
            let mut items = Vec::new();
            rust::scan(&text, "a.rs", &mut items);
            node::scan(&text, "a.d.ts", &mut items);
            python::scan(&text, "a.py", &mut items);
            for item in items {
                prop_assert!(!item.name.is_empty());
                prop_assert!(!item.signature.is_empty());
            }
        }
    }

    #[test]
    fn names_that_leave_their_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["/etc", "../x", ".bin", "a b", ""] {
            let err = find_library(dir.path(), bad).unwrap_err();
            assert!(matches!(err, LibraryDocsError::BadName(_)), "{bad}: {err}");
        }
    }
}
