//! The prompts on a real terminal: `keel chat` in a tmux pane, answered with `send-keys`, the
//! screen read with `capture-pane`. While Keel waits for the person no spinner runs, the
//! request is shown once with its choices, and the cursor waits at the end of the choices
//! line; the screens are pinned as snapshots (ids and timings normalised). Covers a command
//! approval, an edit put up for approval with its diff (`approval_edits = "ask"`), a planning
//! question answered by an option's number, and the same approval in Simplified Chinese.

use std::path::{Path, PathBuf};

use crate::common::tmux::{Pane, chat, tmux_available};

use keel_test_support::ScriptBuilder;
use regex::Regex;
use serde_json::json;

/// The screen with what changes from run to run replaced: ids, timings, folders, token counts.
fn normalise(screen: &str, root: &Path) -> String {
    let uuid = Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let conv = Regex::new(r"conv_[0-9a-f]{32}").unwrap();
    let ms = Regex::new(r"\d+(\.\d+)? ?(ms|s)\b").unwrap();
    let screen = screen.replace(&root.display().to_string(), "[ROOT]");
    let screen = uuid.replace_all(&screen, "[SESSION]");
    let screen = conv.replace_all(&screen, "[CONVERSATION]");
    let screen = ms.replace_all(&screen, "[TIME]");
    // Token counts follow the system prompt and the tools' descriptions, which change often.
    let number = Regex::new(r"\d[\d,]*").unwrap();
    screen
        .lines()
        .map(|line| {
            if ["tokens", "令牌"].iter().any(|w| line.contains(w)) {
                number.replace_all(line, "[N]").into_owned()
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A project folder and a config folder.
fn folders() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(root.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    (dir, root, config)
}

/// Asserts that the cursor waits at the end of the line holding `choices`.
fn assert_cursor_after(pane: &Pane, choices: &str) {
    let (x, line) = pane.cursor();
    assert!(line.contains(choices), "the cursor is on `{line}`");
    // Columns count cells: CJK characters take two.
    let width: usize = line
        .trim_end()
        .chars()
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum();
    assert_eq!(
        x,
        width + 1,
        "the cursor is not after the choices: `{line}`"
    );
}

fn command_script(dir: &Path) -> PathBuf {
    let path = dir.join("command.json");
    ScriptBuilder::new()
        .tool_call(
            "execute_command",
            json!({"command": "rm -rf build", "requires_approval": true}),
        )
        .text("Cleaned.")
        .write(&path)
        .unwrap();
    path
}

#[test]
fn a_command_approval_is_asked_once_with_its_choices_and_no_spinner() {
    if !tmux_available() {
        return;
    }
    let (dir, root, config) = folders();
    let script = command_script(dir.path());
    let pane = chat(
        &config,
        &root,
        &script,
        "C.UTF-8",
        &["--approval", "always"],
    );
    pane.wait_for("Ctrl-D");
    pane.type_line("clean the build");
    let asked = pane.wait_for("[y]es [n]o [a]lways [e]dit ›");
    assert_eq!(asked.matches("rm -rf build").count(), 1, "{asked}");
    assert!(
        !asked.contains("Running"),
        "a spinner runs while asking:\n{asked}"
    );
    assert_cursor_after(&pane, "[y]es [n]o [a]lways [e]dit ›");
    insta::assert_snapshot!("command_approval_asked", normalise(&asked, &root));

    pane.type_line("y");
    let done = pane.wait_for("✓ completed");
    insta::assert_snapshot!("command_approval_answered", normalise(&done, &root));
}

#[test]
fn an_edit_is_shown_with_its_diff_before_it_applies() {
    if !tmux_available() {
        return;
    }
    let (dir, root, config) = folders();
    std::fs::write(root.join("keel.toml"), "approval_edits = \"ask\"\n").unwrap();
    let script = dir.path().join("edit.json");
    ScriptBuilder::new()
        .tool_call(
            "write_file",
            json!({"path": "notes.txt", "content": "one\n2\nthree\n"}),
        )
        .text("Left as it was.")
        .write(&script)
        .unwrap();
    let pane = chat(&config, &root, &script, "C.UTF-8", &[]);
    pane.wait_for("Ctrl-D");
    pane.type_line("number two");
    let asked = pane.wait_for("[y]es [n]o [a]lways ›");
    assert!(asked.contains("-two") && asked.contains("+2"), "{asked}");
    assert_cursor_after(&pane, "[y]es [n]o [a]lways ›");
    insta::assert_snapshot!("edit_approval_asked", normalise(&asked, &root));

    pane.type_line("n keep the word");
    let done = pane.wait_for("✓ completed");
    insta::assert_snapshot!("edit_approval_rejected", normalise(&done, &root));
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "one\ntwo\nthree\n",
        "a rejected edit changes nothing"
    );
}

#[test]
fn a_planning_question_takes_an_options_number() {
    if !tmux_available() {
        return;
    }
    let (dir, root, config) = folders();
    let script = dir.path().join("plan.json");
    ScriptBuilder::new()
        .turns([
            json!({"tool_calls": [{"id": "call_respond", "name": "plan_mode_respond",
                "arguments": {"response": "Patch mean() or rewrite the module?",
                              "options": ["patch", "rewrite"]}}]}),
            json!({"when_tool_result_contains": "The user answered: rewrite",
                   "text": "Rewriting, as asked."}),
            json!({"text": "Done."}),
        ])
        .write(&script)
        .unwrap();
    let pane = chat(&config, &root, &script, "C.UTF-8", &["--mode", "plan"]);
    pane.wait_for("Ctrl-D");
    pane.type_line("fix mean()");
    let asked = pane.wait_for("2. rewrite");
    assert_eq!(asked.matches("Patch mean()").count(), 1, "{asked}");
    assert_cursor_after(&pane, "›");
    insta::assert_snapshot!("plan_question_asked", normalise(&asked, &root));

    pane.type_line("2");
    let done = pane.wait_for("Rewriting, as asked.");
    assert!(done.contains("› rewrite"), "{done}");
}

#[test]
fn the_approval_speaks_the_locales_language() {
    if !tmux_available() {
        return;
    }
    let (dir, root, config) = folders();
    let script = command_script(dir.path());
    let pane = chat(
        &config,
        &root,
        &script,
        "zh_CN.UTF-8",
        &["--approval", "always"],
    );
    pane.wait_for("Ctrl-D");
    pane.type_line("clean the build");
    let asked = pane.wait_for("[e]编辑 ›");
    assert_cursor_after(&pane, "[e]编辑 ›");
    pane.type_line("n");
    let done = pane.wait_for("✓ 已完成");
    insta::assert_snapshot!("command_approval_zh_cn", normalise(&done, &root));
    assert!(asked.contains("需要审批命令"), "{asked}");
}
