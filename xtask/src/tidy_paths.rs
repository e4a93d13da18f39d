//! Tidy rule: every repository path ARCHITECTURE.md's entry points, code map and "Where is…"
//! table name exists. A path is a backticked span with a `/` that starts at a top-level folder
//! (`crates/`, `xtask/`, `web/`, …) or at a crate's folder (`engine/src/retry.rs` is
//! `crates/engine/src/retry.rs`); other spans (`.keel/rules.toml`, `POST …/fork`,
//! `i18n/{en,zh-CN}/`) are not repository paths and are left alone.

/// Top-level folders a path may start at.
const TOP_LEVEL: &[&str] = &[
    "crates", "xtask", "web", "docs", "schemas", "clients", "examples", "eval",
];

/// What may follow a crate's folder in a path that starts there.
const CRATE_FOLDERS: &[&str] = &["src", "tests", "benches", "migrations", "i18n"];

/// The `##` sections whose paths are checked.
const SECTIONS: &[&str] = &["## Entry points", "## Code map", "## Where is"];

/// Every path named in the checked sections of `doc` that `exists` says is not there, with the
/// section it is in. `crate_dirs` are the folders under `crates/`; `exists` is asked about
/// repository-relative paths.
pub fn missing_paths(
    doc: &str,
    crate_dirs: &[String],
    exists: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut missing = Vec::new();
    let mut section: Option<&str> = None;
    for line in doc.lines() {
        if line.starts_with("## ") {
            section = SECTIONS
                .iter()
                .any(|s| line.starts_with(s))
                .then(|| line.trim_start_matches("## ").trim());
            continue;
        }
        let Some(name) = section else {
            continue;
        };
        for span in line.split('`').skip(1).step_by(2) {
            let Some(candidates) = repository_path(span, crate_dirs) else {
                continue;
            };
            if !candidates.iter().any(|path| exists(path)) {
                let problem = format!("`{span}` ({name}) does not exist");
                if !missing.contains(&problem) {
                    missing.push(problem);
                }
            }
        }
    }
    missing
}

/// The repository paths `span` may mean, or `None` when it is not a repository path.
fn repository_path(span: &str, crate_dirs: &[String]) -> Option<Vec<String>> {
    let plain = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'));
    if !plain || !span.contains('/') || span.starts_with(['/', '.', '-']) {
        return None;
    }
    let first = span.split('/').next()?;
    let mut candidates = Vec::new();
    if TOP_LEVEL.contains(&first) {
        candidates.push(span.to_owned());
    }
    // `engine/src/retry.rs` or `host/`, but not `tools/list_changed` (an MCP method).
    let second = span.split('/').nth(1).unwrap_or_default();
    let in_crate = second.is_empty() || CRATE_FOLDERS.contains(&second);
    if in_crate && crate_dirs.iter().any(|dir| dir == first) {
        candidates.push(format!("crates/{span}"));
    }
    (!candidates.is_empty()).then_some(candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Architecture\n\n## Entry points\n\n| `keel run` | `crates/cli/src/commands/run.rs` |\n\n\
        ## Code map\n\n| `openai/` | in `engine/src/openai/mod.rs`, `payload/` |\n\n\
        ## Dependencies\n\n`engine/src/gone.rs` is not checked here\n\n\
        ## Where is…\n\n| retries | `engine/src/retry.rs`, idle time-out in `engine/src/openai/transport.rs` |\n\
        | rules | `.keel/rules.toml`, `POST …/rewind`, `i18n/{en,zh-CN}/cli.ftl`, `eval/rag/` |\n\
        | sandbox | `crates/sandbox/`, `crates/sandbox/src/nothing.rs` |\n";

    fn dirs() -> Vec<String> {
        ["cli", "engine", "sandbox", "eval"]
            .map(str::to_owned)
            .to_vec()
    }

    #[test]
    fn paths_that_are_not_there_fail_naming_them() {
        let present = [
            "crates/cli/src/commands/run.rs",
            "crates/engine/src/openai/mod.rs",
            "crates/engine/src/retry.rs",
            "eval/rag/",
            "crates/sandbox/",
        ];
        let missing = missing_paths(DOC, &dirs(), |path| present.contains(&path));
        assert_eq!(
            missing,
            [
                "`engine/src/openai/transport.rs` (Where is…) does not exist",
                "`crates/sandbox/src/nothing.rs` (Where is…) does not exist",
            ]
        );
    }

    #[test]
    fn spans_that_are_not_repository_paths_are_left_alone() {
        assert_eq!(repository_path(".keel/rules.toml", &dirs()), None);
        assert_eq!(repository_path("POST …/rewind", &dirs()), None);
        assert_eq!(repository_path("payload/", &dirs()), None);
        assert_eq!(repository_path("engine/list_changed", &dirs()), None);
        assert_eq!(
            repository_path("engine/", &dirs()),
            Some(vec!["crates/engine/".to_owned()])
        );
        assert_eq!(repository_path("i18n/{en,zh-CN}/cli.ftl", &dirs()), None);
        assert_eq!(
            repository_path("eval/rag/", &dirs()),
            Some(vec!["eval/rag/".to_owned()])
        );
    }
}
