//! use_rag_tool in a running session: the index is built on the first call and then kept
//! current by the repo map's watcher, so an edit is found without a walk or a rebuild.

use std::time::{Duration, Instant};

use crate::common;

use common::Harness;
use serde_json::json;

/// How many files a `use_rag_tool` message says were re-indexed since the last search.
fn reindexed(message: &str) -> u64 {
    let (before, _) = message
        .split_once(" re-indexed since the last search")
        .unwrap_or_else(|| panic!("no re-index count in {message:?}"));
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_during_the_session_is_found_by_a_later_call_changed_file_only() {
    let h = Harness::new();
    h.write(".gitignore", "generated/\n");
    h.write(
        "src/csrf.rs",
        "/// Rejects a forged cross-site POST whose token does not match the cookie.\npub fn check_csrf_token(cookie: &str, form: &str) -> bool {\n    cookie == form\n}\n",
    );
    for i in 0..5 {
        h.write(
            &format!("src/filler_{i}.rs"),
            format!("/// Filler number {i}.\npub fn filler_{i}() -> u32 {{\n    {i}\n}}\n"),
        );
    }
    let search = |query: &'static str| {
        h.call(
            "use_rag_tool",
            json!({"server_name": "project", "query": query}),
        )
    };
    let first = search("forged cross-site POST").await;
    assert!(first.success, "{first:?}");
    assert!(
        first.message.contains("kept current by the file watcher"),
        "{}",
        first.message
    );
    assert!(first.content.unwrap().contains("src/csrf.rs:1-4"));

    // Edit during the session: a new definition in one file, and one in an ignored folder.
    std::thread::sleep(Duration::from_millis(200));
    h.write(
        "src/csrf.rs",
        "/// Rejects a forged cross-site POST whose token does not match the cookie.\npub fn check_csrf_token(cookie: &str, form: &str) -> bool {\n    cookie == form\n}\n\n/// Rotates the zanzibar quokka secret every night.\npub fn rotate_quokka_secret() {}\n",
    );
    h.write(
        "generated/quokka.rs",
        "/// zanzibar quokka\npub fn generated_quokka() {}\n",
    );
    let started = Instant::now();
    let mut total_reindexed = 0;
    let found = loop {
        let result = search("zanzibar quokka secret").await;
        assert!(result.success, "{result:?}");
        assert!(
            result.message.contains("kept current by the file watcher"),
            "{}",
            result.message
        );
        total_reindexed += reindexed(&result.message);
        let content = result.content.unwrap_or_default();
        if content.contains("rotate_quokka_secret") {
            break content;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the edit never reached the index: {content}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(found.contains("src/csrf.rs:6-7"), "{found}");
    assert!(!found.contains("generated/"), "{found}");
    // Only the edited file was re-indexed: no walk, no rebuild, the ignored file left out.
    assert_eq!(total_reindexed, 1);

    // A deleted file leaves the index the same way.
    std::fs::remove_file(h.path("src/filler_3.rs")).unwrap();
    let started = Instant::now();
    loop {
        let result = search("filler number").await;
        let content = result.content.unwrap_or_default();
        if !content.contains("src/filler_3.rs") {
            assert!(content.contains("src/filler_2.rs"), "{content}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the deletion never reached the index: {content}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_kilobyte_query_is_truncated_with_a_note() {
    let h = Harness::new();
    h.write(
        "src/csrf.rs",
        "/// Rejects a forged cross-site POST whose token does not match the cookie.\npub fn check_csrf_token() {}\n",
    );
    let query = format!("forged cross-site POST {}", "token ".repeat(2000));
    assert!(query.len() > 10 * 1024);
    let result = h
        .call(
            "use_rag_tool",
            json!({"server_name": "project", "query": query}),
        )
        .await;
    assert!(result.success, "{result:?}");
    let content = result.content.unwrap();
    assert!(
        content.contains(&format!("the query was {} bytes", query.len())),
        "{content}"
    );
    assert!(content.contains("src/csrf.rs:1-2"), "{content}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_down_embeddings_endpoint_gives_lexical_results_with_a_warning() {
    let h = Harness::new();
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    h.write(
        "keel.toml",
        format!(
            "[rag]\nembeddings_base_url = \"{url}\"\nembeddings_model = \"nomic-embed-text\"\n"
        ),
    );
    h.write(
        "src/csrf.rs",
        "/// Rejects a forged cross-site POST whose token does not match the cookie.\npub fn check_csrf_token() {}\n",
    );
    let result = h
        .call(
            "use_rag_tool",
            json!({"server_name": "project", "query": "forged cross-site POST"}),
        )
        .await;
    assert!(result.success, "{result:?}");
    assert!(
        result.message.contains("lexical search"),
        "{}",
        result.message
    );
    let content = result.content.unwrap();
    assert!(content.contains("lexical only"), "{content}");
    assert!(content.contains("src/csrf.rs:1-2"), "{content}");
}
