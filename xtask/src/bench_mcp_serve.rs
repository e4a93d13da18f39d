//! `cargo xtask bench-mcp-serve`: the per-call latency of `read_file` through `keel mcp serve`
//! (one JSON-RPC round trip from a client on its pipes: write the request, read the answer)
//! against `keel tool call read_file` as a process (spawn to exit, the way a client without
//! MCP would call Keel).
//!
//! Builds `keel` in release (or takes `--keel PATH`), works on a fresh copy of
//! `examples/sample-project`, starts one `keel mcp serve --root <copy>`, completes the MCP
//! handshake (timed too: spawn → `initialize` answered), then makes `--calls N` (default 500)
//! `tools/call read_file` requests one after another; then spawns `keel tool call read_file` `--runs
//! N` (default 50) times. Prints min, p50, p95, max and mean of each.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use keel_test_support::copy_dir;

use crate::bench_startup::{build_keel, ms, percentile};

/// The file both ways read.
const FILE: &str = "README.md";

/// Runs the benchmark with `args`.
pub fn run(args: &[String]) -> Result<()> {
    let mut calls = 500usize;
    let mut runs = 50usize;
    let mut keel: Option<PathBuf> = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut number = |name: &str| -> Result<usize> {
            rest.next()
                .with_context(|| format!("{name} needs a number"))?
                .parse()
                .with_context(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--calls" => calls = number("--calls")?,
            "--runs" => runs = number("--runs")?,
            "--keel" => keel = Some(PathBuf::from(rest.next().context("--keel needs a path")?)),
            other => {
                bail!("unknown option `{other}` (expected --calls N, --runs N or --keel PATH)")
            }
        }
    }
    if calls == 0 || runs == 0 {
        bail!("--calls and --runs must be at least 1");
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask has no parent folder")?
        .to_owned();
    let keel = match keel {
        Some(keel) => keel,
        None => build_keel(&workspace)?,
    };
    let scratch = std::env::temp_dir().join(format!("keel-bench-mcp-{}", std::process::id()));
    copy_dir(&workspace.join("examples/sample-project"), &scratch)
        .context("cannot copy the sample project")?;
    let result = measure(&keel, &scratch, calls, runs);
    let _ = std::fs::remove_dir_all(&scratch);
    let (handshake, served, spawned) = result?;

    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned());
    println!("read_file of {FILE} (sample project): keel mcp serve vs keel tool call");
    println!("binary: {}", keel.display());
    println!("{cores} CPU(s), load average (1 min) {load}");
    println!(
        "keel mcp serve: spawn → initialize answered {} ms",
        ms(handshake)
    );
    println!();
    println!("| path | calls | min (ms) | p50 (ms) | p95 (ms) | max (ms) | mean (ms) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    row("`keel mcp serve`, one `tools/call` round trip", served);
    row("`keel tool call read_file`, spawn to exit", spawned);
    Ok(())
}

fn row(name: &str, samples: Vec<Duration>) {
    let mut sorted = samples;
    sorted.sort();
    let mean = sorted.iter().sum::<Duration>() / sorted.len().max(1) as u32;
    println!(
        "| {name} | {} | {} | {} | {} | {} | {} |",
        sorted.len(),
        ms(sorted[0]),
        ms(percentile(&sorted, 50.0)),
        ms(percentile(&sorted, 95.0)),
        ms(sorted[sorted.len() - 1]),
        ms(mean)
    );
}

/// The handshake time, the served calls' times and the spawned calls' times.
fn measure(
    keel: &Path,
    root: &Path,
    calls: usize,
    runs: usize,
) -> Result<(Duration, Vec<Duration>, Vec<Duration>)> {
    let started = Instant::now();
    let mut child = Command::new(keel)
        .args(["mcp", "serve", "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start keel mcp serve")?;
    let mut stdin = child.stdin.take().context("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().context("no stdout")?);
    let mut line = String::new();
    // Sends `request`; reads the answer unless it is a notification.
    let mut exchange = |request: &str, line: &mut String| -> Result<serde_json::Value> {
        writeln!(stdin, "{request}")?;
        stdin.flush()?;
        if !request.contains(r#""id""#) {
            return Ok(serde_json::Value::Null);
        }
        line.clear();
        stdout.read_line(line)?;
        serde_json::from_str(line).with_context(|| format!("not JSON: {line}"))
    };
    let init = exchange(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
        &mut line,
    )?;
    let handshake = started.elapsed();
    if init.get("result").is_none() {
        bail!("initialize failed: {init}");
    }
    exchange(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &mut line,
    )?;
    let mut served = Vec::with_capacity(calls);
    for id in 1..=calls {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"{FILE}"}}}}}}"#
        );
        let start = Instant::now();
        let reply = exchange(&request, &mut line)?;
        served.push(start.elapsed());
        if reply["result"]["isError"] != false {
            bail!("read_file failed: {reply}");
        }
    }
    drop(stdin);
    let _ = child.wait();

    let arguments = format!(r#"{{"path":"{FILE}"}}"#);
    let mut spawned = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let output = Command::new(keel)
            .args(["tool", "call", "read_file", &arguments, "--root"])
            .arg(root)
            .output()
            .context("cannot run keel tool call")?;
        spawned.push(start.elapsed());
        if !output.status.success() {
            bail!(
                "keel tool call failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    Ok((handshake, served, spawned))
}
