//! Real git repositories for the git-work tests: a repository with a first commit and a test
//! identity, a bare remote reached through a GitHub-style URL (`url.<bare>.insteadOf`, so the
//! compare URL is derivable while the push lands in a local folder), a fake `gh` that records
//! its arguments, and a `PATH` without any real `gh`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The GitHub-style URL [`add_github_remote`] gives `origin`.
pub const GITHUB_URL: &str = "https://github.com/acme/widgets.git";

/// The URL the fake `gh` prints for the pull request it "creates".
pub const GH_PR_URL: &str = "https://github.com/acme/widgets/pull/7";

/// Runs `git ARGS` in `dir` without the user's or the system's git configuration; panics with
/// what git said when it fails; returns its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"));
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `git` in `dir` with only the repository's own configuration.
pub fn git_command(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(dir);
    isolate(&mut command);
    command
}

/// Keeps `command` (git, or a program running git) from the user's and the system's git
/// configuration.
pub fn isolate(command: &mut Command) {
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
}

/// Makes `dir` a repository on branch `main` with a test identity and `files` (path, text)
/// committed as `initial`; `.keel/` is not ignored (Keel must leave it out by itself).
pub fn init_repo(dir: &Path, files: &[(&str, &str)]) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test User"]);
    git(dir, &["config", "user.email", "test@example.org"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
    for (path, text) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "initial"]);
}

/// A bare repository in `dir/remote.git`, made `origin` of the repository at `repo` under
/// [`GITHUB_URL`] (rewritten to the bare folder by `url.<bare>.insteadOf`); returns the bare
/// folder.
pub fn add_github_remote(repo: &Path, dir: &Path) -> PathBuf {
    let bare = dir.join("remote.git");
    git(dir, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    git(repo, &["remote", "add", "origin", GITHUB_URL]);
    let base = bare.to_string_lossy().into_owned();
    git(
        repo,
        &["config", &format!("url.{base}.insteadOf"), GITHUB_URL],
    );
    git(repo, &["push", "-q", "origin", "main"]);
    bare
}

/// A folder holding a fake `gh`: `gh auth status` succeeds, `gh pr create …` prints
/// [`GH_PR_URL`]; each call's arguments are appended to `log`, one per line, calls separated
/// by a line `--end--`. Put the folder first on `PATH`.
pub fn fake_gh(dir: &Path, log: &Path) -> PathBuf {
    let bin = dir.join("fake-gh-bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '{log}'; done\nprintf -- '--end--\\n' >> '{log}'\nif [ \"$1\" = pr ]; then echo '{GH_PR_URL}'; fi\nexit 0\n",
        log = log.display()
    );
    let gh = bin.join("gh");
    std::fs::write(&gh, script).unwrap_or_else(|e| panic!("{e}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    bin
}

/// This process's `PATH` without the folders holding a `gh`, with `first` (if any) before it.
pub fn path_without_gh(first: Option<&Path>) -> String {
    let current = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = first.map(Path::to_path_buf).into_iter().collect();
    dirs.extend(std::env::split_paths(&current).filter(|d| !d.join("gh").exists()));
    std::env::join_paths(dirs)
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string_lossy()
        .into_owned()
}

/// The files of commit `rev` (`git show --name-only`), sorted.
pub fn commit_files(repo: &Path, rev: &str) -> Vec<String> {
    let mut files: Vec<String> = git(
        repo,
        &["show", "--no-renames", "--name-only", "--format=", rev],
    )
    .lines()
    .filter(|l| !l.is_empty())
    .map(str::to_owned)
    .collect();
    files.sort();
    files
}
