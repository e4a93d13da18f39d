//! `cargo xtask thin-deps`: the front ends that need only the contract stay thin. `cargo tree
//! -e normal` of each crate in [`THIN`] must name none of [`HEAVY`] (the search index's
//! tantivy and the tree-sitter grammars), which come with keel-tools and keel-engine; a
//! contract type they need belongs in keel-protocol instead (issue 25).

use std::process::{Command, ExitCode};

use anyhow::Context as _;

use crate::codegen::repo_root;

/// Crates that must not link the heavy dependencies.
pub const THIN: &[&str] = &["keel-acp", "keel-mcp-serve", "keel-protocol"];

/// Name prefixes of the heavy dependencies.
pub const HEAVY: &[&str] = &["tantivy", "tree-sitter"];

/// Runs the check on this workspace.
pub fn run(args: &[String]) -> anyhow::Result<ExitCode> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask thin-deps");
    }
    let root = repo_root();
    let mut failed = false;
    for krate in THIN {
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
            .args(["tree", "-p", krate, "-e", "normal", "--prefix", "none"])
            .current_dir(&root)
            .output()
            .context("cannot run cargo tree")?;
        anyhow::ensure!(
            output.status.success(),
            "cargo tree -p {krate} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let heavy = heavy_crates(&String::from_utf8_lossy(&output.stdout));
        if heavy.is_empty() {
            println!("thin-deps: {krate} links no {}", HEAVY.join(", no "));
        } else {
            failed = true;
            eprintln!(
                "thin-deps: {krate} links {} (`cargo tree -p {krate} -e normal -i NAME` shows \
                 through what); move the contract it needs into keel-protocol",
                heavy.join(", ")
            );
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The heavy crates `cargo tree --prefix none` output names, once each, in order.
pub fn heavy_crates(tree: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in tree.lines() {
        let name = line
            .trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let heavy = HEAVY.iter().any(|prefix| {
            name == *prefix
                || name
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with(['-', '_']))
        });
        if heavy && !found.iter().any(|f| f == name) {
            found.push(name.to_owned());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tantivy_and_grammars_are_found_in_either_tree_format() {
        let tree = "keel-acp v0.1.0 (/w/crates/acp)\n\
                    ├── keel-tools v0.1.0 (/w/crates/tools)\n\
                    │   ├── tantivy v0.27.0\n\
                    │   │   └── tantivy-common v0.11.0\n\
                    │   └── tree-sitter-bash v0.25.1\n\
                    tree-sitter v0.25.10\n\
                    tree-sitter v0.25.10 (*)\n";
        assert_eq!(
            heavy_crates(tree),
            [
                "tantivy",
                "tantivy-common",
                "tree-sitter-bash",
                "tree-sitter"
            ]
        );
    }

    #[test]
    fn a_thin_tree_passes() {
        let tree = "keel-acp v0.1.0 (/w/crates/acp)\nkeel-protocol v0.1.0\nserde v1.0.229\n\
                    tree-sitterish v1.0.0\n";
        assert!(heavy_crates(tree).is_empty());
    }
}
