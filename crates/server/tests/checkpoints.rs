//! Checkpoints over HTTP: list a session's checkpoints, rewind it to one (files and history),
//! fork it at one, and the bad input each route refuses without changing anything.

use crate::common;

use common::{ALL, Options, TestServer};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Runs one turn and waits for it to complete; returns the turn's id.
async fn turn(s: &TestServer, session: &str, input: &str) -> String {
    let turn = s.start_turn(session, input).await;
    let id = turn["id"].as_str().unwrap().to_owned();
    let done = s.wait_turn(session, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    id
}

fn read(s: &TestServer, path: &str) -> Option<String> {
    std::fs::read_to_string(s.workspace.join(path)).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_rewound_and_forked_at_its_checkpoints() {
    let s = TestServer::start(Options::new("two-turns.json")).await;
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": s.workspace.to_str().unwrap()}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let session = body["id"].as_str().unwrap().to_owned();
    let first = turn(&s, &session, "write a.txt").await;
    let second = turn(&s, &session, "change a.txt, write b.txt").await;
    assert_eq!(read(&s, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(read(&s, "b.txt").as_deref(), Some("bee\n"));

    // One checkpoint before each turn, oldest first, with sizes.
    let (status, list) = s
        .get(&format!("/v1/sessions/{session}/checkpoints"), ALL)
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let checkpoints = list["checkpoints"].as_array().unwrap();
    let turns: Vec<&str> = checkpoints
        .iter()
        .map(|c| c["turn_id"].as_str().unwrap())
        .collect();
    assert_eq!(turns, [first.as_str(), second.as_str()], "{list}");
    assert!(list["total_bytes"].as_u64().unwrap() > 0, "{list}");
    let before_first = checkpoints[0]["id"].as_str().unwrap().to_owned();
    let before_second = checkpoints[1]["id"].as_str().unwrap().to_owned();

    // Bad input changes nothing: unknown checkpoint, bad scope, malformed JSON, no token.
    let rewind = format!("/v1/sessions/{session}/rewind");
    let (status, body) = s.post(&rewind, ALL, json!({"checkpoint": "nope"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = s
        .post(
            &rewind,
            ALL,
            json!({"checkpoint": before_second, "scope": "everything"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) = s.post_raw(&rewind, ALL, b"{\"checkpoint\":".to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, _) = s
        .request(
            reqwest::Method::POST,
            &rewind,
            None,
            Some(json!({"checkpoint": before_second})),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(read(&s, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(read(&s, "b.txt").as_deref(), Some("bee\n"));

    // A fork keeps the original's rows as they were.
    let events_before = s.events(&session).await;
    let (status, fork) = s
        .post(
            &format!("/v1/sessions/{session}/fork"),
            ALL,
            json!({"at": before_second}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{fork}");
    let forked = fork["id"].as_str().unwrap();
    assert_ne!(forked, session);
    let (status, view) = s.get(&format!("/v1/sessions/{forked}"), ALL).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(s.events(&session).await, events_before);
    assert_eq!(
        read(&s, "a.txt").as_deref(),
        Some("two\n"),
        "a fork leaves the tree"
    );
    let (status, body) = s
        .post("/v1/sessions/nope/fork", ALL, json!({"at": before_second}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // Rewinding to before the second turn: its files undone, its events kept and marked.
    let (status, report) = s
        .post(&rewind, ALL, json!({"checkpoint": before_second}))
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["scope"], "both", "{report}");
    assert_eq!(report["turn_ids"], json!([second]), "{report}");
    assert_eq!(report["files_restored"], json!(["a.txt"]), "{report}");
    assert_eq!(report["files_removed"], json!(["b.txt"]), "{report}");
    assert_eq!(read(&s, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(read(&s, "b.txt"), None);
    let events = s.events(&session).await;
    assert!(events.len() > events_before.len());
    assert_eq!(events[..events_before.len()], events_before[..]);
    let marks: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "run.checkpoint.rewind")
        .collect();
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(marks[0]["payload"]["checkpoint_id"], before_second.as_str());

    // The first turn's checkpoint is still there to rewind further.
    let (status, list) = s
        .get(&format!("/v1/sessions/{session}/checkpoints"), ALL)
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert!(
        list["checkpoints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == before_first.as_str()),
        "{list}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_project_checkpoint_bound_prunes_and_is_listed() {
    let mut options = Options::new("two-turns.json");
    options.config_file =
        Some("checkpoint_max_mb = 512\n[projects.p1]\ncheckpoint_max_mb = 1\n".to_owned());
    let s = TestServer::start(options).await;
    // 1.5 MB of distinct content that the first turn overwrites: its checkpoint is past 1 MB.
    let big: String = (0..48 * 1024).map(|n| format!("{n:031}\n")).collect();
    std::fs::write(s.workspace.join("a.txt"), &big).unwrap();
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": s.workspace.to_str().unwrap()}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let session = body["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/sessions/{session}/checkpoints");

    turn(&s, &session, "write a.txt").await;
    let (status, list) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    // The shape `keel checkpoints list --json` prints.
    let mut keys: Vec<&str> = list
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["checkpoints", "max_bytes", "total_bytes"], "{list}");
    assert_eq!(
        list["max_bytes"],
        1024 * 1024,
        "the project's bound: {list}"
    );
    assert!(
        list["total_bytes"].as_u64().unwrap() > 1024 * 1024,
        "{list}"
    );
    let first = list["checkpoints"][0].clone();
    assert_eq!(first["session_id"], session.as_str(), "{list}");
    assert_eq!(first["files"], 1, "{list}");
    let first = first["id"].as_str().unwrap().to_owned();

    // The next turn's checkpoint puts the store past the bound: the oldest is pruned.
    let second = turn(&s, &session, "change a.txt, write b.txt").await;
    let (status, list) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let turns: Vec<&str> = list["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["turn_id"].as_str().unwrap())
        .collect();
    assert_eq!(turns, [second.as_str()], "{list}");
    assert!(
        list["total_bytes"].as_u64().unwrap() <= 1024 * 1024,
        "{list}"
    );

    // A pruned checkpoint cannot be rewound to, and nothing changes.
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{session}/rewind"),
            ALL,
            json!({"checkpoint": first}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(
        body.to_string()
            .contains(&format!("no checkpoint `{first}`")),
        "{body}"
    );
    // Another session's checkpoint is refused, and nothing changes.
    let kept = list["checkpoints"][0]["id"].as_str().unwrap().to_owned();
    let (status, other) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": s.workspace.to_str().unwrap()}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{other}");
    let other = other["id"].as_str().unwrap();
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{other}/rewind"),
            ALL,
            json!({"checkpoint": kept}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body.to_string()
            .contains(&format!("belongs to session `{session}`")),
        "{body}"
    );
    assert_eq!(read(&s, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(read(&s, "b.txt").as_deref(), Some("bee\n"));
}
