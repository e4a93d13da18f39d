//! Live streams on SQLite: SSE resume after a dropped connection, lagging clients, retention
//! reloads, WebSocket, keep-alive headers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{ALL, Options, SseAuth, SseReader, TestServer, open_sse, scenarios};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_resumes_after_a_dropped_connection() {
    let s = TestServer::start(Options::new("chatty.json")).await;
    scenarios::sse_resume(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lagging_client_is_told_and_resumes_without_loss() {
    let mut options = Options::new("chatty.json");
    options.stream_buffer = 1;
    let s = TestServer::start(options).await;
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "talk a lot").await;
    let (received, lagged) = scenarios::follow_sse(&s, &id, None).await;
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert!(
        lagged > 0,
        "a one-batch buffer must overflow during a burst"
    );
    scenarios::assert_gap_free(&received);
    let stored = s.events(&id).await;
    assert_eq!(received.len(), stored.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_older_than_the_store_gets_reload() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "hello").await;
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    let total = s.events(&id).await.len() as u64;
    assert!(total > 4);
    s.store.prune_events(&id, 3).await.unwrap();
    let response = open_sse(&s, &id, SseAuth::Bearer(ALL), Some(1)).await;
    let mut reader = SseReader::new(response);
    let first = reader.next_within(Duration::from_secs(5)).await.unwrap();
    assert_eq!(first.event.as_deref(), Some("reload"));
    let data: Value = serde_json::from_str(&first.data).unwrap();
    assert_eq!(data["reason"], "retention");
    assert_eq!(data["oldest_seq"], 4);
    let next = reader.next_within(Duration::from_secs(5)).await.unwrap();
    assert_eq!(next.id.as_deref(), Some("4"));
    // A cursor inside what is kept: no reload.
    let response = open_sse(&s, &id, SseAuth::Bearer(ALL), Some(3)).await;
    let mut reader = SseReader::new(response);
    let first = reader.next_within(Duration::from_secs(5)).await.unwrap();
    assert_eq!(first.id.as_deref(), Some("4"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_streams_backlog_then_live() {
    let s = TestServer::start(Options::new("chatty.json")).await;
    let id = s.create_session("p1", ALL).await;
    let token = s.stream_token(&id, ALL).await;
    let ws_url = s.base.replace("http://", "ws://");
    // Without a token the upgrade is refused.
    let refused = tokio_tungstenite::connect_async(format!("{ws_url}/v1/sessions/{id}/ws")).await;
    assert!(refused.is_err());
    let turn = s.start_turn(&id, "talk").await;
    // Follow the stream, reconnecting from the cursor if the client is told it lagged.
    let mut seqs: Vec<u64> = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    'connect: while tokio::time::Instant::now() < deadline {
        let after = seqs.last().copied().unwrap_or(0);
        let (mut socket, _) = tokio_tungstenite::connect_async(format!(
            "{ws_url}/v1/sessions/{id}/ws?after={after}&token={token}"
        ))
        .await
        .unwrap();
        while let Ok(Some(Ok(message))) =
            tokio::time::timeout(Duration::from_secs(30), socket.next()).await
        {
            let Message::Text(text) = message else {
                continue;
            };
            let event: Value = serde_json::from_str(&text).unwrap();
            if let Some(control) = event.get("control") {
                assert_eq!(control, "lagged", "{event}");
                assert_eq!(event["after_seq"], after.max(*seqs.last().unwrap_or(&0)));
                continue 'connect;
            }
            seqs.push(event["seq"].as_u64().unwrap());
            if event["type"] == "agent.end" {
                let _ = socket.close(None).await;
                break 'connect;
            }
        }
    }
    scenarios::assert_gap_free(&seqs);
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(seqs.len(), s.events(&id).await.len());

    // Resuming with ?after= sends only newer events.
    let (mut socket, _) = tokio_tungstenite::connect_async(format!(
        "{ws_url}/v1/sessions/{id}/ws?after={}&token={token}",
        seqs.len() - 2
    ))
    .await
    .unwrap();
    let mut tail = Vec::new();
    while tail.len() < 2 {
        if let Some(Ok(Message::Text(text))) = socket.next().await {
            let event: Value = serde_json::from_str(&text).unwrap();
            tail.push(event["seq"].as_u64().unwrap());
        }
    }
    assert_eq!(tail, vec![seqs.len() as u64 - 1, seqs.len() as u64]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_lagging_client_gets_a_control_frame() {
    let mut options = Options::new("chatty.json");
    options.stream_buffer = 1;
    let s = TestServer::start(options).await;
    let id = s.create_session("p1", ALL).await;
    let ws_url = s.base.replace("http://", "ws://");
    let request = {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("{ws_url}/v1/sessions/{id}/ws")
            .into_client_request()
            .unwrap();
        request
            .headers_mut()
            .insert("authorization", format!("Bearer {ALL}").parse().unwrap());
        request
    };
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    s.start_turn(&id, "talk").await;
    let mut control = None;
    // Pings keep an idle socket busy, so bound the whole wait, not each message.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(deadline, socket.next()).await {
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(&text).unwrap();
            if value.get("control").is_some() {
                control = Some(value);
                break;
            }
        }
    }
    let control = control.expect("a lagged control frame");
    assert_eq!(control["control"], "lagged");
    assert!(control["after_seq"].is_u64());
    let _ = socket.send(Message::Close(None)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_responses_are_event_streams_with_keep_alive_comments() {
    let mut options = Options::new("simple.json");
    options.keep_alive = Duration::from_millis(100);
    let s = TestServer::start(options).await;
    let id = s.create_session("p1", ALL).await;
    let response = s
        .client
        .get(s.url(&format!("/v1/sessions/{id}/events?stream=sse")))
        .bearer_auth(ALL)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    // An idle stream stays open and carries `: keep-alive` comments.
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while !text.contains(": keep-alive\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
}
