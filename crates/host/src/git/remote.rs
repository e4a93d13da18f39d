//! The remote a branch is pushed to, its default branch, and where a person opens a pull
//! request when `gh` cannot: the compare page of a GitHub-style remote, the new merge request
//! page of a GitLab-style one.

use super::command::Git;
use super::error::GitError;

/// The remote a branch goes to: the branch's configured remote, else `origin`, else the first
/// one listed; none at all is [`GitError::NoRemote`].
pub(crate) async fn pick(git: &Git, branch: &str) -> Result<String, GitError> {
    let configured = git
        .output(&["config", "--get", &format!("branch.{branch}.remote")])
        .await?;
    let remotes: Vec<String> = git
        .run(&["remote"])
        .await?
        .lines()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
        .collect();
    let configured = configured.stdout.trim();
    if configured.is_empty() || !remotes.iter().any(|r| r == configured) {
        if remotes.iter().any(|r| r == "origin") {
            return Ok("origin".to_owned());
        }
        return remotes.into_iter().next().ok_or(GitError::NoRemote);
    }
    Ok(configured.to_owned())
}

/// The remote's URL as configured (before any `url.<base>.insteadOf` rewriting).
pub(crate) async fn url(git: &Git, remote: &str) -> Result<String, GitError> {
    Ok(git
        .run(&["config", "--get", &format!("remote.{remote}.url")])
        .await?
        .trim()
        .to_owned())
}

/// The remote's default branch, when the repository knows it (`refs/remotes/R/HEAD`).
pub(crate) async fn default_branch(git: &Git, remote: &str) -> Result<Option<String>, GitError> {
    let head = git
        .output(&[
            "symbolic-ref",
            "-q",
            "--short",
            &format!("refs/remotes/{remote}/HEAD"),
        ])
        .await?;
    let prefix = format!("{remote}/");
    Ok(head
        .success
        .then(|| head.stdout.trim().strip_prefix(&prefix).map(str::to_owned))
        .flatten())
}

/// Whether `branch` is the remote's default branch: the one it names, or, when it names none,
/// `main` or `master`.
pub(crate) fn is_default(branch: &str, default: Option<&str>) -> bool {
    match default {
        Some(default) => branch == default,
        None => matches!(branch, "main" | "master"),
    }
}

/// Where a person opens a pull request for `branch` on the remote at `url`: GitHub's compare
/// page or GitLab's new merge request page, for a host whose name says which; `None` for
/// other hosts and for local paths.
pub fn compare_url(url: &str, branch: &str) -> Option<String> {
    let (host, path) = host_and_path(url)?;
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    if path.is_empty() {
        return None;
    }
    let branch = encode(branch);
    let lower = host.to_ascii_lowercase();
    if lower.contains("gitlab") {
        Some(format!(
            "https://{host}/{path}/-/merge_requests/new?merge_request%5Bsource_branch%5D={branch}"
        ))
    } else if lower.contains("github") {
        Some(format!("https://{host}/{path}/compare/{branch}?expand=1"))
    } else {
        None
    }
}

/// The host and path of `https://[user@]host[:port]/path`, `ssh://[user@]host[:port]/path`,
/// `git://host/path` or `[user@]host:path`.
fn host_and_path(url: &str) -> Option<(String, String)> {
    if let Some((scheme, rest)) = url.split_once("://") {
        if !matches!(scheme, "https" | "http" | "ssh" | "git" | "git+ssh") {
            return None;
        }
        let (authority, path) = rest.split_once('/')?;
        let host = authority.rsplit('@').next()?;
        let host = host.split(':').next()?;
        return (!host.is_empty()).then(|| (host.to_owned(), path.to_owned()));
    }
    // scp-like: no slash before the colon.
    let (authority, path) = url.split_once(':')?;
    if authority.contains('/') || authority.is_empty() {
        return None;
    }
    let host = authority.rsplit('@').next()?;
    Some((host.to_owned(), path.to_owned()))
}

/// A branch name in a URL: what is not a letter, digit, `-`, `_`, `.`, `/` percent-encoded.
fn encode(branch: &str) -> String {
    let mut out = String::new();
    for byte in branch.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'/') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_urls_of_github_and_gitlab_style_remotes() {
        let github = Some("https://github.com/acme/widgets/compare/keel/fix-1?expand=1".to_owned());
        assert_eq!(
            compare_url("https://github.com/acme/widgets.git", "keel/fix-1"),
            github
        );
        assert_eq!(
            compare_url("git@github.com:acme/widgets.git", "keel/fix-1"),
            github
        );
        assert_eq!(
            compare_url("ssh://git@github.com:22/acme/widgets", "keel/fix-1"),
            github
        );
        assert_eq!(
            compare_url("https://token@gitlab.example.org/g/sub/p.git", "f+x"),
            Some("https://gitlab.example.org/g/sub/p/-/merge_requests/new?merge_request%5Bsource_branch%5D=f%2Bx".to_owned())
        );
        assert_eq!(compare_url("/srv/git/p.git", "b"), None);
        assert_eq!(compare_url("file:///srv/git/p.git", "b"), None);
        assert_eq!(compare_url("https://git.example.org/p.git", "b"), None);
    }

    #[test]
    fn the_default_branch_is_the_remote_s_else_main_or_master() {
        assert!(is_default("trunk", Some("trunk")));
        assert!(!is_default("main", Some("trunk")));
        assert!(is_default("master", None));
        assert!(!is_default("feature", None));
    }
}
