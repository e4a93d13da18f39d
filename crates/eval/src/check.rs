//! Running a task's `check.sh` in the project copy: exit 0 means solved.
//!
//! It runs with the copy as its working folder, `KEEL_EVAL_TASK_DIR` (the task folder,
//! absolute) and `KEEL_EVAL_ANSWER` (a file holding the agent's answer) in its environment,
//! in its own process group, killed with the group after the time-out; its standard output
//! and error go to one log file.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::error::EvalError;
use crate::group::{self, Ending};

/// What the check's run needs.
#[derive(Debug, Clone, Copy)]
pub struct CheckRun<'a> {
    /// The task's `check.sh`, absolute.
    pub script: &'a Path,
    /// The task folder, absolute.
    pub task_dir: &'a Path,
    /// The project copy.
    pub project: &'a Path,
    /// The file holding the agent's answer.
    pub answer: &'a Path,
    /// Where its output goes.
    pub log: &'a Path,
    /// The longest it may take.
    pub timeout: Duration,
}

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckOutcome {
    /// Exited with a code, timed out or cancelled.
    pub ending: Ending,
    /// How long it ran.
    pub secs: f64,
}

impl CheckOutcome {
    /// Whether the check passed (exit 0).
    pub fn passed(&self) -> bool {
        self.ending == Ending::Exited(Some(0))
    }

    /// The exit code, when it exited with one.
    pub fn exit(&self) -> Option<i32> {
        match self.ending {
            Ending::Exited(code) => code,
            Ending::TimedOut | Ending::Cancelled => None,
        }
    }
}

impl CheckRun<'_> {
    /// Runs the check to its end, its time-out or `cancel`.
    pub async fn run(&self, cancel: &CancellationToken) -> Result<CheckOutcome, EvalError> {
        let log = std::fs::File::create(self.log).map_err(|source| EvalError::Write {
            path: self.log.to_path_buf(),
            source,
        })?;
        let log_too = log.try_clone().map_err(|source| EvalError::Write {
            path: self.log.to_path_buf(),
            source,
        })?;
        let mut child = tokio::process::Command::new(self.script)
            .current_dir(self.project)
            .env("KEEL_EVAL_TASK_DIR", self.task_dir)
            .env("KEEL_EVAL_ANSWER", self.answer)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_too)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| EvalError::Spawn {
                what: self.script.display().to_string(),
                source,
            })?;
        let (ending, took) = group::wait(&mut child, self.timeout, cancel, None).await;
        Ok(CheckOutcome {
            ending,
            secs: took.as_secs_f64(),
        })
    }
}
