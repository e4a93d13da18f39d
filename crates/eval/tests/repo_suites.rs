//! Every task of the repository's suites (`eval/tasks`, `eval/holdout`, and CI's real-model
//! task in `eval/ci`) is sound: `verify_task`
//! finds no problem, and `eval/tasks` holds at least 20 tasks.
//!
//! `KEEL_EVAL_SUITES` (folders separated by `:`, the first taking `eval/tasks`' place) checks
//! other suites. While the tasks folder does not exist, the test says so and passes.

use std::path::PathBuf;
use std::time::Duration;

use futures::StreamExt as _;
use keel_eval::{discover, verify_task};

/// Fewest tasks `eval/tasks` may hold.
const MIN_TASKS: usize = 20;

fn suites() -> Vec<PathBuf> {
    match std::env::var("KEEL_EVAL_SUITES") {
        Ok(list) if !list.trim().is_empty() => std::env::split_paths(&list).collect(),
        _ => {
            let eval = keel_test_support::repo_root().join("eval");
            vec![eval.join("tasks"), eval.join("holdout"), eval.join("ci")]
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_task_in_the_repository_suites_is_sound() {
    let suites = suites();
    if !suites[0].is_dir() {
        eprintln!(
            "skipped: no task suite at {} (set KEEL_EVAL_SUITES to check others)",
            suites[0].display()
        );
        return;
    }
    let mut counts = Vec::new();
    let mut tasks = Vec::new();
    for suite in &suites {
        let found = if suite.is_dir() {
            discover(std::slice::from_ref(suite)).unwrap_or_default()
        } else {
            Vec::new()
        };
        counts.push(found.len());
        tasks.extend(found);
    }
    let verdicts: Vec<_> = futures::stream::iter(&tasks)
        .map(|task| verify_task(task, Duration::from_secs(120)))
        .buffer_unordered(2)
        .collect()
        .await;
    for verdict in &verdicts {
        eprintln!("{verdict}");
    }
    let bad: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.ok())
        .map(ToString::to_string)
        .collect();
    assert!(bad.is_empty(), "unsound tasks:\n{}", bad.join("\n"));
    assert!(
        counts[0] >= MIN_TASKS,
        "{} holds {} tasks; at least {MIN_TASKS} expected",
        suites[0].display(),
        counts[0]
    );
}
