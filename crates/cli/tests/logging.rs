//! Library logs and the terminal: `keel run` keeps stderr free of log lines unless `-v` is
//! given (Keel's crates at debug) or `RUST_LOG` is set.

use std::process::{Output, Stdio};

use regex::Regex;

use keel_test_support::{repo_root, sample_project};

use crate::common::keel;

/// `keel run --json` of the fix-bug demo, with `extra` flags and `RUST_LOG` as given.
fn run_fix_bug(extra: &[&str], rust_log: Option<&str>) -> Output {
    let project = sample_project();
    let root = project.path();
    let mut command = keel(project.scratch());
    command
        .arg("run")
        .arg("--provider")
        .arg(format!(
            "scripted:{}",
            repo_root().join("examples/scripts/fix-bug.json").display()
        ))
        .arg("--root")
        .arg(root)
        .args(["--json", "--color", "never"])
        .args(extra)
        .arg("Fix the failing test")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    if let Some(filter) = rust_log {
        command.env("RUST_LOG", filter);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "exit {:?}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Lines of `stderr` that are `tracing` log lines (`TIMESTAMP  LEVEL target: …`).
fn log_lines(stderr: &[u8]) -> Vec<String> {
    let line = Regex::new(r"^\S+Z\s+(TRACE|DEBUG|INFO|WARN|ERROR) ").unwrap();
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| line.is_match(l))
        .map(str::to_owned)
        .collect()
}

#[test]
fn without_verbose_stderr_has_no_log_lines() {
    let output = run_fix_bug(&[], None);
    assert_eq!(log_lines(&output.stderr), Vec::<String>::new());
}

#[test]
fn verbose_logs_tool_calls_at_debug_on_stderr_only() {
    let output = run_fix_bug(&["-v"], None);
    let lines = log_lines(&output.stderr);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("DEBUG") && l.contains("tool call done")),
        "{lines:#?}"
    );
    assert!(log_lines(&output.stdout).is_empty());
}

#[test]
fn rust_log_turns_logs_on_without_verbose() {
    let output = run_fix_bug(&[], Some("keel_tools=debug"));
    let lines = log_lines(&output.stderr);
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|l| l.contains("keel_tools")), "{lines:#?}");
}
