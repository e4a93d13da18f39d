//! `cargo xtask api-test [--server PATH] [-- SCHEMATHESIS ARGS…]`: the HTTP API against its own
//! OpenAPI document, with schemathesis (PyPI) and every check on, all phases including the
//! stateful one (links from `POST /v1/sessions` to the operations under `/v1/sessions/{id}`),
//! on a real `keel-server` (scripted provider, SQLite in a temp dir) over loopback.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result};
use keel_test_support::copy_dir;

use crate::bench_server::server::{Process, Spec};
use crate::codegen::repo_root;

/// The bearer token the server under test accepts.
const TOKEN: &str = "keel-api-test-token";

/// Runs schemathesis against a fresh server; the exit code is schemathesis's.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let (ours, extra) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let root = repo_root();
    let binary = match ours {
        [] => build_server(&root)?,
        [flag, path] if flag == "--server" => PathBuf::from(path),
        _ => anyhow::bail!("usage: cargo xtask api-test [--server PATH] [-- SCHEMATHESIS ARGS…]"),
    };
    let scratch = std::env::temp_dir().join(format!("keel-api-test-{}", std::process::id()));
    let project = scratch.join("project");
    copy_dir(&root.join("examples/sample-project"), &project)?;
    let server = Process::start(&Spec {
        binary,
        data_dir: scratch.join("data"),
        database_url: None,
        token: TOKEN.to_owned(),
        script: root.join("examples/scripts/fix-bug.json"),
        allowed_root: project.clone(),
        extra_args: Vec::new(),
    })?;
    println!("keel-server at {}", server.base);
    let har = scratch.join("requests.har");
    let status = Command::new("schemathesis")
        .arg("--config-file")
        .arg(root.join("xtask/schemathesis.toml"))
        .arg("run")
        .arg(format!("{}/openapi.json", server.base))
        .args([
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
        ])
        .args(["--header", &format!("Authorization: Bearer {TOKEN}")])
        .args(["--report", "har", "--report-har-path"])
        .arg(&har)
        .args(extra)
        .env("KEEL_API_TEST_ROOT", &project)
        .env(
            "SCHEMATHESIS_HOOKS",
            root.join("xtask/schemathesis_hooks.py"),
        )
        .current_dir(&scratch)
        .status()
        .context("could not start `schemathesis` (python3 -m pip install schemathesis)");
    let tail = server.stderr_tail();
    server.stop()?;
    let reached = std::fs::read(&har)
        .context("schemathesis wrote no HAR report")
        .and_then(|bytes| Ok(LinkReach::from_har(&serde_json::from_slice(&bytes)?)));
    let _ = std::fs::remove_dir_all(&scratch);
    let status = status?;
    if !status.success() {
        eprintln!("keel-server's last log lines:\n{tail}");
        return Ok(ExitCode::FAILURE);
    }
    let reached = reached?;
    println!("{reached}");
    // With the default phases, the stateful one must have followed the links from a created
    // session; with arguments of one's own (say, `--phases fuzzing`) it need not have.
    if extra.is_empty() && reached.operations.is_empty() {
        eprintln!(
            "the stateful phase reached no operation under /v1/sessions/{{id}} from a session \
             POST /v1/sessions created"
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// What the requests schemathesis made reached from the sessions `POST /v1/sessions` created:
/// the proof that its links were followed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LinkReach {
    /// Sessions created (`201`).
    pub created: usize,
    /// Requests to `/v1/sessions/{id}…` with one of their ids.
    pub requests: usize,
    /// Those requests per operation (`GET /v1/sessions/{id}/turns`) and status.
    pub operations: std::collections::BTreeMap<String, std::collections::BTreeMap<u64, usize>>,
}

impl LinkReach {
    /// Reads a HAR document (`log.entries[].request/response`).
    pub fn from_har(har: &serde_json::Value) -> Self {
        let entries = har
            .pointer("/log/entries")
            .and_then(|e| e.as_array())
            .map(Vec::as_slice)
            .unwrap_or_default();
        let path_of = |entry: &serde_json::Value| -> Option<(String, String)> {
            let method = entry.pointer("/request/method")?.as_str()?.to_owned();
            let url = entry.pointer("/request/url")?.as_str()?;
            let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
            let path = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
            let path = path.split(['?', '#']).next().unwrap_or(path).to_owned();
            Some((method, path))
        };
        let status_of =
            |entry: &serde_json::Value| entry.pointer("/response/status").and_then(|s| s.as_u64());
        let mut ids = std::collections::HashSet::new();
        for entry in entries {
            if path_of(entry) == Some(("POST".to_owned(), "/v1/sessions".to_owned()))
                && status_of(entry) == Some(201)
                && let Some(text) = entry
                    .pointer("/response/content/text")
                    .and_then(|t| t.as_str())
                && let Ok(body) = serde_json::from_str::<serde_json::Value>(text)
                && let Some(id) = body.get("id").and_then(|i| i.as_str())
            {
                ids.insert(id.to_owned());
            }
        }
        let mut reach = Self {
            created: ids.len(),
            ..Self::default()
        };
        for entry in entries {
            let Some((method, path)) = path_of(entry) else {
                continue;
            };
            let Some(rest) = path.strip_prefix("/v1/sessions/") else {
                continue;
            };
            let (id, tail) = rest
                .split_once('/')
                .map_or((rest, ""), |(id, tail)| (id, tail));
            if !ids.contains(id) {
                continue;
            }
            // `approvals/abc` → `approvals/…`: the route, not the other ids in the path.
            let mut operation = format!("{method} /v1/sessions/{{id}}");
            if let Some((first, _)) = tail.split_once('/') {
                operation.push_str(&format!("/{first}/…"));
            } else if !tail.is_empty() {
                operation.push_str(&format!("/{tail}"));
            }
            reach.requests += 1;
            let status = status_of(entry).unwrap_or(0);
            *reach
                .operations
                .entry(operation)
                .or_default()
                .entry(status)
                .or_default() += 1;
        }
        reach
    }
}

impl std::fmt::Display for LinkReach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "links from POST /v1/sessions: {} sessions created; {} requests with their ids reached {} operations under /v1/sessions/{{id}}:",
            self.created,
            self.requests,
            self.operations.len()
        )?;
        for (operation, statuses) in &self.operations {
            let statuses: Vec<String> = statuses.iter().map(|(s, n)| format!("{s}×{n}")).collect();
            writeln!(f, "  {operation}: {}", statuses.join(" "))?;
        }
        Ok(())
    }
}

/// `cargo build -p keel-server`, and the binary's path (debug: the API, not speed, is tested).
fn build_server(root: &std::path::Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(["build", "-p", "keel-server", "--bin", "keel-server"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    anyhow::ensure!(
        status.success(),
        "cargo build -p keel-server failed ({status})"
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("debug/keel-server"))
}

#[cfg(test)]
mod tests {
    use super::LinkReach;
    use serde_json::json;

    fn entry(method: &str, url: &str, status: u64, text: &str) -> serde_json::Value {
        json!({"request": {"method": method, "url": url},
               "response": {"status": status, "content": {"text": text}}})
    }

    #[test]
    fn only_requests_with_created_ids_count() {
        let har = json!({"log": {"entries": [
            entry("POST", "http://127.0.0.1:1/v1/sessions", 201, r#"{"id": "s1"}"#),
            entry("POST", "http://127.0.0.1:1/v1/sessions", 422, r#"{"error": {}}"#),
            entry("GET", "http://127.0.0.1:1/v1/sessions/s1?x=1", 200, "{}"),
            entry("POST", "http://127.0.0.1:1/v1/sessions/s1/turns", 202, "{}"),
            entry("POST", "http://127.0.0.1:1/v1/sessions/s1/approvals/a9", 404, "{}"),
            entry("GET", "http://127.0.0.1:1/v1/sessions/random/turns", 404, "{}"),
        ]}});
        let reach = LinkReach::from_har(&har);
        assert_eq!(reach.created, 1);
        assert_eq!(reach.requests, 3);
        let operations: Vec<&str> = reach.operations.keys().map(String::as_str).collect();
        assert_eq!(
            operations,
            [
                "GET /v1/sessions/{id}",
                "POST /v1/sessions/{id}/approvals/…",
                "POST /v1/sessions/{id}/turns"
            ]
        );
        assert!(reach.to_string().contains("1 sessions created; 3 requests"));
    }

    #[test]
    fn a_document_without_entries_reaches_nothing() {
        assert_eq!(LinkReach::from_har(&json!({})), LinkReach::default());
        assert_eq!(
            LinkReach::from_har(&json!({"log": {"entries": 3}})),
            LinkReach::default()
        );
    }
}
