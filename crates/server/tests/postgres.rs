//! The API and streams on PostgreSQL, and two server instances on one database streaming each
//! other's sessions. Runs only when `KEEL_TEST_DATABASE_URL` is set (each test creates its own
//! database there); otherwise each test returns at once.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{ALL, Options, SseAuth, SseReader, TestServer, open_sse, scenarios};
use keel_test_support::TestDatabase;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn server(script: &str) -> Option<TestServer> {
    let database = TestDatabase::create().await?;
    let mut options = Options::new(script);
    options.database = Some(Arc::new(database));
    Some(TestServer::start(options).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_health_auth_and_bad_input() {
    let Some(s) = server("simple.json").await else {
        return;
    };
    scenarios::health_and_openapi(&s, "postgres").await;
    scenarios::auth_everywhere(&s).await;
    scenarios::bad_input(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_sessions_and_turns() {
    let Some(s) = server("simple.json").await else {
        return;
    };
    scenarios::session_and_turn(&s).await;
    scenarios::file_run(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_questions_and_turn_running() {
    let Some(s) = server("question.json").await else {
        return;
    };
    scenarios::question_and_turn_running(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_approvals() {
    let Some(s) = server("approval.json").await else {
        return;
    };
    scenarios::approvals(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_cancel() {
    let Some(s) = server("sleep.json").await else {
        return;
    };
    scenarios::cancel(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_timeline() {
    let Some(s) = server("move.json").await else {
        return;
    };
    scenarios::timeline(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_sse_resume() {
    let Some(s) = server("chatty.json").await else {
        return;
    };
    scenarios::sse_resume(&s).await;
}

/// Reads SSE until `agent.end`; returns the seqs.
async fn read_until_end(reader: &mut SseReader) -> Vec<u64> {
    let mut seqs = Vec::new();
    while let Some(message) = reader.next_within(Duration::from_secs(30)).await {
        assert_ne!(message.event.as_deref(), Some("lagged"));
        let event: Value = serde_json::from_str(&message.data).unwrap();
        seqs.push(event["seq"].as_u64().unwrap());
        if event["type"] == "agent.end" {
            return seqs;
        }
    }
    panic!("the stream ended without agent.end after {seqs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_stream_each_others_sessions() {
    let Some(database) = TestDatabase::create().await else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let mut options = Options::new("chatty.json");
    options.database = Some(Arc::new(database));
    options.workspace = Some(workspace.path().to_owned());
    let a = TestServer::start(options.clone()).await;
    let b = TestServer::start(options).await;

    let id = a.create_session("p1", ALL).await;
    // A client of B, subscribed before the turn starts on A.
    let mut on_b = SseReader::new(open_sse(&b, &id, SseAuth::Bearer(ALL), None).await);
    let turn = a.start_turn(&id, "talk on a").await;
    let seqs = read_until_end(&mut on_b).await;
    scenarios::assert_gap_free(&seqs);
    a.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    let stored = a.events(&id).await.len();
    assert_eq!(seqs.len(), stored);

    // The next turn runs on B; a client of A (resuming from its cursor) sees it live.
    let mut on_a =
        SseReader::new(open_sse(&a, &id, SseAuth::Bearer(ALL), Some(stored as u64)).await);
    let turn = b.start_turn(&id, "talk on b").await;
    let more = read_until_end(&mut on_a).await;
    assert_eq!(more.first(), Some(&(stored as u64 + 1)));
    let mut all = seqs.clone();
    all.extend(&more);
    scenarios::assert_gap_free(&all);
    let turn = b.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert!(turn["status"].is_string());
    assert_eq!(b.events(&id).await.len(), all.len());
    // B's stream token works on A (shared signing key).
    let token = b.stream_token(&id, ALL).await;
    let response = open_sse(&a, &id, SseAuth::StreamToken(&token), None).await;
    assert_eq!(response.status(), 200);
}

/// Two instances on one fresh database, running `script`.
async fn pair(script: &str) -> Option<(TestServer, TestServer, tempfile::TempDir)> {
    let database = TestDatabase::create().await?;
    let workspace = tempfile::tempdir().unwrap();
    let mut options = Options::new(script);
    options.database = Some(Arc::new(database));
    options.workspace = Some(workspace.path().to_owned());
    let a = TestServer::start(options.clone()).await;
    let b = TestServer::start(options).await;
    Some((a, b, workspace))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_given_on_another_instance_reaches_the_turn() {
    let Some((a, b, workspace)) = pair("approval.json").await else {
        return;
    };
    let id = a.create_session("p1", ALL).await;
    let turn = a.start_turn(&id, "make the marker").await;
    let request = a.wait_event(&id, "run.approval.request").await;
    let approval_id = request["payload"]["approval_id"].as_str().unwrap();
    let path = format!("/v1/sessions/{id}/approvals/{approval_id}");

    // Decided on B, applied by A (which runs the turn), confirmed from the store.
    let (status, body) = b.post(&path, ALL, json!({"decision": "approve"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"approval_id": approval_id, "decision": "approve", "applied": true})
    );
    let (status, body) = b.post(&path, ALL, json!({"decision": "approve"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["applied"], false);
    for server in [&a, &b] {
        let (status, body) = server
            .post(&path, ALL, json!({"decision": "reject", "reason": "no"}))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
    }
    let turn = a.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    assert!(workspace.path().join("approved.txt").exists());
    let resolves: Vec<Value> = b
        .events(&id)
        .await
        .into_iter()
        .filter(|e| e["type"] == "run.approval.resolve")
        .collect();
    assert_eq!(resolves.len(), 1);
    assert_eq!(resolves[0]["payload"]["decision"], "approve");
    // Unknown ids are 404 on either instance.
    let (status, _) = b
        .post(
            &format!("/v1/sessions/{id}/approvals/appr_missing"),
            ALL,
            json!({"decision": "approve"}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_given_on_another_instance_reaches_the_turn() {
    let Some((a, b, _workspace)) = pair("question.json").await else {
        return;
    };
    let id = a.create_session("p1", ALL).await;
    let turn = a.start_turn(&id, "ask me").await;
    let ask = a.wait_event(&id, "run.question.ask").await;
    let question_id = ask["payload"]["question_id"].as_str().unwrap();
    let path = format!("/v1/sessions/{id}/questions/{question_id}");

    // Too large for a NOTIFY: refused plainly, nothing applied.
    let (status, body) = b
        .post(&path, ALL, json!({"answer": "x".repeat(10_000)}))
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["error"]["code"], "payload_too_large");

    let (status, body) = b.post(&path, ALL, json!({"answer": "blue"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["applied"], true);
    let (status, body) = b.post(&path, ALL, json!({"answer": "red"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let turn = a.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let answer = b.wait_event(&id, "run.question.answer").await;
    assert_eq!(answer["payload"]["answer"], "blue");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_on_another_instance_stops_the_turn() {
    let Some((a, b, _workspace)) = pair("sleep.json").await else {
        return;
    };
    let id = a.create_session("p1", ALL).await;
    let (status, body) = b
        .post(&format!("/v1/sessions/{id}/cancel"), ALL, json!({}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["cancelled"], false, "nothing runs yet");
    let turn = a.start_turn(&id, "wait").await;
    a.wait_event(&id, "run.tool.start").await;
    let started = std::time::Instant::now();
    let (status, body) = b
        .post(&format!("/v1/sessions/{id}/cancel"), ALL, json!({}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["cancelled"], true);
    // B answers once A has ended the turn (well before the 30 s sleep).
    let (_, turns) = b.get(&format!("/v1/sessions/{id}/turns"), ALL).await;
    assert_eq!(turns["turns"][0]["status"], "cancelled", "{turns}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let turn = a.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "cancelled", "{turn}");
    let end = b.wait_event(&id, "agent.end").await;
    assert_eq!(end["payload"]["status"], "cancelled");
}
