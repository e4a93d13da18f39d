//! Dense vectors from an OpenAI-compatible `/v1/embeddings` over real HTTP, and lexical
//! results with a warning when the endpoint is down.

use keel_index::{EmbeddingSettings, IndexOptions, ProjectIndex, SearchRequest};
use keel_test_support::mock_openai::{MockServer, Reply};

use crate::project::write_project;

fn options(base_url: &str) -> IndexOptions {
    IndexOptions {
        embeddings: Some(EmbeddingSettings {
            base_url: base_url.to_owned(),
            model: "mock-embed".to_owned(),
            api_key: None,
        }),
        ..IndexOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn vectors_are_stored_and_fused_with_the_lexical_ranking() {
    let server = MockServer::start(|_, _| Reply::error(500, "no chat here", None)).await;
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let root = dir.path().to_path_buf();
    let url = server.base_url.clone();
    let (stats, outcome) = tokio::task::spawn_blocking(move || {
        let mut index = ProjectIndex::open(&root, options(&url)).unwrap();
        let stats = index.refresh().unwrap();
        let outcome = index
            .search(&SearchRequest::new("salt passwords stored"))
            .unwrap();
        (stats, outcome)
    })
    .await
    .unwrap();
    assert!(stats.embedded >= 4, "{stats:?}");
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    assert!(dir.path().join(".keel/index/vectors.bin").is_file());
    assert_eq!(outcome.mode, "hybrid");
    assert_eq!(outcome.hits[0].path, "src/hashers.py");
    let calls = server.info_requests();
    assert!(calls.iter().filter(|c| *c == "POST /v1/embeddings").count() >= 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_down_endpoint_gives_lexical_results_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let root = dir.path().to_path_buf();
    let (stats, outcome) = tokio::task::spawn_blocking(move || {
        let mut index = ProjectIndex::open(&root, options(&url)).unwrap();
        let stats = index.refresh().unwrap();
        let outcome = index
            .search(&SearchRequest::new("forged cross-site POST"))
            .unwrap();
        (stats, outcome)
    })
    .await
    .unwrap();
    assert!(
        stats.warnings.iter().any(|w| w.contains("lexical only")),
        "{:?}",
        stats.warnings
    );
    assert_eq!(outcome.mode, "lexical");
    assert_eq!(outcome.hits[0].path, "src/csrf.rs");
    assert!(
        outcome
            .notes
            .iter()
            .any(|n| n.contains("lexical results only")),
        "{:?}",
        outcome.notes
    );
}
