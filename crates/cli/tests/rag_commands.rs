//! `keel index`, `keel search`, `use_rag_tool` through `keel tool call` and in a scripted
//! `keel run --json` turn — the real binary over a real folder.

use std::path::Path;
use std::process::Stdio;

use keel_test_support::ScriptBuilder;
use serde_json::{Value, json};

use crate::common::{events, keel, run_keel};

fn write_project(root: &Path) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/csrf.rs"),
        "/// Rejects a forged cross-site POST whose token does not match the cookie.\npub fn check_csrf_token(cookie: &str, form: &str) -> bool {\n    cookie == form\n}\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "# Demo\n\nRun it behind nginx.\n").unwrap();
}

fn json_out(stdout: &[u8]) -> Value {
    serde_json::from_slice(stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(stdout)))
}

#[test]
fn index_then_search_as_json_and_text() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let root = dir.path().to_str().unwrap();
    let out = run_keel(&["index", "--root", root, "--json"], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats = json_out(&out.stdout);
    assert_eq!(
        (stats["files"].as_u64(), stats["indexed"].as_u64()),
        (Some(2), Some(2))
    );

    let out = run_keel(
        &[
            "search",
            "--root",
            root,
            "--limit",
            "1",
            "--json",
            "forged cross-site POST",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome = json_out(&out.stdout);
    assert_eq!(outcome["hits"].as_array().unwrap().len(), 1);
    assert_eq!(outcome["hits"][0]["path"], "src/csrf.rs");
    assert_eq!(outcome["hits"][0]["start_line"], 1);
    assert_eq!(outcome["hits"][0]["end_line"], 4);

    let out = run_keel(&["search", "--root", root, "zeppelin"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("No indexed chunk matches \"zeppelin\""));
}

#[test]
fn a_corrupt_index_is_rebuilt_with_a_warning_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let root = dir.path().to_str().unwrap();
    assert_eq!(
        run_keel(&["index", "--root", root], None).status.code(),
        Some(0)
    );
    std::fs::write(dir.path().join(".keel/index/manifest.json"), "garbage").unwrap();
    let out = run_keel(&["index", "--root", root], None);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: the search index at") && stderr.contains("rebuilding"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("2 files"));
}

#[test]
fn use_rag_tool_through_keel_tool_call() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(
        docs.path().join("guide.md"),
        "# Guide\n\nRotate the signing keys monthly.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("keel.toml"),
        format!("[rag_servers.docs]\npath = \"{}\"\n", docs.path().display()),
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let call = |args: Value| {
        let out = run_keel(
            &[
                "tool",
                "call",
                "use_rag_tool",
                &args.to_string(),
                "--root",
                root,
            ],
            None,
        );
        (out.status.code(), json_out(&out.stdout))
    };
    let (code, result) =
        call(json!({"server_name": "project", "query": "where is a forged POST rejected?"}));
    assert_eq!(code, Some(0), "{result}");
    let content = result["content"].as_str().unwrap();
    assert!(
        content.starts_with("1. src/csrf.rs:1-4 (score "),
        "{content}"
    );

    let (code, result) = call(json!({"server_name": "docs", "query": "signing keys"}));
    assert_eq!(code, Some(0), "{result}");
    assert!(
        result["content"].as_str().unwrap().contains("guide.md:1-3"),
        "{result}"
    );
    assert!(
        !docs.path().join(".keel").exists(),
        "the other folder is not written to"
    );

    let (code, result) = call(json!({"server_name": "wiki", "query": "x"}));
    assert_eq!(code, Some(1));
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("Available: project, docs"),
        "{result}"
    );
}

#[test]
fn use_rag_tool_in_a_scripted_run() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let config = tempfile::tempdir().unwrap();
    let script = config.path().join("script.json");
    ScriptBuilder::new()
        .tool_call(
            "use_rag_tool",
            json!({"server_name": "project", "query": "forged cross-site POST"}),
        )
        .text("It is rejected in src/csrf.rs.")
        .write(&script)
        .unwrap();
    let out = keel(config.path())
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(dir.path())
        .args(["--json", "Where is a forged POST rejected?"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events(&String::from_utf8(out.stdout).unwrap());
    let end = events
        .iter()
        .find(|e| e.type_name() == "run.tool.end")
        .expect("a run.tool.end");
    let text = serde_json::to_value(end).unwrap().to_string();
    assert!(text.contains("use_rag_tool"), "{text}");
    assert!(text.contains("src/csrf.rs:1-4"), "{text}");
    assert!(dir.path().join(".keel/index/manifest.json").is_file());
}
