//! A mock OpenAI chat-completions server for tests and benchmarks.
//!
//! Listens on 127.0.0.1 (any free port), answers `POST /v1/chat/completions` with real
//! server-sent events (`content-type: text/event-stream`, `data: {...}\n\n`, `data: [DONE]`)
//! or with an HTTP error, and records every request it receives. Started with a
//! [`ServerInfo`], it also answers what local servers say about themselves: `GET /v1/models`
//! (with vLLM's `max_model_len`), llama.cpp's `GET /props`, Ollama's `POST /api/show` and
//! `GET /api/ps`, `POST /v1/images/generations` ([`ImageReply`]: `b64_json`, or a `url` the
//! server also serves), and checks a bearer key. [`model_like`] answers like a model whose tool calls
//! come back natively, as text, or not at all.

// Test infrastructure: a failed bind or a poisoned lock fails the test that uses it.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

/// One piece of a streamed body.
#[derive(Debug, Clone)]
pub enum Frame {
    /// `data: <json>\n\n`.
    Data(String),
    /// Bytes sent exactly as given.
    Raw(String),
    /// Pause before the next frame.
    Sleep(Duration),
    /// Break the connection (the body errors, so the client sees an incomplete response).
    Drop,
}

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A 200 event stream.
    Sse(Vec<Frame>),
    /// An HTTP error with headers and a body.
    Status {
        /// The HTTP status.
        status: u16,
        /// Extra response headers.
        headers: Vec<(String, String)>,
        /// The body, sent as `application/json`.
        body: String,
    },
}

impl Reply {
    /// An error status with a JSON `{"error": {...}}` body.
    pub fn error(status: u16, message: &str, code: Option<&str>) -> Self {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: json!({"error": {"message": message, "type": "error", "code": code}}).to_string(),
        }
    }

    /// The same reply with one more header (for `Status`).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Status { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The JSON body.
    pub body: Value,
    /// The `authorization` header, if any.
    pub authorization: Option<String>,
}

type Responder = dyn Fn(usize, &Value) -> Reply + Send + Sync;

/// What the server says about itself besides chat completions; a route left `None` answers 404.
#[derive(Debug, Clone, Default)]
pub struct ServerInfo {
    /// `GET /v1/models`: these model objects (`{"id": …}`, maybe `"max_model_len"`).
    pub models: Option<Vec<Value>>,
    /// `GET /props` (llama.cpp): this body.
    pub props: Option<Value>,
    /// `POST /api/show` (Ollama): this body.
    pub ollama_show: Option<Value>,
    /// `GET /api/ps` (Ollama): this body.
    pub ollama_ps: Option<Value>,
    /// `POST /v1/images/generations`: this answer (`None`: 404).
    pub images: Option<ImageReply>,
    /// Every route answers 401 unless the request carries `Authorization: Bearer KEY`.
    pub api_key: Option<String>,
}

/// How `POST /v1/images/generations` answers.
#[derive(Debug, Clone)]
pub enum ImageReply {
    /// `{"data": [{"b64_json": …}]}` holding these bytes.
    B64Json(Vec<u8>),
    /// `{"data": [{"url": "http://127.0.0.1:PORT/files/image"}]}`; `GET /files/image` serves
    /// these bytes.
    Url(Vec<u8>),
    /// This status with this JSON body.
    Status(u16, Value),
}

impl ServerInfo {
    /// vLLM: `/v1/models` lists `model` with its `max_model_len`.
    pub fn vllm(model: &str, max_model_len: u64) -> Self {
        Self {
            models: Some(vec![
                json!({"id": model, "object": "model", "created": 1_735_689_600,
                "owned_by": "vllm", "root": model, "parent": null,
                "max_model_len": max_model_len}),
            ]),
            ..Self::default()
        }
    }

    /// llama.cpp: `/v1/models` lists `model`, `/props` reports `n_ctx`.
    pub fn llama_cpp(model: &str, n_ctx: u64) -> Self {
        Self {
            models: Some(vec![
                json!({"id": model, "object": "model", "created": 1_735_689_600,
                "owned_by": "llamacpp", "meta": {"n_ctx_train": 131_072}}),
            ]),
            props: Some(json!({
                "default_generation_settings": {"n_ctx": n_ctx, "params": {"n_predict": -1}},
                "total_slots": 1,
                "model_path": format!("/models/{model}"),
                "chat_template": "{{ messages }}",
            })),
            ..Self::default()
        }
    }

    /// Ollama: `/v1/models` lists `model`, `/api/show` reports `context_length` in its model
    /// info (and `num_ctx` among its parameters when given).
    pub fn ollama(model: &str, context_length: u64, num_ctx: Option<u64>) -> Self {
        let parameters = match num_ctx {
            Some(n) => format!(
                "num_ctx                        {n}\nstop                           \"<|im_end|>\""
            ),
            None => "stop                           \"<|im_end|>\"".to_owned(),
        };
        Self {
            models: Some(vec![
                json!({"id": model, "object": "model", "created": 1_735_689_600,
                "owned_by": "library"}),
            ]),
            ollama_show: Some(json!({
                "modelfile": "FROM /root/.ollama/models/blobs/sha256-x",
                "parameters": parameters,
                "details": {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B"},
                "model_info": {"general.architecture": "qwen2",
                               "qwen2.context_length": context_length,
                               "qwen2.embedding_length": 3584},
            })),
            ..Self::default()
        }
    }

    /// An image server answering with `reply`.
    pub fn images(reply: ImageReply) -> Self {
        Self {
            images: Some(reply),
            ..Self::default()
        }
    }

    /// The same, requiring `key` as the bearer token.
    pub fn with_api_key(mut self, key: &str) -> Self {
        self.api_key = Some(key.to_owned());
        self
    }
}

#[derive(Clone)]
struct Shared {
    responder: Arc<Responder>,
    requests: Arc<Mutex<Vec<Recorded>>>,
    info: Arc<ServerInfo>,
    info_requests: Arc<Mutex<Vec<String>>>,
    image_requests: Arc<Mutex<Vec<Recorded>>>,
    /// `http://127.0.0.1:PORT`, for image URLs.
    origin: Arc<Mutex<String>>,
}

/// The running server; stops when dropped.
pub struct MockServer {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    info_requests: Arc<Mutex<Vec<String>>>,
    image_requests: Arc<Mutex<Vec<Recorded>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockServer {
    /// Serves each request with `responder(request_number_from_0, body)`.
    pub async fn start(responder: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static) -> Self {
        Self::start_with(ServerInfo::default(), responder).await
    }

    /// Serves chat completions with `responder` and the other routes from `info`.
    pub async fn start_with(
        info: ServerInfo,
        responder: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let info_requests = Arc::new(Mutex::new(Vec::new()));
        let image_requests = Arc::new(Mutex::new(Vec::new()));
        let origin = Arc::new(Mutex::new(String::new()));
        let shared = Shared {
            responder: Arc::new(responder),
            requests: Arc::clone(&requests),
            info: Arc::new(info),
            info_requests: Arc::clone(&info_requests),
            image_requests: Arc::clone(&image_requests),
            origin: Arc::clone(&origin),
        };
        let app = Router::new()
            .route("/v1/chat/completions", post(handle))
            .route("/v1/models", get(models))
            .route("/v1/embeddings", post(embeddings))
            .route("/props", get(props))
            .route("/api/show", post(ollama_show))
            .route("/api/ps", get(ollama_ps))
            .route("/v1/images/generations", post(images))
            .route("/files/image", get(image_file))
            .with_state(shared);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        *origin.lock().unwrap() = format!("http://{addr}");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        MockServer {
            base_url: format!("http://{addr}/v1"),
            requests,
            info_requests,
            image_requests,
            task,
        }
    }

    /// Serves the replies in order; requests beyond them get a 500.
    pub async fn sequence(replies: Vec<Reply>) -> Self {
        let queue = Mutex::new(VecDeque::from(replies));
        Self::start(move |_, _| {
            queue
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| Reply::error(500, "mock: no reply left", None))
        })
        .await
    }

    /// Every chat-completions request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Every `POST /v1/images/generations` received so far.
    pub fn image_requests(&self) -> Vec<Recorded> {
        self.image_requests.lock().unwrap().clone()
    }

    /// Every other request received so far, as `METHOD /path`.
    pub fn info_requests(&self) -> Vec<String> {
        self.info_requests.lock().unwrap().clone()
    }
}

/// The 401 an unauthorised request gets, if it is one.
fn unauthorised(info: &ServerInfo, headers: &HeaderMap) -> Option<Response> {
    let key = info.api_key.as_deref()?;
    let given = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    (given != Some(key)).then(|| {
        json_response(
            401,
            json!({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}}),
        )
    })
}

fn json_response(status: u16, body: Value) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// Answers an informational route from `pick(info)`, recording it as `what`.
fn info_route(
    shared: &Shared,
    headers: &HeaderMap,
    what: &str,
    pick: impl Fn(&ServerInfo) -> Option<Value>,
) -> Response {
    shared.info_requests.lock().unwrap().push(what.to_owned());
    if let Some(denied) = unauthorised(&shared.info, headers) {
        return denied;
    }
    match pick(&shared.info) {
        Some(body) => json_response(200, body),
        None => json_response(404, json!({"error": "not found"})),
    }
}

async fn models(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    info_route(&shared, &headers, "GET /v1/models", |info| {
        info.models
            .clone()
            .map(|data| json!({"object": "list", "data": data}))
    })
}

/// Dimensions of the mock's embeddings.
pub const EMBEDDING_DIMS: usize = 64;

/// The mock's embedding of `text`: a bag of its lower-cased words hashed into
/// [`EMBEDDING_DIMS`] buckets (texts sharing words point the same way).
pub fn hashed_embedding(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; EMBEDDING_DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let hash = word
            .to_lowercase()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        vector[(hash % EMBEDDING_DIMS as u64) as usize] += 1.0;
    }
    vector
}

/// `POST /v1/embeddings`: [`hashed_embedding`] of each input, recorded as an info request.
async fn embeddings(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    shared
        .info_requests
        .lock()
        .unwrap()
        .push("POST /v1/embeddings".to_owned());
    if let Some(denied) = unauthorised(&shared.info, &headers) {
        return denied;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let inputs: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => return json_response(400, json!({"error": {"message": "input is required"}})),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": hashed_embedding(text)}))
        .collect();
    json_response(
        200,
        json!({"object": "list", "data": data, "model": body["model"].clone()}),
    )
}

async fn props(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    info_route(&shared, &headers, "GET /props", |info| info.props.clone())
}

async fn ollama_show(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    info_route(&shared, &headers, "POST /api/show", |info| {
        info.ollama_show.clone()
    })
}

async fn ollama_ps(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    info_route(&shared, &headers, "GET /api/ps", |info| {
        info.ollama_ps.clone()
    })
}

async fn images(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    shared.image_requests.lock().unwrap().push(Recorded {
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    });
    if let Some(denied) = unauthorised(&shared.info, &headers) {
        return denied;
    }
    use base64::Engine as _;
    match &shared.info.images {
        Some(ImageReply::B64Json(bytes)) => json_response(
            200,
            json!({"created": 1_735_689_600, "data": [{
                "b64_json": base64::engine::general_purpose::STANDARD.encode(bytes),
                "revised_prompt": "as asked"}]}),
        ),
        Some(ImageReply::Url(_)) => {
            let url = format!("{}/files/image", shared.origin.lock().unwrap());
            json_response(
                200,
                json!({"created": 1_735_689_600, "data": [{"url": url}]}),
            )
        }
        Some(ImageReply::Status(status, body)) => json_response(*status, body.clone()),
        None => json_response(404, json!({"error": "not found"})),
    }
}

async fn image_file(State(shared): State<Shared>) -> Response {
    match &shared.info.images {
        Some(ImageReply::Url(bytes)) => Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "image/png")
            .body(Body::from(bytes.clone()))
            .unwrap(),
        _ => json_response(404, json!({"error": "not found"})),
    }
}

async fn handle(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(denied) = unauthorised(&shared.info, &headers) {
        return denied;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let n = {
        let mut requests = shared.requests.lock().unwrap();
        requests.push(Recorded {
            body: body.clone(),
            authorization: headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        });
        requests.len() - 1
    };
    match (shared.responder)(n, &body) {
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut response = Response::builder()
                .status(StatusCode::from_u16(status).unwrap())
                .header("content-type", "application/json");
            for (k, v) in headers {
                response = response.header(k, v);
            }
            response.body(Body::from(body)).unwrap()
        }
        Reply::Sse(frames) => {
            let stream = futures::stream::unfold(VecDeque::from(frames), |mut frames| async move {
                loop {
                    match frames.pop_front()? {
                        Frame::Sleep(d) => tokio::time::sleep(d).await,
                        Frame::Data(json) => {
                            return Some((Ok(Bytes::from(format!("data: {json}\n\n"))), frames));
                        }
                        Frame::Raw(text) => return Some((Ok(Bytes::from(text)), frames)),
                        Frame::Drop => {
                            frames.clear();
                            return Some((
                                Err(std::io::Error::other("mock: connection dropped")),
                                frames,
                            ));
                        }
                    }
                }
            });
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    }
}

// ---- chunk builders ----------------------------------------------------------------------

/// A `chat.completion.chunk` object with `choices`.
fn envelope(choices: Value) -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1_723_024_757,
        "model": "mock-model",
        "choices": choices,
    })
}

fn chunk(choices: Value) -> Frame {
    Frame::Data(envelope(choices).to_string())
}

/// The opening `{"role": "assistant"}` delta.
pub fn role() -> Frame {
    chunk(
        json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
    )
}

/// A content delta.
pub fn content(text: &str) -> Frame {
    chunk(json!([{"index": 0, "delta": {"content": text}, "finish_reason": null}]))
}

/// A `reasoning_content` delta.
pub fn reasoning(text: &str) -> Frame {
    chunk(json!([{"index": 0, "delta": {"reasoning_content": text}, "finish_reason": null}]))
}

/// The first piece of tool call `index`, with its id and name.
pub fn tool_start(index: u32, id: &str, name: &str) -> Frame {
    chunk(json!([{"index": 0, "delta": {"tool_calls": [
        {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
    ]}, "finish_reason": null}]))
}

/// An argument piece of tool call `index`.
pub fn tool_args(index: u32, piece: &str) -> Frame {
    chunk(json!([{"index": 0, "delta": {"tool_calls": [
        {"index": index, "function": {"arguments": piece}}
    ]}, "finish_reason": null}]))
}

/// The chunk carrying the finish reason.
pub fn finish(reason: &str) -> Frame {
    chunk(json!([{"index": 0, "delta": {}, "finish_reason": reason}]))
}

/// The usage chunk (`choices: []`).
pub fn usage(prompt: u64, completion: u64) -> Frame {
    let mut chunk = envelope(json!([]));
    chunk["usage"] = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion});
    Frame::Data(chunk.to_string())
}

/// A usage chunk that also reports `cached` of the prompt tokens as served from the provider's
/// cache (`prompt_tokens_details.cached_tokens`, as OpenAI sends it).
pub fn usage_cached(prompt: u64, completion: u64, cached: u64) -> Frame {
    let mut chunk = envelope(json!([]));
    chunk["usage"] = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion,
                            "prompt_tokens_details": {"cached_tokens": cached}});
    Frame::Data(chunk.to_string())
}

/// `data: [DONE]`.
pub fn done() -> Frame {
    Frame::Data("[DONE]".to_owned())
}

/// The task of a user message as Keel sends it: the text after the turn's context (`## Task`),
/// or the whole message when it has none.
pub fn task_of(content: &str) -> &str {
    content
        .rsplit_once("## Task\n\n")
        .map_or(content, |(_, task)| task)
}

/// A complete text answer streamed in these pieces.
pub fn text_answer(pieces: &[&str]) -> Reply {
    let mut frames = vec![role()];
    frames.extend(pieces.iter().map(|p| content(p)));
    frames.extend([finish("stop"), usage(10, pieces.len() as u64), done()]);
    Reply::Sse(frames)
}

/// A recorded (or faithfully written) SSE body, sent one event per body chunk as a server
/// writes them.
pub fn recorded(sse: &str) -> Reply {
    Reply::Sse(
        sse.split_inclusive("\n\n")
            .map(|event| Frame::Raw(event.to_owned()))
            .collect(),
    )
}

/// How a [`model_like`] server answers a request that offers tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallMode {
    /// As native `tool_calls` deltas (the server parsed the model's call).
    Native,
    /// As Hermes `<tool_call>` text in the content (the server's parser is off).
    Text,
    /// With a text answer: the model ignored the tools.
    Ignored,
}

/// A responder that answers like a model: a request offering tools gets a call to the first
/// offered tool with `{}` as its arguments, in `mode`; any other request the text answer
/// `ok`. Every answer streams and reports usage.
pub fn model_like(mode: ToolCallMode) -> impl Fn(usize, &Value) -> Reply + Send + Sync + 'static {
    move |_, body| {
        let tool = body["tools"][0]["function"]["name"].as_str();
        match (tool, mode) {
            (Some(name), ToolCallMode::Native) => Reply::Sse(vec![
                role(),
                tool_start(0, "call_mock_1", name),
                tool_args(0, "{}"),
                finish("tool_calls"),
                usage(60, 9),
                done(),
            ]),
            (Some(name), ToolCallMode::Text) => {
                let call = json!({"name": name, "arguments": {}}).to_string();
                text_answer(&["<tool_call>", "\n", &call, "\n", "</tool_call>"])
            }
            _ => text_answer(&["ok"]),
        }
    }
}

/// A complete answer that calls one tool: `name` with `arguments` (JSON text), id `id`.
pub fn tool_call_answer(id: &str, name: &str, arguments: &str) -> Reply {
    Reply::Sse(vec![
        role(),
        tool_start(0, id, name),
        tool_args(0, arguments),
        finish("tool_calls"),
        usage(10, 5),
        done(),
    ])
}
