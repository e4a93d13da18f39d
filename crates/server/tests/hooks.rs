//! Hooks over real HTTP on loopback (issue 26 §1): the four hooks of every front end — a
//! PreToolUse hook that blocks `rm`, one that rewrites a path, a PostToolUse formatter, a Stop
//! hook that sends the model back to work — from the server's own configuration file, and the
//! same hooks in a project's `.claude/settings.json`, unchanged: skipped with a `system.log`
//! naming them while the project is not trusted, run under `trust_projects = true`.

use keel_protocol::ApprovalPolicy;
use keel_test_support::hooks::{
    FOUR_HOOKS, claude_settings, four_hooks_project, four_hooks_script, keel_toml,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{ALL, Options, TestServer};

/// A server whose configuration file is `config`, over a workspace holding the four hooks'
/// project (with `.claude/settings.json` when `claude` is set).
async fn server(config: String, claude: bool) -> (TestServer, std::path::PathBuf) {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().join("project");
    four_hooks_project(&root).unwrap();
    if claude {
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(
            root.join(".claude/settings.json"),
            claude_settings(&FOUR_HOOKS),
        )
        .unwrap();
    }
    let script = workspace.path().join("script.json");
    four_hooks_script().write(&script).unwrap();
    let mut options = Options::new(script.to_str().unwrap());
    options.approval = ApprovalPolicy::Never;
    options.config_file = Some(config);
    let s = TestServer::start_in(options, workspace).await;
    let root = root.canonicalize().unwrap();
    (s, root)
}

/// Runs one turn on a session over `root`; returns its events.
async fn run_turn(s: &TestServer, root: &std::path::Path) -> (Value, Vec<Value>) {
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "hooks", "root": root.to_str().unwrap()}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let session = body["id"].as_str().unwrap().to_owned();
    let turn = s.start_turn(&session, "do the task").await;
    let turn = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    (turn, s.events(&session).await)
}

fn of_type<'a>(events: &'a [Value], event_type: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == event_type).collect()
}

/// What the four hooks must have done, seen through the stored events and the files.
fn check_four_hooks(root: &std::path::Path, turn: &Value, events: &[Value]) {
    assert_eq!(turn["status"], "completed", "{turn}");
    let end = &of_type(events, "agent.end")[0]["payload"];
    assert_eq!(end["result"], "Tests run; all done.", "{end}");
    // PreToolUse blocked `rm`: the folder is there, the call denied with the hook's reason.
    assert!(root.join("data/keep.txt").exists());
    let rm = of_type(events, "run.tool.end")
        .into_iter()
        .find(|e| e["payload"]["tool_name"] == "execute_command")
        .unwrap();
    assert_eq!(rm["payload"]["status"], "denied", "{rm}");
    assert!(
        rm["payload"]["result"]
            .as_str()
            .unwrap()
            .contains("rm is not allowed in this project"),
        "{rm}"
    );
    // PreToolUse rewrote the path; PostToolUse formatted the written file.
    assert!(!root.join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("out/b.txt")).unwrap(),
        "one\ntwo\n"
    );
    let ends = of_type(events, "run.hook.end");
    let decisions: Vec<(&str, &str)> = ends
        .iter()
        .map(|e| {
            (
                e["payload"]["hook_event"].as_str().unwrap(),
                e["payload"]["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("PreToolUse", "block"),
            ("PreToolUse", "allow"),
            ("PostToolUse", "continue"),
            ("Stop", "block"),
            ("Stop", "continue"),
        ]
    );
    assert_eq!(ends[1]["payload"]["updated_input"], true);
    assert_eq!(of_type(events, "run.hook.start").len(), ends.len());
}

#[tokio::test]
async fn the_servers_own_hooks_block_rewrite_format_and_continue() {
    let (s, root) = server(keel_toml(&FOUR_HOOKS), false).await;
    let (turn, events) = run_turn(&s, &root).await;
    check_four_hooks(&root, &turn, &events);
    s.stop().await;
}

#[tokio::test]
async fn a_projects_claude_code_hooks_run_only_when_the_server_trusts_projects() {
    let (s, root) = server(String::new(), true).await;
    let (turn, events) = run_turn(&s, &root).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    assert!(of_type(&events, "run.hook.end").is_empty());
    let logs: Vec<&str> = of_type(&events, "system.log")
        .iter()
        .map(|e| e["payload"]["message"].as_str().unwrap())
        .collect();
    let skipped = logs.join("\n");
    assert!(skipped.contains("is not a trusted folder"), "{skipped}");
    assert!(skipped.contains(".claude/settings.json:"), "{skipped}");
    assert!(
        !root.join("data").exists(),
        "the untrusted hook did not run: rm did"
    );
    s.stop().await;

    let (s, root) = server("trust_projects = true\n".to_owned(), true).await;
    let (turn, events) = run_turn(&s, &root).await;
    check_four_hooks(&root, &turn, &events);
    s.stop().await;
}
