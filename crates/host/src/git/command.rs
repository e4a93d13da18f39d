//! Running the `git` command line in the project: arguments, environment, output.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::error::GitError;

/// The `git` command line in one work tree.
#[derive(Debug, Clone)]
pub struct Git {
    root: PathBuf,
}

/// What a finished command printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    /// Exit status 0.
    pub(crate) success: bool,
    /// Standard output, lossily decoded.
    pub(crate) stdout: String,
    /// Standard error, lossily decoded.
    pub(crate) stderr: String,
}

impl Output {
    /// Standard error, else standard output, trimmed (what a failure says).
    pub(crate) fn said(&self) -> String {
        let err = self.stderr.trim();
        if err.is_empty() {
            self.stdout.trim().to_owned()
        } else {
            err.to_owned()
        }
    }
}

impl Git {
    /// Git in the work tree at `root`.
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
        }
    }

    /// The work tree's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Runs `git ARGS` (never prompting for credentials or an editor) and returns its output,
    /// whatever its exit status; a `git` that cannot be started is an error.
    pub(crate) async fn output(&self, args: &[&str]) -> Result<Output, GitError> {
        run(&self.root, "git", args).await
    }

    /// Runs `git ARGS`; a non-zero exit is [`GitError::Command`] with what git said.
    pub(crate) async fn run(&self, args: &[&str]) -> Result<String, GitError> {
        let output = self.output(args).await?;
        if output.success {
            Ok(output.stdout)
        } else {
            Err(GitError::Command {
                command: format!("git {}", args.join(" ")),
                message: output.said(),
            })
        }
    }

    /// `git ARGS -- PATHS`, [`Git::run`]'s way.
    pub(crate) async fn run_paths(
        &self,
        args: &[&str],
        paths: &[String],
    ) -> Result<String, GitError> {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--");
        all.extend(paths.iter().map(String::as_str));
        self.run(&all).await
    }
}

/// Runs `program ARGS` in `cwd` without a terminal to prompt on; its output whatever its exit.
pub(crate) async fn run(cwd: &Path, program: &str, args: &[&str]) -> Result<Output, GitError> {
    let output = tokio::process::Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("GIT_EDITOR", "true")
        .env("GH_PROMPT_DISABLED", "1")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|source| GitError::Spawn {
            program: program.to_owned(),
            source,
        })?;
    Ok(Output {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}
