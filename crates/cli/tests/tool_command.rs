//! `keel tool list` and `keel tool call`, run as the real binary in a temporary folder.

use crate::common::run_keel;

use std::process::Output;

use serde_json::Value;

fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn list_names_every_tool_with_a_line() {
    let out = run_keel(&["tool", "list"], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "read_file",
        "write_file",
        "replace_in_file",
        "delete_file",
        "move_file",
        "list_files",
        "search_files",
        "execute_command",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{text}"));
        assert!(line.len() > name.len() + 10, "{line}");
    }
}

#[test]
fn call_success_and_failure_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let out = run_keel(
        &[
            "tool",
            "call",
            "write_file",
            r#"{"path":"a/b.txt","content":"hello\n"}"#,
            "--root",
            root,
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = json_out(&out);
    assert_eq!(result["success"], true);
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("Created `a/b.txt`")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/b.txt")).unwrap(),
        "hello\n"
    );
    // A checkpoint was persisted for a later rollback.
    assert!(dir.path().join(".keel/checkpoints").is_dir());

    let out = run_keel(
        &["tool", "call", "read_file", "-", "--root", root],
        Some(r#"{"path":"a/b.txt"}"#),
    );
    assert_eq!(out.status.code(), Some(0));
    let result = json_out(&out);
    assert_eq!(result["content"], "hello\n");

    let out = run_keel(
        &[
            "tool",
            "call",
            "read_file",
            r#"{"path":"missing.txt"}"#,
            "--root",
            root,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let result = json_out(&out);
    assert_eq!(result["success"], false);
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("File does not exist")
    );

    let out = run_keel(
        &[
            "tool",
            "call",
            "move_file",
            r#"{"fromPath":"a/b.txt","toPath":"c.txt"}"#,
            "--root",
            root,
            "--approval",
            "never",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_out(&out)["message"], "File moved: a/b.txt → c.txt");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["tool", "call", "read_file", "{not json", "--root", root],
            "not valid JSON",
        ),
        (
            vec!["tool", "call", "read_file", "[1]", "--root", root],
            "JSON object",
        ),
        (
            vec!["tool", "call", "frobnicate", "{}", "--root", root],
            "unknown tool `frobnicate`",
        ),
        (
            vec![
                "tool",
                "call",
                "read_file",
                "{}",
                "--root",
                "/definitely/not/here",
            ],
            "--root",
        ),
        (
            vec![
                "tool",
                "call",
                "read_file",
                "{}",
                "--root",
                root,
                "--approval",
                "sometimes",
            ],
            "unknown approval policy",
        ),
    ];
    for (args, needle) in cases {
        let out = run_keel(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    // Bad JSON from stdin too.
    let out = run_keel(
        &["tool", "call", "read_file", "-", "--root", root],
        Some("nope"),
    );
    assert_eq!(out.status.code(), Some(2));
    // clap's own usage errors are 2 as well.
    let out = run_keel(&["tool", "call"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn checkpoints_and_rollback_in_a_later_process() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    std::fs::write(dir.path().join("a.txt"), "before\n").unwrap();
    let out = run_keel(
        &[
            "tool",
            "call",
            "write_file",
            r#"{"path":"a.txt","content":"after\n"}"#,
            "--root",
            root,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let out = run_keel(
        &[
            "tool",
            "call",
            "write_file",
            r#"{"path":"b.txt","content":"new\n"}"#,
            "--root",
            root,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let out = run_keel(&["checkpoints", "list", "--json", "--root", root], None);
    assert_eq!(out.status.code(), Some(0));
    let usage = json_out(&out);
    let list = usage["checkpoints"].as_array().unwrap();
    assert_eq!(list.len(), 2, "one checkpoint per call outside a turn");
    assert_eq!(list[0]["files"], 1);
    let first = list[0]["id"].as_str().unwrap();
    let out = run_keel(&["rollback", first, "--root", root], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json_out(&out);
    assert_eq!(report["restored"][0], "a.txt");
    assert_eq!(report["removed"][0], "b.txt");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "before\n"
    );
    assert!(!dir.path().join("b.txt").exists());
    let out = run_keel(&["rollback", "no-such-id", "--root", root], None);
    assert_eq!(out.status.code(), Some(1));
}
