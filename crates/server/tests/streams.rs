//! Live streams on SQLite: SSE resume after a dropped connection, lagging clients, retention
//! reloads, WebSocket, keep-alive headers.

use crate::common;

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

/// A server with a one-batch client buffer, streaming 12 MB of deltas.
async fn flooding_server(scripts: &tempfile::TempDir) -> TestServer {
    let mut options = Options::new(&common::flood_script(scripts.path(), 3000));
    options.stream_buffer = 1;
    TestServer::start(options).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lagging_client_is_told_and_resumes_without_loss() {
    use tokio::io::AsyncWriteExt;
    let scripts = tempfile::tempdir().unwrap();
    let s = flooding_server(&scripts).await;
    let id = s.create_session("p1", ALL).await;
    // A client that subscribes, then reads nothing until the turn is over: the server's writes
    // to it block, and its one-batch buffer overflows.
    let mut stream = common::small_buffer_connection(&s).await;
    stream
        .write_all(
            format!(
                "GET /v1/sessions/{id}/events?stream=sse HTTP/1.1\r\nHost: keel\r\n\
                 Authorization: Bearer {ALL}\r\nAccept: text/event-stream\r\n\
                 Connection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let head = common::read_headers(&mut stream).await;
    let turn = s.start_turn(&id, "flood").await;
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    let body = common::read_chunked_response(&mut stream, head).await;
    let text = String::from_utf8(body).unwrap();
    let mut seqs = Vec::new();
    let mut lagged_after = None;
    for message in text.split("\n\n").filter(|m| !m.is_empty()) {
        if let Some(data) = message.strip_prefix("event: lagged\ndata: ") {
            let data: Value = serde_json::from_str(data).unwrap();
            lagged_after = data["after_seq"].as_u64();
            continue;
        }
        assert!(lagged_after.is_none(), "the stream went on after `lagged`");
        if let Some(id) = message.strip_prefix("id: ") {
            seqs.push(id.split('\n').next().unwrap().parse::<u64>().unwrap());
        }
    }
    let after = lagged_after.expect("the client was never told it lagged");
    scenarios::assert_gap_free(&seqs);
    assert_eq!(seqs.last().copied().unwrap_or(0), after);
    let stored = s.events(&id).await.len() as u64;
    assert!(after < stored, "lagged after the last event");

    // It resumes from its cursor and gets the rest, each event once.
    let mut reader = SseReader::new(open_sse(&s, &id, SseAuth::Bearer(ALL), Some(after)).await);
    let mut rest = Vec::new();
    while let Some(message) = reader.next_within(Duration::from_secs(30)).await {
        rest.push(message.id.unwrap().parse::<u64>().unwrap());
        if message.event.as_deref() == Some("agent.end") {
            break;
        }
    }
    seqs.extend(rest);
    scenarios::assert_gap_free(&seqs);
    assert_eq!(seqs.len() as u64, stored);
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
    let scripts = tempfile::tempdir().unwrap();
    let s = flooding_server(&scripts).await;
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
    let stream = common::small_buffer_connection(&s).await;
    let (mut socket, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .unwrap();
    // Read nothing until the turn is over.
    let turn = s.start_turn(&id, "flood").await;
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    let mut seqs = Vec::new();
    let mut control = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(deadline, socket.next()).await {
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(&text).unwrap();
            if value.get("control").is_some() {
                control = Some(value);
                break;
            }
            seqs.push(value["seq"].as_u64().unwrap());
        }
    }
    let control = control.expect("a lagged control frame");
    assert_eq!(control["control"], "lagged");
    scenarios::assert_gap_free(&seqs);
    assert_eq!(control["after_seq"].as_u64(), seqs.last().copied());
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
