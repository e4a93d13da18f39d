//! One task's result, the JSON line the results file holds, and the file itself (appended and
//! flushed as each task finishes).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::EvalError;
use crate::proxy::CallRecord;

/// How a task's run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The check passed.
    Solved,
    /// The agent ended and the check failed.
    #[default]
    Unsolved,
    /// The agent was killed at the cap and the check failed.
    Cap,
    /// The task could not be run or checked as it should: see `error`.
    Error,
}

/// One task's result: a line of the results file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskResult {
    /// The task's folder name.
    pub task: String,
    /// The suite's folder name.
    pub suite: String,
    /// The agent's label.
    pub agent: String,
    /// The model given, else the one the first call asked for.
    pub model: Option<String>,
    /// `task.toml`'s `language`.
    pub language: Option<String>,
    /// `task.toml`'s `kind`.
    pub kind: Option<String>,
    /// Whether the check passed.
    pub solved: bool,
    /// Solved, unsolved, cap or error.
    pub outcome: Outcome,
    /// What went wrong, for `error` (and a model endpoint's failure when the task was not
    /// solved).
    pub error: Option<String>,
    /// Seconds the agent ran.
    pub wall_secs: f64,
    /// Chat-completions calls through the metering proxy.
    pub model_calls: u64,
    /// Prompt tokens over all calls (`None`: no call reported them).
    pub prompt_tokens: Option<u64>,
    /// Cached prompt tokens over all calls.
    pub cached_tokens: Option<u64>,
    /// Completion tokens over all calls.
    pub completion_tokens: Option<u64>,
    /// The first call's prompt tokens.
    pub first_request_tokens: Option<u64>,
    /// The first call's seconds to its first content or tool-call delta.
    pub first_token_secs: Option<f64>,
    /// Tool calls (Keel's `run.tool.start`; `None` for other agents).
    pub tool_calls: Option<u64>,
    /// Tool calls that did not succeed (Keel's `run.tool.end` with another status than
    /// `success`; `None` for other agents).
    pub tool_errors: Option<u64>,
    /// The paths the agent changed, added or deleted (`None`: the diff could not be taken).
    pub files_changed: Option<Vec<String>>,
    /// Why the agent's run ended: Keel's `agent.end` status and the start of its result,
    /// `cap after N s`, or `exit N`.
    pub ended: Option<String>,
    /// `check.sh`'s exit code.
    pub check_exit: Option<i32>,
    /// Seconds `check.sh` ran.
    pub check_secs: Option<f64>,
    /// The run's log folder.
    pub log_dir: String,
}

impl TaskResult {
    /// Adds the metering proxy's figures: call count, token sums, the first call's figures,
    /// and the model when none was given.
    pub fn add_calls(&mut self, calls: &[CallRecord]) {
        self.model_calls = calls.len() as u64;
        let sum = |pick: fn(&CallRecord) -> Option<u64>| {
            calls
                .iter()
                .filter_map(pick)
                .fold(None, |total: Option<u64>, n| Some(total.unwrap_or(0) + n))
        };
        self.prompt_tokens = sum(|c| c.prompt_tokens);
        self.cached_tokens = sum(|c| c.cached_tokens);
        self.completion_tokens = sum(|c| c.completion_tokens);
        if let Some(first) = calls.first() {
            self.first_request_tokens = first.prompt_tokens;
            self.first_token_secs = first.first_token_secs.map(round);
            if self.model.is_none() {
                self.model.clone_from(&first.model);
            }
        }
    }
}

/// `secs` to the millisecond.
pub fn round(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}

/// The results file: one JSON line per task, appended and flushed as each finishes.
#[derive(Debug)]
pub struct ResultsFile {
    path: PathBuf,
    file: std::fs::File,
}

impl ResultsFile {
    /// Opens `path` for appending (its folder created).
    pub fn open(path: &Path) -> Result<Self, EvalError> {
        let write = |source| EvalError::Write {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(write)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(write)?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Appends `result` as one line and flushes it.
    pub fn append(&mut self, result: &TaskResult) -> Result<(), EvalError> {
        let write = |source: std::io::Error| EvalError::Write {
            path: self.path.clone(),
            source,
        };
        let line = serde_json::to_string(result).map_err(|e| write(e.into()))?;
        writeln!(self.file, "{line}").map_err(write)?;
        self.file.flush().map_err(write)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads a results file; a line that is not a result is an error naming the file and line.
pub fn read_results(path: &Path) -> Result<Vec<TaskResult>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| EvalError::ResultLine {
                path: path.to_path_buf(),
                line: n + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn calls_are_summed_and_the_first_one_described() {
        let call = |prompt, cached, model: &str| CallRecord {
            prompt_tokens: Some(prompt),
            cached_tokens: cached,
            completion_tokens: Some(5),
            first_token_secs: Some(0.123_456),
            model: Some(model.to_owned()),
            ..CallRecord::default()
        };
        let mut result = TaskResult::default();
        result.add_calls(&[call(100, None, "m1"), call(150, Some(90), "m2")]);
        assert_eq!(result.model_calls, 2);
        assert_eq!(result.prompt_tokens, Some(250));
        assert_eq!(result.cached_tokens, Some(90));
        assert_eq!(result.completion_tokens, Some(10));
        assert_eq!(result.first_request_tokens, Some(100));
        assert_eq!(result.first_token_secs, Some(0.123));
        assert_eq!(result.model.as_deref(), Some("m1"));

        let mut none = TaskResult::default();
        none.add_calls(&[]);
        assert_eq!((none.model_calls, none.prompt_tokens), (0, None));
    }

    #[test]
    fn lines_round_trip_and_bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out/results.jsonl");
        let mut file = ResultsFile::open(&path).unwrap();
        let result = TaskResult {
            task: "t".into(),
            outcome: Outcome::Cap,
            ..TaskResult::default()
        };
        file.append(&result).unwrap();
        assert_eq!(read_results(&path).unwrap(), vec![result]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#""outcome":"cap""#), "{text}");
        std::fs::write(&path, format!("{text}not json\n")).unwrap();
        let error = read_results(&path).unwrap_err().to_string();
        assert!(error.contains("results.jsonl:2:"), "{error}");
    }
}
