//! Project instructions and the environment in the system prompt, over real HTTP against the
//! mock OpenAI server with real files: user-wide, root and extra instruction files at the start
//! of a turn, a nested `AGENTS.md` once the turn reads a file below it, `prepare.instructions.load`
//! each time the set changes, unusable files as warnings, and a system prompt that stays the
//! same between model calls when nothing new comes into view.

use crate::agent_common;
use crate::support;

use std::path::Path;
use std::sync::Arc;

use agent_common::*;
use keel_context::InstructionSources;
use keel_engine::{AgentSession, OpenAiConfig, OpenAiProvider};
use keel_events::{AgentStatus, EventKind, InstructionsScope, LogLevel, PrepareInstructionsLoad};
use keel_protocol::Mode;
use serde_json::{Value, json};
use support::*;

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project with root, extra and nested instruction files, a git HEAD, and a user folder.
fn project() -> (tempfile::TempDir, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let r = root.path();
    write(
        &user.path().join("AGENTS.md"),
        b"USER-RULE: answer briefly.",
    );
    write(
        &r.join("AGENTS.md"),
        b"ROOT-RULE: run `make check` before finishing.",
    );
    write(&r.join("CLAUDE.md"), b"EXTRA-RULE: prefer small commits.");
    write(
        &r.join("src/api/AGENTS.md"),
        b"NESTED-RULE: handlers stay thin.",
    );
    write(
        &r.join("src/api/handler.py"),
        b"def handle():\n    return 1\n",
    );
    write(&r.join("docs/AGENTS.md"), &[0xff, 0xfe, b'x']);
    write(&r.join("docs/guide.md"), b"# Guide\n");
    write(
        &r.join(".git/HEAD"),
        b"ref: refs/heads/feature/instructions\n",
    );
    (root, user)
}

/// The mock model: reads `path` (ranged, so nothing is focused), then answers.
async fn reader(path: &'static str) -> MockServer {
    MockServer::start(move |_, body: &Value| {
        let last = body["messages"].as_array().unwrap().last().unwrap();
        if last["role"] == "tool" {
            text_answer(&["Read it."])
        } else {
            let args = json!({"path": path, "start_line": 1, "end_line": 1});
            tool_call_answer("read_1", "read_file", &args.to_string())
        }
    })
    .await
}

fn session(root: &Path, user: &Path, server: &MockServer) -> (AgentSession, Collector) {
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "key", "mock-model")).unwrap(),
    );
    let user = user.to_path_buf();
    session_with(root, provider, &["mock-model"], move |c| {
        c.mode = Mode::Direct;
        c.repo_map = keel_engine::RepoMapConfig::disabled();
        c.instructions = InstructionSources {
            user_dir: Some(user),
            extra_files: vec!["CLAUDE.md".into()],
            ..InstructionSources::default()
        };
    })
}

fn loads(collector: &Collector) -> Vec<PrepareInstructionsLoad> {
    collector
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::PrepareInstructionsLoad(load) => Some(load),
            _ => None,
        })
        .collect()
}

fn system_prompt(server: &MockServer, request: usize) -> String {
    server.requests()[request].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_nested_agents_file_joins_the_prompt_once_a_file_below_it_is_read() {
    let (root, user) = project();
    let server = reader("src/api/handler.py").await;
    let (mut session, collector) = session(root.path(), user.path(), &server);
    let outcome = session.run_turn("Look at the handler").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);

    // At the start of the turn: user-wide, root, then the extra name.
    let loads = loads(&collector);
    assert_eq!(loads.len(), 2, "{loads:?}");
    let user_file = user.path().join("AGENTS.md").display().to_string();
    let files = |load: &PrepareInstructionsLoad| -> Vec<(String, InstructionsScope)> {
        load.files
            .iter()
            .map(|f| (f.path.clone(), f.scope))
            .collect()
    };
    assert_eq!(
        files(&loads[0]),
        [
            (user_file.clone(), InstructionsScope::User),
            ("AGENTS.md".to_owned(), InstructionsScope::Project),
            ("CLAUDE.md".to_owned(), InstructionsScope::Project),
        ]
    );
    // After the read: the nested file, last.
    assert_eq!(
        files(&loads[1])[3],
        ("src/api/AGENTS.md".to_owned(), InstructionsScope::Nested)
    );
    for load in &loads {
        assert!(load.files.iter().all(|f| f.tokens > 0 && !f.truncated));
        assert!(load.total_tokens > 0 && load.total_tokens <= load.max_tokens);
        assert_eq!(load.max_tokens, 8_192);
    }
    // Events in order: the first load before the first model call, the second after the read
    // and before the next call.
    let types = types(&collector.events());
    let at = |ty: &str, nth: usize| {
        types
            .iter()
            .enumerate()
            .filter(|(_, t)| **t == ty)
            .nth(nth)
            .unwrap()
            .0
    };
    assert!(at("prepare.instructions.load", 0) < at("run.llm.start", 0));
    assert!(at("run.tool.start", 0) < at("prepare.instructions.load", 1));
    assert!(at("prepare.instructions.load", 1) < at("run.llm.start", 1));

    // The prompts: the first without the nested file, the second with it, in order.
    let first = system_prompt(&server, 0);
    let second = system_prompt(&server, 1);
    assert!(!first.contains("NESTED-RULE"));
    let pos = |text: &str, needle: &str| text.find(needle).unwrap();
    assert!(pos(&second, "## Environment") < pos(&second, "## Project instructions"));
    assert!(pos(&second, "USER-RULE") < pos(&second, "ROOT-RULE"));
    assert!(pos(&second, "ROOT-RULE") < pos(&second, "EXTRA-RULE"));
    assert!(pos(&second, "EXTRA-RULE") < pos(&second, "NESTED-RULE"));
    assert!(second.contains("### src/api/AGENTS.md (applies under src/api/)"));

    // The environment: the root and its git branch.
    let root_path = root.path().canonicalize().unwrap();
    assert!(first.contains(&format!("- Project root: {}", root_path.display())));
    assert!(first.contains("- Git: a git repository, on branch `feature/instructions`"));
    assert!(first.contains(&format!("- Operating system: {}", std::env::consts::OS)));
    assert!(first.contains("- Date: 2"));
    assert!(first.contains("- Shell: commands run with `"));

    // The next turn starts from the user-wide and root files again, and says so.
    let server_requests = server.requests().len();
    session.run_turn("Once more").await;
    let all = self::loads(&collector);
    assert_eq!(all.len(), 4, "a load at the start, one after the read");
    assert_eq!(all[2], loads[0]);
    assert_eq!(all[3], loads[1]);
    assert_eq!(
        system_prompt(&server, server_requests),
        first,
        "the same turn-start prompt"
    );
}

#[tokio::test]
async fn the_prompt_stays_the_same_between_calls_when_nothing_new_is_found() {
    let (root, user) = project();
    // A file next to the root's AGENTS.md: no folder in between, nothing new.
    write(&root.path().join("top.py"), b"x = 1\n");
    let server = reader("top.py").await;
    let (mut session, collector) = session(root.path(), user.path(), &server);
    assert_eq!(
        session.run_turn("Look at top.py").await.status,
        AgentStatus::Completed
    );
    assert_eq!(loads(&collector).len(), 1);
    assert_eq!(system_prompt(&server, 0), system_prompt(&server, 1));
}

#[tokio::test]
async fn an_unusable_instructions_file_is_a_warning_not_a_failure() {
    let (root, user) = project();
    let server = reader("docs/guide.md").await;
    let (mut session, collector) = session(root.path(), user.path(), &server);
    let outcome = session.run_turn("Look at the guide").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let warnings: Vec<String> = collector
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::SystemLog(log) if log.level == LogLevel::Warn => Some(log.message),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("docs/AGENTS.md: it is not UTF-8 text; it is not used"),
        "{}",
        warnings[0]
    );
    // Nothing was added, so no second load.
    assert_eq!(loads(&collector).len(), 1);

    // The same file read again in a later turn is not warned about twice.
    session.run_turn("Again").await;
    let again = collector
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::SystemLog(l) if l.level == LogLevel::Warn))
        .count();
    assert_eq!(again, 1);
}

#[tokio::test]
async fn a_project_without_instruction_files_reports_none() {
    let root = tempfile::tempdir().unwrap();
    write(&root.path().join("a.py"), b"a = 1\n");
    let server = reader("a.py").await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "key", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(root.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
        c.repo_map = keel_engine::RepoMapConfig::disabled();
    });
    assert_eq!(
        session.run_turn("Look").await.status,
        AgentStatus::Completed
    );
    assert!(loads(&collector).is_empty());
    let prompt = system_prompt(&server, 0);
    assert!(prompt.contains("## Environment"));
    assert!(!prompt.contains("## Project instructions"));
}
