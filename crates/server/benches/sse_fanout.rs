//! Fan-out benchmark: N concurrent SSE subscribers on one session while a scripted turn
//! streams; reports delivered events/s, delivery latency (event `ts` → client receipt) p50/p99
//! and losses; then the memory one idle session costs.
//!
//! `cargo bench -p keel-server --bench sse_fanout -- [SUBSCRIBERS] [DELTAS] [IDLE_SESSIONS]
//! [DELAY_MS]` (defaults 1000, 2000, 200, 1: the scripted model streams one piece per
//! DELAY_MS). Server and clients share this process and its cores.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::panic
)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use keel_server::{Server, ServerConfig, TokenConfig};
use keel_test_support::ScriptBuilder;
use serde_json::{Value, json};

const TOKEN: &str = "bench-token";

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

struct ClientResult {
    seqs: Vec<u64>,
    latencies_ms: Vec<f64>,
}

async fn subscribe(
    client: reqwest::Client,
    url: String,
    ready: Arc<tokio::sync::Barrier>,
) -> ClientResult {
    let response = client
        .get(url)
        .bearer_auth(TOKEN)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    ready.wait().await;
    let mut stream = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    let mut result = ClientResult {
        seqs: Vec::new(),
        latencies_ms: Vec::new(),
    };
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        let now = chrono::Utc::now();
        buffer.extend_from_slice(&chunk);
        // Light parsing, so the clients (sharing the cores with the server) cost little: whole
        // messages are cut at "\n\n" in place, the seq comes from `id:`, `ts` by a short search
        // near the start of the JSON; consumed bytes are dropped once per chunk.
        let mut consumed = 0;
        let mut ended = false;
        while let Some(end) = find(&buffer[consumed..], b"\n\n") {
            let block = &buffer[consumed..consumed + end];
            consumed += end + 2;
            let block = std::str::from_utf8(block).unwrap();
            let mut seq = None;
            let mut event = "";
            let mut data = None;
            for line in block.split('\n') {
                if let Some(id) = line.strip_prefix("id: ") {
                    seq = id.parse::<u64>().ok();
                } else if let Some(ty) = line.strip_prefix("event: ") {
                    event = ty;
                } else if let Some(json) = line.strip_prefix("data: ") {
                    data = Some(json);
                }
            }
            if event == "lagged" {
                panic!("a subscriber lagged: {data:?}");
            }
            let (Some(seq), Some(data)) = (seq, data) else {
                continue;
            };
            let ts = data
                .split_once("\"ts\":\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(ts, _)| ts)
                .unwrap();
            let ts = chrono::DateTime::parse_from_rfc3339(ts).unwrap();
            let latency = (now - ts.with_timezone(&chrono::Utc))
                .num_microseconds()
                .unwrap();
            result.latencies_ms.push(latency as f64 / 1000.0);
            result.seqs.push(seq);
            if event == "agent.end" {
                ended = true;
                break;
            }
        }
        if ended {
            return result;
        }
        buffer.drain(..consumed);
    }
    result
}

/// Starts a server in this process on a free loopback port, with its SQLite database in
/// `data_dir`, sessions allowed under `root` and the scripted model `script`; returns its base URL.
async fn start_server(data_dir: &Path, root: &Path, script: &Path) -> String {
    let mut config = ServerConfig::new(data_dir);
    config.addr = "127.0.0.1:0".parse().unwrap();
    config.tokens = vec![TokenConfig {
        token: TOKEN.into(),
        projects: None,
    }];
    config.default_roots = vec![root.to_owned()];
    config.provider.provider = format!("scripted:{}", script.display());
    config.provider.repo_map = false;
    let server = Server::bind(config).await.unwrap();
    let base = format!("http://{}", server.local_addr());
    tokio::spawn(server.run(std::future::pending()));
    base
}

/// Creates a session of `project` in `root`; returns its id.
async fn create_session(
    client: &reqwest::Client,
    base: &str,
    project: &str,
    root: &Path,
) -> String {
    let created: Value = client
        .post(format!("{base}/v1/sessions"))
        .bearer_auth(TOKEN)
        .json(&json!({"project_id": project, "root": root}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    created["id"].as_str().unwrap().to_owned()
}

/// Session `id` as the API shows it.
async fn get_session(client: &reqwest::Client, base: &str, id: &str) -> Value {
    client
        .get(format!("{base}/v1/sessions/{id}"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Asks session `id` for a turn on `input`.
async fn start_turn(
    client: &reqwest::Client,
    base: &str,
    id: &str,
    input: &str,
) -> reqwest::Response {
    client
        .post(format!("{base}/v1/sessions/{id}/turns"))
        .bearer_auth(TOKEN)
        .json(&json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": input}))
        .send()
        .await
        .unwrap()
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let subscribers: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let deltas: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let idle_sessions: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(200);
    let delay_ms: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(subscribers, deltas, idle_sessions, delay_ms));
}

async fn run(subscribers: usize, deltas: usize, idle_sessions: usize, delay_ms: u64) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    // A turn of `deltas` text pieces, one per `delay_ms`.
    let text: String = (0..deltas).map(|i| format!("w{:03} ", i % 1000)).collect();
    let script = data.path().join("script.json");
    ScriptBuilder::new()
        .chunk_chars(5)
        .delay_ms(delay_ms)
        .text(text)
        .write(&script)
        .unwrap();
    let idle_script = data.path().join("idle.json");
    ScriptBuilder::new().text("ok").write(&idle_script).unwrap();

    let base = start_server(data.path(), workspace.path(), &script).await;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(subscribers + 16)
        .build()
        .unwrap();

    let id = create_session(&client, &base, "bench", workspace.path()).await;

    let ready = Arc::new(tokio::sync::Barrier::new(subscribers + 1));
    let mut tasks = Vec::with_capacity(subscribers);
    let connect_start = Instant::now();
    for _ in 0..subscribers {
        tasks.push(tokio::spawn(subscribe(
            client.clone(),
            format!("{base}/v1/sessions/{id}/events"),
            Arc::clone(&ready),
        )));
    }
    ready.wait().await;
    let connected = connect_start.elapsed();

    let start = Instant::now();
    let response = start_turn(&client, &base, &id, "stream").await;
    assert_eq!(response.status(), 202);
    let mut results = Vec::with_capacity(subscribers);
    for task in tasks {
        results.push(task.await.unwrap());
    }
    let elapsed = start.elapsed();

    let page = get_session(&client, &base, &id).await;
    let stored = page["last_seq"].as_u64().unwrap();
    let expected: Vec<u64> = (1..=stored).collect();
    let lost: usize = results
        .iter()
        .map(|r| expected.len().saturating_sub(r.seqs.len()))
        .sum();
    let wrong = results.iter().filter(|r| r.seqs != expected).count();
    let mut latencies: Vec<f64> = results
        .iter()
        .flat_map(|r| r.latencies_ms.iter().copied())
        .collect();
    latencies.sort_by(f64::total_cmp);
    let delivered = latencies.len();
    println!(
        "sse_fanout: {subscribers} subscribers, one session, {stored} events per subscriber, \
         one model piece per {delay_ms} ms"
    );
    println!(
        "  connect {subscribers} streams: {:.2} s",
        connected.as_secs_f64()
    );
    println!(
        "  turn start → last agent.end: {:.2} s; delivered {delivered} events = {:.0} events/s",
        elapsed.as_secs_f64(),
        delivered as f64 / elapsed.as_secs_f64()
    );
    println!(
        "  latency ts→receipt ms: p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.90),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0)
    );
    println!("  lost events: {lost}; subscribers with a wrong sequence: {wrong}");

    // Memory per idle session: sessions that ran one short turn and keep their live state.
    drop(results);
    let base = start_server(&data.path().join("idle"), workspace.path(), &idle_script).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss_kib();
    let mut ids = Vec::new();
    for _ in 0..idle_sessions {
        let id = create_session(&client, &base, "idle", workspace.path()).await;
        start_turn(&client, &base, &id, "hi").await;
        ids.push(id);
    }
    for id in &ids {
        loop {
            let session = get_session(&client, &base, id).await;
            if session["status"] != "running" && session["status"] != "idle" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib();
    println!(
        "idle sessions: {idle_sessions} sessions after one turn each: RSS +{} KiB = {:.1} KiB per idle session",
        after.saturating_sub(before),
        after.saturating_sub(before) as f64 / idle_sessions as f64
    );
}
