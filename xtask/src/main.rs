//! `cargo xtask`: project automation.
//!
//! - `cargo xtask codegen` writes the generated schemas and TypeScript package (`schemas/`) and
//!   the server's OpenAPI document (`crates/server/openapi.json`).
//! - `cargo xtask codegen --check` fails, listing what differs, when the committed files are out
//!   of date.
//! - `cargo xtask ci` runs every check CI runs.
//! - `cargo xtask tidy` fails when ARCHITECTURE.md's code map or dependency list no longer
//!   matches the crates.
//! - `cargo xtask bench-repomap DIR…` measures the repo map against Aider's.
//! - `cargo xtask bench-startup` measures `keel run` from spawn to its first model request.
//! - `cargo xtask bench-mcp-serve` measures `read_file` through `keel mcp serve` against
//!   `keel tool call`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench_mcp_serve;
mod bench_repomap;
mod bench_server;
mod bench_startup;
mod ci;
mod codegen;
mod tidy;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(&args[1..]),
        Some("ci") => ci::run(&args[1..]),
        Some("tidy") => tidy::run(&args[1..]),
        Some("bench-mcp-serve") => bench_mcp_serve::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-repomap") => bench_repomap::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-server") => bench_server::run(&args[1..]).map(|()| ExitCode::SUCCESS),
        Some("bench-startup") => bench_startup::run(&args[1..]).map(|()| ExitCode::SUCCESS),
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
  codegen [--check]        write (or check) schemas/ from the event contract
  ci                       every check CI runs: fmt, clippy, tests, codegen --check, tsc, ajv,
                           the web page's tests, the page end to end in Chromium
  tidy                     ARCHITECTURE.md names every crate, top-level module and keel-* edge
  bench-repomap DIR...     repo map cold/warm/update timings and peak memory, against Aider
                           when KEEL_BENCH_AIDER points at an aider executable
  bench-startup [--runs N] [--keel PATH]
                           keel run start-up: spawn to first model request (mock server)
  bench-mcp-serve [--calls N] [--runs N] [--keel PATH]
                           read_file through keel mcp serve (one round trip) vs keel tool call
  bench-server [OPTIONS]   keel-server: 1,000-subscriber SSE fan-out, events/s stored, idle RSS";
