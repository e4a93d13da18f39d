//! `EvalError`: what can go wrong finding, copying, running, checking or reporting tasks.

use std::path::PathBuf;

/// Why a task (or the whole evaluation) could not be run as asked.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A folder given on the command line does not exist or is not a folder.
    #[error("{}: no such folder", path.display())]
    NoSuchFolder {
        /// The folder as given.
        path: PathBuf,
    },
    /// A folder given on the command line holds no task.
    #[error(
        "{}: holds no task (a task is a folder with task.txt; a suite is a folder of tasks)",
        path.display()
    )]
    NoTasks {
        /// The folder as given.
        path: PathBuf,
    },
    /// A task folder lacks a file or folder every task needs.
    #[error("no {what} in {}", dir.display())]
    Missing {
        /// What is missing: `check.sh`, `task.txt`, `repo/`.
        what: &'static str,
        /// The task folder.
        dir: PathBuf,
    },
    /// `check.sh` exists but cannot be executed.
    #[error("{} is not executable (chmod +x it)", path.display())]
    NotExecutable {
        /// The `check.sh`.
        path: PathBuf,
    },
    /// A file of a task could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// `task.toml` is not valid.
    #[error("{}: {message}", path.display())]
    TaskToml {
        /// The `task.toml`.
        path: PathBuf,
        /// The parser's message (with line and column).
        message: String,
    },
    /// Copying the task's `repo/` failed on one file.
    #[error("cannot copy {}: {reason}", path.display())]
    Copy {
        /// The file or folder that could not be copied.
        path: PathBuf,
        /// The OS error, or why the file is refused.
        reason: String,
    },
    /// A `git` command in a project copy failed.
    #[error("git {command} failed in {}: {message}", dir.display())]
    Git {
        /// The git subcommand and its arguments.
        command: String,
        /// The project copy.
        dir: PathBuf,
        /// git's stderr, or why it could not start.
        message: String,
    },
    /// A file or folder of the output could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The metering proxy could not start.
    #[error("cannot start the metering proxy: {0}")]
    Proxy(String),
    /// The agent's process could not start.
    #[error("cannot start {what}: {source}")]
    Spawn {
        /// The program (`keel run`, `sh -c …`, `check.sh`).
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A results file given to `--report` could not be read.
    #[error("{}:{line}: {message}", path.display())]
    ResultLine {
        /// The results file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with the line.
        message: String,
    },
}
