//! The Markdown summary of an evaluation, on results with every kind of outcome.

use keel_eval::{Outcome, TaskResult};

fn result(task: &str, outcome: Outcome, secs: f64) -> TaskResult {
    TaskResult {
        task: task.to_owned(),
        suite: "tasks".to_owned(),
        agent: "keel".to_owned(),
        language: Some("python".to_owned()),
        kind: Some("fix-test".to_owned()),
        solved: outcome == Outcome::Solved,
        outcome,
        wall_secs: secs,
        ..TaskResult::default()
    }
}

#[test]
fn the_summary_has_a_row_per_task_and_the_totals() {
    let results = vec![
        TaskResult {
            model_calls: 4,
            prompt_tokens: Some(12_345),
            cached_tokens: Some(9_000),
            completion_tokens: Some(456),
            tool_calls: Some(5),
            tool_errors: Some(1),
            ended: Some("completed: Fixed median() for lists of even length.".to_owned()),
            ..result("py-median-even", Outcome::Solved, 12.34)
        },
        TaskResult {
            model_calls: 25,
            prompt_tokens: Some(200_000),
            cached_tokens: Some(150_000),
            completion_tokens: Some(3_000),
            tool_calls: Some(30),
            tool_errors: Some(4),
            ended: Some("max_iterations: I could not | find the bug".to_owned()),
            ..result("py-slugify", Outcome::Unsolved, 95.0)
        },
        TaskResult {
            model_calls: 9,
            prompt_tokens: Some(50_000),
            completion_tokens: Some(900),
            ended: Some("cap after 600 s".to_owned()),
            ..result("rs-leap-year", Outcome::Cap, 600.2)
        },
        TaskResult {
            error: Some("no check.sh in /suites/tasks/broken".to_owned()),
            language: None,
            kind: None,
            ..result("broken", Outcome::Error, 0.0)
        },
    ];
    insta::assert_snapshot!(keel_eval::summary::summary(&results));
}
