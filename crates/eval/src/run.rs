//! One task's run from start to result: a fresh project copy, a metering proxy, the agent
//! under the cap, the diff, the check, and the result line — each step's failure a clear
//! `error` for this task only.
//!
//! The run's folder, `runs/<task>/`, keeps the agent's output (`events.jsonl` or
//! `agent.log`), `stderr.log`, `calls.jsonl` (the proxy's record), `task.txt`, `answer.txt`,
//! `diff.patch`, `check.log`, and with `keep` the project itself (`project/`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, AgentOutcome, Invocation};
use crate::check::CheckRun;
use crate::copy::ProjectCopy;
use crate::error::EvalError;
use crate::group::Ending;
use crate::proxy::{CallRecord, MeteringProxy};
use crate::result::{Outcome, TaskResult, round};
use crate::task::Task;

/// What every run of an evaluation shares.
#[derive(Debug, Clone)]
pub struct EvalSettings {
    /// The agent.
    pub agent: Agent,
    /// The agent's name in the results.
    pub label: String,
    /// The real model endpoint's base URL (`…/v1`), which each run's proxy forwards to.
    pub upstream: String,
    /// The model, when one was given.
    pub model: Option<String>,
    /// The longest an agent may work on one task.
    pub cap: Duration,
    /// The longest `check.sh` may take.
    pub check_timeout: Duration,
    /// Keep each project copy under its run folder.
    pub keep: bool,
    /// The folder holding one folder per run (`runs/`).
    pub runs_dir: PathBuf,
}

/// Runs `task` once; `None` when `cancel` fired before it finished (nothing is recorded).
pub async fn run_task(
    task: &Task,
    settings: &EvalSettings,
    cancel: &CancellationToken,
) -> Option<TaskResult> {
    let log_dir = settings.runs_dir.join(&task.id);
    let mut result = TaskResult {
        task: task.name.clone(),
        suite: task.suite.clone(),
        agent: settings.label.clone(),
        model: settings.model.clone(),
        log_dir: log_dir.display().to_string(),
        ..TaskResult::default()
    };
    match attempt(task, settings, &log_dir, &mut result, cancel).await {
        Ok(Some(())) => Some(result),
        Ok(None) => None,
        Err(error) => {
            result.solved = false;
            result.outcome = Outcome::Error;
            result.error = Some(error.to_string());
            Some(result)
        }
    }
}

/// The run's steps; an `Err` is the task's error, `Ok(None)` a cancelled run.
async fn attempt(
    task: &Task,
    settings: &EvalSettings,
    log_dir: &Path,
    result: &mut TaskResult,
    cancel: &CancellationToken,
) -> Result<Option<()>, EvalError> {
    fresh_dir(log_dir)?;
    let meta = task.meta()?;
    result.language.clone_from(&meta.language);
    result.kind.clone_from(&meta.kind);
    let loaded = task.load()?;
    let mut copy = ProjectCopy::create(&loaded.repo).await?;
    let task_file = log_dir.join("task.txt");
    write(&task_file, &loaded.text)?;
    let proxy =
        MeteringProxy::start(&settings.upstream, Some(&log_dir.join("calls.jsonl"))).await?;
    let invocation = Invocation {
        project: copy.path(),
        task: &loaded.text,
        task_file: &task_file,
        base_url: proxy.base_url(),
        model: settings.model.as_deref(),
        test_cmd: meta.test_cmd.as_deref(),
        log_dir,
        cap: settings.cap,
    };
    let agent = settings.agent.run(&invocation, cancel).await;
    let calls = proxy.stop().await;
    let agent = agent?;
    if agent.ending == Ending::Cancelled {
        return Ok(None);
    }
    let answer = log_dir.join("answer.txt");
    write(&answer, &agent.answer)?;
    describe_run(result, &agent, &calls, settings.cap);

    match copy.diff().await {
        Ok(diff) => {
            write(&log_dir.join("diff.patch"), &diff.patch)?;
            result.files_changed = Some(diff.files);
        }
        Err(e) => write(&log_dir.join("diff.patch"), &format!("# {e}\n"))?,
    }
    let check = CheckRun {
        script: &loaded.check,
        task_dir: &task.dir,
        project: copy.path(),
        answer: &answer,
        log: &log_dir.join("check.log"),
        timeout: settings.check_timeout,
    }
    .run(cancel)
    .await?;
    if settings.keep {
        copy.keep_at(&log_dir.join("project"))?;
    } else {
        copy.remove();
    }
    result.check_exit = check.exit();
    result.check_secs = Some(round(check.secs));
    result.solved = check.passed();
    result.outcome = match check.ending {
        Ending::Cancelled => return Ok(None),
        Ending::TimedOut => {
            result.error = Some(format!(
                "check.sh did not finish in {} s",
                settings.check_timeout.as_secs()
            ));
            Outcome::Error
        }
        Ending::Exited(_) if result.solved => Outcome::Solved,
        Ending::Exited(_) => match run_error(&agent, &calls, &proxy_upstream(settings)) {
            Some(error) => {
                result.error = Some(error);
                Outcome::Error
            }
            None if agent.ending == Ending::TimedOut => Outcome::Cap,
            None => Outcome::Unsolved,
        },
    };
    Ok(Some(()))
}

fn proxy_upstream(settings: &EvalSettings) -> String {
    settings.upstream.trim_end_matches('/').to_owned()
}

/// Fills in what the agent's run and the proxy's record say.
fn describe_run(
    result: &mut TaskResult,
    agent: &AgentOutcome,
    calls: &[CallRecord],
    cap: Duration,
) {
    result.wall_secs = round(agent.wall.as_secs_f64());
    result.add_calls(calls);
    if let Some(keel) = &agent.keel {
        result.tool_calls = Some(keel.tool_calls);
        result.tool_errors = Some(keel.tool_errors);
    }
    result.ended = Some(match agent.ending {
        Ending::TimedOut => format!("cap after {} s", cap.as_secs()),
        Ending::Exited(code) => match agent.keel.as_ref().and_then(|k| k.ended()) {
            Some(ended) => ended,
            None => match code {
                Some(code) => format!("exit {code}"),
                None => "killed by a signal".to_owned(),
            },
        },
        Ending::Cancelled => "cancelled".to_owned(),
    });
}

/// Why an unsolved run is an error rather than the agent's failure: the model endpoint did
/// not answer or answered with an error on the last call, or Keel ended without `agent.end`.
fn run_error(agent: &AgentOutcome, calls: &[CallRecord], upstream: &str) -> Option<String> {
    if let Some(down) = calls.iter().rev().find(|c| c.unreachable) {
        let said = down.error.clone().unwrap_or_default();
        return Some(if said.is_empty() {
            format!("the model endpoint at {upstream} did not answer")
        } else {
            said
        });
    }
    if let Some(last) = calls.last()
        && !(200..300).contains(&last.status)
    {
        return Some(format!(
            "the model endpoint at {upstream} answered {}",
            last.error
                .clone()
                .unwrap_or_else(|| format!("HTTP {}", last.status))
        ));
    }
    match (&agent.keel, agent.ending) {
        (Some(keel), Ending::Exited(code)) if keel.status.is_none() => Some(format!(
            "keel run ended without agent.end ({}){}",
            code.map_or_else(|| "killed by a signal".to_owned(), |c| format!("exit {c}")),
            if agent.stderr_tail.is_empty() {
                String::new()
            } else {
                format!(": {}", agent.stderr_tail)
            }
        )),
        _ => None,
    }
}

/// Makes `dir` an empty folder (a run of an earlier evaluation with the same output is
/// replaced).
fn fresh_dir(dir: &Path) -> Result<(), EvalError> {
    let write = |source| EvalError::Write {
        path: dir.to_path_buf(),
        source,
    };
    crate::copy::remove_tree(dir).map_err(write)?;
    std::fs::create_dir_all(dir).map_err(write)
}

fn write(path: &Path, text: &str) -> Result<(), EvalError> {
    std::fs::write(path, text).map_err(|source| EvalError::Write {
        path: path.to_path_buf(),
        source,
    })
}
