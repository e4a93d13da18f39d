//! Subagents (issue 26 §4) with the scripted provider: a parent running two explorers in
//! parallel and a worker, their events nested by `parent_call_id` and overlapping in time, the
//! parent's window smaller than when it searches itself (the figures are printed), the
//! children's tokens counted once in the parent's; cancelling the parent ends the children;
//! the depth limit; custom agents from `.keel/agents/` and Claude Code's `.claude/agents/`;
//! bad agent files as warnings naming file and line while the session goes on; the compact
//! profile's prompt without `task`.

use crate::agent_common;

use std::path::Path;

use agent_common::*;
use keel_engine::agent::ToolProfile;
use keel_engine::{SubagentSettings, TASK};
use keel_events::{AgentStatus, Event, EventKind, LogLevel, ToolStatus};
use keel_protocol::{ApprovalPolicy, Mode};
use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project of 12 modules of 80 lines each; `parse_date` is defined in `src/mod_7.rs` and
/// called from `src/mod_3.rs` and `src/mod_9.rs`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..12 {
        let mut text = String::new();
        if n == 7 {
            text.push_str("pub fn parse_date(s: &str) -> Option<(u32, u32, u32)> { None }\n");
        }
        if n == 3 || n == 9 {
            text.push_str("fn uses() { let _ = crate::mod_7::parse_date(\"2026-11-28\"); }\n");
        }
        for i in 0..80 {
            text.push_str(&format!(
                "pub fn helper_{n}_{i}(value: u64) -> u64 {{ value.wrapping_mul({i}) + {n} }}\n"
            ));
        }
        write(&dir.path().join(format!("src/mod_{n}.rs")), &text);
    }
    dir
}

fn task(id: &str, kind: &str, description: &str, prompt: &str) -> Value {
    json!({"id": id, "name": TASK, "arguments": {
        "description": description, "prompt": prompt, "subagent_type": kind}})
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "name": name, "arguments": arguments})
}

/// The reads the callers' search makes, whether a child or the parent makes them.
fn caller_reads(prefix: &str) -> Vec<Value> {
    vec![
        call(
            &format!("{prefix}_r3"),
            "read_file",
            json!({"path": "src/mod_3.rs"}),
        ),
        call(
            &format!("{prefix}_r9"),
            "read_file",
            json!({"path": "src/mod_9.rs"}),
        ),
    ]
}

/// The parent hands the work to two explorers and a worker; each child's turns are marked by
/// the tag its prompt holds.
fn delegating_script() -> Value {
    json!({"delay_ms": 1, "turns": [
        {"text": "I will delegate.", "tool_calls": [
            task("t_def", "explorer", "Find parse_date", "[DEF] Where is parse_date defined?"),
            task("t_use", "explorer", "Find its callers", "[USE] Which files call parse_date? Read them."),
            task("t_note", "worker", "Write the note", "[NOTE] Write NOTES.md saying parse_date returns None."),
        ]},
        {"agent": "[DEF]", "tool_calls": [
            call("d1", "search_files", json!({"path": "src", "regex": "fn parse_date"}))]},
        {"agent": "[DEF]", "text": "parse_date is defined in src/mod_7.rs line 1."},
        {"agent": "[USE]", "tool_calls": caller_reads("u")},
        {"agent": "[USE]", "text": "src/mod_3.rs and src/mod_9.rs call parse_date in fn uses."},
        {"agent": "[NOTE]", "tool_calls": [
            call("n1", "write_file", json!({"path": "NOTES.md", "content": "parse_date returns None for now.\n"}))]},
        {"agent": "[NOTE]", "text": "Wrote NOTES.md."},
        {"text": "parse_date is in src/mod_7.rs, called from mod_3 and mod_9; NOTES.md written."}
    ]})
}

/// The same work done by the parent itself.
fn doing_it_myself_script() -> Value {
    let mut reads = vec![call(
        "d1",
        "search_files",
        json!({"path": "src", "regex": "fn parse_date"}),
    )];
    reads.extend(caller_reads("u"));
    json!({"turns": [
        {"tool_calls": reads},
        {"tool_calls": [call("n1", "write_file", json!({"path": "NOTES.md", "content": "parse_date returns None for now.\n"}))]},
        {"text": "parse_date is in src/mod_7.rs, called from mod_3 and mod_9; NOTES.md written."}
    ]})
}

fn direct(config: &mut keel_engine::AgentConfig) {
    config.mode = Mode::Direct;
    config.repo_map = keel_engine::RepoMapConfig::disabled();
    config.approval = ApprovalPolicy::Never;
    config.tool_profile = ToolProfile::Full;
}

/// Tokens of the top agent's last request (its last `run.context.window`).
fn parent_last_window(events: &[Event]) -> u64 {
    events
        .iter()
        .rev()
        .filter(|e| e.parent_call_id.is_none())
        .find_map(|e| match &e.kind {
            EventKind::RunContextWindow(w) => Some(w.tokens_used),
            _ => None,
        })
        .unwrap()
}

fn seq_of(events: &[Event], parent: &str, pick: impl Fn(&EventKind) -> bool) -> u64 {
    events
        .iter()
        .find(|e| e.parent_call_id.as_deref() == Some(parent) && pick(&e.kind))
        .map(|e| e.seq)
        .unwrap()
}

#[tokio::test]
async fn two_explorers_in_parallel_and_a_worker_report_back_in_a_small_window() {
    let dir = project();
    let (mut agent, events) = scripted(dir.path(), delegating_script(), direct);
    let outcome = agent
        .run_turn("Find parse_date and its callers, and write a note about it.")
        .await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let all = events.events();

    // Every child's events carry its task call; its start and end bracket them.
    for (id, kind) in [
        ("t_def", "explorer"),
        ("t_use", "explorer"),
        ("t_note", "worker"),
    ] {
        let start = seq_of(
            &all,
            id,
            |k| matches!(k, EventKind::RunSubagentStart(s) if s.subagent_type == kind),
        );
        let end = seq_of(
            &all,
            id,
            |k| matches!(k, EventKind::RunSubagentEnd(e) if e.status == AgentStatus::Completed),
        );
        assert!(
            all.iter()
                .filter(|e| e.parent_call_id.as_deref() == Some(id))
                .all(|e| (start..=end).contains(&e.seq)),
            "{id}"
        );
        let tool_start = all
            .iter()
            .find(|e| matches!(&e.kind, EventKind::RunToolStart(t) if t.call_id == id))
            .unwrap();
        assert_eq!(tool_start.parent_call_id, None);
        assert!(tool_start.seq < start);
    }
    // The children ran at once: every child started before any ended.
    let starts: Vec<u64> = ["t_def", "t_use", "t_note"]
        .iter()
        .map(|id| seq_of(&all, id, |k| matches!(k, EventKind::RunSubagentStart(_))))
        .collect();
    let first_end = ["t_def", "t_use", "t_note"]
        .iter()
        .map(|id| seq_of(&all, id, |k| matches!(k, EventKind::RunSubagentEnd(_))))
        .min()
        .unwrap();
    assert!(
        starts.iter().all(|s| *s < first_end),
        "{starts:?} {first_end}"
    );
    // The child's tool calls ran under it, the worker's write included.
    assert!(
        all.iter()
            .any(|e| e.parent_call_id.as_deref() == Some("t_use")
                && matches!(&e.kind, EventKind::RunToolEnd(t) if t.tool_name == "read_file"))
    );
    assert!(dir.path().join("NOTES.md").is_file());
    assert_eq!(outcome.files_changed, vec!["NOTES.md".to_owned()]);
    // Only the reports came back.
    let results: Vec<&str> = agent
        .conversation()
        .messages()
        .iter()
        .filter(|m| m.is_tool())
        .map(|m| m.content())
        .collect();
    assert!(results.contains(&"src/mod_3.rs and src/mod_9.rs call parse_date in fn uses."));
    assert!(!results.iter().any(|r| r.contains("helper_3_40")));

    // Tokens: the children's reports count once in the turn's and the session's totals.
    let child_tokens: u64 = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunSubagentEnd(end) => Some(end.usage.total_tokens),
            _ => None,
        })
        .sum();
    let reported: u64 = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunUsageReport(u) => Some(u.total_tokens),
            _ => None,
        })
        .sum();
    assert!(child_tokens > 0);
    assert_eq!(outcome.usage.total_tokens, reported);
    assert_eq!(agent.usage().total_tokens, reported);

    // The parent's window, against the parent doing the same work itself.
    let delegated = parent_last_window(&all);
    let dir = project();
    let (mut alone, alone_events) = scripted(dir.path(), doing_it_myself_script(), direct);
    let alone_outcome = alone
        .run_turn("Find parse_date and its callers, and write a note about it.")
        .await;
    assert_eq!(alone_outcome.status, AgentStatus::Completed);
    let itself = parent_last_window(&alone_events.events());
    println!(
        "parent's last request: {delegated} tokens with subagents, {itself} tokens doing the \
         search itself ({child_tokens} tokens used by the children)"
    );
    assert!(delegated * 2 < itself, "{delegated} vs {itself}");
}

#[tokio::test]
async fn cancelling_the_parent_ends_its_children() {
    let dir = project();
    let script = json!({"delay_ms": 40, "turns": [
        {"tool_calls": [
            task("t_a", "explorer", "Look", "[A] Look around slowly."),
            task("t_b", "explorer", "Look more", "[B] Look around slowly too."),
        ]},
        {"agent": "[A]", "text": "a long report that streams slowly, piece by piece, for a while"},
        {"agent": "[B]", "text": "another long report that streams slowly, piece by piece, too"},
        {"text": "never asked"}
    ]});
    let (mut agent, events) = scripted(dir.path(), script, direct);
    let cancel = agent.cancel_handle();
    let watcher = events.clone();
    let cancelled_at = tokio::spawn(async move {
        loop {
            let started = watcher
                .events()
                .iter()
                .filter(|e| {
                    matches!(e.kind, EventKind::RunLlmDelta(_)) && e.parent_call_id.is_some()
                })
                .count();
            if started >= 2 {
                let seq = watcher.events().last().unwrap().seq;
                cancel.cancel();
                return seq;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    });
    let outcome = agent.run_turn("Look around.").await;
    let cancelled_at = cancelled_at.await.unwrap();
    assert_eq!(outcome.status, AgentStatus::Cancelled);
    let all = events.events();
    let late: Vec<&Event> = all
        .iter()
        .filter(|e| e.parent_call_id.is_some() && e.seq > cancelled_at + 1)
        .collect();
    // After the cancel, a child says only that it ended, cancelled.
    assert!(
        late.iter().all(|e| matches!(&e.kind,
            EventKind::RunSubagentEnd(end) if end.status == AgentStatus::Cancelled)
            || matches!(e.kind, EventKind::RunLlmDelta(_) | EventKind::RunLlmEnd(_))),
        "{}",
        describe(&all)
    );
    for id in ["t_a", "t_b"] {
        assert!(all.iter().any(|e| e.parent_call_id.as_deref() == Some(id)
            && matches!(&e.kind, EventKind::RunSubagentEnd(end) if end.status == AgentStatus::Cancelled)));
        assert!(all.iter().any(|e| matches!(&e.kind,
            EventKind::RunToolEnd(t) if t.call_id == id && t.status == ToolStatus::Cancelled)));
    }
}

#[tokio::test]
async fn the_depth_limit_is_enforced() {
    let dir = project();
    let script = json!({"turns": [
        {"tool_calls": [task("t_w", "worker", "Nested", "[W] Delegate again.")]},
        {"agent": "[W]", "tool_calls": [task("t_inner", "explorer", "Deeper", "[X] Go deeper.")]},
        {"agent": "[W]", "text": "I could not delegate."},
        {"agent": "[X]", "text": "never reached"},
        {"text": "Done."}
    ]});
    let (mut agent, events) = scripted(dir.path(), script, |c| {
        direct(c);
        c.subagents = SubagentSettings {
            max_parallel: 3,
            max_depth: 1,
        };
    });
    let outcome = agent.run_turn("Nest.").await;
    assert_eq!(outcome.status, AgentStatus::Completed);
    let all = events.events();
    let refused = all
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunToolEnd(t) if t.call_id == "t_inner" => Some((e, t)),
            _ => None,
        })
        .unwrap();
    assert_eq!(refused.0.parent_call_id.as_deref(), Some("t_w"));
    assert_eq!(refused.1.status, ToolStatus::Error);
    assert!(
        refused.1.result.contains("max_depth = 1"),
        "{}",
        refused.1.result
    );
    assert!(
        !all.iter()
            .any(|e| e.parent_call_id.as_deref() == Some("t_inner"))
    );

    // With max_depth = 0 the tool is not offered at all.
    let (agent, _) = scripted(dir.path(), json!({"turns": []}), |c| {
        direct(c);
        c.subagents.max_depth = 0;
    });
    assert!(agent.tools().get(TASK).is_none());
}

fn agent_files(root: &Path) {
    write(
        &root.join(".keel/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a change for mistakes\ntools: read_file, search_files\n---\nYou review code. Report problems only.\n",
    );
    // Claude Code's format, unchanged.
    write(
        &root.join(".claude/agents/finder.md"),
        "---\nname: finder\ndescription: Finds files by name or content. Use proactively.\ntools: Read, Grep, Glob\nmodel: inherit\n---\n\nYou are a file finder. List the paths that match.\n",
    );
    // Bad: no front matter; a tool Keel does not have.
    write(
        &root.join(".keel/agents/broken.md"),
        "Just some text without front matter.\n",
    );
    write(
        &root.join(".claude/agents/odd.md"),
        "---\nname: odd\ndescription: Uses a tool that does not exist\ntools: Read, Teleport\n---\nDo odd things.\n",
    );
}

fn warnings(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log) if log.level == LogLevel::Warn => Some(log.message.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn custom_agents_from_keel_and_claude_folders_run_and_bad_files_are_named() {
    let dir = project();
    agent_files(dir.path());
    let script = json!({"turns": [
        {"tool_calls": [
            task("t_r", "reviewer", "Review", "[R] Review src/mod_7.rs."),
            task("t_f", "finder", "Find", "[F] Find parse_date."),
            task("t_o", "odd", "Odd", "[O] Do it."),
            task("t_x", "broken", "Broken", "[Z] Never."),
        ]},
        {"agent": "[R]", "tool_calls": [call("r1", "read_file", json!({"path": "src/mod_7.rs"}))]},
        {"agent": "[R]", "text": "No problems."},
        {"agent": "[F]", "tool_calls": [call("f1", "search_files", json!({"path": "src", "regex": "parse_date"}))]},
        {"agent": "[F]", "text": "src/mod_7.rs"},
        {"agent": "[O]", "text": "Done oddly."},
        {"text": "All reported."}
    ]});
    let (mut agent, events) = scripted(dir.path(), script, |c| {
        direct(c);
        c.trust_project = true;
    });
    let description = agent.tools().get(TASK).unwrap().description();
    for name in ["explorer", "worker", "reviewer", "finder", "odd"] {
        assert!(
            description.contains(&format!("- {name}: ")),
            "{description}"
        );
    }
    assert!(!description.contains("broken"));
    let outcome = agent.run_turn("Review and find.").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let all = events.events();
    for (id, kind) in [("t_r", "reviewer"), ("t_f", "finder"), ("t_o", "odd")] {
        assert!(all.iter().any(|e| e.parent_call_id.as_deref() == Some(id)
            && matches!(&e.kind, EventKind::RunSubagentEnd(end)
                if end.subagent_type == kind && end.status == AgentStatus::Completed)));
    }
    let unknown = all
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunToolEnd(t) if t.call_id == "t_x" => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(unknown.status, ToolStatus::Error);
    assert!(
        unknown.result.contains("no subagent type `broken`"),
        "{}",
        unknown.result
    );
    let warnings = warnings(&all);
    let broken = dir.path().join(".keel/agents/broken.md");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with(&format!("{}:1: no front matter", broken.display()))),
        "{warnings:?}"
    );
    let odd = dir.path().join(".claude/agents/odd.md");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with(&format!("{}:4:", odd.display())) && w.contains("`Teleport`")),
        "{warnings:?}"
    );
}

#[tokio::test]
async fn an_untrusted_folders_agents_are_not_loaded() {
    let dir = project();
    agent_files(dir.path());
    let (mut agent, events) = scripted(dir.path(), json!({"turns": [{"text": "Hi."}]}), direct);
    let description = agent.tools().get(TASK).unwrap().description();
    assert!(!description.contains("reviewer"));
    agent.run_turn("Hello.").await;
    let warnings = warnings(&events.events());
    let reviewer = dir.path().join(".keel/agents/reviewer.md");
    assert!(
        warnings.iter().any(|w| w.starts_with(&format!(
            "{}:1: this folder is not trusted",
            reviewer.display()
        ))),
        "{warnings:?}"
    );
}

#[tokio::test]
async fn the_compact_profile_does_not_offer_task_and_its_prompt_does_not_grow() {
    let dir = project();
    let first_window = |max_depth: u32| {
        let root = dir.path().to_path_buf();
        async move {
            let (mut agent, events) = scripted(&root, json!({"turns": [{"text": "Hi."}]}), |c| {
                direct(c);
                c.tool_profile = ToolProfile::Compact;
                c.subagents.max_depth = max_depth;
            });
            agent.run_turn("What does src/mod_7.rs define?").await;
            parent_last_window(&events.events())
        }
    };
    let with_subagents = first_window(2).await;
    let without = first_window(0).await;
    assert_eq!(with_subagents, without);
}
