//! `verify_task`: sound tasks pass, and each way a task can be unsound is named.

use std::time::Duration;

use keel_eval::{Task, verify_task};

use crate::common::{TaskDir, VALUE_FIX, VALUE_IS_2};

const TIMEOUT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_sound_fix_task_and_a_sound_question_pass() {
    let root = tempfile::tempdir().unwrap();
    let fix = TaskDir::new(root.path(), "fix", "make it two")
        .check(VALUE_IS_2)
        .file("fix.patch", VALUE_FIX);
    let verdict = verify_task(&Task::at(&fix.dir), TIMEOUT).await;
    assert!(verdict.ok(), "{verdict}");
    assert!(verdict.to_string().starts_with("ok    "), "{verdict}");

    let question = TaskDir::new(root.path(), "ask", "What is the answer?")
        .check(r#"grep -qi "forty-two" "$KEEL_EVAL_ANSWER""#)
        .file("answer.txt", "Forty-two.\n")
        .file("task.toml", "kind = \"question\"\n");
    let verdict = verify_task(&Task::at(&question.dir), TIMEOUT).await;
    assert!(verdict.ok(), "{verdict}");
}

#[tokio::test]
async fn a_check_that_passes_before_the_fix_is_named() {
    let root = tempfile::tempdir().unwrap();
    let task = TaskDir::new(root.path(), "always", "make it two")
        .check("exit 0")
        .file("fix.patch", VALUE_FIX);
    let verdict = verify_task(&Task::at(&task.dir), TIMEOUT).await;
    assert_eq!(
        verdict.problems,
        [
            "check passes on the untouched repo",
            "check passes with the repo's tests deleted"
        ]
    );
    assert!(verdict.to_string().starts_with("FAIL  "), "{verdict}");
}

#[tokio::test]
async fn a_check_deleting_tests_satisfies_is_named() {
    let root = tempfile::tempdir().unwrap();
    let patch = "diff --git a/tests/failing.txt b/tests/failing.txt
deleted file mode 100644
--- a/tests/failing.txt
+++ /dev/null
@@ -1 +0,0 @@
-fails
";
    let task = TaskDir::new(root.path(), "cheat", "make the tests pass")
        .check("test ! -e tests/failing.txt")
        .file("repo/tests/failing.txt", "fails\n")
        .file("fix.patch", patch);
    let verdict = verify_task(&Task::at(&task.dir), TIMEOUT).await;
    assert_eq!(
        verdict.problems,
        ["check passes with the repo's tests deleted"]
    );
}

#[tokio::test]
async fn a_fix_that_fails_or_does_not_apply_and_a_hanging_check_are_named() {
    let root = tempfile::tempdir().unwrap();
    let wrong = TaskDir::new(root.path(), "wrong", "make it two")
        .check(&format!("echo checking; {VALUE_IS_2}"))
        .file("fix.patch", &VALUE_FIX.replace("+2", "+3"));
    let verdict = verify_task(&Task::at(&wrong.dir), TIMEOUT).await;
    assert_eq!(verdict.problems, ["check fails after fix.patch: checking"]);

    let stale = TaskDir::new(root.path(), "stale", "make it two")
        .check(VALUE_IS_2)
        .file("fix.patch", &VALUE_FIX.replace("-1", "-7"));
    let verdict = verify_task(&Task::at(&stale.dir), TIMEOUT).await;
    assert_eq!(verdict.problems.len(), 1, "{verdict}");
    assert!(
        verdict.problems[0].starts_with("fix.patch does not apply: error: patch failed"),
        "{verdict}"
    );

    let slow = TaskDir::new(root.path(), "slow", "make it two")
        .check("sleep 30")
        .file("fix.patch", VALUE_FIX);
    let verdict = verify_task(&Task::at(&slow.dir), Duration::from_secs(1)).await;
    assert_eq!(
        verdict.problems,
        [
            "check.sh did not finish in 1 s on the untouched repo",
            "check.sh did not finish in 1 s after fix.patch",
            "check.sh did not finish in 1 s with the repo's tests deleted"
        ]
    );
}

#[tokio::test]
async fn missing_pieces_are_named() {
    let root = tempfile::tempdir().unwrap();
    let no_fix = TaskDir::new(root.path(), "no-fix", "make it two").check(VALUE_IS_2);
    let verdict = verify_task(&Task::at(&no_fix.dir), TIMEOUT).await;
    assert_eq!(verdict.problems, ["no fix.patch"]);

    let question = TaskDir::new(root.path(), "q", "Why?")
        .check("exit 1")
        .file("task.toml", "kind = \"question\"\n");
    let verdict = verify_task(&Task::at(&question.dir), TIMEOUT).await;
    assert_eq!(verdict.problems, ["question task without answer.txt"]);

    let no_check = TaskDir::new(root.path(), "no-check", "make it two");
    let verdict = verify_task(&Task::at(&no_check.dir), TIMEOUT).await;
    assert_eq!(
        verdict.problems,
        [format!("no check.sh in {}", no_check.dir.display())]
    );
}
