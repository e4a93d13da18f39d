//! rust-analyzer on a small crate: an edit that introduces a type error gets it.

use keel_lsp::Edit;

use crate::common::{manager, require_rust_analyzer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_analyzer_reports_a_type_error_an_edit_introduced() {
    require_rust_analyzer();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn double(n: i32) -> i32 {\n    n * 2\n}\n",
    )
    .unwrap();
    let (manager, logs) = manager(root, &[]);

    let clean = manager
        .after_edit(&[Edit::Changed("src/lib.rs".into())])
        .await
        .unwrap();
    assert_eq!(clean.servers, vec!["rust-analyzer".to_owned()]);
    assert!(clean.items.is_empty(), "{clean:?}");

    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn double(n: i32) -> i32 {\n    n * 2\n}\n\npub fn label() -> String {\n    double(2)\n}\n",
    )
    .unwrap();
    let broken = manager
        .after_edit(&[Edit::Changed("src/lib.rs".into())])
        .await
        .unwrap();
    assert!(!broken.timed_out, "{broken:?}");
    let text = keel_lsp::convert::result_text(&broken, &["src/lib.rs".to_owned()]);
    assert!(
        broken
            .items
            .iter()
            .any(|d| d.path == "src/lib.rs" && d.line == 6 && d.message.contains("expected")),
        "{text}\n{broken:?}"
    );
    assert!(
        logs.lock().unwrap().is_empty(),
        "{:?}",
        logs.lock().unwrap()
    );
    manager.shutdown().await;
}
