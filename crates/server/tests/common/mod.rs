//! Test harness: a keel-server on a loopback port with a scripted provider, a reqwest client,
//! a small SSE parser, and scenarios shared by the SQLite and PostgreSQL runs.
#![allow(dead_code, missing_docs)]

pub mod scenarios;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use keel_protocol::ApprovalPolicy;
use keel_server::{Server, ServerConfig, TokenConfig};
use keel_test_support::{ScriptBuilder, TestDatabase};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::oneshot;

/// Token seeing every project.
pub const ALL: &str = "test-token-all";
/// Token seeing only project p1.
pub const P1: &str = "test-token-p1";
/// Token seeing only project p2.
pub const P2: &str = "test-token-p2";
/// Stream key shared by instances in a test.
pub const STREAM_KEY: &str = "shared-stream-key";

/// A script of `tests/scripts`, or `name` itself when it is an absolute path.
pub fn script(name: &str) -> PathBuf {
    if Path::new(name).is_absolute() {
        return PathBuf::from(name);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// Writes a scripted turn streaming `deltas` deltas of 4,096 characters into `dir`; returns
/// its path. 3,000 of them are 12 MB of events, far more than a client socket with a small
/// receive buffer and the server's send buffer hold.
pub fn flood_script(dir: &Path, deltas: usize) -> String {
    let path = dir.join("flood.json");
    ScriptBuilder::new()
        .chunk_chars(4096)
        .text(unrepeating_text(4096 * deltas))
        .write(&path)
        .unwrap();
    path.display().to_string()
}

/// `len` letters that never repeat a short piece (a model's loop guard would stop an answer of
/// `xxx…`), the same on every run.
fn unrepeating_text(len: usize) -> String {
    let mut state: u32 = 0x2545_f491;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            char::from(b'a' + (state % 26) as u8)
        })
        .collect()
}

/// A TCP connection to the server whose receive buffer is small and fixed (16 KiB, no
/// autotuning): a client that stops reading it soon blocks the server's writes.
pub async fn small_buffer_connection(server: &TestServer) -> tokio::net::TcpStream {
    let addr: std::net::SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(16 * 1024).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Reads from `stream` until the end of the response headers; returns what was read.
pub async fn read_headers(stream: &mut tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut raw = Vec::new();
    let mut buffer = [0u8; 4096];
    while memchr::memmem::find(&raw, b"\r\n\r\n").is_none() {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the connection closed before the headers ended");
        raw.extend_from_slice(&buffer[..n]);
    }
    raw
}

/// Reads the rest of an HTTP/1.1 response with a chunked body (`raw` holds what was read
/// already, headers included) until the server closes the connection; returns the body,
/// de-chunked.
pub async fn read_chunked_response(
    stream: &mut tokio::net::TcpStream,
    mut raw: Vec<u8>,
) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    stream.read_to_end(&mut raw).await.unwrap();
    let head_end = memchr::memmem::find(&raw, b"\r\n\r\n").expect("no end of headers") + 4;
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    let mut rest = &raw[head_end..];
    let mut body = Vec::new();
    loop {
        let line_end = memchr::memmem::find(rest, b"\r\n").expect("truncated chunk size");
        let size_text = std::str::from_utf8(&rest[..line_end]).unwrap();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap();
        rest = &rest[line_end + 2..];
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub script: String,
    pub stream_buffer: usize,
    /// A PostgreSQL database to store in (default: SQLite in the data folder); servers
    /// sharing it keep it alive.
    pub database: Option<Arc<TestDatabase>>,
    pub approval: ApprovalPolicy,
    pub body_limit: usize,
    pub keep_alive: Duration,
    /// Allowed root shared with another server (default: a fresh temporary folder).
    pub workspace: Option<PathBuf>,
    /// Lease on running turns (default: the server's).
    pub turn_lease: Option<Duration>,
    /// Changes to the model settings the tests share.
    pub provider: fn(&mut keel_config::Settings),
    /// `[mcp_servers.NAME]` of the server's configuration (every project).
    pub mcp_servers: std::collections::BTreeMap<String, keel_mcp::ServerConfig>,
    /// A server config file's text to start from (default: no file).
    pub config_file: Option<String>,
    /// An OTLP collector to export traces to (default: none).
    pub otlp_endpoint: Option<String>,
}

impl Options {
    pub fn new(script: &str) -> Self {
        Self {
            script: script.to_owned(),
            stream_buffer: 4096,
            database: None,
            approval: ApprovalPolicy::OnDangerous,
            body_limit: 64 * 1024,
            keep_alive: Duration::from_secs(15),
            workspace: None,
            turn_lease: None,
            provider: |_| {},
            mcp_servers: std::collections::BTreeMap::new(),
            config_file: None,
            otlp_endpoint: None,
        }
    }
}

pub fn tokens() -> Vec<TokenConfig> {
    vec![
        TokenConfig {
            token: ALL.into(),
            projects: None,
        },
        TokenConfig {
            token: P1.into(),
            projects: Some(vec!["p1".into()]),
        },
        TokenConfig {
            token: P2.into(),
            projects: Some(vec!["p2".into()]),
        },
    ]
}

pub struct TestServer {
    pub base: String,
    /// The instance id the server runs turns under.
    pub instance_id: String,
    pub store: std::sync::Arc<dyn keel_store::Store>,
    pub client: reqwest::Client,
    pub workspace: PathBuf,
    _workspace_dir: TempDir,
    _data: TempDir,
    _database: Option<Arc<TestDatabase>>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    pub async fn start(options: Options) -> Self {
        let workspace_dir = tempfile::tempdir().unwrap();
        Self::start_in(options, workspace_dir).await
    }

    /// A server whose allowed root is `workspace_dir`.
    pub async fn start_in(options: Options, workspace_dir: TempDir) -> Self {
        let data = tempfile::tempdir().unwrap();
        let workspace = match &options.workspace {
            Some(shared) => shared.canonicalize().unwrap(),
            None => workspace_dir.path().canonicalize().unwrap(),
        };
        let mut config = match &options.config_file {
            Some(text) => {
                let path = data.path().join("server.toml");
                std::fs::write(&path, text).unwrap();
                ServerConfig::resolve(&keel_server::config::ServerArgs {
                    config: Some(path),
                    data_dir: Some(data.path().to_path_buf()),
                    ..keel_server::config::ServerArgs::default()
                })
                .unwrap()
            }
            None => ServerConfig::new(data.path()),
        };
        config.addr = "127.0.0.1:0".parse().unwrap();
        if let Some(database) = &options.database {
            config.database_url = database.url().to_owned();
        }
        config.tokens = tokens();
        config.stream_key = Some(STREAM_KEY.as_bytes().to_vec());
        config.default_roots = vec![workspace.clone()];
        config.provider.provider = format!("scripted:{}", script(&options.script).display());
        config.provider.repo_map = false;
        config.provider.approval = options.approval;
        config.provider.max_iterations = 10;
        (options.provider)(&mut config.provider);
        config.mcp_servers = options.mcp_servers.clone();
        config.stream_buffer = options.stream_buffer;
        config.body_limit = options.body_limit;
        config.keep_alive = options.keep_alive;
        if let Some(lease) = options.turn_lease {
            config.turn_lease = lease;
        }
        config.telemetry =
            keel_telemetry::TelemetryConfig::with_env(options.otlp_endpoint.clone(), false, |_| {
                None
            });
        let server = Server::bind(config).await.unwrap();
        let base = format!("http://{}", server.local_addr());
        let store = std::sync::Arc::clone(&server.state().store);
        let instance_id = server.state().lease.owner.clone();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server
                .run(async move {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
        Self {
            base,
            instance_id,
            store,
            client: client(),
            workspace,
            _workspace_dir: workspace_dir,
            _data: data,
            _database: options.database,
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }

    /// Stops the server as a signal does (drained, its traces exported) and waits for it.
    pub async fn stop_gracefully(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(30), task)
                .await
                .expect("the server stops within its drain time")
                .unwrap();
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub async fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self.client.request(method, self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    pub async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.request(reqwest::Method::GET, path, Some(token), None)
            .await
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> (StatusCode, Value) {
        self.request(reqwest::Method::POST, path, Some(token), Some(body))
            .await
    }

    /// Posts raw bytes with a JSON content type.
    pub async fn post_raw(&self, path: &str, token: &str, body: Vec<u8>) -> (StatusCode, Value) {
        let response = self
            .client
            .post(self.url(path))
            .bearer_auth(token)
            .header("content-type", "application/json")
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

    pub async fn create_session(&self, project: &str, token: &str) -> String {
        let (status, body) = self
            .post(
                "/v1/sessions",
                token,
                json!({"project_id": project, "root": self.workspace.to_str().unwrap(), "title": "t"}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    pub async fn start_turn(&self, session: &str, input: &str) -> Value {
        let (status, body) = self
            .post(
                &format!("/v1/sessions/{session}/turns"),
                ALL,
                json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": input}),
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        body["turn"].clone()
    }

    /// Polls until the turn has ended; returns it.
    pub async fn wait_turn(&self, session: &str, turn_id: &str) -> Value {
        for _ in 0..600 {
            let (_, body) = self
                .get(&format!("/v1/sessions/{session}/turns"), ALL)
                .await;
            if let Some(turn) = body["turns"]
                .as_array()
                .and_then(|turns| turns.iter().find(|t| t["id"] == turn_id))
                && turn["status"] != "running"
            {
                return turn.clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("turn {turn_id} did not end");
    }

    /// Every stored event of the session, through the paged JSON route.
    pub async fn events(&self, session: &str) -> Vec<Value> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let (status, body) = self
                .get(
                    &format!("/v1/sessions/{session}/events?after={after}&limit=1000"),
                    ALL,
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            out.extend(body["events"].as_array().unwrap().iter().cloned());
            after = body["next_after"].as_u64().unwrap();
            if !body["has_more"].as_bool().unwrap() {
                return out;
            }
        }
    }

    /// Waits until an event of `event_type` is stored; returns it.
    pub async fn wait_event(&self, session: &str, event_type: &str) -> Value {
        for _ in 0..600 {
            if let Some(event) = self
                .events(session)
                .await
                .into_iter()
                .find(|e| e["type"] == event_type)
            {
                return event;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no {event_type} event");
    }

    /// Waits until a stored event matches `matches`; returns it.
    pub async fn wait_event_where(&self, session: &str, matches: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..600 {
            if let Some(event) = self.events(session).await.into_iter().find(|e| matches(e)) {
                return event;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no matching event");
    }

    pub async fn stream_token(&self, session: &str, token: &str) -> String {
        let (status, body) = self
            .post("/v1/stream-tokens", token, json!({"session_id": session}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["token"].as_str().unwrap().to_owned()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// A reqwest client (rustls needs its crypto provider installed first).
pub fn client() -> reqwest::Client {
    keel_test_support::http_client()
}

/// One parsed SSE message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SseMessage {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

/// Reads SSE messages from a response body, skipping comments.
pub struct SseReader {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
    pub comments: usize,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            stream: response.bytes_stream().boxed(),
            buffer: String::new(),
            comments: 0,
        }
    }

    /// The next message; `None` when the stream ended.
    pub async fn next(&mut self) -> Option<SseMessage> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut message = SseMessage::default();
                let mut has_field = false;
                for line in block.lines() {
                    if let Some(comment) = line.strip_prefix(':') {
                        let _ = comment;
                        self.comments += 1;
                        continue;
                    }
                    let (name, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    has_field = true;
                    match name {
                        "id" => message.id = Some(value.to_owned()),
                        "event" => message.event = Some(value.to_owned()),
                        "data" => {
                            if !message.data.is_empty() {
                                message.data.push('\n');
                            }
                            message.data.push_str(value);
                        }
                        _ => {}
                    }
                }
                if has_field {
                    return Some(message);
                }
                continue;
            }
            match self.stream.next().await {
                Some(Ok(chunk)) => self.buffer.push_str(&String::from_utf8_lossy(&chunk)),
                _ => return None,
            }
        }
    }

    /// The next message within `timeout`.
    pub async fn next_within(&mut self, timeout: Duration) -> Option<SseMessage> {
        tokio::time::timeout(timeout, self.next())
            .await
            .ok()
            .flatten()
    }
}

/// Opens the SSE stream of a session.
pub async fn open_sse(
    server: &TestServer,
    session: &str,
    auth: SseAuth<'_>,
    last_event_id: Option<u64>,
) -> reqwest::Response {
    let mut url = server.url(&format!("/v1/sessions/{session}/events"));
    let mut request = server.client.get(&url);
    match auth {
        SseAuth::Bearer(token) => request = request.bearer_auth(token),
        SseAuth::StreamToken(token) => {
            url = format!("{url}?token={token}");
            request = server.client.get(&url);
        }
    }
    request = request.header("accept", "text/event-stream");
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id.to_string());
    }
    request.send().await.unwrap()
}

#[derive(Debug, Clone, Copy)]
pub enum SseAuth<'a> {
    Bearer(&'a str),
    StreamToken(&'a str),
}
