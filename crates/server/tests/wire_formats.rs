//! The seeds' wire formats over real HTTP: `?format=v1|paths` on the events page, SSE and
//! WebSocket streams (goldens of a scripted move), unknown formats refused; and legacy log
//! import into the project timeline with its bad lines, limits and scope.

use crate::common;

use common::{ALL, Options, P2, SseReader, TestServer};
use futures::StreamExt;
use keel_test_support::golden::stable;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// A server that has run the scripted move turn; returns it and the session id.
async fn moved() -> (TestServer, String) {
    let s = TestServer::start(Options::new("move.json")).await;
    std::fs::write(s.workspace.join("old.txt"), "moving").unwrap();
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "move it").await;
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    (s, id)
}

/// `value` with context and prompt token counts replaced: the prompt names the temporary workspace, whose
/// random name tokenizes to a count that differs by one from run to run.
fn without_token_counts(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, v)| match key.as_str() {
                    "tokens_used" | "prompt_tokens" | "total_tokens" | "input_tokens_count" => {
                        (key, Value::String("[tokens]".to_owned()))
                    }
                    _ => (key, without_token_counts(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_token_counts).collect()),
        other => other,
    }
}

async fn page(s: &TestServer, id: &str, format: &str) -> Vec<Value> {
    let (status, body) = s
        .get(
            &format!("/v1/sessions/{id}/events?limit=1000&format={format}"),
            ALL,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["events"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_events_page_in_each_format() {
    let (s, id) = moved().await;
    let keel = page(&s, &id, "keel").await;
    assert_eq!(keel, s.events(&id).await, "keel is the default");
    let v1 = page(&s, &id, "v1").await;
    insta::assert_json_snapshot!("events_v1", without_token_counts(stable(&Value::Array(v1))));
    let paths = page(&s, &id, "paths").await;
    for item in &paths {
        assert!(keel.contains(&item["event"]), "{item}");
    }
    insta::assert_json_snapshot!(
        "events_paths",
        without_token_counts(stable(&Value::Array(paths)))
    );

    for bad in ["xml", "V1", ""] {
        let (status, body) = s
            .get(&format!("/v1/sessions/{id}/events?format={bad}"), ALL)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("expected one of keel, v1, paths"),
            "{message}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_and_websocket_streams_in_v1_and_paths() {
    let (s, id) = moved().await;
    for format in ["v1", "paths"] {
        let expected = page(&s, &id, format).await;
        let response = s
            .client
            .get(s.url(&format!("/v1/sessions/{id}/events?format={format}")))
            .bearer_auth(ALL)
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mut reader = SseReader::new(response);
        let mut got = Vec::new();
        while got.len() < expected.len() {
            let message = reader
                .next_within(std::time::Duration::from_secs(10))
                .await
                .unwrap_or_else(|| panic!("{format}: stream ended after {got:?}"));
            let data: Value = serde_json::from_str(&message.data).unwrap();
            let name = if format == "v1" {
                &data["type"]
            } else {
                &data["path"]
            };
            assert_eq!(message.event.as_deref(), name.as_str(), "{format}");
            assert!(message.id.is_some());
            got.push(data);
        }
        assert_eq!(got, expected, "{format} over SSE");

        let ws_url = s.base.replace("http://", "ws://");
        let token = s.stream_token(&id, ALL).await;
        let (mut socket, _) = tokio_tungstenite::connect_async(format!(
            "{ws_url}/v1/sessions/{id}/ws?format={format}&token={token}"
        ))
        .await
        .unwrap();
        let mut frames: Vec<Value> = Vec::new();
        while frames.len() < expected.len() {
            match socket.next().await {
                Some(Ok(Message::Text(text))) => frames.push(serde_json::from_str(&text).unwrap()),
                Some(Ok(_)) => {}
                other => panic!("{format}: websocket ended: {other:?}"),
            }
        }
        assert_eq!(frames, expected, "{format} over WebSocket");
    }
    let token = s.stream_token(&id, ALL).await;
    let ws_url = s.base.replace("http://", "ws://");
    let refused = tokio_tungstenite::connect_async(format!(
        "{ws_url}/v1/sessions/{id}/ws?format=v2&token={token}"
    ))
    .await;
    assert!(
        refused.is_err(),
        "an unknown format is refused before the upgrade"
    );
}

async fn import(s: &TestServer, project: &str, token: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let response = s
        .client
        .post(s.url(&format!(
            "/v1/projects/{project}/timeline/import?source=old-agent.log"
        )))
        .bearer_auth(token)
        .header("content-type", "text/plain")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_logs_import_into_the_timeline() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let log = b"[SelfRepairLoop] Attempt 1/3: Build failed: Cannot find module './x'\n\
        [move] src/old.ts \xe2\x86\x92 src/new.ts\n\
        \n\
        broken \xff line\n\
        npm run build finished\n"
        .to_vec();
    let (status, report) = import(&s, "p1", ALL, log).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["imported"], 3);
    assert_eq!(report["blank_lines"], 1);
    assert_eq!(
        report["bad_lines"],
        json!([{"line": 4, "error": "not UTF-8 text (bad byte at column 8)"}])
    );
    let session = report["session_id"].as_str().unwrap();
    let (status, view) = s.get(&format!("/v1/sessions/{session}"), ALL).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(view["title"], "Imported log: old-agent.log");
    assert_eq!(view["status"], "completed");

    let (status, timeline) = s.get("/v1/projects/p1/timeline", ALL).await;
    assert_eq!(status, StatusCode::OK, "{timeline}");
    let records: Vec<Value> = timeline["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"type": r["type"], "payload": r["payload"]}))
        .collect();
    insta::assert_json_snapshot!("imported_timeline", records);

    // Another project's token does not see p1; a log over the limit is refused whole.
    let (status, body) = import(&s, "p1", P2, b"x\n".to_vec()).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let huge = vec![b'a'; keel_server::routes::timeline::IMPORT_BODY_LIMIT + 1];
    let (status, body) = import(&s, "p1", ALL, huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["error"]["code"], "payload_too_large");
    // Nothing but bad or blank lines: a report and no session.
    let (status, body) = import(&s, "p2", ALL, b"\n\0\n".to_vec()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"imported": 0, "blank_lines": 1, "bad_lines": [{"line": 2, "error": "holds a NUL byte at column 1"}]})
    );
}
