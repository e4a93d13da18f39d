//! Custom commands over real HTTP on loopback (issue 26 §3): a session lists its project's
//! `/NAME ARGS` templates (Claude Code's `.claude/commands/` and `.keel/commands/`, unchanged)
//! with the files skipped; a turn whose input names one runs the expanded template with the
//! command's `allowed-tools`, a `Bash(git status:*)` entry letting `execute_command` run only
//! `git status…` in that turn; a template with an unknown placeholder is a 422 naming its file
//! and line; a `/…` naming no command is sent as written; the next turn has every tool again.

use keel_protocol::ApprovalPolicy;
use keel_test_support::ScriptBuilder;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{ALL, Options, TestServer};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn turn_events<'a>(events: &'a [Value], turn: &Value) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["turn_id"] == turn["id"])
        .collect()
}

#[tokio::test]
async fn commands_are_listed_expanded_and_limit_the_commands_run() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().join("project");
    std::fs::create_dir_all(root.join("data")).unwrap();
    write(
        &root.join(".claude/commands/review.md"),
        "---\ndescription: Review a file\nargument-hint: FILE\nallowed-tools: Read, Bash(git status:*)\n---\nReview $1 and say what changed.\n",
    );
    write(
        &root.join(".keel/commands/broken.md"),
        "---\ndescription: Uses a placeholder that does not exist\n---\nLook at $FOO.\n",
    );
    write(
        &root.join(".keel/commands/bad-front.md"),
        "---\ndescription: [unclosed\n---\nBody.\n",
    );
    let script = workspace.path().join("script.json");
    ScriptBuilder::new()
        .tool_call("execute_command", json!({"command": "rm -rf data"}))
        .tool_call("execute_command", json!({"command": "git status --short"}))
        .text("Reviewed.")
        .text("There is no such command here.")
        .tool_call("execute_command", json!({"command": "rm -rf data"}))
        .text("Removed.")
        .write(&script)
        .unwrap();
    let mut options = Options::new(script.to_str().unwrap());
    options.approval = ApprovalPolicy::Never;
    let s = TestServer::start_in(options, workspace).await;
    let root = root.canonicalize().unwrap();
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "commands", "root": root.to_str().unwrap()}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let session = body["id"].as_str().unwrap().to_owned();

    // Listed, with the file skipped.
    let (status, list) = s
        .get(&format!("/v1/sessions/{session}/commands"), ALL)
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let names: Vec<&str> = list["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["broken", "review"]);
    let review = &list["commands"][1];
    assert_eq!(review["description"], "Review a file");
    assert_eq!(review["argument_hint"], "FILE");
    assert_eq!(review["scope"], "project");
    assert_eq!(
        review["allowed_tools"],
        json!(["Read", "Bash(git status:*)"])
    );
    let warnings = list["warnings"].to_string();
    assert!(warnings.contains("bad-front.md:"), "{warnings}");

    // A template that cannot be expanded: nothing runs.
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{session}/turns"),
            ALL,
            json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "/broken"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("/broken not run: "), "{message}");
    assert!(
        message.contains("broken.md:4: unknown placeholder `$FOO`"),
        "{message}"
    );

    // The command's turn: the template expanded, `rm` refused by the Bash pattern, `git status` run.
    let turn = s.start_turn(&session, "/review src/app.py").await;
    let turn = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let events = s.events(&session).await;
    let these = turn_events(&events, &turn);
    let start = these.iter().find(|e| e["type"] == "agent.start").unwrap();
    assert_eq!(
        start["payload"]["task_input"],
        "Review src/app.py and say what changed.\n"
    );
    let ends: Vec<&&Value> = these
        .iter()
        .filter(|e| e["type"] == "run.tool.end")
        .collect();
    assert_eq!(ends[0]["payload"]["status"], "denied", "{}", ends[0]);
    let refusal = ends[0]["payload"]["result"].as_str().unwrap();
    assert!(
        refusal.contains("allowed-tools let execute_command run only `git status:*`"),
        "{refusal}"
    );
    assert!(root.join("data").exists());
    assert_ne!(ends[1]["payload"]["status"], "denied", "{}", ends[1]);

    // A `/…` naming no command is sent as written.
    let turn = s.start_turn(&session, "/deploy now").await;
    let turn = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    let events = s.events(&session).await;
    let start = turn_events(&events, &turn)
        .into_iter()
        .find(|e| e["type"] == "agent.start")
        .unwrap();
    assert_eq!(start["payload"]["task_input"], "/deploy now");

    // The next turn has every tool again: `rm` runs.
    let turn = s.start_turn(&session, "Remove the data folder").await;
    let turn = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    assert!(!root.join("data").exists());
    s.stop().await;
}
