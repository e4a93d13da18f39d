//! RAG servers backed by an MCP server's tool (`[rag_servers.NAME] mcp_server`, `tool`,
//! `query_argument`) with the reference "everything" server: through `keel tool call` (which
//! starts that one server) and in a scripted `keel run --json` turn (the session's servers);
//! a keel.toml naming both a folder and an MCP server is refused with its line.

use std::path::Path;
use std::process::Stdio;

use keel_events::EventKind;
use keel_test_support::ScriptBuilder;
use serde_json::{Value, json};

use crate::common::{events, keel};
use crate::mcp_command::{everything, toml_string};

fn write_config(root: &Path, server: &Path) {
    std::fs::write(
        root.join("keel.toml"),
        format!(
            "[mcp_servers.everything]\ncommand = {}\nargs = [\"stdio\"]\n\n\
             [rag_servers.wiki]\nmcp_server = \"everything\"\ntool = \"echo\"\nquery_argument = \"message\"\n\n\
             [rag_servers.missing]\nmcp_server = \"everything\"\ntool = \"search_the_wiki\"\n\n\
             [rag_servers.nowhere]\nmcp_server = \"not_configured\"\ntool = \"search\"\n",
            toml_string(server)
        ),
    )
    .unwrap();
}

fn tool_call(config_dir: &Path, root: &Path, arguments: Value) -> (Option<i32>, Value) {
    let out = keel(config_dir)
        .args(["tool", "call", "use_rag_tool"])
        .arg(arguments.to_string())
        .arg("--root")
        .arg(root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let result = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), result)
}

#[test]
fn keel_tool_call_searches_through_the_mcp_tool() {
    let Some(server) = everything() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), &server);

    let (code, result) = tool_call(
        config_dir.path(),
        dir.path(),
        json!({"server_name": "wiki", "query": "where are sessions signed?"}),
    );
    assert_eq!(code, Some(0), "{result}");
    assert_eq!(
        result["message"],
        "Results of `wiki` (tool `echo` of MCP server `everything`)."
    );
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("where are sessions signed?"),
        "{result}"
    );

    let (code, result) = tool_call(
        config_dir.path(),
        dir.path(),
        json!({"server_name": "missing", "query": "anything"}),
    );
    assert_eq!(code, Some(1), "{result}");
    let message = result["message"].as_str().unwrap();
    assert!(
        message.contains("but that server has no tool `search_the_wiki` (its tools: ")
            && message.contains("echo"),
        "{message}"
    );

    let (code, result) = tool_call(
        config_dir.path(),
        dir.path(),
        json!({"server_name": "nowhere", "query": "anything"}),
    );
    assert_eq!(code, Some(1), "{result}");
    assert_eq!(
        result["message"],
        "RAG server `nowhere` searches with tool `search` of MCP server `not_configured`, but no MCP server is connected here (name it in keel.toml as [mcp_servers.not_configured])."
    );
}

#[test]
fn a_scripted_turn_searches_a_rag_server_backed_by_an_mcp_tool() {
    let Some(server) = everything() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), &server);
    let script = dir.path().join("script.json");
    ScriptBuilder::new()
        .tool_call(
            "use_rag_tool",
            json!({"server_name": "wiki", "query": "how is the cache invalidated?"}),
        )
        .text("The wiki answered.")
        .write(&script)
        .unwrap();
    let out = keel(config_dir.path())
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(dir.path())
        .args(["--json", "search the wiki"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let end = events(&stdout)
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::RunToolEnd(p) if p.tool_name == "use_rag_tool" => Some(p),
            _ => None,
        })
        .expect("run.tool.end of use_rag_tool");
    assert_eq!(end.status, keel_events::ToolStatus::Success, "{end:?}");
    assert!(
        end.result.contains("how is the cache invalidated?"),
        "{}",
        end.result
    );
}

#[test]
fn a_rag_server_with_both_a_path_and_an_mcp_server_is_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("keel.toml"),
        "model = \"m\"\n\n[rag_servers.wiki]\npath = \"docs\"\nmcp_server = \"everything\"\ntool = \"search\"\n",
    )
    .unwrap();
    let script = dir.path().join("script.json");
    ScriptBuilder::new().text("never").write(&script).unwrap();
    let out = keel(config_dir.path())
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(dir.path())
        .args(["--json", "anything"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("keel.toml")
            && stderr.contains("line 3")
            && stderr.contains("`path` and `mcp_server` are mutually exclusive"),
        "{stderr}"
    );
}
