//! The side-by-side table of earlier results files (`keel eval --report A.jsonl B.jsonl`): a
//! row per task, and per file its solved mark, time, calls and prompt tokens, with totals.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::EvalError;
use crate::result::{TaskResult, read_results};
use crate::summary::{cell, secs, tokens, total};

/// One results file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsColumn {
    /// The column's name: the agent's label, made unique with the model or the folder.
    pub name: String,
    /// The file's results (a task run twice: its last line).
    pub results: Vec<TaskResult>,
}

/// Reads each results file; errors name the file and line.
pub fn read_columns(paths: &[PathBuf]) -> Result<Vec<ResultsColumn>, EvalError> {
    let mut columns = Vec::new();
    for path in paths {
        let mut results: Vec<TaskResult> = Vec::new();
        for result in read_results(path)? {
            results.retain(|r| (&r.suite, &r.task) != (&result.suite, &result.task));
            results.push(result);
        }
        columns.push((path.as_path(), results));
    }
    Ok(name_columns(columns))
}

/// Names each column by its agent label; labels that repeat get the model, then the results
/// file's folder.
fn name_columns(columns: Vec<(&Path, Vec<TaskResult>)>) -> Vec<ResultsColumn> {
    let label = |results: &[TaskResult]| {
        results
            .first()
            .map_or_else(|| "?".to_owned(), |r| r.agent.clone())
    };
    let with_model = |results: &[TaskResult]| {
        let model = results.iter().find_map(|r| r.model.clone());
        match model {
            Some(model) => format!("{} ({model})", label(results)),
            None => label(results),
        }
    };
    let folder = |path: &Path| {
        path.parent().and_then(Path::file_name).map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let repeats = |names: &[String], name: &String| names.iter().filter(|n| *n == name).count() > 1;
    let labels: Vec<String> = columns.iter().map(|(_, r)| label(r)).collect();
    let models: Vec<String> = columns.iter().map(|(_, r)| with_model(r)).collect();
    columns
        .into_iter()
        .enumerate()
        .map(|(i, (path, results))| {
            let name = if !repeats(&labels, &labels[i]) {
                labels[i].clone()
            } else if !repeats(&models, &models[i]) {
                models[i].clone()
            } else {
                format!("{} [{}]", labels[i], folder(path))
            };
            ResultsColumn { name, results }
        })
        .collect()
}

/// The side-by-side Markdown table of `columns`.
pub fn report(columns: &[ResultsColumn]) -> String {
    let mut keys: Vec<(String, String)> = Vec::new();
    for column in columns {
        for r in &column.results {
            let key = (r.suite.clone(), r.task.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    let name_repeats = |task: &str| keys.iter().filter(|(_, t)| t == task).count() > 1;
    let mut out = String::from("| task |");
    let mut rule = String::from("|---|");
    for column in columns {
        let name = cell(&column.name);
        let _ = write!(out, " {name} | time | calls | prompt |");
        rule.push_str(":-:|--:|--:|--:|");
    }
    let _ = writeln!(out, "\n{rule}");
    for (suite, task) in &keys {
        let label = if name_repeats(task) {
            format!("{suite}/{task}")
        } else {
            task.clone()
        };
        let _ = write!(out, "| {} |", cell(&label));
        for column in columns {
            match column
                .results
                .iter()
                .find(|r| (&r.suite, &r.task) == (suite, task))
            {
                Some(r) => {
                    let _ = write!(
                        out,
                        " {} | {} | {} | {} |",
                        if r.solved { "✓" } else { "✗" },
                        secs(r.wall_secs),
                        r.model_calls,
                        tokens(r.prompt_tokens)
                    );
                }
                None => out.push_str(" – | – | – | – |"),
            }
        }
        out.push('\n');
    }
    out.push_str("| **total** |");
    for column in columns {
        let results = &column.results;
        let _ = write!(
            out,
            " **{}/{}** | {} | {} | {} |",
            results.iter().filter(|r| r.solved).count(),
            results.len(),
            secs(results.iter().map(|r| r.wall_secs).sum()),
            results.iter().map(|r| r.model_calls).sum::<u64>(),
            tokens(total(results.iter().map(|r| r.prompt_tokens)))
        );
    }
    out.push('\n');
    out
}
