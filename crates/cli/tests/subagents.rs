//! Subagents through `keel run --json` with the scripted model: an explorer and a custom agent
//! from Claude Code's `.claude/agents/` run in parallel, their events carry `parent_call_id` in
//! the JSON lines, the `SubagentStop` hook fires for each child, `[subagents]` in keel.toml
//! applies; an untrusted project's agents are skipped with a warning naming the file.

use std::path::Path;

use keel_events::{AgentStatus, Event, EventKind};
use keel_test_support::ScriptBuilder;
use serde_json::json;

use crate::common::{events, keel};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn task(id: &str, kind: &str, prompt: &str) -> serde_json::Value {
    json!({"id": id, "name": "task", "arguments": {
        "description": format!("{kind} job"), "prompt": prompt, "subagent_type": kind}})
}

fn run(root: &Path, config: &Path, script: &Path, extra: &[&str]) -> Vec<Event> {
    let output = keel(config)
        .args(["run", "--json", "--root"])
        .arg(root)
        .arg(format!("--provider=scripted:{}", script.display()))
        .args(["--approval", "never"])
        .args(extra)
        .arg("find the helpers")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    events(&String::from_utf8(output.stdout).unwrap())
}

#[test]
fn keel_run_json_carries_the_children_events_with_their_parent_call() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    write(&root.join("src/lib.rs"), "pub fn helper() {}\n");
    write(
        &root.join(".claude/agents/finder.md"),
        "---\nname: finder\ndescription: Finds files.\ntools: Read, Grep, Glob\nmodel: inherit\n---\nList the paths.\n",
    );
    write(
        &root.join("keel.toml"),
        "[subagents]\nmax_parallel = 2\nmax_depth = 1\n\n[[hooks.SubagentStop]]\ncommand = \"true\"\n",
    );
    let script = ScriptBuilder::new()
        .turn(json!({"tool_calls": [
            task("t_e", "explorer", "[E] where is helper?"),
            task("t_f", "finder", "[F] list the sources"),
        ]}))
        .turn(json!({"agent": "[E]", "tool_calls": [
            {"id": "e1", "name": "search_files", "arguments": {"path": "src", "regex": "fn helper"}}]}))
        .turn(json!({"agent": "[E]", "text": "helper is in src/lib.rs"}))
        .turn(json!({"agent": "[F]", "text": "src/lib.rs"}))
        .text("helper is in src/lib.rs.");
    let script_path = dir.path().join("script.json");
    script.write(&script_path).unwrap();

    let all = run(&root, &config, &script_path, &["--trust"]);
    let end = all
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::AgentEnd(end) => Some(end),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.status, AgentStatus::Completed, "{}", end.result);
    for (id, kind) in [("t_e", "explorer"), ("t_f", "finder")] {
        let child: Vec<&Event> = all
            .iter()
            .filter(|e| e.parent_call_id.as_deref() == Some(id))
            .collect();
        assert!(
            matches!(&child[0].kind, EventKind::RunSubagentStart(s) if s.subagent_type == kind)
        );
        assert!(child.iter().any(|e| matches!(&e.kind,
            EventKind::RunSubagentEnd(end) if end.status == AgentStatus::Completed)));
        assert!(child.iter().any(|e| matches!(&e.kind,
            EventKind::RunHookEnd(hook) if hook.hook_event == "SubagentStop")));
    }
    assert!(
        all.iter()
            .any(|e| e.parent_call_id.as_deref() == Some("t_e")
                && matches!(&e.kind, EventKind::RunToolEnd(t) if t.tool_name == "search_files"))
    );

    // Untrusted: the project's agent is skipped, named in a warning; the session goes on.
    let untrusted = ScriptBuilder::new().text("Nothing to delegate.");
    untrusted.write(&script_path).unwrap();
    let all = run(&root, &config, &script_path, &[]);
    let finder = root.join(".claude/agents/finder.md");
    assert!(all.iter().any(|e| matches!(&e.kind,
        EventKind::SystemLog(log) if log.message.starts_with(&format!("{}:1: this folder is not trusted", finder.display())))));
    assert!(all.iter().any(|e| matches!(&e.kind,
        EventKind::AgentEnd(end) if end.status == AgentStatus::Completed)));
}
