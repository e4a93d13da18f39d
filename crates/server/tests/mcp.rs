//! MCP servers of the server's own configuration, over real HTTP: a scripted turn calls
//! `mcp__everything__echo` on the reference npm server, `GET /v1/sessions/{id}/mcp` shows
//! where each server is, a broken one is a warning the turn goes on without; and file runs
//! are confined by the server's sandbox.

use std::collections::BTreeMap;

use keel_mcp::ServerConfig;
use keel_test_support::ScriptBuilder;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{ALL, Options, TestServer};

fn everything() -> Option<std::path::PathBuf> {
    keel_test_support::processes::external_program(
        "mcp-server-everything",
        "KEEL_MCP_EVERYTHING",
        "npm install -g @modelcontextprotocol/server-everything",
    )
}

fn server(name: &str, command: &str) -> (String, ServerConfig) {
    (
        name.to_owned(),
        ServerConfig {
            command: Some(command.to_owned()),
            startup_timeout_secs: Some(20),
            ..ServerConfig::default()
        },
    )
}

fn by_name<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {list}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_turn_calls_an_mcp_tool_of_the_servers_configuration() {
    let Some(everything) = everything() else {
        return;
    };
    let scripts = tempfile::tempdir().unwrap();
    let script = scripts.path().join("echo.json");
    ScriptBuilder::new()
        .tool_call(
            "mcp__everything__echo",
            json!({"message": "hi from keel-server"}),
        )
        .text("The server echoed it.")
        .write(&script)
        .unwrap();
    let mut options = Options::new(script.to_str().unwrap());
    options.mcp_servers = BTreeMap::from([
        server("everything", everything.to_str().unwrap()),
        server("broken", "/no/such/mcp-server"),
    ]);
    let s = TestServer::start(options).await;
    let id = s.create_session("p1", ALL).await;

    // Before any turn nothing has started.
    let (status, list) = s.get(&format!("/v1/sessions/{id}/mcp"), ALL).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(by_name(&list, "everything")["state"], "stopped", "{list}");

    let turn = s.start_turn(&id, "echo something").await;
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");

    let events = s.events(&id).await;
    let end = events
        .iter()
        .find(|e| {
            e["type"] == "run.tool.end" && e["payload"]["tool_name"] == "mcp__everything__echo"
        })
        .unwrap_or_else(|| panic!("no MCP tool end in {events:#?}"));
    assert_eq!(end["payload"]["mcp_server"], "everything", "{end}");
    assert_eq!(end["payload"]["status"], "success", "{end}");
    assert!(
        end["payload"]["result"]
            .as_str()
            .unwrap()
            .contains("hi from keel-server"),
        "{end}"
    );
    let warned = events.iter().any(|e| {
        e["type"] == "system.log"
            && e["payload"]["level"] == "warn"
            && e["payload"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("`broken` could not start"))
    });
    assert!(warned, "no warning about the broken server in {events:#?}");

    let (status, list) = s.get(&format!("/v1/sessions/{id}/mcp"), ALL).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let running = by_name(&list, "everything");
    assert_eq!(running["state"], "running", "{list}");
    assert!(
        running["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["offered_as"] == "mcp__everything__echo"),
        "{list}"
    );
    let broken = by_name(&list, "broken");
    assert_eq!(broken["state"], "failed", "{list}");
    assert!(
        broken["reason"].as_str().unwrap().contains("was not found"),
        "{list}"
    );

    // Another project's token cannot look.
    let (status, _) = s
        .get(&format!("/v1/sessions/{id}/mcp"), crate::common::P2)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_without_mcp_servers_lists_none_and_a_request_body_cannot_add_one() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": s.workspace.to_str().unwrap(), "title": "t",
                   "mcp_servers": {"evil": {"command": "sh"}}}),
        )
        .await;
    // A request cannot configure MCP servers: the field is refused by name.
    assert!(status.is_client_error(), "{status} {body}");
    assert!(body.to_string().contains("mcp_servers"), "{body}");
    let id = s.create_session("p1", ALL).await;
    let (status, list) = s.get(&format!("/v1/sessions/{id}/mcp"), ALL).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list, json!({"servers": []}));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_runs_are_confined_by_the_servers_sandbox() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().canonicalize().unwrap().join("escaped.txt");
    std::fs::write(
        s.workspace.join("escape.sh"),
        format!("echo in > inside.txt\necho out > {}\n", target.display()),
    )
    .unwrap();
    let id = s.create_session("p1", ALL).await;
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/file-runs"),
            ALL,
            json!({"path": "escape.sh"}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let exit = s.wait_event(&id, "exec.file.exit").await;
    assert_ne!(exit["payload"]["exit_code"], 0, "{exit}");
    assert!(!target.exists());
    assert!(s.workspace.join("inside.txt").exists());
    let blocked = s.wait_event(&id, "system.log").await;
    assert_eq!(
        blocked["payload"]["message"],
        format!(
            "escape.sh: blocked by the sandbox: write to {}",
            target.display()
        ),
        "{blocked}"
    );
    s.stop().await;

    let mut options = Options::new("simple.json");
    options.provider = |p| p.sandbox = keel_sandbox::SandboxPolicy::off();
    let s = TestServer::start(options).await;
    std::fs::write(
        s.workspace.join("escape.sh"),
        format!("echo out > {}\n", target.display()),
    )
    .unwrap();
    let id = s.create_session("p1", ALL).await;
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/file-runs"),
            ALL,
            json!({"path": "escape.sh"}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let exit = s.wait_event(&id, "exec.file.exit").await;
    assert_eq!(exit["payload"]["exit_code"], 0, "{exit}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "out\n");
    s.stop().await;
}
