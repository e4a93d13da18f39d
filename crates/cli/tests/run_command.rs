//! `keel run` end to end: the real binary on a temp copy of the sample project with scripted
//! models, its JSON lines checked against the event contract.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn keel_run(script: &str, root: &Path, task: &str, extra: &[&str]) -> std::process::Output {
    let script = repo().join("examples/scripts").join(script);
    Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(root)
        .args(extra)
        .arg(task)
        .env_remove("KEEL_MODEL")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn parse_all(stdout: &str) -> Vec<keel_events::Event> {
    stdout
        .lines()
        .enumerate()
        .map(|(n, line)| {
            keel_events::parse_line(n + 1, line)
                .unwrap_or_else(|e| panic!("line {} does not parse: {e}\n{line}", n + 1))
        })
        .collect()
}

#[test]
fn json_run_of_the_fix_bug_demo() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/sample-project"), dir.path());
    let out = keel_run(
        "fix-bug.json",
        dir.path(),
        "Fix the failing test",
        &["--json"],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let events = parse_all(&stdout);
    let types: Vec<&str> = events.iter().map(|e| e.type_name()).collect();
    assert_eq!(types.first(), Some(&"agent.start"));
    assert_eq!(types.last(), Some(&"agent.end"));
    for expected in [
        "run.tool.start",
        "run.file.change",
        "run.tool.end",
        "run.completion.attempt",
    ] {
        assert!(types.contains(&expected), "no {expected} in {types:?}");
    }
    assert!(events.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    let fixed = std::fs::read_to_string(dir.path().join("calc/stats.py")).unwrap();
    assert!(fixed.contains("return sum(values) / len(values)"));

    if std::env::var_os("KEEL_WRITE_SAMPLES").is_some_and(|v| v == "1") {
        let samples = repo().join("schemas/samples");
        std::fs::create_dir_all(&samples).unwrap();
        std::fs::write(samples.join("run-direct.jsonl"), &stdout).unwrap();
    }
}

#[test]
fn human_run_of_the_plan_demo() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/sample-project"), dir.path());
    let out = keel_run(
        "plan.json",
        dir.path(),
        "Fix mean() and tidy the tests",
        &["--color", "never"],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Rename the test module"), "{stdout}");
    assert!(stdout.contains("completed"), "{stdout}");
    assert!(dir.path().join("tests/test_mean.py").exists());
}

#[test]
fn openai_without_a_key_says_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(["run", "--root"])
        .arg(dir.path())
        .arg("hello")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}

#[test]
fn a_failed_run_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"turns": [{"error": {"status": 401, "message": "bad key"}}]}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(dir.path())
        .args(["--json", "hello"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let events = parse_all(&String::from_utf8(out.stdout).unwrap());
    assert!(events.iter().any(|e| e.type_name() == "system.error"));
}
