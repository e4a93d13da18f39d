//! `keel mcp serve` driven by the official MCP Python SDK (`tests/mcp/sdk_client.py`): the tool
//! list, `read_file`, `keel_task` on the scripted provider with its progress notifications,
//! approvals asked through elicitation, and bad calls; and by raw JSON-RPC lines for input no
//! SDK would send.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use keel_test_support::ScriptBuilder;
use keel_test_support::peers::python_with;
use serde_json::{Value, json};

use crate::common::keel;

const INSTALL: &str = "pip install mcp";

fn sdk_client() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/sdk_client.py")
}

/// A workspace with a README, and an empty user config folder.
fn workspace() -> (tempfile::TempDir, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("README.md"), "hello from the workspace\n").unwrap();
    (root, tempfile::tempdir().unwrap())
}

/// Runs the SDK client's `scenario` against `keel mcp serve --root ROOT EXTRA…`; returns what it
/// saw.
fn drive(python: &str, scenario: &str, root: &Path, config: &Path, extra: &[&str]) -> Value {
    let keel_command = keel(config);
    let mut command = Command::new(python);
    command
        .arg(sdk_client())
        .arg(scenario)
        .arg(keel_command.get_program())
        .arg(root)
        .args(extra);
    for (key, value) in keel_command.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the SDK client failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

#[test]
fn the_python_sdk_lists_tools_reads_a_file_and_runs_a_task_with_progress() {
    let Some(python) = python_with("mcp", INSTALL) else {
        return;
    };
    let (root, config) = workspace();
    let script = config.path().join("task.json");
    ScriptBuilder::new()
        .tool_call(
            "write_file",
            json!({"path": "notes.txt", "content": "one\ntwo\n"}),
        )
        .tool_call("attempt_completion", json!({"result": "Wrote notes.txt."}))
        .write(&script)
        .unwrap();
    let provider = format!("--provider=scripted:{}", script.display());
    let seen = drive(&python, "tools", root.path(), config.path(), &[&provider]);

    assert_eq!(seen["server"], "keel");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for tool in [
        "read_file",
        "search_files",
        "list_files",
        "replace_in_file",
        "write_file",
        "move_file",
        "execute_command",
        "keel_task",
    ] {
        assert!(tools.contains(&tool), "{tool} missing from {tools:?}");
    }
    assert!(
        seen["read_only"]
            .as_array()
            .unwrap()
            .contains(&json!("read_file"))
    );
    assert!(
        !seen["read_only"]
            .as_array()
            .unwrap()
            .contains(&json!("write_file"))
    );

    assert_eq!(seen["read_file"]["is_error"], false);
    assert_eq!(seen["read_file"]["texts"][1], "hello from the workspace\n");

    let task = &seen["keel_task"];
    assert_eq!(task["is_error"], false, "{task}");
    assert_eq!(task["structured"]["status"], "completed");
    assert_eq!(task["structured"]["answer"], "Wrote notes.txt.");
    assert_eq!(task["structured"]["files_changed"], json!(["notes.txt"]));
    assert_eq!(
        std::fs::read_to_string(root.path().join("notes.txt")).unwrap(),
        "one\ntwo\n"
    );
    let progress: Vec<&str> = seen["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["message"].as_str())
        .collect();
    assert_eq!(progress.first(), Some(&"started: write the notes"));
    assert!(progress.contains(&"running write_file"), "{progress:?}");
    assert!(
        progress.contains(&"created notes.txt (+2 -0)"),
        "{progress:?}"
    );
    assert_eq!(progress.last(), Some(&"finished: completed"));
    let steps: Vec<f64> = seen["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["progress"].as_f64())
        .collect();
    assert!(
        steps.windows(2).all(|w| w[0] < w[1]),
        "progress must increase: {steps:?}"
    );

    // The turn is a stored session, as `keel run`'s would be.
    let session = task["structured"]["session_id"].as_str().unwrap();
    let shown = keel(config.path())
        .args(["sessions", "show", session, "--root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );

    // Bad calls: clear errors, and the server goes on serving.
    assert_eq!(seen["unknown_tool"]["code"], -32602);
    assert!(
        seen["unknown_tool"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool `no_such_tool`")
    );
    assert_eq!(seen["wrong_types"]["is_error"], true);
    assert!(
        seen["wrong_types"]["texts"][0]
            .as_str()
            .unwrap()
            .contains("Invalid arguments for read_file at `path`")
    );
    assert_eq!(seen["task_wrong_types"]["is_error"], true);
    assert!(
        seen["task_wrong_types"]["texts"][0]
            .as_str()
            .unwrap()
            .contains("Invalid arguments for keel_task")
    );
    assert!(
        seen["task_bad_mode"]["texts"][0]
            .as_str()
            .unwrap()
            .contains("unknown mode `sideways`")
    );
    assert_eq!(seen["outside_root"]["is_error"], true);
    assert_eq!(seen["after"]["is_error"], false);
}

#[test]
fn approvals_are_asked_through_elicitation_or_refused_with_a_reason() {
    let Some(python) = python_with("mcp", INSTALL) else {
        return;
    };
    let (root, config) = workspace();
    let approved = root.path().join("approved.txt");
    let always = ["--approval", "always"];

    let seen = drive(&python, "approve", root.path(), config.path(), &always);
    assert_eq!(seen["command"]["is_error"], false, "{seen}");
    assert_eq!(seen["asked"].as_array().unwrap().len(), 1);
    assert!(
        seen["asked"][0]
            .as_str()
            .unwrap()
            .contains("echo approved > approved.txt")
    );
    assert!(approved.exists());
    std::fs::remove_file(&approved).unwrap();

    let seen = drive(&python, "decline", root.path(), config.path(), &always);
    assert_eq!(seen["command"]["is_error"], true);
    assert!(
        seen["command"]["texts"][0]
            .as_str()
            .unwrap()
            .contains("declined")
    );
    assert!(!approved.exists());

    let seen = drive(&python, "noask", root.path(), config.path(), &always);
    assert_eq!(seen["command"]["is_error"], true);
    assert!(
        seen["command"]["texts"][0]
            .as_str()
            .unwrap()
            .contains("cannot ask a person (it does not support elicitation)"),
        "{seen}"
    );
    assert!(!approved.exists());

    // `--approval never`: no one is asked, the command runs.
    let seen = drive(
        &python,
        "noask",
        root.path(),
        config.path(),
        &["--approval", "never"],
    );
    assert_eq!(seen["command"]["is_error"], false, "{seen}");
    assert!(approved.exists());
}

#[test]
fn garbage_and_unknown_methods_get_json_rpc_errors_and_the_server_stays_up() {
    let (root, config) = workspace();
    let mut child = keel(config.path())
        .args(["mcp", "serve", "--root"])
        .arg(root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut exchange = |line: &str, answered: bool| -> Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        if !answered {
            return Value::Null;
        }
        let mut reply = String::new();
        stdout.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply}"))
    };

    let init = exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        true,
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "keel");
    exchange(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        false,
    );

    let garbage = exchange("this is not json at all", true);
    assert_eq!(garbage["error"]["code"], -32700);

    let not_a_message = exchange(r#"{"id": 5, "hello": "there"}"#, true);
    assert_eq!(not_a_message["error"]["code"], -32600);
    assert_eq!(not_a_message["id"], 5);

    let unknown = exchange(
        r#"{"jsonrpc":"2.0","id":6,"method":"no/such/method"}"#,
        true,
    );
    assert_eq!(unknown["error"]["code"], -32601);
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown method `no/such/method`")
    );

    let bad_params = exchange(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":"README.md"}}"#,
        true,
    );
    assert_eq!(bad_params["error"]["code"], -32602);
    assert!(
        bad_params["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tools/call")
    );

    let read = exchange(
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}"#,
        true,
    );
    assert_eq!(read["id"], 8);
    assert_eq!(
        read["result"]["content"][1]["text"],
        "hello from the workspace\n"
    );

    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}
