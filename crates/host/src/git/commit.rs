//! A turn's commit: exactly the files the turn changed that git sees changed (deletions and new
//! files included), never a path that already differed from HEAD when the turn began (the
//! user's change: left uncommitted and named), committed with a pathspec (`git commit --only`)
//! so whatever else the user has staged stays staged and uncommitted.

use std::collections::BTreeSet;

use super::command::Git;
use super::error::GitError;
use super::status;

/// The work tree as a turn began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TurnStart {
    /// Every path that differed from HEAD (staged, unstaged or untracked), Keel's `.keel/`
    /// aside.
    pub(crate) dirty: BTreeSet<String>,
}

/// What a turn's commit takes and leaves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selection {
    /// The turn's paths git sees changed, to commit.
    pub(crate) commit: Vec<String>,
    /// Of those, the ones git does not track yet (added with intent-to-add before the commit).
    pub(crate) new: Vec<String>,
    /// The turn's paths that already differed from HEAD when it began: not committed.
    pub(crate) skipped: Vec<String>,
}

/// Records which paths differ from HEAD now (a turn's start).
pub(crate) async fn snapshot(git: &Git) -> Result<TurnStart, GitError> {
    let entries = status::changed(git, true, &[]).await?;
    Ok(TurnStart {
        dirty: status::paths(&entries)
            .into_iter()
            .filter(|p| !status::is_keel_path(p))
            .collect(),
    })
}

/// Which of `files` (the turn's `files_changed`, repository-relative) to commit.
pub(crate) async fn select(
    git: &Git,
    start: &TurnStart,
    files: &[String],
) -> Result<Selection, GitError> {
    let files: Vec<String> = files
        .iter()
        .filter(|f| !status::is_keel_path(f))
        .cloned()
        .collect();
    if files.is_empty() {
        return Ok(Selection::default());
    }
    let entries = status::changed(git, true, &files).await?;
    let mut selection = Selection::default();
    let mut seen = BTreeSet::new();
    for entry in entries {
        if !seen.insert(entry.path.clone()) {
            continue;
        }
        if start.dirty.contains(&entry.path) {
            selection.skipped.push(entry.path);
        } else {
            if entry.untracked() {
                selection.new.push(entry.path.clone());
            }
            selection.commit.push(entry.path);
        }
    }
    Ok(selection)
}

/// Adds the selection's new files with intent-to-add, so the diff and the commit see them.
pub(crate) async fn intend(git: &Git, selection: &Selection) -> Result<(), GitError> {
    if selection.new.is_empty() {
        return Ok(());
    }
    git.run_paths(&["add", "--intent-to-add"], &selection.new)
        .await
        .map(drop)
}

/// Takes the intent-to-add entries back out of the index (a commit that did not happen).
pub(crate) async fn unintend(git: &Git, selection: &Selection) {
    if !selection.new.is_empty() {
        let _ = git.run_paths(&["reset", "-q"], &selection.new).await;
    }
}

/// `git diff --stat` of the selection against HEAD.
pub(crate) async fn diff_stat(git: &Git, selection: &Selection) -> Result<String, GitError> {
    git.run_paths(&["diff", "--stat=100", "HEAD"], &selection.commit)
        .await
}

/// Commits the selection with `message`; returns the new commit's id.
pub(crate) async fn commit(
    git: &Git,
    selection: &Selection,
    message: &str,
) -> Result<String, GitError> {
    git.run_paths(
        &["commit", "-q", "--only", "--no-edit", "-m", message],
        &selection.commit,
    )
    .await?;
    Ok(git.run(&["rev-parse", "HEAD"]).await?.trim().to_owned())
}
