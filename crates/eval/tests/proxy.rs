//! The metering proxy against the recording mock OpenAI server: requests pass unchanged,
//! answers stream through as they come, and each call's figures match what the server sent.

use std::time::{Duration, Instant};

use futures::StreamExt as _;
use keel_eval::{CallRecord, MeteringProxy};
use keel_test_support::http_client;
use keel_test_support::mock_openai::{
    self, Frame, MockServer, Reply, ServerInfo, content, done, finish, role, tool_start,
    usage_cached,
};
use serde_json::{Value, json};

fn chat_request(stream: bool) -> Value {
    json!({
        "model": "local-model",
        "stream": stream,
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Say hi."}
        ],
        "tools": [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
    })
}

/// Posts `body` to the proxy's chat completions; the status, the body as text, and the time
/// from sending to the chunk holding `marker` (when given).
async fn post(proxy: &MeteringProxy, body: &Value, marker: Option<&str>) -> (u16, String, f64) {
    let started = Instant::now();
    let answer = http_client()
        .post(format!("{}/chat/completions", proxy.base_url()))
        .header("authorization", "Bearer secret-key")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let mut stream = answer.bytes_stream();
    let mut text = String::new();
    let mut seen = 0.0;
    while let Some(chunk) = stream.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        if seen == 0.0 && marker.is_some_and(|m| text.contains(m)) {
            seen = started.elapsed().as_secs_f64();
        }
    }
    (status, text, seen)
}

#[tokio::test]
async fn a_streamed_call_passes_unchanged_and_is_metered_from_usage() {
    let mock = MockServer::sequence(vec![Reply::Sse(vec![
        role(),
        Frame::Sleep(Duration::from_millis(200)),
        content("Hi"),
        Frame::Sleep(Duration::from_millis(600)),
        tool_start(0, "call_1", "read_file"),
        finish("tool_calls"),
        usage_cached(1234, 56, 1000),
        done(),
    ])])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.jsonl");
    let proxy = MeteringProxy::start(&mock.base_url, Some(&log))
        .await
        .unwrap();
    let request = chat_request(true);
    let (status, body, first_seen) = post(&proxy, &request, Some("\"Hi\"")).await;
    assert_eq!(status, 200);
    assert!(body.contains("data: [DONE]"), "{body}");
    assert!(body.contains("\"read_file\""), "{body}");
    assert!(
        first_seen < 0.7,
        "the first content arrived after {first_seen} s: the answer was held back"
    );

    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body, request, "the request was changed");
    assert_eq!(sent[0].authorization.as_deref(), Some("Bearer secret-key"));

    let calls = proxy.stop().await;
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    assert_eq!(
        (
            call.call,
            call.status,
            call.stream,
            call.messages,
            call.tools
        ),
        (1, 200, true, Some(2), Some(1))
    );
    assert_eq!(call.model.as_deref(), Some("local-model"));
    assert_eq!(
        (
            call.prompt_tokens,
            call.cached_tokens,
            call.completion_tokens
        ),
        (Some(1234), Some(1000), Some(56))
    );
    let first = call.first_token_secs.unwrap();
    assert!((0.2..0.7).contains(&first), "first token after {first} s");
    assert!(call.total_secs >= 0.8, "total {} s", call.total_secs);
    assert_eq!(call.error, None);

    let logged: Vec<CallRecord> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(logged, calls);
}

#[tokio::test]
async fn llama_cpp_timings_stand_in_for_missing_usage() {
    let timings = json!({
        "id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "timings": {"cache_n": 800, "prompt_n": 34, "predicted_n": 21, "predicted_ms": 300.0}
    });
    let mock = MockServer::sequence(vec![Reply::Sse(vec![
        role(),
        content("Hello"),
        Frame::Data(timings.to_string()),
        done(),
    ])])
    .await;
    let proxy = MeteringProxy::start(&mock.base_url, None).await.unwrap();
    post(&proxy, &chat_request(true), None).await;
    let call = &proxy.stop().await[0];
    assert_eq!(
        (
            call.prompt_tokens,
            call.cached_tokens,
            call.completion_tokens
        ),
        (Some(834), Some(800), Some(21))
    );
}

#[tokio::test]
async fn a_whole_answer_and_an_error_answer_are_metered_too() {
    let answer = json!({
        "id": "x", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Hello"}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}
    });
    let mock = MockServer::sequence(vec![
        Reply::Status {
            status: 200,
            headers: Vec::new(),
            body: answer.to_string(),
        },
        Reply::error(404, "model `nope` not found", Some("model_not_found")),
    ])
    .await;
    let proxy = MeteringProxy::start(&mock.base_url, None).await.unwrap();
    let (status, body, _) = post(&proxy, &chat_request(false), None).await;
    assert_eq!((status, body), (200, answer.to_string()));
    let (status, body, _) = post(&proxy, &chat_request(false), None).await;
    assert_eq!(status, 404);
    assert!(body.contains("model `nope` not found"), "{body}");

    let calls = proxy.stop().await;
    assert_eq!(
        (
            calls[0].prompt_tokens,
            calls[0].completion_tokens,
            calls[0].stream
        ),
        (Some(40), Some(2), false)
    );
    assert!(calls[0].first_token_secs.is_some());
    assert_eq!(calls[1].status, 404);
    assert_eq!(
        calls[1].error.as_deref(),
        Some("HTTP 404: model `nope` not found")
    );
}

#[tokio::test]
async fn other_routes_pass_through_unrecorded() {
    let mock = MockServer::start_with(ServerInfo::llama_cpp("qwen", 32_768), |_, _| {
        mock_openai::text_answer(&["hi"])
    })
    .await;
    let proxy = MeteringProxy::start(&mock.base_url, None).await.unwrap();
    let client = http_client();
    let models: Value = client
        .get(format!("{}/models", proxy.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "qwen");
    let root = proxy.base_url().trim_end_matches("/v1");
    let props: Value = client
        .get(format!("{root}/props"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(props["default_generation_settings"]["n_ctx"], 32_768);
    assert_eq!(mock.info_requests(), ["GET /v1/models", "GET /props"]);
    assert!(proxy.stop().await.is_empty());
}

#[tokio::test]
async fn an_endpoint_that_is_down_gets_a_502_naming_it_and_is_recorded() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let proxy = MeteringProxy::start(&upstream, None).await.unwrap();
    let (status, body, _) = post(&proxy, &chat_request(true), None).await;
    assert_eq!(status, 502);
    let body: Value = serde_json::from_str(&body).unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "the model endpoint at {upstream} did not answer: "
        )),
        "{message}"
    );
    assert!(message.to_lowercase().contains("refused"), "{message}");
    let calls = proxy.stop().await;
    assert_eq!(calls.len(), 1);
    assert!(calls[0].unreachable);
    assert_eq!(calls[0].status, 502);
    assert_eq!(calls[0].error.as_deref(), Some(message));
}

#[tokio::test]
async fn a_large_request_passes_whole() {
    // An upstream without a body limit that answers with the size it received (the mock
    // server stops at axum's 2 MB default).
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            axum::routing::post(|body: axum::body::Bytes| async move {
                json!({"received": body.len()}).to_string()
            }),
        )
        .layer(axum::extract::DefaultBodyLimit::disable());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let proxy = MeteringProxy::start(&upstream, None).await.unwrap();
    let request = json!({"model": "m", "messages": [{"role": "user",
                         "content": "word ".repeat(1_000_000)}]});
    let (status, body, _) = post(&proxy, &request, None).await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["received"], request.to_string().len());
    assert_eq!(proxy.stop().await[0].messages, Some(1));
}
