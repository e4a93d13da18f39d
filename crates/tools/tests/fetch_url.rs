//! `fetch_url` against a real HTTP server on loopback: conversion, caps, redirects, the
//! address guard, rules, approvals and the sandbox's network switch.

use std::path::PathBuf;
use std::sync::Arc;

use keel_protocol::ApprovalPolicy;
use keel_sandbox::{SandboxMode, SandboxPolicy};
use keel_tools::approval_rules::{Rule, RuleDecision, RuleScope, RuleSet, RuleSpec, RuleTarget};
use keel_tools::process::CommandSandbox;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::common::Harness;

/// One canned answer: status line, content type, body; `location` for redirects.
#[derive(Clone)]
struct Answer {
    path: &'static str,
    status: &'static str,
    content_type: &'static str,
    body: String,
    location: Option<String>,
}

fn page(path: &'static str, content_type: &'static str, body: impl Into<String>) -> Answer {
    Answer {
        path,
        status: "200 OK",
        content_type,
        body: body.into(),
        location: None,
    }
}

/// A tiny HTTP/1.1 server on 127.0.0.1 answering each path with its canned answer (404
/// otherwise), one request per connection. Returns its base URL.
async fn serve(answers: Vec<Answer>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let answers = answers.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]);
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let answer = answers
                    .iter()
                    .find(|a| a.path == path)
                    .cloned()
                    .unwrap_or(Answer {
                        path: "",
                        status: "404 Not Found",
                        content_type: "text/plain",
                        body: "no such page".to_owned(),
                        location: None,
                    });
                let location = answer
                    .location
                    .map(|l| format!("Location: {l}\r\n"))
                    .unwrap_or_default();
                let head = format!(
                    "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{location}Connection: close\r\n\r\n",
                    answer.status,
                    answer.content_type,
                    answer.body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(answer.body.as_bytes()).await;
            });
        }
    });
    base
}

fn rule(target: RuleTarget, decision: RuleDecision) -> Rule {
    Rule {
        spec: RuleSpec {
            target,
            decision,
            override_safety: false,
        },
        scope: RuleScope::Project,
        file: PathBuf::from(".keel/rules.toml"),
        index: 1,
        line: 1,
    }
}

/// A harness whose rules allow (or decide otherwise about) 127.0.0.1.
fn harness(decision: Option<RuleDecision>) -> Harness {
    let mut h = Harness::new();
    h.ctx.approval = ApprovalPolicy::Never;
    if let Some(decision) = decision {
        h.ctx.rules = Arc::new(RuleSet::new(vec![rule(
            RuleTarget::Host {
                host: "127.0.0.1".to_owned(),
            },
            decision,
        )]));
    }
    h
}

#[tokio::test]
async fn a_page_comes_back_as_markdown() {
    let base = serve(vec![page(
        "/guide",
        "text/html; charset=utf-8",
        "<html><head><script>x()</script></head><body><h1>Guide</h1><p>Use <b>keel</b>.</p></body></html>",
    )])
    .await;
    let h = harness(Some(RuleDecision::Allow));
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/guide")}))
        .await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.content.as_deref(), Some("# Guide\n\nUse **keel**.\n"));
    assert!(
        r.message
            .starts_with(&format!("Fetched {base}/guide (200, text/html"))
            && r.message.contains("characters)"),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn json_passes_through_and_long_text_is_cut_at_max_chars() {
    let base = serve(vec![
        page("/api", "application/json", r#"{"version":"1.2.3"}"#),
        page("/long", "text/plain", "x".repeat(500)),
    ])
    .await;
    let h = harness(Some(RuleDecision::Allow));
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/api")}))
        .await;
    assert_eq!(
        r.content.as_deref(),
        Some(r#"{"version":"1.2.3"}"#),
        "{r:?}"
    );
    let r = h
        .call(
            "fetch_url",
            json!({"url": format!("{base}/long"), "max_chars": 100}),
        )
        .await;
    let text = r.content.unwrap();
    assert!(text.starts_with(&"x".repeat(100)));
    assert!(
        text.ends_with("[… cut at 100 of 500 characters; ask with a larger max_chars for more]")
    );
    assert!(
        r.message.contains("first 100 of 500 characters"),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn redirects_are_followed_within_the_host_and_reported_elsewhere() {
    let base = serve(vec![
        Answer {
            path: "/old",
            status: "301 Moved Permanently",
            content_type: "text/plain",
            body: String::new(),
            location: Some("/new".to_owned()),
        },
        page("/new", "text/plain", "moved here"),
        Answer {
            path: "/away",
            status: "302 Found",
            content_type: "text/plain",
            body: String::new(),
            location: Some("https://example.org/x".to_owned()),
        },
    ])
    .await;
    let h = harness(Some(RuleDecision::Allow));
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/old")}))
        .await;
    assert_eq!(r.content.as_deref(), Some("moved here"), "{r:?}");
    assert!(
        r.message.starts_with(&format!("Fetched {base}/new ")),
        "{}",
        r.message
    );
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/away")}))
        .await;
    assert!(!r.success);
    assert!(
        r.message
            .contains("redirects (302 Found) to https://example.org/x, another host"),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn private_addresses_need_a_rule_naming_the_host() {
    let base = serve(vec![page("/", "text/plain", "secret")]).await;
    let h = harness(None);
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/")}))
        .await;
    assert!(!r.success);
    assert!(
        r.message
            .contains("127.0.0.1 is 127.0.0.1, a loopback, private or special address")
            && r.message.contains("[[rule]] host = \"127.0.0.1\""),
        "{}",
        r.message
    );
    let r = h
        .call("fetch_url", json!({"url": "http://localhost:9/"}))
        .await;
    assert!(
        !r.success && r.message.contains("a loopback, private or special address"),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_deny_rule_refuses_and_an_unapproved_fetch_is_denied() {
    let base = serve(vec![page("/", "text/plain", "hi")]).await;
    let h = harness(Some(RuleDecision::Deny));
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/")}))
        .await;
    assert!(
        !r.success
            && r.message
                .starts_with("Refused to run: .keel/rules.toml:1 denies fetching from 127.0.0.1"),
        "{r:?}"
    );
    // No rule, a policy that asks, and nobody to ask (the harness's approver cannot).
    let mut h = harness(None);
    h.ctx.approval = ApprovalPolicy::OnDangerous;
    let r = h
        .call("fetch_url", json!({"url": "https://example.org/"}))
        .await;
    assert!(
        !r.success
            && r.message
                .starts_with("The user denied fetching https://example.org/"),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_sandbox_without_network_turns_it_off() {
    let mut h = harness(Some(RuleDecision::Allow));
    let policy = SandboxPolicy {
        network: false,
        ..SandboxPolicy::new(SandboxMode::WorkspaceWrite)
    };
    h.ctx.sandbox = CommandSandbox::resolve(policy, &h.ctx.root.clone());
    let r = h
        .call("fetch_url", json!({"url": "https://example.org/"}))
        .await;
    assert!(!r.success);
    assert!(
        r.message
            .starts_with("fetch_url is off: the sandbox denies network access"),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn bad_input_gets_a_clear_error() {
    let base = serve(vec![page("/img", "image/png", "\u{89}PNG")]).await;
    let h = harness(Some(RuleDecision::Allow));
    let r = h.call("fetch_url", json!({"url": "not a url"})).await;
    assert!(
        !r.success && r.message.starts_with("`not a url` is not a URL"),
        "{r:?}"
    );
    let r = h
        .call("fetch_url", json!({"url": "file:///etc/passwd"}))
        .await;
    assert!(
        !r.success && r.message.contains("only http:// and https:// URLs"),
        "{r:?}"
    );
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/img")}))
        .await;
    assert!(!r.success && r.message.contains("`image/png`"), "{r:?}");
    let r = h
        .call("fetch_url", json!({"url": format!("{base}/missing")}))
        .await;
    assert!(
        !r.success
            && r.message
                .contains("the server answered 404 Not Found: no such page"),
        "{r:?}"
    );
}
