//! Hooks through `keel run --json` with the scripted model: a PreToolUse hook that blocks
//! `rm`, one that rewrites a path, a PostToolUse formatter, a Stop hook that sends the model
//! back to work; the same hooks in Claude Code's `.claude/settings.json`; a hook command that
//! does not exist, one that hangs and one that prints invalid JSON, each a `system.log` while
//! the session goes on; and trust: a project's hooks skipped until `--trust` or `keel trust`.

use std::path::{Path, PathBuf};

use keel_events::{Event, EventKind, HookDecision, ToolStatus};
use keel_test_support::ScriptBuilder;
use keel_test_support::hooks::{
    BLOCK_RM, FOUR_HOOKS, claude_settings, four_hooks_project, four_hooks_script, keel_toml,
};
use serde_json::json;

use crate::common::{events, keel};

/// A project, a user folder, and the script.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    script: PathBuf,
}

fn project(script: &ScriptBuilder) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    four_hooks_project(&root).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    let script_path = dir.path().join("script.json");
    script.write(&script_path).unwrap();
    Project {
        _dir: dir,
        root,
        config,
        script: script_path,
    }
}

/// `keel run --json TASK` in the project, with `extra` flags.
fn run(p: &Project, extra: &[&str]) -> (Vec<Event>, String) {
    let provider = format!("--provider=scripted:{}", p.script.display());
    let output = keel(&p.config)
        .args(["run", "--json", "--root"])
        .arg(&p.root)
        .arg(&provider)
        .args(["--approval", "never"])
        .args(extra)
        .arg("do the task")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    (events(&stdout), stderr)
}

fn kinds(events: &[Event]) -> Vec<&EventKind> {
    events.iter().map(|e| &e.kind).collect()
}

fn logs(events: &[Event]) -> Vec<String> {
    kinds(events)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::SystemLog(log) => Some(log.message.clone()),
            _ => None,
        })
        .collect()
}

fn hook_ends(events: &[Event]) -> Vec<&keel_events::RunHookEnd> {
    kinds(events)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::RunHookEnd(end) => Some(end),
            _ => None,
        })
        .collect()
}

fn agent_end(events: &[Event]) -> &keel_events::AgentEnd {
    kinds(events)
        .into_iter()
        .find_map(|k| match k {
            EventKind::AgentEnd(end) => Some(end),
            _ => None,
        })
        .unwrap()
}

/// What the four hooks must have done.
fn check_four_hooks(p: &Project, events: &[Event], stderr: &str) {
    let end = agent_end(events);
    assert_eq!(end.result, "Tests run; all done.", "{stderr}");
    // PreToolUse blocked `rm`: the folder is there, the call denied with the hook's reason.
    assert!(p.root.join("data/keep.txt").exists());
    let rm = kinds(events)
        .into_iter()
        .find_map(|k| match k {
            EventKind::RunToolEnd(t) if t.tool_name == "execute_command" => Some(t),
            _ => None,
        })
        .unwrap();
    assert_eq!(rm.status, ToolStatus::Denied);
    assert!(
        rm.result.contains("rm is not allowed in this project"),
        "{}",
        rm.result
    );
    // PreToolUse rewrote the path; PostToolUse formatted the written file.
    assert!(!p.root.join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(p.root.join("out/b.txt")).unwrap(),
        "one\ntwo\n"
    );
    let ends = hook_ends(events);
    let decisions: Vec<(&str, HookDecision)> = ends
        .iter()
        .map(|e| (e.hook_event.as_str(), e.decision))
        .collect();
    assert_eq!(
        decisions,
        [
            ("PreToolUse", HookDecision::Block),
            ("PreToolUse", HookDecision::Allow),
            ("PostToolUse", HookDecision::Continue),
            ("Stop", HookDecision::Block),
            ("Stop", HookDecision::Continue),
        ],
        "{stderr}"
    );
    assert!(ends[0].call_id.is_some());
    assert!(ends[1].updated_input);
    assert!(ends.iter().all(|e| e.error.is_none()), "{ends:?}");
}

#[test]
fn four_hooks_from_keel_toml_block_rewrite_format_and_continue() {
    let p = project(&four_hooks_script());
    std::fs::write(p.root.join("keel.toml"), keel_toml(&FOUR_HOOKS)).unwrap();
    let (events, stderr) = run(&p, &["--trust"]);
    check_four_hooks(&p, &events, &stderr);
}

#[test]
fn the_same_hooks_in_claude_codes_settings_work_unchanged() {
    let p = project(&four_hooks_script());
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    std::fs::write(
        p.root.join(".claude/settings.json"),
        claude_settings(&FOUR_HOOKS),
    )
    .unwrap();
    let (events, stderr) = run(&p, &["--trust"]);
    check_four_hooks(&p, &events, &stderr);
}

#[test]
fn a_missing_command_a_hang_and_invalid_json_are_logs_and_the_session_goes_on() {
    let script = ScriptBuilder::new()
        .tool_call("write_file", json!({"path": "a.txt", "content": "a\n"}))
        .text("Written.");
    let p = project(&script);
    std::fs::write(
        p.root.join("keel.toml"),
        "[[hooks.PreToolUse]]\ncommand = \"no-such-hook-command\"\n\n\
         [[hooks.PreToolUse]]\ncommand = \"sleep 30\"\ntimeout = 1\n\n\
         [[hooks.PostToolUse]]\ncommand = \"echo '{not json'\"\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (events, stderr) = run(&p, &["--trust"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(agent_end(&events).result, "Written.", "{stderr}");
    assert!(p.root.join("a.txt").exists());
    let logs = logs(&events).join("\n");
    assert!(
        logs.contains("keel.toml:2) `no-such-hook-command` failed: exit code 127"),
        "{logs}"
    );
    assert!(
        logs.contains("`sleep 30` failed: timed out after 1 s"),
        "{logs}"
    );
    assert!(logs.contains("its output is not valid JSON"), "{logs}");
    assert_eq!(
        hook_ends(&events)
            .iter()
            .filter(|e| e.error.is_some())
            .count(),
        3
    );
}

#[test]
fn untrusted_project_hooks_are_skipped_until_trusted() {
    let script = ScriptBuilder::new()
        .tool_call("execute_command", json!({"command": "rm -rf data"}))
        .text("Removed.");
    let p = project(&script);
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    std::fs::write(
        p.root.join(".claude/settings.json"),
        claude_settings(&[("PreToolUse", "Bash", BLOCK_RM)]),
    )
    .unwrap();
    let (events, _) = run(&p, &[]);
    assert!(hook_ends(&events).is_empty());
    let logs = logs(&events).join("\n");
    assert!(logs.contains("is not a trusted folder"), "{logs}");
    assert!(logs.contains(".claude/settings.json:"), "{logs}");
    assert!(
        !p.root.join("data").exists(),
        "the untrusted hook did not run"
    );

    // `keel trust` persists; the next run's hook runs.
    std::fs::create_dir_all(p.root.join("data")).unwrap();
    let out = keel(&p.config).arg("trust").arg(&p.root).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = keel(&p.config).args(["trust", "--list"]).output().unwrap();
    let canonical = p.root.canonicalize().unwrap();
    assert_eq!(
        String::from_utf8(listed.stdout).unwrap().trim(),
        canonical.display().to_string()
    );
    let (events, _) = run(&p, &[]);
    assert_eq!(hook_ends(&events)[0].decision, HookDecision::Block);
    assert!(p.root.join("data").exists());

    let out = keel(&p.config)
        .args(["trust", "--revoke"])
        .arg(&canonical)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        !keel_extensions::TrustedFolders::load(Path::new(&p.config))
            .unwrap()
            .is_trusted(&p.root)
    );
}
