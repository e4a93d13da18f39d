//! Diagnostics after edits with the real pyright: the edit's result carries the type error the
//! edit introduced, `run.tool.end` carries it structured, the `diagnostics` tool is offered with
//! the full tool set only.

use crate::agent_common;

use agent_common::*;
use keel_events::{DiagnosticSeverity, EventKind, LogLevel};
use serde_json::json;

/// Fails the test, saying how to install it, when pyright is not on `PATH`.
pub(crate) fn require_pyright() {
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("pyright-langserver").is_file())
    });
    assert!(
        found,
        "`pyright-langserver` is not installed: this test needs the real server. Install it with `npm install -g pyright` (.ci/run does)."
    );
}

/// Pyright with generous waits: the tests check what it says, not how fast (the bench does),
/// and a busy test machine can be slow to start it.
pub(crate) fn patient_pyright() -> keel_lsp::LspSettings {
    let mut tables = std::collections::BTreeMap::new();
    tables.insert(
        "python".to_owned(),
        keel_lsp::ServerConfig {
            wait_ms: Some(30_000),
            start_wait_ms: Some(60_000),
            ..keel_lsp::ServerConfig::default()
        },
    );
    keel_lsp::LspSettings::new(&tables).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_breaks_the_types_gets_the_error_in_its_result() {
    require_pyright();
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("app.py"),
        "def double(n: int) -> int:\n    return n * 2\n",
    )
    .unwrap();
    let script = json!({"turns": [
        {"tool_calls": [{"id": "c1", "name": "replace_in_file", "arguments": {
            "path": "app.py",
            "diff": "<<<<<<< SEARCH\n    return n * 2\n=======\n    return n * 2\n\nlabel: str = double(2)\n>>>>>>> REPLACE"}}]},
        {"tool_calls": [{"id": "c2", "name": "diagnostics", "arguments": {"path": "app.py"}}]},
        {"text": "Done."}
    ]});
    let (mut session, events) = scripted(root.path(), script, |config| {
        config.lsp = Some(patient_pyright());
    });
    session.run_turn("Add a label").await;
    let events = events.events();
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) => Some(end),
            _ => None,
        })
        .collect();
    let edit = ends.iter().find(|e| e.call_id == "c1").unwrap();
    assert!(
        edit.result.contains("app.py:4:14 error "),
        "{}",
        edit.result
    );
    let diagnostics = edit.diagnostics.as_ref().unwrap();
    assert_eq!(diagnostics.servers, ["pyright-langserver"]);
    assert_eq!(diagnostics.items[0].severity, DiagnosticSeverity::Error);
    assert_eq!(
        (diagnostics.items[0].line, diagnostics.items[0].column),
        (4, 14)
    );
    let check = ends.iter().find(|e| e.call_id == "c2").unwrap();
    assert!(
        check.result.contains("app.py:4:14 error "),
        "{}",
        check.result
    );
    assert!(check.diagnostics.is_none());
}

#[tokio::test]
async fn a_missing_server_leaves_the_edit_as_it_was_with_one_warning() {
    let root = tempfile::tempdir().unwrap();
    let script = json!({"turns": [
        {"tool_calls": [{"id": "c1", "name": "write_file", "arguments": {"path": "app.py", "content": "x = 1\n"}}]},
        {"tool_calls": [{"id": "c2", "name": "write_file", "arguments": {"path": "app.py", "content": "x = 2\n"}}]},
        {"text": "Done."}
    ]});
    let (mut session, events) = scripted(root.path(), script, |config| {
        let mut tables = std::collections::BTreeMap::new();
        tables.insert(
            "python".to_owned(),
            keel_lsp::ServerConfig {
                command: Some(vec!["keel-no-such-server".to_owned()]),
                ..keel_lsp::ServerConfig::default()
            },
        );
        config.lsp = Some(keel_lsp::LspSettings::new(&tables).unwrap());
    });
    session.run_turn("Write it").await;
    let events = events.events();
    let warnings: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log) if log.level == LogLevel::Warn => Some(log.message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("`keel-no-such-server` was not found"),
        "{warnings:?}"
    );
    for e in &events {
        if let EventKind::RunToolEnd(end) = &e.kind {
            assert!(end.diagnostics.is_none());
            assert!(!end.result.contains("Diagnostics"), "{}", end.result);
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.path().join("app.py")).unwrap(),
        "x = 2\n"
    );
}
