//! The files a task is about, put in front of the model before it asks: with the compact tool
//! profile (small models, which explore badly and pay for every call), the turn's focused files
//! start with the files the task names, the files defining the identifiers it names, the files
//! using them, then the files those depend on (the code a named test exercises), and — for a
//! project small enough — every source file, within a token budget.
//! The model then starts from the code instead of from a search.

use std::path::Path;

use keel_context::TokenCounter;
use keel_context::repomap::RepoMap;

use super::repo_map::mentions;

/// Most tokens the task's files may take together.
pub(crate) const FOCUS_BUDGET_TOKENS: usize = 3_000;

/// A file larger than this is left for the model to read in ranges.
const MAX_FILE_TOKENS: usize = 1_500;

/// Files of the project whose total is at most this are all shown when the task names none.
const SMALL_PROJECT_TOKENS: usize = 2_000;

/// The files `input` is about, with their content, best first, within the budget.
pub(crate) fn task_files(
    map: &RepoMap,
    root: &Path,
    input: &str,
    counter: TokenCounter,
) -> Vec<(String, String)> {
    let mentioned = mentions(root, input);
    let mut ranks = map.file_ranks();
    ranks.sort_by(|a, b| b.rank.total_cmp(&a.rank).then_with(|| a.path.cmp(&b.path)));
    let ranked: Vec<String> = ranks.into_iter().map(|r| r.path).collect();
    let defines = |path: &str, name: &str| {
        map.file(path)
            .is_some_and(|tags| tags.symbols.iter().any(|s| s.name == name))
    };
    let references = |path: &str, name: &str| {
        map.file(path).is_some_and(|tags| {
            tags.references
                .binary_search_by(|(r, _)| r.as_str().cmp(name))
                .is_ok()
        })
    };
    let mut candidates: Vec<String> = mentioned.files.clone();
    for name in &mentioned.identifiers {
        candidates.extend(ranked.iter().filter(|p| defines(p, name)).cloned());
    }
    for name in &mentioned.identifiers {
        if ranked.iter().any(|p| defines(p, name)) {
            candidates.extend(ranked.iter().filter(|p| references(p, name)).cloned());
        }
    }
    // What the files found so far use: the code under a named test, a caller's callee.
    let found = candidates.clone();
    for path in &found {
        let Some(tags) = map.file(path) else {
            continue;
        };
        for (name, _) in &tags.references {
            candidates.extend(
                ranked
                    .iter()
                    .filter(|p| *p != path && defines(p, name))
                    .cloned(),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|p| seen.insert(p.clone()));
    let mut files = within_budget(root, &candidates, counter, FOCUS_BUDGET_TOKENS);
    if files.is_empty() {
        let all = within_budget(root, &ranked, counter, usize::MAX);
        let total: usize = all.iter().map(|(_, _, tokens)| tokens).sum();
        if total <= SMALL_PROJECT_TOKENS {
            files = all;
        }
    }
    files
        .into_iter()
        .map(|(path, content, _)| (path, content))
        .collect()
}

/// The readable files of `paths` in order, each at most [`MAX_FILE_TOKENS`], until `budget`.
fn within_budget(
    root: &Path,
    paths: &[String],
    counter: TokenCounter,
    budget: usize,
) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut used = 0usize;
    for path in paths {
        let Ok(content) = std::fs::read_to_string(root.join(path)) else {
            continue;
        };
        let tokens = counter.count(&content);
        if tokens > MAX_FILE_TOKENS || used.saturating_add(tokens) > budget {
            continue;
        }
        used += tokens;
        out.push((path.clone(), content, tokens));
    }
    out
}
