//! Servers that are missing or crash: the edit goes on, one clear `system.log`.

use keel_lsp::{Edit, ServerConfig};

use crate::common::manager;

fn command(words: &[&str]) -> ServerConfig {
    ServerConfig {
        command: Some(words.iter().map(|w| (*w).to_owned()).collect()),
        ..ServerConfig::default()
    }
}

#[tokio::test]
async fn a_missing_server_is_one_warning_and_edits_go_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.py"), "x = 1\n").unwrap();
    let (manager, logs) = manager(
        dir.path(),
        &[("python", command(&["keel-no-such-server", "--stdio"]))],
    );
    for _ in 0..3 {
        assert_eq!(
            manager.after_edit(&[Edit::Changed("app.py".into())]).await,
            None
        );
    }
    let logs = logs.lock().unwrap();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(
        logs[0].contains("no python language server: `keel-no-such-server` was not found"),
        "{logs:?}"
    );
}

#[tokio::test]
async fn a_crashing_server_is_restarted_once_then_left_off() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "package main\n").unwrap();
    let (manager, logs) = manager(
        dir.path(),
        &[("go", command(&["sh", "-c", "echo dying >&2; exit 3"]))],
    );
    for _ in 0..3 {
        assert_eq!(
            manager.after_edit(&[Edit::Changed("main.go".into())]).await,
            None
        );
    }
    let logs = logs.lock().unwrap();
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(
        logs[0].contains("the go language server failed to start")
            && logs[0].contains("restarting it once"),
        "{logs:?}"
    );
    assert!(
        logs[0].contains("exit status: 3") && logs[0].contains("dying"),
        "{logs:?}"
    );
    assert!(
        logs[1].contains("failed again") && logs[1].contains("left off for this session"),
        "{logs:?}"
    );
}

#[tokio::test]
async fn a_turned_off_server_is_never_started_and_files_of_no_language_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.py"), "x = 1\n").unwrap();
    std::fs::write(dir.path().join("notes.md"), "# notes\n").unwrap();
    let off = ServerConfig {
        enabled: Some(false),
        ..command(&["keel-no-such-server"])
    };
    let (manager, logs) = manager(dir.path(), &[("python", off)]);
    let edits = [
        Edit::Changed("app.py".into()),
        Edit::Changed("notes.md".into()),
    ];
    assert_eq!(manager.after_edit(&edits).await, None);
    assert!(logs.lock().unwrap().is_empty());
}

#[test]
fn unknown_languages_and_empty_commands_are_refused_by_name() {
    let mut tables = std::collections::BTreeMap::new();
    tables.insert("cobol".to_owned(), ServerConfig::default());
    let error = keel_lsp::LspSettings::new(&tables).unwrap_err();
    assert_eq!(
        error.to_string(),
        "[lsp.cobol]: unknown language (known: python, typescript, rust, go)"
    );
    let mut tables = std::collections::BTreeMap::new();
    tables.insert("rust".to_owned(), command(&[]));
    let error = keel_lsp::LspSettings::new(&tables).unwrap_err();
    assert!(error.to_string().contains("[lsp.rust] command"), "{error}");
}
