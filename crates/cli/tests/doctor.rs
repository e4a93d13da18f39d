//! `keel doctor` against the mock OpenAI-compatible server, as a real process: a golden text
//! and JSON report for a llama.cpp-like server whose tool calls come back as text, a native
//! one, and the ways a turn cannot work (nothing listening, a refused key, no such model).

use std::path::Path;
use std::process::Output;

use keel_test_support::mock_openai::{MockServer, Reply, ServerInfo, ToolCallMode, model_like};
use serde_json::Value;

use crate::common::keel;

/// Runs `keel doctor ARGS…` in a clean environment (`key`: `OPENAI_API_KEY`).
async fn doctor(dir: &Path, args: &[&str], key: Option<&str>) -> Output {
    let mut command = keel(dir);
    command.arg("doctor").args(args).arg("--root").arg(dir);
    if let Some(key) = key {
        command.env("OPENAI_API_KEY", key);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn stdout(output: &Output, base_url: &str) -> String {
    String::from_utf8_lossy(&output.stdout).replace(base_url, "http://127.0.0.1:PORT/v1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_returning_tool_calls_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start_with(
        ServerInfo::llama_cpp("qwen2.5-coder-7b-instruct-q4_k_m.gguf", 8192),
        model_like(ToolCallMode::Text),
    )
    .await;
    let url = server.base_url.clone();

    let text = doctor(dir.path(), &["--base-url", &url], None).await;
    assert_eq!(text.status.code(), Some(0), "{}", stdout(&text, &url));
    insta::assert_snapshot!("doctor_text_tool_calls", stdout(&text, &url));

    let json = doctor(dir.path(), &["--base-url", &url, "--json"], None).await;
    assert_eq!(json.status.code(), Some(0));
    let report: Value = serde_json::from_str(&stdout(&json, &url)).unwrap();
    // Keys sorted: `serde_json` keeps insertion order when a dependency (agent-client-protocol)
    // turns on its `preserve_order` feature in the same build.
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("doctor_text_tool_calls_json", report);
    });

    // Both runs asked the same two questions: a plain streamed answer, then one offering a
    // tool.
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests[0].body.get("tools").is_none());
    assert_eq!(
        requests[1].body["tools"][0]["function"]["name"],
        "read_file"
    );
    assert_eq!(
        requests[1].body["model"],
        "qwen2.5-coder-7b-instruct-q4_k_m.gguf"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_native_tool_calls_and_a_configured_model() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start_with(
        ServerInfo::vllm("Qwen/Qwen2.5-Coder-32B-Instruct", 32768).with_api_key("sk-local"),
        model_like(ToolCallMode::Native),
    )
    .await;
    std::fs::write(
        dir.path().join("keel.toml"),
        "model = 'Qwen/Qwen2.5-Coder-32B-Instruct'\ncontext_window = 16384\n",
    )
    .unwrap();
    let out = doctor(
        dir.path(),
        &["--base-url", &server.base_url, "--json"],
        Some("sk-local"),
    )
    .await;
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["model"], "Qwen/Qwen2.5-Coder-32B-Instruct");
    assert_eq!(report["model_source"], "settings");
    assert_eq!(report["native_tool_calls"], true);
    assert!(report.get("text_tool_calls").is_none());
    assert_eq!(report["usage_reported"], true);
    assert_eq!(report["context_window"]["tokens"], 32768);
    assert_eq!(
        report["context_window"]["source"],
        "/v1/models max_model_len"
    );
    assert_eq!(
        report["recommended"],
        serde_json::json!({"tool_format": "native", "context_window": 32768})
    );
    assert_eq!(
        report["notes"],
        serde_json::json!([
            "context_window is set to 16384, which Keel uses instead of the server's 32768"
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_ignores_tools_gets_the_xml_format() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start_with(
        ServerInfo::ollama("llama2:7b", 4096, None),
        model_like(ToolCallMode::Ignored),
    )
    .await;
    let out = doctor(
        dir.path(),
        &["--base-url", &server.base_url, "--json"],
        Some("k"),
    )
    .await;
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["native_tool_calls"], false);
    assert!(report.get("text_tool_calls").is_none());
    assert_eq!(report["recommended"]["tool_format"], "xml");
    assert_eq!(
        report["context_window"]["source"],
        "Ollama /api/show context_length"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_listening_is_exit_1_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = doctor(dir.path(), &["--base-url", &url], Some("k")).await;
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  reachable           no"), "{text}");
    assert!(
        text.contains("a turn cannot work: the server cannot be reached ("),
        "{text}"
    );

    let out = doctor(dir.path(), &["--base-url", &url, "--json"], Some("k")).await;
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["reachable"], false);
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .starts_with("the server cannot be reached ("),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_and_a_missing_model_are_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start_with(
        ServerInfo::vllm("served-model", 8192).with_api_key("right"),
        model_like(ToolCallMode::Native),
    )
    .await;
    let out = doctor(
        dir.path(),
        &["--base-url", &server.base_url, "--json"],
        Some("wrong"),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["reachable"], true);
    assert_eq!(
        report["reason"],
        "the server refused the key (HTTP 401: Incorrect API key provided.): check OPENAI_API_KEY"
    );

    let server = MockServer::start_with(ServerInfo::vllm("served-model", 8192), |_, _| {
        Reply::error(
            404,
            "The model `other` does not exist.",
            Some("model_not_found"),
        )
    })
    .await;
    let out = doctor(
        dir.path(),
        &["--base-url", &server.base_url, "--model", "other"],
        Some("k"),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a turn cannot work: no model: the server does not serve `other` (it lists: served-model; choose one with --model)"),
        "{text}"
    );
    assert!(text.contains("`other` is not among the models the server lists (served-model)"));
    // The plain question was asked once: no retries behind the check.
    assert_eq!(server.requests().len(), 1);
}
