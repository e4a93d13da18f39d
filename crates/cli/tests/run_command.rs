//! `keel run` end to end: the real binary on a temp copy of the sample project with scripted
//! models, its JSON lines checked against the event contract.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::events;
use keel_test_support::{ScriptBuilder, repo_root, sample_project};

fn keel_run(script: &str, root: &Path, task: &str, extra: &[&str]) -> std::process::Output {
    let script = repo_root().join("examples/scripts").join(script);
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

#[test]
fn json_run_of_the_fix_bug_demo() {
    let project = sample_project();
    let out = keel_run(
        "fix-bug.json",
        project.path(),
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
    let events = events(&stdout);
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
    let fixed = std::fs::read_to_string(project.path().join("calc/stats.py")).unwrap();
    assert!(fixed.contains("return sum(values) / len(values)"));

    if std::env::var_os("KEEL_WRITE_SAMPLES").is_some_and(|v| v == "1") {
        let samples = repo_root().join("schemas/samples");
        std::fs::create_dir_all(&samples).unwrap();
        std::fs::write(samples.join("run-direct.jsonl"), &stdout).unwrap();
    }
}

#[test]
fn human_run_of_the_plan_demo() {
    let project = sample_project();
    let out = keel_run(
        "plan.json",
        project.path(),
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
    assert!(project.path().join("tests/test_mean.py").exists());
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
    ScriptBuilder::new()
        .error(401, "bad key")
        .write(&script)
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
    let events = events(&String::from_utf8(out.stdout).unwrap());
    assert!(events.iter().any(|e| e.type_name() == "system.error"));
}
