//! Seed 004's `pull_request`: the branch pushed and a pull request opened for it — through `gh
//! pr create` when `gh` is installed and signed in (`gh auth status` exits 0), else the push
//! and the page to open it on (see [`remote::compare_url`]).
//!
//! Refused before any work (and again before the push) on a work tree with tracked changes
//! Keel did not make, a detached HEAD, no remote, or the remote's default branch.

use super::branch::{self, short};
use super::command::{self, Git};
use super::error::GitError;
use super::message::PullRequestText;
use super::{remote, status};

/// Where a branch would be pushed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The branch.
    pub(crate) branch: String,
    /// The remote.
    pub(crate) remote: String,
    /// The remote's default branch, when known.
    pub(crate) base: Option<String>,
}

/// Checks that a pull request can be opened from here, naming what stands in the way.
pub(crate) async fn check(git: &Git) -> Result<Target, GitError> {
    let branch = branch::current_branch(git).await?;
    let remote = remote::pick(git, &branch).await?;
    let dirty: Vec<String> = status::changed(git, false, &[])
        .await?
        .into_iter()
        .map(|e| e.path)
        .filter(|p| !status::is_keel_path(p))
        .collect();
    if !dirty.is_empty() {
        return Err(GitError::DirtyTree(list(&dirty)));
    }
    let base = remote::default_branch(git, &remote).await?;
    if remote::is_default(&branch, base.as_deref()) {
        return Err(GitError::DefaultBranch(branch));
    }
    Ok(Target {
        branch,
        remote,
        base,
    })
}

/// The subjects and bodies of the commits after `since` up to HEAD, oldest first.
pub(crate) async fn commits(git: &Git, since: &str) -> Result<Vec<(String, String)>, GitError> {
    let log = git
        .run(&[
            "log",
            "--reverse",
            "--format=%s%x1f%b%x1e",
            &format!("{since}..HEAD"),
        ])
        .await?;
    Ok(log
        .split('\u{1e}')
        .map(|c| c.trim_matches('\n'))
        .filter(|c| !c.is_empty())
        .map(|c| match c.split_once('\u{1f}') {
            Some((subject, body)) => (subject.to_owned(), body.trim().to_owned()),
            None => (c.to_owned(), String::new()),
        })
        .collect())
}

/// How a pull request was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// By `gh pr create`, at this URL.
    Gh(String),
    /// Pushed; a person opens it at this page.
    Compare(String),
    /// Pushed to a remote whose pull request page Keel cannot derive.
    Pushed,
}

/// A pull request opened (or its branch pushed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    /// The branch pushed.
    pub branch: String,
    /// The remote it was pushed to.
    pub remote: String,
    /// What `git push` said.
    pub push: String,
    /// How it was opened.
    pub opened: Opened,
    /// Its title and description.
    pub text: PullRequestText,
}

impl PullRequest {
    /// One line saying what was done.
    pub fn summary(&self) -> String {
        match &self.opened {
            Opened::Gh(url) => format!("pull request opened: {url}"),
            Opened::Compare(url) => format!(
                "pushed `{}` to `{}`; `gh` is not installed or not signed in: open the pull request at {url}",
                self.branch, self.remote
            ),
            Opened::Pushed => format!(
                "pushed `{}` to `{}`; `gh` is not installed or not signed in, and the remote is not GitHub or GitLab: open the pull request there",
                self.branch, self.remote
            ),
        }
    }

    /// The URL, when there is one.
    pub fn url(&self) -> Option<&str> {
        match &self.opened {
            Opened::Gh(url) | Opened::Compare(url) => Some(url),
            Opened::Pushed => None,
        }
    }
}

/// Pushes `target.branch` (setting its upstream).
pub(crate) async fn push(git: &Git, target: &Target) -> Result<String, GitError> {
    let refspec = format!("HEAD:refs/heads/{}", target.branch);
    let output = git
        .output(&[
            "push",
            "--porcelain",
            "--set-upstream",
            &target.remote,
            &refspec,
        ])
        .await?;
    if !output.success {
        return Err(GitError::Command {
            command: format!("git push {} {refspec}", target.remote),
            message: output.said(),
        });
    }
    let head = git.run(&["rev-parse", "HEAD"]).await?;
    Ok(format!(
        "{} → {}/{} ({})",
        target.branch,
        target.remote,
        target.branch,
        short(head.trim())
    ))
}

/// Whether `gh` is installed and signed in.
pub(crate) async fn gh_ready(git: &Git) -> bool {
    command::run(git.root(), "gh", &["auth", "status"])
        .await
        .is_ok_and(|o| o.success)
}

/// `gh pr create` for the pushed branch; its URL.
pub(crate) async fn gh_create(
    git: &Git,
    target: &Target,
    text: &PullRequestText,
) -> Result<String, GitError> {
    let mut args = vec![
        "pr",
        "create",
        "--head",
        &target.branch,
        "--title",
        &text.title,
        "--body",
        &text.body,
    ];
    if let Some(base) = &target.base {
        args.push("--base");
        args.push(base);
    }
    let output = command::run(git.root(), "gh", &args).await?;
    if !output.success {
        return Err(GitError::Command {
            command: "gh pr create".to_owned(),
            message: output.said(),
        });
    }
    let url = output
        .stdout
        .lines()
        .map(str::trim)
        .rfind(|l| l.starts_with("http"))
        .unwrap_or_else(|| output.stdout.trim());
    Ok(url.to_owned())
}

/// Up to five paths, and how many more.
fn list(paths: &[String]) -> String {
    let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
    let mut text = shown.join(", ");
    if paths.len() > 5 {
        text.push_str(&format!(" and {} more", paths.len() - 5));
    }
    text
}
