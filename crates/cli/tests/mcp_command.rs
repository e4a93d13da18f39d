//! MCP end to end: a scripted turn calling `mcp__everything__echo` through `keel run --json`,
//! a broken server that the session goes on without, and `keel mcp add|list|test|remove`.

use std::path::Path;
use std::process::Stdio;

use keel_events::EventKind;
use keel_test_support::ScriptBuilder;
use serde_json::json;

use crate::common::{events, keel};

pub(crate) fn everything() -> Option<std::path::PathBuf> {
    keel_test_support::processes::external_program(
        "mcp-server-everything",
        "KEEL_MCP_EVERYTHING",
        "npm install -g @modelcontextprotocol/server-everything",
    )
}

/// Live processes whose working folder is `dir` (what a server started there would have).
fn processes_in(dir: &Path) -> Vec<String> {
    let dir = dir.canonicalize().unwrap();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_string_lossy().parse::<u32>().is_err() {
            continue;
        }
        if std::fs::read_link(entry.path().join("cwd")).ok().as_deref() == Some(dir.as_path()) {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next());
            if state != Some("Z") {
                out.push(stat);
            }
        }
    }
    out
}

pub(crate) fn toml_string(path: &Path) -> String {
    serde_json::to_string(&path.display().to_string()).unwrap()
}

#[test]
fn a_scripted_turn_calls_the_everything_echo_tool() {
    let Some(server) = everything() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("keel.toml"),
        format!(
            "[mcp_servers.everything]\ncommand = {}\nargs = [\"stdio\"]\napproval = \"never\"\n\n[mcp_servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n",
            toml_string(&server)
        ),
    )
    .unwrap();
    let script = dir.path().join("script.json");
    ScriptBuilder::new()
        .tool_call(
            "mcp__everything__echo",
            json!({"message": "hello from keel"}),
        )
        .text("The server echoed it.")
        .write(&script)
        .unwrap();
    let out = keel(config_dir.path())
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(dir.path())
        .args(["--json", "echo something"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events(&stdout);
    let start = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunToolStart(p) if p.tool_name == "mcp__everything__echo" => Some(p.clone()),
            _ => None,
        })
        .expect("run.tool.start of the MCP tool");
    assert_eq!(start.mcp_server.as_deref(), Some("everything"));
    let end = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunToolEnd(p) if p.tool_name == "mcp__everything__echo" => Some(p.clone()),
            _ => None,
        })
        .expect("run.tool.end of the MCP tool");
    assert_eq!(end.mcp_server.as_deref(), Some("everything"));
    assert_eq!(end.status, keel_events::ToolStatus::Success, "{end:?}");
    assert!(end.result.contains("hello from keel"), "{}", end.result);
    // The broken server was reported by name and the session went on.
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::SystemLog(log)
            if log.message.contains("MCP server `broken` could not start")
                && log.message.contains("was not found"))),
        "{stdout}"
    );
    // Nothing the session started is left running in the project folder.
    assert!(
        processes_in(dir.path()).is_empty(),
        "{:?}",
        processes_in(dir.path())
    );
}

#[test]
fn mcp_add_list_test_remove() {
    let dir = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let original = "# my settings\nmodel = \"m\" # keep\n";
    std::fs::write(dir.path().join("keel.toml"), original).unwrap();
    let root = dir.path().to_str().unwrap();
    let mcp = |args: &[&str]| -> std::process::Output {
        keel(config_dir.path())
            .arg("mcp")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };

    // A server that cannot start: `test` says why and exits 1.
    let out = mcp(&[
        "add",
        "nothing",
        "--root",
        root,
        "--",
        "/nonexistent/mcp-server",
        "--flag",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = mcp(&["test", "nothing", "--root", root]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`/nonexistent/mcp-server` was not found"),
        "{stderr}"
    );

    // Bad input: a taken name, a missing command, an unknown server.
    let out = mcp(&["add", "nothing", "--root", root, "--", "other"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already configured"));
    let out = mcp(&["add", "empty", "--root", root]);
    assert_eq!(out.status.code(), Some(2));
    let out = mcp(&["add", "e", "--root", root, "--env", "NOEQUALS", "--", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = mcp(&["test", "ghost", "--root", root]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no MCP server named `ghost`"));

    let out = mcp(&["remove", "nothing", "--root", root]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("keel.toml")).unwrap(),
        original
    );
    let out = mcp(&["remove", "nothing", "--root", root]);
    assert_eq!(out.status.code(), Some(1));

    // A working server: listed with its tools, tested.
    let Some(server) = everything() else {
        return;
    };
    let out = mcp(&[
        "add",
        "everything",
        "--root",
        root,
        "--env",
        "A=1",
        "--",
        server.to_str().unwrap(),
        "stdio",
    ]);
    assert!(out.status.success());
    let out = mcp(&["test", "everything", "--root", root]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("echo"), "{stdout}");
    let out = mcp(&["list", "--json", "--root", root]);
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let server = &listed["servers"][0];
    assert_eq!(server["name"], "everything");
    assert_eq!(server["status"]["state"], "running");
    assert!(
        server["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "echo" && t["offered_as"] == "mcp__everything__echo"),
        "{server}"
    );
    assert!(processes_in(dir.path()).is_empty());
}
