//! The work tree's state as `git status --porcelain -z` reports it: which paths differ from
//! HEAD, staged or not, tracked or not.

use std::collections::BTreeSet;

use super::command::Git;
use super::error::GitError;

/// One path `git status` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The index's status letter (`' '`, `M`, `A`, `D`, `R`, `?`, …).
    pub(crate) staged: char,
    /// The work tree's status letter.
    pub(crate) unstaged: char,
    /// The path (the new one of a rename).
    pub(crate) path: String,
    /// The old path of a rename or copy.
    pub(crate) from: Option<String>,
}

impl Entry {
    /// Whether git does not track the path (`??`).
    pub(crate) fn untracked(&self) -> bool {
        self.staged == '?'
    }
}

/// Reads `git status --porcelain=v1 -z` output.
pub(crate) fn parse(text: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut fields = text.split('\0').filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        let mut chars = field.chars();
        let (Some(staged), Some(unstaged)) = (chars.next(), chars.next()) else {
            continue;
        };
        let Some(path) = field.get(3..) else {
            continue;
        };
        let from = if matches!(staged, 'R' | 'C') {
            fields.next().map(str::to_owned)
        } else {
            None
        };
        entries.push(Entry {
            staged,
            unstaged,
            path: path.to_owned(),
            from,
        });
    }
    entries
}

/// Every path that differs from HEAD (staged, unstaged, untracked), and the old paths of
/// staged renames; `pathspec` narrows it (empty: the whole tree).
pub(crate) async fn changed(
    git: &Git,
    untracked: bool,
    pathspec: &[String],
) -> Result<Vec<Entry>, GitError> {
    let untracked = if untracked {
        "--untracked-files=all"
    } else {
        "--untracked-files=no"
    };
    let args = ["status", "--porcelain=v1", "-z", "--no-renames", untracked];
    let text = if pathspec.is_empty() {
        git.run(&args).await?
    } else {
        git.run_paths(&args, pathspec).await?
    };
    Ok(parse(&text))
}

/// The paths of `entries`, renames' old paths too.
pub(crate) fn paths(entries: &[Entry]) -> BTreeSet<String> {
    entries
        .iter()
        .flat_map(|e| std::iter::once(e.path.clone()).chain(e.from.clone()))
        .collect()
}

/// Whether `path` is Keel's own folder (`.keel/`), never the user's change nor the turn's.
pub(crate) fn is_keel_path(path: &str) -> bool {
    path == ".keel" || path.starts_with(".keel/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_renames_and_untracked_are_read() {
        let text = " M a.txt\0R  new.txt\0old.txt\0?? dir/x y.txt\0A  b\0";
        let entries = parse(text);
        assert_eq!(entries.len(), 4);
        assert_eq!(entries[0].path, "a.txt");
        assert_eq!(entries[0].unstaged, 'M');
        assert_eq!(entries[1].from.as_deref(), Some("old.txt"));
        assert!(entries[2].untracked());
        assert_eq!(entries[2].path, "dir/x y.txt");
        assert_eq!(
            paths(&entries).into_iter().collect::<Vec<_>>(),
            ["a.txt", "b", "dir/x y.txt", "new.txt", "old.txt"]
        );
    }
}
