//! The environment section of the system prompt: the operating system, the shell commands run
//! in, today's date, the project root, and whether the root is in a git repository and on
//! which branch. Gathered once per turn (a few file reads, no processes) and kept as it is for
//! the turn, so the system prompt stays the same from one model call to the next; the date has
//! day granularity for the same reason.

use std::path::{Path, PathBuf};

use keel_context::prompt::{ENVIRONMENT_HEADING, section};

/// Where the root stands with git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GitState {
    /// No `.git` in the root or any folder above it.
    NotARepository,
    /// On this branch.
    Branch(String),
    /// HEAD names a commit, not a branch (its short id).
    Detached(String),
    /// A repository whose HEAD could not be read.
    Unknown,
}

/// What the environment section says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Environment {
    /// `linux (x86_64)`.
    pub(crate) os: String,
    /// The shell command lines run in.
    pub(crate) shell: String,
    /// Today, `YYYY-MM-DD (Weekday)`, local time.
    pub(crate) date: String,
    /// The project root.
    pub(crate) root: PathBuf,
    /// The git state of the root.
    pub(crate) git: GitState,
    /// The project's test command, when configured.
    pub(crate) tests: Option<String>,
}

impl Environment {
    /// The environment of a turn on `root`, now, whose tests run with `tests`.
    pub(crate) fn gather(root: &Path, tests: Option<&str>) -> Self {
        Self {
            os: format!("{} ({})", std::env::consts::OS, std::env::consts::ARCH),
            shell: keel_tools::process::shell_program().to_owned(),
            date: chrono::Local::now().format("%Y-%m-%d (%A)").to_string(),
            root: root.to_path_buf(),
            git: git_state(root),
            tests: tests.map(str::to_owned),
        }
    }

    /// The system-prompt section.
    pub(crate) fn render(&self) -> String {
        let git = match &self.git {
            GitState::NotARepository => "not a git repository".to_owned(),
            GitState::Branch(branch) => format!("a git repository, on branch `{branch}`"),
            GitState::Detached(commit) => {
                format!("a git repository, HEAD detached at {commit}")
            }
            GitState::Unknown => "a git repository (its HEAD could not be read)".to_owned(),
        };
        let mut body = format!(
            "- Operating system: {}\n- Shell: commands run with `{} -c`\n- Date: {}\n- Project root: {}\n- Git: {git}",
            self.os,
            self.shell,
            self.date,
            self.root.display()
        );
        if let Some(tests) = &self.tests {
            body.push_str(&format!("\n- Tests: `{tests}`"));
        }
        section(ENVIRONMENT_HEADING, &body)
    }
}

/// The git state of `root`: the nearest `.git` at or above it (a folder, or a file pointing to
/// one as in worktrees and submodules), and its `HEAD`.
pub(crate) fn git_state(root: &Path) -> GitState {
    let Some(dot_git) = root
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|p| p.exists())
    else {
        return GitState::NotARepository;
    };
    let Some(git_dir) = git_dir(&dot_git) else {
        return GitState::Unknown;
    };
    match std::fs::read_to_string(git_dir.join("HEAD")) {
        Ok(head) => parse_head(&head),
        Err(_) => GitState::Unknown,
    }
}

/// The git folder `.git` stands for: itself, or the folder a `gitdir: PATH` file names.
fn git_dir(dot_git: &Path) -> Option<PathBuf> {
    if dot_git.is_dir() {
        return Some(dot_git.to_path_buf());
    }
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let target = Path::new(target);
    Some(if target.is_absolute() {
        target.to_path_buf()
    } else {
        dot_git.parent()?.join(target)
    })
}

/// What a `HEAD` file says: `ref: refs/heads/NAME` or a commit id.
fn parse_head(head: &str) -> GitState {
    let head = head.trim();
    if let Some(reference) = head.strip_prefix("ref:") {
        let reference = reference.trim();
        let branch = reference.strip_prefix("refs/heads/").unwrap_or(reference);
        return GitState::Branch(branch.to_owned());
    }
    if head.len() >= 7 && head.chars().all(|c| c.is_ascii_hexdigit()) {
        return GitState::Detached(head.chars().take(12).collect());
    }
    GitState::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_name_a_branch_or_a_commit() {
        assert_eq!(
            parse_head("ref: refs/heads/feature/x\n"),
            GitState::Branch("feature/x".into())
        );
        assert_eq!(
            parse_head("0123456789abcdef0123456789abcdef01234567\n"),
            GitState::Detached("0123456789ab".into())
        );
        assert_eq!(parse_head("garbage"), GitState::Unknown);
    }

    #[test]
    fn the_nearest_git_folder_or_file_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(git_state(&root), GitState::Branch("main".into()));
        assert_eq!(
            git_state(&root.join("sub/deeper")),
            GitState::Branch("main".into())
        );

        // A worktree: `.git` is a file naming the real git folder.
        let worktree = dir.path().join("wt");
        std::fs::create_dir_all(worktree.join("../gitdirs/wt")).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: ../gitdirs/wt\n").unwrap();
        std::fs::write(
            dir.path().join("gitdirs/wt/HEAD"),
            "ref: refs/heads/h-context\n",
        )
        .unwrap();
        assert_eq!(git_state(&worktree), GitState::Branch("h-context".into()));

        std::fs::write(worktree.join(".git"), "gitdir: ../nowhere\n").unwrap();
        assert_eq!(git_state(&worktree), GitState::Unknown);
    }

    #[test]
    fn the_section_names_everything() {
        let environment = Environment {
            os: "linux (x86_64)".into(),
            shell: "bash".into(),
            date: "2026-05-04 (Monday)".into(),
            root: PathBuf::from("/work/project"),
            git: GitState::Branch("main".into()),
            tests: None,
        };
        assert_eq!(
            environment.render(),
            "## Environment\n\n- Operating system: linux (x86_64)\n- Shell: commands run with `bash -c`\n- Date: 2026-05-04 (Monday)\n- Project root: /work/project\n- Git: a git repository, on branch `main`"
        );
        let outside = Environment {
            git: GitState::NotARepository,
            ..environment
        };
        assert!(outside.render().ends_with("- Git: not a git repository"));
        let tested = Environment {
            tests: Some("python3 -m pytest -q".into()),
            ..outside
        };
        assert!(tested.render().ends_with("- Tests: `python3 -m pytest -q`"));
    }
}
