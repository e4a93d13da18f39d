//! Verifying a task instead of running an agent on it (`keel eval --verify`): its check must
//! tell a solved task from an unsolved one, and editing or deleting tests must not satisfy it.
//!
//! In a fresh project copy each: `check.sh` must FAIL on the untouched repo; must PASS after
//! `git apply fix.patch` (a question task: with `answer.txt` as the answer, and FAIL with the
//! question itself as the answer); and must still FAIL on the untouched code when the copy's
//! test files are deleted (`test_*.py`, `*_test.py`, `*_test.go`, `*.test.js`, `*.test.ts`,
//! `*.spec.*`, and folders named `test` or `tests`).

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::check::{CheckOutcome, CheckRun};
use crate::copy::ProjectCopy;
use crate::error::EvalError;
use crate::group::Ending;
use crate::task::{LoadedTask, Task};

/// What verifying one task found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// `suite/task`.
    pub name: String,
    /// Every way the task breaks the contract; empty when it is sound.
    pub problems: Vec<String>,
    /// Seconds the verification took.
    pub secs: f64,
}

impl Verdict {
    /// Whether the task is sound.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// `ok    suite/task   3.1 s`, or `FAIL  suite/task   3.1 s  problem; problem`.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.ok() { "ok  " } else { "FAIL" };
        write!(f, "{mark}  {:<45} {:>6.1} s", self.name, self.secs)?;
        if !self.ok() {
            write!(f, "  {}", self.problems.join("; "))?;
        }
        Ok(())
    }
}

/// Verifies `task`, each check run given at most `check_timeout`.
pub async fn verify_task(task: &Task, check_timeout: Duration) -> Verdict {
    let started = Instant::now();
    let problems = match problems(task, check_timeout).await {
        Ok(problems) => problems,
        Err(error) => vec![error.to_string()],
    };
    Verdict {
        name: format!("{}/{}", task.suite, task.name),
        problems,
        secs: started.elapsed().as_secs_f64(),
    }
}

async fn problems(task: &Task, check_timeout: Duration) -> Result<Vec<String>, EvalError> {
    let meta = task.meta()?;
    let loaded = task.load()?;
    let fix = task.dir.join("fix.patch");
    let answer = task.dir.join("answer.txt");
    let question = meta.is_question() || (!fix.exists() && answer.exists());
    let mut problems = Vec::new();
    if question && !non_empty(&answer) {
        problems.push("question task without answer.txt".to_owned());
    }
    if !question && !non_empty(&fix) {
        problems.push("no fix.patch".to_owned());
    }
    if !problems.is_empty() {
        return Ok(problems);
    }
    let scratch = tempfile::tempdir().map_err(|source| EvalError::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let empty = scratch.path().join("empty-answer.txt");
    std::fs::write(&empty, "").map_err(|source| EvalError::Write {
        path: empty.clone(),
        source,
    })?;
    let verifier = Verifier {
        task,
        loaded: &loaded,
        log: &scratch.path().join("check.log"),
        timeout: check_timeout,
    };

    let untouched = verifier
        .check(&ProjectCopy::create(&loaded.repo).await?, &empty)
        .await?;
    verifier.expect(false, untouched, "on the untouched repo", &mut problems);

    if question {
        let copy = ProjectCopy::create(&loaded.repo).await?;
        let with_answer = verifier.check(&copy, &answer).await?;
        verifier.expect(true, with_answer, "with answer.txt", &mut problems);
        let copy = ProjectCopy::create(&loaded.repo).await?;
        let echoed = verifier.check(&copy, &task.dir.join("task.txt")).await?;
        verifier.expect(
            false,
            echoed,
            "when the answer is the question itself",
            &mut problems,
        );
    } else {
        let copy = ProjectCopy::create(&loaded.repo).await?;
        match copy.apply(&fix).await {
            Ok(()) => {
                let fixed = verifier.check(&copy, &empty).await?;
                verifier.expect(true, fixed, "after fix.patch", &mut problems);
            }
            Err(EvalError::Git { message, .. }) => problems.push(format!(
                "fix.patch does not apply: {}",
                message.lines().take(2).collect::<Vec<_>>().join(" ")
            )),
            Err(other) => return Err(other),
        }
    }

    let copy = ProjectCopy::create(&loaded.repo).await?;
    delete_tests(copy.path()).map_err(|source| EvalError::Write {
        path: copy.path().to_path_buf(),
        source,
    })?;
    let without_tests = verifier.check(&copy, &empty).await?;
    verifier.expect(
        false,
        without_tests,
        "with the repo's tests deleted",
        &mut problems,
    );
    Ok(problems)
}

/// What each check run of one task shares.
struct Verifier<'a> {
    task: &'a Task,
    loaded: &'a LoadedTask,
    log: &'a Path,
    timeout: Duration,
}

impl Verifier<'_> {
    async fn check(&self, copy: &ProjectCopy, answer: &Path) -> Result<CheckOutcome, EvalError> {
        CheckRun {
            script: &self.loaded.check,
            task_dir: &self.task.dir,
            project: copy.path(),
            answer,
            log: self.log,
            timeout: self.timeout,
        }
        .run(&CancellationToken::new())
        .await
    }

    /// Adds a problem unless the check `outcome` passed (or failed) as `pass` says it must.
    fn expect(&self, pass: bool, outcome: CheckOutcome, when: &str, problems: &mut Vec<String>) {
        if outcome.ending == Ending::TimedOut {
            problems.push(format!(
                "check.sh did not finish in {} s {when}",
                self.timeout.as_secs()
            ));
        } else if outcome.passed() != pass {
            let verb = if pass { "fails" } else { "passes" };
            let mut problem = format!("check {verb} {when}");
            if pass {
                problem.push_str(&format!(": {}", log_tail(self.log)));
            }
            problems.push(problem);
        }
    }
}

fn non_empty(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.len() > 0)
}

/// The last three lines of a check's log, on one line.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" ")
}

/// Whether a file is a test file by its name.
pub fn is_test_file(name: &str) -> bool {
    (name.starts_with("test_") && name.ends_with(".py"))
        || ["_test.py", "_test.go", ".test.js", ".test.ts"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
        || name.contains(".spec.")
}

/// Deletes the test files and the `test`/`tests` folders under `root` (`.git` left alone).
pub fn delete_tests(root: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if name == ".git" {
                continue;
            }
            if name == "test" || name == "tests" {
                std::fs::remove_dir_all(&path)?;
            } else {
                delete_tests(&path)?;
            }
        } else if is_test_file(&name) {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn test_files_are_known_by_name() {
        for name in [
            "test_x.py",
            "x_test.py",
            "x_test.go",
            "x.test.js",
            "x.test.ts",
            "x.spec.tsx",
        ] {
            assert!(is_test_file(name), "{name}");
        }
        for name in ["testing.py", "x.py", "contest.go", "test_data.json"] {
            assert!(!is_test_file(name), "{name}");
        }
    }

    #[test]
    fn deleting_tests_keeps_the_code_and_git() {
        let root = tempfile::tempdir().unwrap();
        let p = root.path();
        for dir in ["src", "tests/unit", "pkg/test", ".git/tests"] {
            std::fs::create_dir_all(p.join(dir)).unwrap();
        }
        for file in [
            "src/lib.py",
            "src/test_lib.py",
            "tests/unit/a.py",
            "pkg/x_test.go",
            "pkg/test/b.go",
            ".git/tests/keep",
        ] {
            std::fs::write(p.join(file), "").unwrap();
        }
        delete_tests(p).unwrap();
        assert!(p.join("src/lib.py").exists());
        assert!(p.join(".git/tests/keep").exists());
        for gone in ["src/test_lib.py", "tests", "pkg/x_test.go", "pkg/test"] {
            assert!(!p.join(gone).exists(), "{gone}");
        }
    }
}
