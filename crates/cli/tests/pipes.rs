//! The CLI in pipes and scripts: every command that writes to standard output ends quietly
//! with exit 0 when its reader has gone (`keel … | head`), and the shell completions and the
//! manual page generated from the command line work.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::keel;
use keel_test_support::{repo_root, sample_project};

/// `keel args` in `dir` with a clean environment, its standard output an open pipe.
fn keel_piped(config: &Path, args: &[&str]) -> Output {
    keel(config)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `keel args` whose standard output is a pipe nobody reads (its read end closed before the
/// process starts), like `keel … | head` after `head` has exited.
fn keel_into_closed_pipe(config: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    keel(config)
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// The command writes to standard output when read, and ends quietly with 0 when not.
fn assert_quiet_on_closed_pipe(config: &Path, args: &[&str]) {
    let out = keel_piped(config, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.stdout.is_empty(), "{args:?} wrote nothing");
    let out = keel_into_closed_pipe(config, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?} into a closed pipe: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "{args:?} into a closed pipe"
    );
}

#[test]
fn every_stdout_command_ends_quietly_on_a_closed_pipe() {
    let config = tempfile::tempdir().unwrap();
    let config = config.path();
    let project = sample_project();
    let root = project.path().to_str().unwrap();
    let script = repo_root().join("examples/scripts/fix-bug.json");
    let provider = format!("scripted:{}", script.display());

    // `keel run --json` first: its log feeds `replay`, its session `sessions show`.
    let run = [
        "run",
        "--provider",
        &provider,
        "--root",
        root,
        "--json",
        "Fix the failing test",
    ];
    let out = keel_piped(config, &run);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = project.path().join("run.jsonl");
    std::fs::write(&log, &out.stdout).unwrap();
    let session = common::events(&String::from_utf8_lossy(&out.stdout))[0]
        .session_id
        .clone();
    // A fresh project for the runs into closed pipes, so the first run's files stay as they are.
    let fresh = sample_project();
    let fresh_root = fresh.path().to_str().unwrap();
    let run_fresh = |format: &[&'static str]| {
        let mut args = vec![
            "run",
            "--provider",
            &provider,
            "--root",
            fresh_root,
            "--json",
        ];
        args.extend_from_slice(format);
        args.push("Fix the failing test");
        let out = keel_into_closed_pipe(config, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    };
    run_fresh(&[]);
    run_fresh(&["--format", "v1"]);

    std::fs::write(project.path().join("old.log"), "[move] a -> b\nplain\n").unwrap();
    let log_path = log.to_str().unwrap();
    let old_log = project.path().join("old.log");
    let commands: Vec<Vec<&str>> = vec![
        vec!["schema"],
        vec!["tool", "list"],
        vec![
            "tool",
            "call",
            "search_files",
            r#"{"path":".","regex":"."}"#,
            "--root",
            root,
        ],
        vec!["repomap", "--root", root],
        vec!["replay", log_path],
        vec!["sessions", "list", "--json", "--root", root],
        vec!["sessions", "list", "--root", root],
        vec!["sessions", "show", &session, "--root", root],
        vec!["sessions", "show", &session, "--json", "--root", root],
        vec!["checkpoints", "list", "--root", root],
        vec!["index", "--root", root, "--json"],
        vec!["search", "--root", root, "--json", "the failing test"],
        vec!["mcp", "list", "--json", "--root", root],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["--help"],
    ];
    for args in &commands {
        assert_quiet_on_closed_pipe(config, args);
    }
    // Importing writes to the store, so each run imports anew; both print a report.
    assert_quiet_on_closed_pipe(
        config,
        &[
            "import-log",
            old_log.to_str().unwrap(),
            "--project",
            "p",
            "--root",
            root,
        ],
    );
}

#[test]
fn bash_loads_the_completions() {
    let Ok(bash) = which_bash() else {
        if std::env::var_os("CI").is_some() {
            panic!("bash is not installed");
        }
        eprintln!("skipped: bash is not installed");
        return;
    };
    let script = format!(
        "source <('{}' completions bash) && complete -p keel",
        env!("CARGO_BIN_EXE_keel")
    );
    let out = Command::new(bash).args(["-c", &script]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("complete ") && stdout.contains(" -F _keel "),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with(" keel"), "{stdout}");
}

fn which_bash() -> Result<std::path::PathBuf, ()> {
    ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
        .ok_or(())
}

#[test]
fn completions_for_each_shell_and_the_manual_page() {
    let config = tempfile::tempdir().unwrap();
    for (shell, needle) in [
        ("bash", "_keel()"),
        ("zsh", "#compdef keel"),
        ("fish", "complete -c keel"),
    ] {
        let out = keel_piped(config.path(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(needle), "{shell}: {text}");
        assert!(text.contains("import-log"), "{shell} lists the subcommands");
    }
    let out = keel_piped(config.path(), &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));

    let out = keel_piped(config.path(), &["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
    assert!(page.contains(".TH keel 1"), "{page}");
    for sub in ["run", "replay", "import\\-log", "completions", "sessions"] {
        assert!(page.contains(sub), "{sub} missing from the manual page");
    }
}
