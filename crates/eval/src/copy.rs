//! The project copy each run works in: a fresh copy of the task's `repo/` in a temp folder,
//! made a git repository with one commit, so what the agent changed is `git diff` against it.
//!
//! git runs without the user's or the system's configuration (`GIT_CONFIG_GLOBAL=/dev/null`),
//! with a fixed author and date, no signing and no hooks, so the copy is the same on every
//! machine.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tempfile::TempDir;

use crate::error::EvalError;

/// The commit's author and committer.
pub const GIT_AUTHOR: (&str, &str) = ("keel-eval", "eval@keel.invalid");

/// What the diff leaves out: Keel's and Aider's own state, and the caches running a
/// project's tests leaves behind.
const DIFF_EXCLUDES: &[&str] = &[
    ":(exclude,glob).keel/**",
    ":(exclude,glob)**/.keel/**",
    ":(exclude,glob).aider*",
    ":(exclude,glob).aider*/**",
    ":(exclude,glob)**/__pycache__/**",
    ":(exclude,glob)**/*.pyc",
    ":(exclude,glob)**/.pytest_cache/**",
];

/// A project copy: a temp folder holding the copied `repo/` and its first commit. Removed
/// when dropped, unless [kept](ProjectCopy::keep_at).
#[derive(Debug)]
pub struct ProjectCopy {
    temp: Option<TempDir>,
    path: PathBuf,
    base: String,
}

/// What the agent changed in a copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectDiff {
    /// `git diff --binary` against the first commit, untracked files included.
    pub patch: String,
    /// The paths changed, added or deleted.
    pub files: Vec<String>,
}

impl ProjectCopy {
    /// Copies `repo` into a fresh temp folder and commits it.
    pub async fn create(repo: &Path) -> Result<Self, EvalError> {
        let temp = tempfile::Builder::new()
            .prefix("keel-eval-")
            .tempdir()
            .map_err(|source| EvalError::Write {
                path: std::env::temp_dir(),
                source,
            })?;
        let path = temp.path().join("project");
        let (from, to) = (repo.to_path_buf(), path.clone());
        tokio::task::spawn_blocking(move || copy_tree(&from, &to))
            .await
            .map_err(|e| EvalError::Copy {
                path: repo.to_path_buf(),
                reason: e.to_string(),
            })??;
        git(&path, &["init", "-q"], None).await?;
        git(&path, &["add", "-A"], None).await?;
        git(
            &path,
            &[
                "commit",
                "-q",
                "--no-verify",
                "--allow-empty",
                "-m",
                "keel eval: the task's repo",
            ],
            None,
        )
        .await?;
        let base = String::from_utf8_lossy(&git(&path, &["rev-parse", "HEAD"], None).await?)
            .trim()
            .to_owned();
        Ok(Self {
            temp: Some(temp),
            path,
            base,
        })
    }

    /// The project folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What changed since the first commit — committed or not, untracked files included,
    /// `.gitignore`d files and [`DIFF_EXCLUDES`] left out. The copy's own index is not
    /// touched (a temp index outside the project is used).
    pub async fn diff(&self) -> Result<ProjectDiff, EvalError> {
        let index = self.scratch().join("diff-index");
        let _ = std::fs::remove_file(&index);
        git(&self.path, &["read-tree", &self.base], Some(&index)).await?;
        let mut add = vec!["add", "-A", "--", "."];
        add.extend(DIFF_EXCLUDES);
        git(&self.path, &add, Some(&index)).await?;
        let patch = git(
            &self.path,
            &[
                "diff",
                "--cached",
                "--binary",
                "--no-color",
                "--no-ext-diff",
                &self.base,
            ],
            Some(&index),
        )
        .await?;
        let names = git(
            &self.path,
            &["diff", "--cached", "--name-only", "-z", &self.base],
            Some(&index),
        )
        .await?;
        let _ = std::fs::remove_file(&index);
        Ok(ProjectDiff {
            patch: String::from_utf8_lossy(&patch).into_owned(),
            files: names
                .split(|b| *b == 0)
                .filter(|name| !name.is_empty())
                .map(|name| String::from_utf8_lossy(name).into_owned())
                .collect(),
        })
    }

    /// Applies `patch` (a `git diff`) to the copy's files with `git apply`.
    pub async fn apply(&self, patch: &Path) -> Result<(), EvalError> {
        let patch = std::path::absolute(patch).unwrap_or_else(|_| patch.to_path_buf());
        git(&self.path, &["apply", &patch.to_string_lossy()], None)
            .await
            .map(|_| ())
    }

    /// Moves the project to `to` (its parent folders created) instead of removing it.
    pub fn keep_at(mut self, to: &Path) -> Result<(), EvalError> {
        let write = |source| EvalError::Write {
            path: to.to_path_buf(),
            source,
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(write)?;
        }
        let _ = remove_tree(to);
        if std::fs::rename(&self.path, to).is_err() {
            copy_tree(&self.path, to)?;
        }
        self.remove();
        Ok(())
    }

    /// Removes the copy now, making read-only folders (a Go module cache, say) writable first
    /// when a plain removal fails.
    pub fn remove(&mut self) {
        if let Some(temp) = self.temp.take() {
            let path = temp.keep();
            let _ = remove_tree(&path);
        }
    }

    /// The temp folder around the project, for files that must not be inside it.
    fn scratch(&self) -> &Path {
        self.path.parent().unwrap_or(&self.path)
    }
}

impl Drop for ProjectCopy {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Removes `path` and everything under it, if it exists; on failure makes every folder
/// writable and tries again.
pub(crate) fn remove_tree(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(_) => return Ok(()),
        Ok(metadata) if !metadata.is_dir() => return std::fs::remove_file(path),
        Ok(_) => {}
    }
    if std::fs::remove_dir_all(path).is_ok() {
        return Ok(());
    }
    make_writable(path);
    std::fs::remove_dir_all(path)
}

fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(metadata) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if !metadata.is_dir() {
        return;
    }
    let mode = metadata.permissions().mode() | 0o700;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            make_writable(&entry.path());
        }
    }
}

/// Copies the tree `from` into `to` (created): files with their permissions, symlinks as
/// symlinks. Anything else (a FIFO, a socket, a device) is refused, as is a file that cannot
/// be read; the error names the path and the reason.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), EvalError> {
    let copy_error = |path: &Path, e: std::io::Error| EvalError::Copy {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(to).map_err(|e| copy_error(to, e))?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .map_err(|e| copy_error(from, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| copy_error(from, e))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| copy_error(&source, e))?;
        if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(&source).map_err(|e| copy_error(&source, e))?;
            std::os::unix::fs::symlink(&link, &target).map_err(|e| copy_error(&target, e))?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target).map_err(|e| copy_error(&source, e))?;
        } else {
            return Err(EvalError::Copy {
                path: source,
                reason: format!("not a file, folder or symlink ({})", special_kind(&kind)),
            });
        }
    }
    Ok(())
}

fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "of an unknown kind"
    }
}

/// Runs `git ARGS` in `dir` without any user or system configuration (and with `index` as
/// its index when given); its standard output, or an error with its standard error.
async fn git(dir: &Path, args: &[&str], index: Option<&Path>) -> Result<Vec<u8>, EvalError> {
    let mut command = tokio::process::Command::new("git");
    command
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.quotePath=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", GIT_AUTHOR.0)
        .env("GIT_AUTHOR_EMAIL", GIT_AUTHOR.1)
        .env("GIT_COMMITTER_NAME", GIT_AUTHOR.0)
        .env("GIT_COMMITTER_EMAIL", GIT_AUTHOR.1)
        .env("GIT_AUTHOR_DATE", "2000-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2000-01-01T00:00:00Z")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(index) = index {
        command.env("GIT_INDEX_FILE", index);
    }
    let failure = |message: String| EvalError::Git {
        command: args.join(" "),
        dir: dir.to_path_buf(),
        message,
    };
    let output = command
        .output()
        .await
        .map_err(|e| failure(format!("cannot run git: {e}")))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(failure(
            String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        ))
    }
}
