//! Skills over real HTTP against the mock OpenAI server, with real folders: the system prompt
//! lists each skill's name and description and not its body (which costs nothing until the
//! model asks: the first prompt's token count grows by the list, not by the body), the `skill`
//! tool returns the body and the skill's folder, a `SKILL.md` without front matter is a warning
//! naming its file and line while the turn goes on, a session without skills has no `skill`
//! tool, and `allowed-tools` overrides limit one turn's tools.

use crate::agent_common;
use crate::support;

use std::path::Path;
use std::sync::Arc;

use agent_common::*;
use keel_context::InstructionSources;
use keel_engine::{AgentSession, OpenAiConfig, OpenAiProvider, TurnOverrides};
use keel_events::{AgentStatus, EventKind, LogLevel};
use keel_protocol::Mode;
use serde_json::{Value, json};
use support::*;

/// A marker only the skill's body holds.
const BODY_MARKER: &str = "ROLLOUT-STEP-MARKER";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A long body: a skill's instructions are often pages.
fn body() -> String {
    (1..=150)
        .map(|i| format!("{i}. {BODY_MARKER}: check the canary dashboard, then widen the rollout by one region.\n"))
        .collect()
}

/// The mock model: asks for the `deploy` skill, then answers.
async fn skill_user() -> MockServer {
    MockServer::start(move |_, body: &Value| {
        let last = body["messages"].as_array().unwrap().last().unwrap();
        if last["role"] == "tool" {
            text_answer(&["Done."])
        } else {
            tool_call_answer("skill_1", "skill", &json!({"name": "deploy"}).to_string())
        }
    })
    .await
}

async fn answerer() -> MockServer {
    MockServer::start(move |_, _| text_answer(&["Done."])).await
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
            ..InstructionSources::default()
        };
    })
}

fn system_prompt(server: &MockServer, request: usize) -> String {
    server.requests()[request].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn tool_names(server: &MockServer, request: usize) -> Vec<String> {
    server.requests()[request].body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The tokens of the first prompt, as `run.context.window` reported them.
fn first_prompt_tokens(collector: &Collector) -> u64 {
    collector
        .events()
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::RunContextWindow(window) => Some(window.tokens_used),
            _ => None,
        })
        .unwrap()
}

fn project_with_skill() -> (tempfile::TempDir, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    write(
        &root.path().join(".keel/skills/deploy/SKILL.md"),
        &format!(
            "---\nname: deploy\ndescription: Roll the service out region by region.\n---\n{}",
            body()
        ),
    );
    write(
        &root.path().join(".keel/skills/deploy/regions.txt"),
        "eu\nus\n",
    );
    // No front matter: skipped with a warning, the session goes on.
    write(
        &user.path().join("skills/notes/SKILL.md"),
        "# Notes\nJust text.\n",
    );
    (root, user)
}

#[tokio::test]
async fn the_prompt_lists_skills_and_the_body_comes_only_through_the_tool() {
    let (root, user) = project_with_skill();
    let server = skill_user().await;
    let (mut session, collector) = session(root.path(), user.path(), &server);
    let outcome = session.run_turn("Deploy the service").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);

    let first = system_prompt(&server, 0);
    assert!(first.contains("## Skills"), "{first}");
    assert!(
        first.contains("- deploy: Roll the service out region by region."),
        "{first}"
    );
    assert!(
        !first.contains(BODY_MARKER),
        "the body is in the first prompt"
    );
    assert!(!first.contains("notes"), "{first}");
    assert!(tool_names(&server, 0).contains(&"skill".to_owned()));
    // The skill list sits in the system prompt, which the next call repeats unchanged.
    assert_eq!(system_prompt(&server, 1), first);

    // The body arrives as the tool's result, with the folder and the file beside it.
    let messages = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let result = messages.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(result.contains(BODY_MARKER), "{result}");
    assert!(result.contains("Folder: .keel/skills/deploy"), "{result}");
    assert!(result.contains("regions.txt"), "{result}");

    // The skipped file: a warning naming it and its line.
    let warnings: Vec<String> = collector
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::SystemLog(log) if log.level == LogLevel::Warn => Some(log.message),
            _ => None,
        })
        .collect();
    let file = user.path().join("skills/notes/SKILL.md");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with(&format!("{}:1: no front matter", file.display()))),
        "{warnings:?}"
    );
}

#[tokio::test]
async fn the_body_costs_no_prompt_tokens_until_it_is_loaded() {
    // Without any skill.
    let bare = tempfile::tempdir().unwrap();
    let nobody = tempfile::tempdir().unwrap();
    let server = answerer().await;
    let (mut session_bare, collector_bare) = session(bare.path(), nobody.path(), &server);
    session_bare.run_turn("Deploy the service").await;
    let without = first_prompt_tokens(&collector_bare);
    assert!(!tool_names(&server, 0).contains(&"skill".to_owned()));

    // With the skill.
    let (root, user) = project_with_skill();
    let server = answerer().await;
    let (mut session, collector) = session(root.path(), user.path(), &server);
    session.run_turn("Deploy the service").await;
    let with = first_prompt_tokens(&collector);

    let counter = keel_context::TokenCounter::for_model("mock-model");
    let body_tokens = counter.count(&body()) as u64;
    let added = with - without;
    eprintln!(
        "first prompt: {without} tokens without skills, {with} with one skill listed; its body is {body_tokens} tokens"
    );
    assert!(body_tokens > 1_000, "{body_tokens}");
    assert!(
        added < 250,
        "listing one skill and offering the tool added {added} tokens"
    );
}

#[tokio::test]
async fn a_turn_with_allowed_tools_offers_only_those() {
    let root = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let server = answerer().await;
    let (mut session, _) = session(root.path(), user.path(), &server);
    let problems = session.apply_overrides(&TurnOverrides {
        model: Some("other-model".into()),
        tools: Some(vec!["Read".into(), "search_files".into(), "nope".into()]),
    });
    assert_eq!(problems, ["no tool `nope`"]);
    session.run_turn("Look").await;
    session.clear_overrides();
    session.run_turn("Look again").await;

    let requests = server.requests();
    assert_eq!(requests[0].body["model"], "other-model");
    let limited = tool_names(&server, 0);
    assert!(limited.contains(&"read_file".to_owned()), "{limited:?}");
    assert!(limited.contains(&"search_files".to_owned()), "{limited:?}");
    assert!(
        !limited.contains(&"execute_command".to_owned()),
        "{limited:?}"
    );
    assert!(!limited.contains(&"write_file".to_owned()), "{limited:?}");
    assert_eq!(requests[1].body["model"], "mock-model");
    assert!(tool_names(&server, 1).contains(&"execute_command".to_owned()));
}

/// Claude Code's `Edit` covers every file edit: a command allowed `Read, Edit` is offered
/// `write_file` too (a small model's whole-file answer is written, not refused), and
/// `Bash(pattern)` entries offer `execute_command`.
#[tokio::test]
async fn claude_codes_edit_allows_write_file_and_bash_patterns_offer_commands() {
    let root = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let server = answerer().await;
    let (mut session, _) = session(root.path(), user.path(), &server);
    let problems = session.apply_overrides(&TurnOverrides {
        model: None,
        tools: Some(vec![
            "Read".into(),
            "Edit".into(),
            "Bash(python3 -m unittest:*)".into(),
        ]),
    });
    assert!(problems.is_empty(), "{problems:?}");
    session.run_turn("Fix it").await;
    let offered = tool_names(&server, 0);
    for tool in [
        "read_file",
        "replace_in_file",
        "write_file",
        "execute_command",
    ] {
        assert!(offered.contains(&tool.to_owned()), "{tool}: {offered:?}");
    }
    assert!(!offered.contains(&"delete_file".to_owned()), "{offered:?}");
}
