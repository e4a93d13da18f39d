//! Running a list of tasks, `jobs` at a time, each result appended to the results file as it
//! finishes; a cancel stops the running agents and starts no more tasks.

use futures::StreamExt as _;
use tokio_util::sync::CancellationToken;

use crate::error::EvalError;
use crate::result::{ResultsFile, TaskResult};
use crate::run::{EvalSettings, run_task};
use crate::task::Task;

/// Told as tasks start and finish (a progress display).
pub trait Progress: Send + Sync {
    /// `task` started.
    fn started(&self, task: &Task);
    /// `task` finished with `result` (already in the results file).
    fn finished(&self, task: &Task, result: &TaskResult);
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn started(&self, _: &Task) {}
    fn finished(&self, _: &Task, _: &TaskResult) {}
}

/// What an evaluation produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuiteRun {
    /// The finished tasks' results, in the tasks' order.
    pub results: Vec<TaskResult>,
    /// Whether the cancel token fired before every task finished.
    pub interrupted: bool,
}

/// Runs `tasks`, `jobs` at a time (at least one), appending each result to `results` as it
/// finishes. When `cancel` fires, running agents and checks are killed, their tasks left out,
/// and no further task starts. An `Err` is a results file that cannot be written.
pub async fn run_suite(
    tasks: &[Task],
    settings: &EvalSettings,
    jobs: usize,
    results: &mut ResultsFile,
    progress: &dyn Progress,
    cancel: &CancellationToken,
) -> Result<SuiteRun, EvalError> {
    let mut runs = futures::stream::iter(tasks.iter().enumerate())
        .map(|(index, task)| async move {
            if cancel.is_cancelled() {
                return (index, task, None);
            }
            progress.started(task);
            (index, task, run_task(task, settings, cancel).await)
        })
        .buffer_unordered(jobs.max(1));
    let mut finished = Vec::new();
    while let Some((index, task, result)) = runs.next().await {
        if let Some(result) = result {
            results.append(&result)?;
            progress.finished(task, &result);
            finished.push((index, result));
        }
    }
    finished.sort_by_key(|(index, _)| *index);
    Ok(SuiteRun {
        interrupted: cancel.is_cancelled(),
        results: finished.into_iter().map(|(_, result)| result).collect(),
    })
}
