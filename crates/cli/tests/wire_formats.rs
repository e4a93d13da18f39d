//! The seeds' wire formats through the real binary: `keel run --json --format v1|paths`
//! (goldens of the fix-bug demo), and `keel import-log` into the project's store.

use crate::common;

use std::process::{Command, Stdio};

use keel_events::projection::WireFormat;
use keel_test_support::{repo_root, sample_project};
use serde_json::Value;

fn run_json(root: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let script = repo_root().join("examples/scripts/fix-bug.json");
    Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(root)
        .arg("--json")
        .args(extra)
        .arg("Fix the failing test")
        .env_remove("KEEL_MODEL")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn run_json_in_each_format() {
    for (format, name) in [(WireFormat::V1, "run_v1"), (WireFormat::Paths, "run_paths")] {
        let project = sample_project();
        let root = project.path().to_str().unwrap();
        let out = run_json(project.path(), &["--format", format.name()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = lines(&out.stdout);
        // The run's stored events, projected here, are exactly the lines it printed.
        let out = common::run_keel(&["sessions", "list", "--json", "--root", root], None);
        let session = lines(&out.stdout)[0]["id"].as_str().unwrap().to_owned();
        let out = common::run_keel(
            &["sessions", "show", &session, "--json", "--root", root],
            None,
        );
        let stored = common::events(&String::from_utf8_lossy(&out.stdout));
        let expected: Vec<Value> = stored.iter().filter_map(|e| format.to_value(e)).collect();
        assert_eq!(got, expected, "{format}");
        // The golden: what each line is called (token counts and command timings vary).
        let names: Vec<&str> = got
            .iter()
            .map(|line| match format {
                WireFormat::V1 => line["type"].as_str().unwrap(),
                _ => line["path"].as_str().unwrap(),
            })
            .collect();
        insta::assert_json_snapshot!(name, names);
    }
    let project = sample_project();
    let out = run_json(project.path(), &["--format", "xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("expected one of keel, v1, paths"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(["run", "--format", "v1", "task"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--format needs --json");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--json"));
}

#[test]
fn import_log_into_the_project_store() {
    let project = sample_project();
    let root = project.path().to_str().unwrap();
    let log = project.path().join("agent.log");
    std::fs::write(
        &log,
        b"[SelfRepairLoop] Attempt 1/3: Build failed: Cannot find module './x'\n\
          [rename] src/a.ts to src/b.ts\n\
          \n\
          bad \xc3\x28 utf8\n\
          done\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let out = common::run_keel(
        &[
            "import-log",
            log,
            "--project",
            "demo",
            "--root",
            root,
            "--json",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad line makes the exit status 1"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keel import-log: agent.log:4: skipped: not UTF-8 text (bad byte at column 5)\n"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["imported"], 3);
    assert_eq!(report["blank_lines"], 1);
    let session = report["session_id"].as_str().unwrap();

    let out = common::run_keel(
        &["sessions", "show", session, "--json", "--root", root],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = common::events(&String::from_utf8_lossy(&out.stdout));
    let records: Vec<Value> = events
        .iter()
        .flat_map(keel_events::projection::to_timeline_all)
        .map(|r| serde_json::json!({"type": r.payload.type_name(), "payload": r.payload}))
        .collect();
    insta::assert_json_snapshot!("imported_log_timeline", records);
    assert!(events.iter().all(|e| e.project_id == "demo"));

    // Text report, and clear usage errors.
    std::fs::write(project.path().join("ok.log"), "one\ntwo\n").unwrap();
    let ok = project.path().join("ok.log");
    let out = common::run_keel(
        &[
            "import-log",
            ok.to_str().unwrap(),
            "--project",
            "demo",
            "--root",
            root,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("imported 2 lines of ok.log into session "),
        "{text}"
    );
    for (args, needle) in [
        (
            vec!["import-log", "/no/such.log", "--project", "demo"],
            "cannot read /no/such.log",
        ),
        (
            vec!["import-log", log, "--project", " "],
            "`--project` must not be empty",
        ),
        (vec!["import-log", log], "--project"),
    ] {
        let out = common::run_keel(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{args:?}"
        );
    }
    // Standard input works too.
    let out = common::run_keel(
        &[
            "import-log",
            "-",
            "--project",
            "demo",
            "--root",
            root,
            "--json",
        ],
        Some("[move] x -> y\n"),
    );
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["imported"], 1);
}
