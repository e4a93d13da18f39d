//! Streamable HTTP: the reference "everything" server in its `streamableHttp` mode, behind a
//! loopback gate that lets a request through only with the configured headers and the bearer
//! token read from an environment variable.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use keel_mcp::{ServerConfig, ServerSpec, ServerStatus};
use serde_json::json;

use crate::common::{Fixture, everything};

/// The header the gate wants, and its value in the configuration (`$HOME` expanded).
const HEADER: &str = "x-keel-test";

/// What the gate lets through.
struct Gate {
    upstream: String,
    token: String,
    header: String,
    client: reqwest::Client,
}

async fn gate(State(gate): State<Arc<Gate>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let bearer = format!("Bearer {}", gate.token);
    let allowed = header("authorization") == Some(bearer.as_str())
        && header(HEADER) == Some(gate.header.as_str());
    if !allowed {
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .body(Body::from("missing or wrong token or header"))
            .unwrap();
    }
    let url = format!("{}{}", gate.upstream, parts.uri.path());
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let mut forward = gate.client.request(parts.method.clone(), url).body(body);
    for (name, value) in &parts.headers {
        if name != "host" && name != "authorization" && name != HEADER {
            forward = forward.header(name.as_str(), value.as_bytes());
        }
    }
    let answer = match forward.send().await {
        Ok(answer) => answer,
        Err(e) => {
            return Response::builder()
                .status(StatusCode::BAD_GATEWAY)
                .body(Body::from(e.to_string()))
                .unwrap();
        }
    };
    let mut response = Response::builder().status(answer.status().as_u16());
    for (name, value) in answer.headers() {
        response = response.header(name.as_str(), value.as_bytes());
    }
    response
        .body(Body::from_stream(answer.bytes_stream()))
        .unwrap()
}

/// The everything server on a free port, and the gate in front of it; the gate's URL.
async fn start(
    program: &std::path::Path,
    token: &str,
    header: &str,
) -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = tokio::process::Command::new(program)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let upstream = format!("http://127.0.0.1:{port}");
    let mut up = false;
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "the everything server did not listen on {port}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = Arc::new(Gate {
        upstream,
        token: token.to_owned(),
        header: header.to_owned(),
        client: keel_test_support::http::http_client(),
    });
    let app = axum::Router::new().fallback(gate).with_state(state);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (child, format!("http://{addr}/mcp"))
}

fn http(name: &str, url: &str, header: &str, token_var: &str) -> ServerSpec {
    let config = ServerConfig {
        url: Some(url.to_owned()),
        headers: [(HEADER.to_owned(), header.to_owned())].into(),
        bearer_token_env_var: Some(token_var.to_owned()),
        startup_timeout_secs: Some(10),
        tool_timeout_secs: Some(10),
        ..ServerConfig::default()
    };
    ServerSpec::new(name, &config).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_and_calls_over_streamable_http_with_headers_and_a_bearer_token() {
    let Some(program) = everything() else {
        return;
    };
    // The token is whatever `$HOME` holds: any variable of Keel's environment will do, and
    // tests cannot set one safely while others run.
    let Ok(home) = std::env::var("HOME") else {
        eprintln!("skipped: HOME is not set, and the token is read from it");
        return;
    };
    let (_server, url) = start(&program, &home, &format!("keel {home}")).await;

    let f = Fixture::start(vec![
        http("web", &url, "keel ${HOME}", "HOME"),
        http("wrong_header", &url, "someone else", "HOME"),
        http(
            "no_token",
            &url,
            "keel ${HOME}",
            "KEEL_TEST_SURELY_UNSET_TOKEN",
        ),
    ])
    .await;
    let reports = f.manager.reports();
    let status = |name: &str| {
        reports
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.status.clone())
            .unwrap()
    };
    assert_eq!(status("web"), ServerStatus::Running, "{reports:#?}");
    match status("wrong_header") {
        ServerStatus::Failed(reason) => assert!(reason.contains("401"), "{reason}"),
        other => panic!("the gate let a wrong header through: {other:?}"),
    }
    match status("no_token") {
        ServerStatus::Failed(reason) => assert!(
            reason.contains("bearer token variable `KEEL_TEST_SURELY_UNSET_TOKEN` is not set"),
            "{reason}"
        ),
        other => panic!("started without its token: {other:?}"),
    }

    let echo = f
        .tool("mcp__web__echo")
        .call(&f.ctx, json!({"message": "over HTTP"}))
        .await;
    assert!(echo.success, "{echo:?}");
    assert!(
        echo.content.as_deref().unwrap_or("").contains("over HTTP"),
        "{echo:?}"
    );
    let sum = f
        .tool("use_mcp_tool")
        .call(
            &f.ctx,
            json!({"server_name": "web", "tool_name": "get-sum", "arguments": {"a": 2, "b": 40}}),
        )
        .await;
    assert!(
        sum.content.as_deref().unwrap_or("").contains("42"),
        "{sum:?}"
    );
}
