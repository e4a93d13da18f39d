//! The shadow workspace end to end, real processes and real files: a scripted `keel run
//! --shadow` that edits, creates, moves and deletes files (and runs a command that does too)
//! leaves the real tree byte-identical until `keel shadow apply`, which makes it equal to a
//! run of the same script without `--shadow`; a move is staged and applied as a move; an
//! outside edit meanwhile is a conflict, reported and not overwritten, and an outside edit of a
//! path the session did not change is what the agent reads next; some paths can be applied or
//! discarded alone, each leaving a `system.log` in the session's stored log; bad input loses
//! nothing.

use crate::common;

use std::path::Path;
use std::process::{Output, Stdio};

use common::{events, keel};
use keel_events::EventKind;
use keel_test_support::{SampleProject, ScriptBuilder, sample_project, tree_bytes};
use serde_json::{Value, json};

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Edits, creates, moves and deletes with the file tools, then a command that creates one
/// file and deletes another.
fn script() -> ScriptBuilder {
    ScriptBuilder::new()
        .tool_call(
            "write_file",
            json!({"path": "calc/rounding.py", "content": "DIGITS = 2\n"}),
        )
        .tool_call(
            "replace_in_file",
            json!({
                "path": "calc/stats.py",
                "diff": "<<<<<<< SEARCH\ndef mean(values):\n=======\ndef average(values):\n>>>>>>> REPLACE"
            }),
        )
        .tool_call(
            "move_file",
            json!({"fromPath": "README.md", "toPath": "docs/README.md"}),
        )
        .tool_call("delete_file", json!({"path": "tests/__init__.py"}))
        .tool_call(
            "execute_command",
            json!({
                "command": "echo built > build.txt && rm calc/__init__.py && cat calc/rounding.py",
                "requires_approval": false
            }),
        )
        .text("Done.")
}

/// `keel run --json` of `script` in `root`, with `extra` flags.
fn run(root: &Path, config_dir: &Path, extra: &[&str]) -> (Output, Vec<keel_events::Event>) {
    let file = config_dir.join("script.json");
    script().write(&file).unwrap();
    let out = keel(config_dir)
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", file.display()))
        .arg("--root")
        .arg(root)
        .args(extra)
        .args(["--json", "Tidy the project"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = events(&text(&out.stdout));
    (out, events)
}

fn shadow(root: &Path, config_dir: &Path, args: &[&str]) -> Output {
    keel(config_dir)
        .arg("shadow")
        .args(args)
        .arg("--root")
        .arg(root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The project after a run of the script without `--shadow`.
fn unshadowed_result() -> std::collections::BTreeMap<String, Vec<u8>> {
    let project = sample_project();
    run(project.path(), project.scratch(), &[]);
    tree_bytes(project.path()).unwrap()
}

fn staged_project() -> (SampleProject, std::collections::BTreeMap<String, Vec<u8>>) {
    let project = sample_project();
    let before = tree_bytes(project.path()).unwrap();
    let (_, events) = run(project.path(), project.scratch(), &["--shadow"]);
    let tools_ok = events.iter().all(|e| match &e.kind {
        EventKind::RunToolEnd(end) => end.status == keel_events::ToolStatus::Success,
        _ => true,
    });
    assert!(tools_ok, "a tool failed: {events:#?}");
    (project, before)
}

#[test]
fn a_shadowed_run_leaves_the_tree_untouched_until_apply() {
    let (project, before) = staged_project();
    let (root, dir) = (project.path(), project.scratch());
    assert_eq!(tree_bytes(root).unwrap(), before, "the real tree changed");

    // The diff lists every change, the command's too.
    let out = shadow(root, dir, &["diff", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let batch: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<(String, String)> = batch["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("build.txt", "created"),
        ("calc/__init__.py", "deleted"),
        ("calc/rounding.py", "created"),
        ("calc/stats.py", "updated"),
        ("docs/README.md", "moved"),
        ("tests/__init__.py", "deleted"),
    ]
    .iter()
    .map(|(p, k)| ((*p).to_owned(), (*k).to_owned()))
    .collect();
    assert_eq!(kinds, expected);
    assert_eq!(batch["changes"][4]["from"], "README.md", "{batch}");
    let diff = batch["diff"].as_str().unwrap();
    assert!(diff.contains("+def average"), "{diff}");
    assert!(diff.contains("+++ b/calc/rounding.py"), "{diff}");
    assert_eq!(tree_bytes(root).unwrap(), before, "diff changed the tree");

    let out = shadow(root, dir, &["apply"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("Applied 6 change(s)"), "{report}");
    assert!(
        report.contains("the shadow workspace is removed"),
        "{report}"
    );
    assert_eq!(tree_bytes(root).unwrap(), unshadowed_result());
    assert!(!root.join(".keel/shadow").read_dir().unwrap().any(|_| true));
}

#[test]
fn staged_events_say_staged_and_the_turn_names_the_batch() {
    let project = sample_project();
    let (_, events) = run(project.path(), project.scratch(), &["--shadow"]);
    let changes: Vec<&keel_events::RunFileChange> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunFileChange(change) => Some(change),
            _ => None,
        })
        .collect();
    assert!(
        changes.iter().all(|c| c.staged == Some(true)),
        "{changes:#?}"
    );
    // The move is one change, from and to.
    let moved: Vec<_> = changes
        .iter()
        .filter(|c| c.op == keel_events::FileOp::Move)
        .collect();
    assert_eq!(moved.len(), 1, "{changes:#?}");
    assert_eq!(moved[0].from_path.as_deref(), Some("README.md"));
    assert_eq!(moved[0].to_path.as_deref(), Some("docs/README.md"));
    // The command's changes are reported at the end of the turn.
    for path in ["build.txt", "calc/__init__.py"] {
        assert!(
            changes.iter().any(|c| c.path == path),
            "{path}: {changes:#?}"
        );
    }
    let announced = events.iter().any(|e| match &e.kind {
        EventKind::SystemLog(log) => log.message.contains("6 change(s) staged"),
        _ => false,
    });
    assert!(announced, "{events:#?}");
}

#[test]
fn an_outside_edit_is_a_conflict_and_is_not_overwritten() {
    let (project, _) = staged_project();
    let (root, dir) = (project.path(), project.scratch());
    std::fs::write(root.join("calc/stats.py"), "# edited by someone else\n").unwrap();

    let out = shadow(root, dir, &["apply", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["conflicts"][0]["path"], "calc/stats.py");
    assert!(
        report["conflicts"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("changed outside the session"),
        "{report}"
    );
    assert_eq!(report["applied"].as_array().unwrap().len(), 5, "{report}");
    assert_eq!(report["remaining"], json!(["calc/stats.py"]));
    assert_eq!(
        std::fs::read_to_string(root.join("calc/stats.py")).unwrap(),
        "# edited by someone else\n"
    );
    assert!(root.join("calc/rounding.py").exists());

    // Still staged, shown as a conflict, until discarded.
    let out = shadow(root, dir, &["diff"]);
    let shown = text(&out.stdout);
    assert!(
        shown.contains("calc/stats.py") && shown.contains("CONFLICT"),
        "{shown}"
    );
    let out = shadow(root, dir, &["discard"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(root.join("calc/stats.py")).unwrap(),
        "# edited by someone else\n"
    );
}

#[test]
fn some_paths_apply_alone_and_bad_input_changes_nothing() {
    // `shadow = true` in keel.toml does what `--shadow` does.
    let project = sample_project();
    let (root, dir) = (project.path(), project.scratch());
    std::fs::write(root.join("keel.toml"), "shadow = true\n").unwrap();
    let before = tree_bytes(root).unwrap();
    run(root, dir, &[]);
    assert_eq!(tree_bytes(root).unwrap(), before);

    // A path not in the batch: a clear error, nothing applied.
    let out = shadow(root, dir, &["apply", "calc/rounding.py", "nope.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("not in session")
            && stderr.contains("nope.txt")
            && stderr.contains("nothing was applied"),
        "{stderr}"
    );
    assert_eq!(tree_bytes(root).unwrap(), before);

    let out = shadow(
        root,
        dir,
        &["apply", "./calc/rounding.py", "docs/README.md"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = tree_bytes(root).unwrap();
    assert_eq!(after["calc/rounding.py"], b"DIGITS = 2\n");
    assert_eq!(after["docs/README.md"], before["README.md"]);
    assert!(!after.contains_key("README.md"), "the move was applied");
    assert_eq!(
        after["calc/stats.py"], before["calc/stats.py"],
        "only the paths asked for"
    );
    assert_eq!(after["tests/__init__.py"], before["tests/__init__.py"]);
    let out = shadow(root, dir, &["diff", "--json"]);
    let batch: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(batch["changes"].as_array().unwrap().len(), 4, "{batch}");

    // Discard: the rest is gone, and then there is nothing to apply or discard.
    let out = shadow(root, dir, &["discard"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(tree_bytes(root).unwrap(), after);
    for args in [&["apply"][..], &["discard"], &["diff"]] {
        let out = shadow(root, dir, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            text(&out.stderr).contains("pending shadow batch"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_damaged_shadow_is_reported_and_can_be_discarded() {
    let (project, before) = staged_project();
    let (root, dir) = (project.path(), project.scratch());
    let shadow_dir = root.join(".keel/shadow");
    let session = shadow_dir
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(session.join("base.json"), "{ not json").unwrap();
    for args in [&["diff"][..], &["apply"]] {
        let out = shadow(root, dir, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("is damaged") && stderr.contains("keel shadow discard"),
            "{stderr}"
        );
    }
    assert_eq!(tree_bytes(root).unwrap(), before);
    // A deleted copy is damage too.
    std::fs::remove_dir_all(session.join("tree")).unwrap();
    let out = shadow(root, dir, &["apply"]);
    assert!(
        text(&out.stderr).contains("`tree` folder is missing"),
        "{}",
        text(&out.stderr)
    );
    let out = shadow(root, dir, &["discard"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!session.exists());
    assert_eq!(tree_bytes(root).unwrap(), before);
}

/// The stored events of the project's only session, as `keel sessions show --json` prints them.
fn stored_events(root: &Path, config_dir: &Path) -> Vec<keel_events::Event> {
    let list = keel(config_dir)
        .args(["sessions", "list", "--json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(list.status.success(), "{}", text(&list.stderr));
    let row: Value = serde_json::from_str(text(&list.stdout).lines().next().unwrap()).unwrap();
    let id = row["id"].as_str().unwrap().to_owned();
    let out = keel(config_dir)
        .args(["sessions", "show", &id, "--json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    events(&text(&out.stdout))
}

fn logs(events: &[keel_events::Event]) -> Vec<&keel_events::SystemLog> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log) => Some(log),
            _ => None,
        })
        .collect()
}

#[test]
fn some_paths_discard_alone_and_apply_and_discard_leave_a_trace_in_the_session_log() {
    let (project, before) = staged_project();
    let (root, dir) = (project.path(), project.scratch());

    // Bad input: a path outside the root, a path not in the batch; nothing discarded.
    let out = shadow(root, dir, &["discard", "../outside.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("climbs out"),
        "{}",
        text(&out.stderr)
    );
    let out = shadow(root, dir, &["discard", "calc/stats.py", "nope.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("nope.txt") && stderr.contains("nothing was discarded"),
        "{stderr}"
    );
    let staged = |root: &Path| {
        let out = shadow(root, dir, &["diff", "--json"]);
        let batch: Value = serde_json::from_slice(&out.stdout).unwrap();
        batch["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["path"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(staged(root).len(), 6);

    // Discarding some paths (a move by its source) keeps the rest staged.
    let out = shadow(
        root,
        dir,
        &["discard", "calc/stats.py", "README.md", "--json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["discarded"],
        json!(["calc/stats.py", "docs/README.md"])
    );
    assert_eq!(
        staged(root),
        vec![
            "build.txt",
            "calc/__init__.py",
            "calc/rounding.py",
            "tests/__init__.py"
        ]
    );
    assert_eq!(tree_bytes(root).unwrap(), before);

    let out = shadow(root, dir, &["apply"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = tree_bytes(root).unwrap();
    assert_eq!(after["calc/stats.py"], before["calc/stats.py"]);
    assert_eq!(after["README.md"], before["README.md"]);
    assert!(after.contains_key("build.txt") && !after.contains_key("tests/__init__.py"));

    // Both left a system.log in the session's stored log, as the server's routes do.
    let stored = stored_events(root, dir);
    let logs = logs(&stored);
    let discard = logs
        .iter()
        .find(|l| l.message.starts_with("shadow discard"))
        .expect("a discard trace");
    assert!(
        discard.message.contains("calc/stats.py"),
        "{}",
        discard.message
    );
    let apply = logs
        .iter()
        .find(|l| l.message.starts_with("shadow apply"))
        .expect("an apply trace");
    assert_eq!(apply.level, keel_events::LogLevel::Info);
    assert!(
        apply.message.contains("4 change(s) applied") && apply.message.contains("build.txt"),
        "{}",
        apply.message
    );
}

#[test]
fn an_outside_edit_of_an_unchanged_path_is_what_the_agent_reads_next() {
    let project = sample_project();
    let (root, dir) = (project.path(), project.scratch());
    let script = ScriptBuilder::new()
        .tool_call("read_file", json!({"path": "calc/stats.py"}))
        // Someone else edits the real file while the session runs (the command runs in the
        // shadow view, four folders below the root).
        .tool_call(
            "execute_command",
            json!({
                "command": "printf 'EDITED_OUTSIDE = 1\\n' > ../../../../calc/stats.py",
                "requires_approval": false
            }),
        )
        .tool_call("read_file", json!({"path": "calc/stats.py"}))
        .text("Done.");
    let file = dir.join("script.json");
    script.write(&file).unwrap();
    let out = keel(dir)
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", file.display()))
        .arg("--root")
        .arg(root)
        .args(["--shadow", "--sandbox", "off", "--json", "Read it twice"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = events(&text(&out.stdout));
    let reads: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) if end.tool_name == "read_file" => Some(end.result.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reads.len(), 2, "{events:#?}");
    assert!(reads[0].contains("def mean"), "{}", reads[0]);
    assert!(reads[1].contains("EDITED_OUTSIDE"), "{}", reads[1]);
    // The outside edit is not the session's change: nothing is staged.
    let out = shadow(root, dir, &["diff"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}
