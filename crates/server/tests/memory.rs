//! The project memory routes over real HTTP: `GET /v1/sessions/{id}/memory` lists what
//! `.keel/memory.json` holds, `DELETE …/memory/{entry_id}` forgets one entry; unknown sessions
//! and ids are 404 naming what is missing, a corrupt file 422 and an unreadable one 500, both
//! naming the file and leaving it as it was.

use keel_context::{MemoryKind, MemoryStore, NewEntry};
use reqwest::{Method, StatusCode};

use crate::common::{ALL, Options, P2, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_is_listed_and_forgotten() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let session = s.create_session("p1", ALL).await;
    let path = format!("/v1/sessions/{session}/memory");
    let store = MemoryStore::for_project(&s.workspace);

    // Nothing remembered yet: no entries, the file it would be, and no file made by looking.
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["entries"], serde_json::json!([]));
    assert_eq!(body["file"], store.path().display().to_string());
    assert!(!store.path().exists());

    store
        .record([
            NewEntry::new(MemoryKind::Convention, "Tests run with python -m unittest")
                .with_tags(["testing"])
                .in_session("s-old"),
            NewEntry::new(MemoryKind::Decision, "Results are rounded to two decimals"),
        ])
        .unwrap();
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let entries = body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{body}");
    assert_eq!(entries[0]["kind"], "convention");
    assert_eq!(entries[0]["text"], "Tests run with python -m unittest");
    assert_eq!(entries[0]["tags"], serde_json::json!(["testing"]));
    assert_eq!(entries[0]["session_id"], "s-old");
    assert!(entries[0]["created_at"].is_string(), "{body}");
    assert_eq!(entries[1]["kind"], "decision");
    assert_eq!(entries[1]["tags"], serde_json::json!([]));
    let kept = entries[0]["id"].as_str().unwrap().to_owned();
    let gone = entries[1]["id"].as_str().unwrap().to_owned();

    // Another project's token does not see the session.
    let (status, _) = s.get(&path, P2).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s
        .request(Method::DELETE, &format!("{path}/{gone}"), Some(P2), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(store.read().unwrap().len(), 2);

    // An unknown id: 404 naming it, the file untouched.
    let before = std::fs::read(store.path()).unwrap();
    let (status, body) = s
        .request(
            Method::DELETE,
            &format!("{path}/mem_00000000"),
            Some(ALL),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["code"], "not_found");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("`mem_00000000`"), "{message}");
    assert!(message.contains("memory.json"), "{message}");
    assert_eq!(std::fs::read(store.path()).unwrap(), before);

    // Forgetting answers the entry and keeps the others.
    let (status, body) = s
        .request(Method::DELETE, &format!("{path}/{gone}"), Some(ALL), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["id"], gone.as_str());
    assert_eq!(body["text"], "Results are rounded to two decimals");
    let left = store.read().unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left.entries()[0].id, kept);
    let (_, body) = s.get(&path, ALL).await;
    assert_eq!(body["entries"].as_array().unwrap().len(), 1, "{body}");

    // Unknown session.
    let (status, body) = s.get("/v1/sessions/nope/memory", ALL).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = s
        .request(
            Method::DELETE,
            &format!("/v1/sessions/nope/memory/{kept}"),
            Some(ALL),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_memory_file_is_named_and_left_alone() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let session = s.create_session("p1", ALL).await;
    let path = format!("/v1/sessions/{session}/memory");
    let store = MemoryStore::for_project(&s.workspace);
    let file = store.path().to_path_buf();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();

    // Corrupt: 422 naming the file, which stays where it is, unchanged.
    std::fs::write(&file, "{\"version\": 2, \"entries\": [").unwrap();
    for (method, route) in [
        (Method::GET, path.clone()),
        (Method::DELETE, format!("{path}/mem_00000000")),
    ] {
        let (status, body) = s.request(method.clone(), &route, Some(ALL), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{method} {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert!(message.contains("corrupt"), "{message}");
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\"version\": 2, \"entries\": ["
    );

    // Written by a newer Keel: 422 saying so, the file kept.
    std::fs::write(&file, "{\"version\": 99, \"entries\": []}").unwrap();
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("format version 99"),
        "{body}"
    );

    // Unreadable (a folder where the file should be): 500 naming it.
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert_eq!(body["error"]["code"], "internal");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&file.display().to_string()),
        "{body}"
    );
    assert!(file.is_dir());
}
