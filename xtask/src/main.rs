//! `cargo xtask`: project automation.
//!
//! - `cargo xtask codegen` writes the generated schemas (the event contract's and
//!   `keel.toml`'s) and TypeScript package (`schemas/`) and the server's OpenAPI document
//!   (`crates/server/openapi.json`).
//! - `cargo xtask codegen --check` fails, listing what differs, when the committed files are out
//!   of date.
//! - `cargo xtask ci` runs every check CI runs.
//! - `cargo xtask api-test` runs schemathesis (all checks, stateful phase) against a real
//!   keel-server and its OpenAPI document.
//! - `cargo xtask tidy` fails when ARCHITECTURE.md's code map, dependency list or paths no
//!   longer match the crates, when a crate re-exports another whole, or when a front end calls
//!   the store's session lifecycle.
//! - `cargo xtask thin-deps` fails when keel-acp, keel-mcp-serve or keel-protocol links
//!   tantivy or a tree-sitter grammar.
//! - `cargo xtask bench-repomap DIR…` measures the repo map against Aider's.
//! - `cargo xtask bench-knowledge` measures the knowledge tools as whole `keel tool call`
//!   processes.
//! - `cargo xtask bench-index DIR` measures the search index: build, one edit, query latency.
//! - `cargo xtask eval-rag [--set FILE] [--source DIR]` scores the search index on a question set
//!   beside whole-file BM25 baselines (sets: `eval/rag/`, sdists fetched and SHA-256-checked).
//! - `cargo xtask bench-startup` measures `keel run` from spawn to its first model request.
//! - `cargo xtask bench-sandbox` measures what the command sandbox adds to a tool call.
//! - `cargo xtask bench-mcp-serve` measures `read_file` through `keel mcp serve` against
//!   `keel tool call`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod api_test;
mod bench_index;
mod bench_knowledge;
mod bench_mcp_serve;
mod bench_repomap;
mod bench_sandbox;
mod bench_server;
mod bench_startup;
mod ci;
mod codegen;
mod eval_rag;
mod real_model;
mod thin_deps;
mod tidy;
mod tidy_frontends;
mod tidy_paths;
mod tidy_reexports;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(&args[1..]),
        Some("ci") => ci::run(&args[1..]),
        Some("api-test") => api_test::run(&args[1..]),
        Some("tidy") => tidy::run(&args[1..]),
        Some("thin-deps") => thin_deps::run(&args[1..]),
        Some("bench-knowledge") => bench_knowledge::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-mcp-serve") => bench_mcp_serve::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-repomap") => bench_repomap::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-sandbox") => bench_sandbox::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-server") => bench_server::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-index") => bench_index::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("eval-rag") => eval_rag::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-startup") => bench_startup::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("real-model") => real_model::run(&args[1..]),
        Some(other) => Err(anyhow::anyhow!("unknown task `{other}`\n\n{USAGE}")),
        None => Err(anyhow::anyhow!("{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  codegen [--check]        write (or check) schemas/ from the event contract and keel.toml's keys
  ci                       every check CI runs: fmt, clippy, tests, codegen --check, tsc, ajv,
                           the web page's tests, the page end to end in Chromium
  api-test [--server PATH] [-- ARGS...]
                           schemathesis, every check and phase (stateful too), against a real
                           keel-server and its own /openapi.json
  tidy                     ARCHITECTURE.md names every crate, top-level module, keel-* edge
                           and path; no whole-crate re-exports; front ends leave turns,
                           leases and session rows to keel-host
  thin-deps                keel-acp, keel-mcp-serve and keel-protocol link no tantivy and no
                           tree-sitter (cargo tree -e normal)
  real-model [--keel PATH] one eval task solved by the real model at KEEL_REALMODEL_URL
                           (../shared/realmodel/setup.sh); skipped when unset, except CI
  bench-repomap DIR...     repo map cold/warm/update timings and peak memory, against Aider
                           when KEEL_BENCH_AIDER points at an aider executable
  bench-knowledge [--runs N] [--keel PATH]
                           read_library_docs and list_package_info as whole keel tool call
                           processes (release build)
  bench-startup [--runs N] [--keel PATH]
                           keel run start-up: spawn to first model request (mock server)
  bench-sandbox [--runs N] [--keel PATH]
                           execute_command `true` sandboxed vs not: p50 of the tool call
  bench-index DIR [--keel PATH]
                           search index build (cold, one edit), peak memory, query p50/p99
  eval-rag [--set FILE] [--source DIR] [--verbose]
                           search quality (hit@1/hit@5/MRR, warm p50/p95) against whole-file BM25
  bench-mcp-serve [--calls N] [--runs N] [--keel PATH]
                           read_file through keel mcp serve (one round trip) vs keel tool call
  bench-server [OPTIONS]   keel-server: 1,000-subscriber SSE fan-out, events/s stored, idle RSS";
