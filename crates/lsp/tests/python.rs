//! pyright on a small Python project: an edit that introduces a type error gets it.

use keel_events::DiagnosticSeverity;
use keel_lsp::Edit;

use crate::common::{manager, require_pyright};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_reports_a_type_error_an_edit_introduced() {
    require_pyright();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"demo\"\nversion = \"0.1\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("app.py"),
        "def double(n: int) -> int:\n    return n * 2\n\nprint(double(2))\n",
    )
    .unwrap();
    let (manager, logs) = manager(root, &[]);

    let clean = manager
        .after_edit(&[Edit::Changed("app.py".into())])
        .await
        .unwrap();
    assert_eq!(clean.servers, vec!["pyright-langserver".to_owned()]);
    assert!(!clean.timed_out, "pyright did not answer: {clean:?}");
    assert!(clean.items.is_empty(), "{clean:?}");

    std::fs::write(
        root.join("app.py"),
        "def double(n: int) -> int:\n    return n * 2\n\nlabel: str = double(2)\n",
    )
    .unwrap();
    let broken = manager
        .after_edit(&[Edit::Changed("app.py".into())])
        .await
        .unwrap();
    assert!(!broken.timed_out, "{broken:?}");
    let error = broken
        .items
        .iter()
        .find(|d| d.severity == DiagnosticSeverity::Error)
        .unwrap_or_else(|| panic!("no error in {broken:?}"));
    assert_eq!(
        (error.path.as_str(), error.line, error.column),
        ("app.py", 4, 14)
    );
    assert!(
        error.message.contains("\"int\"") && error.message.contains("\"str\""),
        "{error:?}"
    );
    let text = keel_lsp::convert::result_text(&broken, &["app.py".to_owned()]);
    assert!(text.contains("app.py:4:14 error "), "{text}");
    assert!(
        logs.lock().unwrap().is_empty(),
        "{:?}",
        logs.lock().unwrap()
    );
    manager.shutdown().await;
}
