//! Where HEAD is, and `--branch NAME`: a new branch made at HEAD and switched to before the
//! first turn.
//!
//! An existing branch is used only when it is already checked out or points at HEAD's commit
//! (switching to it then changes no file); a branch elsewhere is refused rather than switched
//! to, so Keel never moves the work tree to other history.

use super::command::Git;
use super::error::GitError;

/// HEAD: the branch checked out and its commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The branch name (`None`: detached).
    pub branch: Option<String>,
    /// The commit id.
    pub commit: String,
}

/// Checks that the project is in a git work tree.
pub(crate) async fn check_repository(git: &Git) -> Result<(), GitError> {
    let inside = git.output(&["rev-parse", "--is-inside-work-tree"]).await?;
    if inside.success && inside.stdout.trim() == "true" {
        Ok(())
    } else {
        Err(GitError::NotARepository(git.root().display().to_string()))
    }
}

/// HEAD's branch and commit; a repository without a commit is [`GitError::NoCommit`].
pub(crate) async fn head(git: &Git) -> Result<Head, GitError> {
    let commit = git.output(&["rev-parse", "--verify", "-q", "HEAD"]).await?;
    if !commit.success {
        return Err(GitError::NoCommit);
    }
    let branch = git
        .output(&["symbolic-ref", "-q", "--short", "HEAD"])
        .await?;
    Ok(Head {
        branch: branch
            .success
            .then(|| branch.stdout.trim().to_owned())
            .filter(|b| !b.is_empty()),
        commit: commit.stdout.trim().to_owned(),
    })
}

/// HEAD's branch; a detached HEAD is [`GitError::DetachedHead`].
pub(crate) async fn current_branch(git: &Git) -> Result<String, GitError> {
    let head = head(git).await?;
    head.branch
        .ok_or_else(|| GitError::DetachedHead(short(&head.commit).to_owned()))
}

/// Switches to branch `name`, made at HEAD when it does not exist; see the module
/// documentation for an existing one. Uncommitted changes stay in the work tree.
pub(crate) async fn switch_to(git: &Git, name: &str) -> Result<(), GitError> {
    let valid = git.output(&["check-ref-format", "--branch", name]).await?;
    if !valid.success || name.starts_with('-') {
        return Err(GitError::BadBranchName(name.to_owned()));
    }
    let head = head(git).await?;
    if head.branch.as_deref() == Some(name) {
        return Ok(());
    }
    let reference = format!("refs/heads/{name}");
    let existing = git
        .output(&["rev-parse", "--verify", "-q", &reference])
        .await?;
    if existing.success {
        let at = existing.stdout.trim().to_owned();
        if at != head.commit {
            return Err(GitError::BranchExists {
                name: name.to_owned(),
                at: short(&at).to_owned(),
                head: short(&head.commit).to_owned(),
            });
        }
        git.run(&["switch", "-q", name]).await?;
    } else {
        git.run(&["switch", "-q", "-c", name]).await?;
    }
    Ok(())
}

/// A commit id's first 12 characters.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}
