//! The metering proxy: one per run, on 127.0.0.1 at a free port, between the agent and the
//! real model endpoint, so Keel and any other agent are measured the same way.
//!
//! Every request is forwarded unchanged — method, path under the upstream's base URL, query,
//! headers and body — except for hop-by-hop headers and `Accept-Encoding` (answers come back
//! uncompressed, so they can be read). Paths under `/v1` go to the base URL (`/v1/models` →
//! `BASE/models`); other paths (llama.cpp's `/props`, Ollama's `/api/show`) go to the server's
//! root (the base URL without its `/v1`). Answers stream back chunk by chunk as they arrive.
//!
//! Each `…/chat/completions` call is recorded as a [`CallRecord`]: the request's message and
//! tool counts, the tokens from the answer's `usage` (or llama.cpp's `timings`, which it sends
//! even when usage is not asked for), the time to the first content or tool-call delta, the
//! total time, the HTTP status and any error. An upstream that cannot be reached is answered
//! with a 502 whose JSON error names it and the cause, and recorded too.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::Response;
use futures::Stream;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::error::EvalError;

/// Most bytes of a non-streamed answer kept to read its usage.
const BODY_CAP: usize = 8 << 20;

/// How long [`MeteringProxy::stop`] waits for answers still streaming.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// One chat-completions call as the proxy saw it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// 1 for the run's first call, and so on (in the order the calls arrived).
    pub call: usize,
    /// Seconds from the proxy's start to the call's arrival.
    pub started_secs: f64,
    /// The request path.
    pub path: String,
    /// The request's `model`.
    pub model: Option<String>,
    /// Whether the request asked for a streamed answer.
    pub stream: bool,
    /// How many messages the request sent (`None`: its body was not JSON with `messages`).
    pub messages: Option<usize>,
    /// How many tools the request offered.
    pub tools: Option<usize>,
    /// The HTTP status the agent got.
    pub status: u16,
    /// Prompt tokens (`usage.prompt_tokens`, else llama.cpp's `cache_n + prompt_n`).
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens served from the server's cache
    /// (`usage.prompt_tokens_details.cached_tokens`, else llama.cpp's `cache_n`).
    pub cached_tokens: Option<u64>,
    /// Completion tokens (`usage.completion_tokens`, else llama.cpp's `predicted_n`).
    pub completion_tokens: Option<u64>,
    /// Seconds from the call's arrival to the first content or tool-call delta.
    pub first_token_secs: Option<f64>,
    /// Seconds from the call's arrival to the answer's end.
    pub total_secs: f64,
    /// Whether the upstream could not be reached (the proxy answered 502 itself).
    pub unreachable: bool,
    /// What went wrong: the upstream unreachable, an HTTP error's message, a stream cut short.
    pub error: Option<String>,
}

/// Where requests go: the base URL (for `/v1/…`) and the server's root (for the rest).
#[derive(Debug, Clone)]
struct Upstream {
    base: String,
    root: String,
}

impl Upstream {
    fn new(base_url: &str) -> Self {
        let base = base_url.trim_end_matches('/').to_owned();
        let root = base.strip_suffix("/v1").unwrap_or(&base).to_owned();
        Self { base, root }
    }

    /// The upstream URL of a request for `path_and_query`.
    fn url(&self, path_and_query: &str) -> String {
        match path_and_query.strip_prefix("/v1") {
            Some(rest) if rest.is_empty() || rest.starts_with(['/', '?']) => {
                format!("{}{rest}", self.base)
            }
            _ => format!("{}{path_and_query}", self.root),
        }
    }
}

struct Shared {
    upstream: Upstream,
    client: reqwest::Client,
    started: Instant,
    next_call: AtomicUsize,
    records: Mutex<Vec<CallRecord>>,
    log: Option<Mutex<File>>,
}

impl Shared {
    fn record(&self, record: CallRecord) {
        if let Some(log) = &self.log
            && let Ok(line) = serde_json::to_string(&record)
        {
            let mut file = log.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = writeln!(file, "{line}");
            let _ = file.flush();
        }
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record);
    }
}

/// A running metering proxy; stops when dropped.
pub struct MeteringProxy {
    base_url: String,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for MeteringProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeteringProxy")
            .field("base_url", &self.base_url)
            .field("upstream", &self.shared.upstream.base)
            .finish_non_exhaustive()
    }
}

impl MeteringProxy {
    /// Starts a proxy to `upstream_base_url` (e.g. `http://localhost:8080/v1`), appending each
    /// call's record to `log` (JSON lines) as it ends.
    pub async fn start(upstream_base_url: &str, log: Option<&Path>) -> Result<Self, EvalError> {
        // reqwest is built without a bundled crypto provider: use ring. An error only means a
        // provider is already installed for the process, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| EvalError::Proxy(error_chain(&e)))?;
        let log = match log {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|source| EvalError::Write {
                        path: path.to_path_buf(),
                        source,
                    })?,
            )),
            None => None,
        };
        let shared = Arc::new(Shared {
            upstream: Upstream::new(upstream_base_url),
            client,
            started: Instant::now(),
            next_call: AtomicUsize::new(1),
            records: Mutex::new(Vec::new()),
            log,
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| EvalError::Proxy(format!("cannot listen on 127.0.0.1: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| EvalError::Proxy(e.to_string()))?;
        let app = Router::new()
            .fallback(forward)
            .with_state(Arc::clone(&shared));
        let (shutdown, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            base_url: format!("http://{addr}/v1"),
            shared,
            shutdown: Some(shutdown),
            task: Some(task),
        })
    }

    /// The proxy's base URL, `http://127.0.0.1:PORT/v1`: what the agent is given.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The upstream base URL requests are forwarded to.
    pub fn upstream(&self) -> &str {
        &self.shared.upstream.base
    }

    /// The calls recorded so far, in the order they ended.
    pub fn calls(&self) -> Vec<CallRecord> {
        let mut calls = self
            .shared
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        calls.sort_by_key(|c| c.call);
        calls
    }

    /// Stops accepting requests, lets answers still streaming end (at most a few seconds),
    /// and returns every call recorded, in the order they arrived.
    pub async fn stop(mut self) -> Vec<CallRecord> {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(STOP_GRACE, &mut task).await.is_err()
        {
            task.abort();
            let _ = task.await;
        }
        self.calls()
    }
}

impl Drop for MeteringProxy {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// Headers that belong to one connection, not to the request or answer.
fn is_hop_by_hop(name: &HeaderName) -> bool {
    [
        header::CONNECTION,
        header::HOST,
        header::CONTENT_LENGTH,
        header::TRANSFER_ENCODING,
        header::TE,
        header::TRAILER,
        header::UPGRADE,
        header::PROXY_AUTHENTICATE,
        header::PROXY_AUTHORIZATION,
    ]
    .contains(name)
        || name.as_str() == "keep-alive"
}

fn copy_headers(from: &HeaderMap, skip: impl Fn(&HeaderName) -> bool) -> HeaderMap {
    let mut to = HeaderMap::new();
    for (name, value) in from {
        if !is_hop_by_hop(name) && !skip(name) {
            to.append(name.clone(), value.clone());
        }
    }
    to
}

/// Forwards one request and streams its answer back, metering chat-completions calls.
async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let arrived = Instant::now();
    let (parts, body) = request.into_parts();
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    let body = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(body) => body,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, &e.to_string(), "bad_request"),
    };
    let meter = parts
        .uri
        .path()
        .ends_with("/chat/completions")
        .then(|| Meter::new(Arc::clone(&shared), parts.uri.path(), &body, arrived));
    let url = shared.upstream.url(&path_and_query);
    let headers = copy_headers(&parts.headers, |name| name == header::ACCEPT_ENCODING);
    let sent = shared
        .client
        .request(parts.method, &url)
        .headers(headers)
        .body(body)
        .send()
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(e) => {
            let message = format!(
                "the model endpoint at {} did not answer: {}",
                shared.upstream.base,
                error_chain(&e)
            );
            if let Some(mut meter) = meter {
                meter.record.status = StatusCode::BAD_GATEWAY.as_u16();
                meter.record.unreachable = true;
                meter.finish(Some(message.clone()));
            }
            return error_response(StatusCode::BAD_GATEWAY, &message, "upstream_unreachable");
        }
    };
    let status = answer.status();
    let mut response = Response::builder().status(status);
    if let Some(headers) = response.headers_mut() {
        *headers = copy_headers(answer.headers(), |_| false);
    }
    let body = match meter {
        Some(mut meter) => {
            meter.record.status = status.as_u16();
            meter.sse = answer
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            Body::from_stream(MeteredBody {
                inner: Box::pin(answer.bytes_stream()),
                meter: Some(meter),
            })
        }
        None => Body::from_stream(answer.bytes_stream()),
    };
    response.body(body).unwrap_or_else(|e| {
        error_response(
            StatusCode::BAD_GATEWAY,
            &format!("the model endpoint's answer cannot be passed on: {e}"),
            "bad_upstream_answer",
        )
    })
}

fn error_response(status: StatusCode, message: &str, code: &str) -> Response {
    let body = json!({"error": {"message": message, "type": "keel_eval_proxy", "code": code}});
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

/// An error with its sources, `outer: inner: innermost`.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = inner.source();
    }
    message
}

/// An answer's body passed through chunk by chunk while its meter reads along.
struct MeteredBody {
    inner: BoxStream<'static, reqwest::Result<Bytes>>,
    meter: Option<Meter>,
}

impl Stream for MeteredBody {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                if let Some(meter) = &mut self.meter {
                    meter.feed(&chunk);
                }
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(Some(Err(e))) => {
                let message = format!("the answer broke off: {}", error_chain(&e));
                if let Some(mut meter) = self.meter.take() {
                    meter.finish(Some(message.clone()));
                }
                Poll::Ready(Some(Err(std::io::Error::other(message))))
            }
            Poll::Ready(None) => {
                if let Some(mut meter) = self.meter.take() {
                    meter.finish(None);
                }
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Token figures from one source (`usage` or `timings`).
#[derive(Debug, Default, Clone, Copy)]
struct Tokens {
    prompt: Option<u64>,
    cached: Option<u64>,
    completion: Option<u64>,
}

/// Reads one call's answer as it passes and records it when it ends (or is dropped).
struct Meter {
    shared: Arc<Shared>,
    record: CallRecord,
    arrived: Instant,
    sse: bool,
    pending: Vec<u8>,
    body: Vec<u8>,
    usage: Option<Tokens>,
    timings: Option<Tokens>,
    finished: bool,
}

impl Meter {
    fn new(shared: Arc<Shared>, path: &str, request: &[u8], arrived: Instant) -> Self {
        let request: Value = serde_json::from_slice(request).unwrap_or(Value::Null);
        let count = |key: &str| request.get(key).and_then(Value::as_array).map(Vec::len);
        let record = CallRecord {
            call: shared.next_call.fetch_add(1, Ordering::Relaxed),
            started_secs: arrived.duration_since(shared.started).as_secs_f64(),
            path: path.to_owned(),
            model: request
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_owned),
            stream: request
                .get("stream")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            messages: count("messages"),
            tools: count("tools").or(request.is_object().then_some(0)),
            ..CallRecord::default()
        };
        Self {
            shared,
            record,
            arrived,
            sse: false,
            pending: Vec::new(),
            body: Vec::new(),
            usage: None,
            timings: None,
            finished: false,
        }
    }

    fn feed(&mut self, chunk: &[u8]) {
        if !self.sse {
            let room = BODY_CAP.saturating_sub(self.body.len());
            self.body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            return;
        }
        self.pending.extend_from_slice(chunk);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.read_line(&line);
        }
    }

    /// One line of a server-sent event stream: a `data:` line's JSON is read.
    fn read_line(&mut self, line: &[u8]) {
        let line = String::from_utf8_lossy(line);
        let Some(data) = line.trim().strip_prefix("data:") else {
            return;
        };
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        if let Ok(value) = serde_json::from_str::<Value>(data) {
            self.read(&value);
        }
    }

    /// One chunk (or a whole non-streamed answer).
    fn read(&mut self, value: &Value) {
        if self.record.first_token_secs.is_none() && has_output(value) {
            self.record.first_token_secs = Some(self.arrived.elapsed().as_secs_f64());
        }
        if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(Tokens {
                prompt: usage.get("prompt_tokens").and_then(Value::as_u64),
                cached: usage
                    .pointer("/prompt_tokens_details/cached_tokens")
                    .and_then(Value::as_u64),
                completion: usage.get("completion_tokens").and_then(Value::as_u64),
            });
        }
        if let Some(timings) = value.get("timings").filter(|t| t.is_object()) {
            let cached = timings.get("cache_n").and_then(Value::as_u64);
            let prompt = timings.get("prompt_n").and_then(Value::as_u64);
            self.timings = Some(Tokens {
                prompt: prompt.map(|p| p + cached.unwrap_or(0)),
                cached,
                completion: timings.get("predicted_n").and_then(Value::as_u64),
            });
        }
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            self.record.error = Some(error_text(error));
        }
    }

    /// Records the call; `error` says how it broke off, if it did.
    fn finish(&mut self, error: Option<String>) {
        if self.finished {
            return;
        }
        self.finished = true;
        if self.sse {
            let rest = std::mem::take(&mut self.pending);
            self.read_line(&rest);
        } else if !self.body.is_empty() {
            match serde_json::from_slice::<Value>(&self.body) {
                Ok(value) => self.read(&value),
                Err(_) if !(200..300).contains(&self.record.status) => {
                    let text = String::from_utf8_lossy(&self.body);
                    self.record.error = Some(excerpt(text.trim(), 300));
                }
                Err(_) => {}
            }
        }
        let usage = self.usage.unwrap_or_default();
        let timings = self.timings.unwrap_or_default();
        self.record.prompt_tokens = usage.prompt.or(timings.prompt);
        self.record.cached_tokens = usage.cached.or(timings.cached);
        self.record.completion_tokens = usage.completion.or(timings.completion);
        self.record.total_secs = self.arrived.elapsed().as_secs_f64();
        if let Some(error) = error {
            self.record.error = Some(error);
        }
        if !(200..300).contains(&self.record.status) {
            let said = self.record.error.take();
            self.record.error = Some(match said {
                Some(said) if self.record.unreachable => said,
                Some(said) => format!("HTTP {}: {said}", self.record.status),
                None => format!("HTTP {}", self.record.status),
            });
        }
        self.shared.record(std::mem::take(&mut self.record));
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        self.finish(Some(
            "the agent closed the connection before the answer ended".to_owned(),
        ));
    }
}

/// Whether a chunk (or answer) carries content or a tool call.
fn has_output(value: &Value) -> bool {
    let Some(choices) = value.get("choices").and_then(Value::as_array) else {
        return false;
    };
    choices.iter().any(|choice| {
        ["delta", "message"].iter().any(|key| {
            let Some(part) = choice.get(*key) else {
                return false;
            };
            part.get("content")
                .and_then(Value::as_str)
                .is_some_and(|c| !c.is_empty())
                || part
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .is_some_and(|calls| !calls.is_empty())
        })
    })
}

/// An `error` value as text: its `message` when it has one.
fn error_text(error: &Value) -> String {
    let text = match error {
        Value::String(text) => text.clone(),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_owned),
    };
    excerpt(&text, 300)
}

/// The first `chars` characters of `text`, with `…` when cut.
pub(crate) fn excerpt(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_paths_go_to_the_base_and_others_to_the_root() {
        let upstream = Upstream::new("http://host:8080/v1/");
        assert_eq!(
            upstream.url("/v1/chat/completions"),
            "http://host:8080/v1/chat/completions"
        );
        assert_eq!(
            upstream.url("/v1/models?x=1"),
            "http://host:8080/v1/models?x=1"
        );
        assert_eq!(upstream.url("/props"), "http://host:8080/props");
        assert_eq!(upstream.url("/v1beta/x"), "http://host:8080/v1beta/x");
        let other = Upstream::new("https://example.com/openai/v2");
        assert_eq!(
            other.url("/v1/chat/completions"),
            "https://example.com/openai/v2/chat/completions"
        );
    }

    #[test]
    fn output_is_content_or_tool_calls_not_roles_or_reasoning() {
        let delta = |d: Value| json!({"choices": [{"index": 0, "delta": d}]});
        assert!(!has_output(&delta(
            json!({"role": "assistant", "content": ""})
        )));
        assert!(!has_output(&delta(json!({"reasoning_content": "hm"}))));
        assert!(has_output(&delta(json!({"content": "Hi"}))));
        assert!(has_output(&delta(json!({"tool_calls": [{"index": 0}]}))));
        assert!(has_output(
            &json!({"choices": [{"message": {"content": "whole"}}]})
        ));
    }

    #[test]
    fn excerpts_cut_on_characters() {
        assert_eq!(excerpt("héllo", 2), "hé…");
        assert_eq!(excerpt("hi", 2), "hi");
    }
}
