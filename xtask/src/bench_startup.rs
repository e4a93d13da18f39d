//! `cargo xtask bench-startup`: how long `keel run` takes from spawn to its first model request.
//!
//! Builds `keel` in release, serves a tiny OpenAI-compatible endpoint on loopback (a std
//! `TcpListener` answering every chat-completions request with a valid SSE stream whose one
//! tool call is `attempt_completion`, so the run finishes), then spawns
//! `keel run --provider openai --base-url http://127.0.0.1:PORT/v1 --root <copy> "task"` with
//! `OPENAI_API_KEY=test` N times, each on a fresh copy of `examples/sample-project`, and times
//! spawn → request fully received. Prints min, p50, p95, max and mean. Options: `--runs N`
//! (default 20), `--keel PATH` (use this binary instead of building one).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use keel_test_support::copy_dir;

/// Longest wait for one run's request, or for the run to end after it.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The streamed answer: one `attempt_completion` call, then usage, then `[DONE]`.
const SSE_BODY: &str = concat!(
    "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,",
    "\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",",
    "\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_done\",\"type\":\"function\",",
    "\"function\":{\"name\":\"attempt_completion\",\"arguments\":\"\"}}]},",
    "\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,",
    "\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
    "\"function\":{\"arguments\":\"{\\\"result\\\": \\\"Nothing to do.\\\"}\"}}]},",
    "\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,",
    "\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,",
    "\"model\":\"bench\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,",
    "\"completion_tokens\":10,\"total_tokens\":110}}\n\n",
    "data: [DONE]\n\n",
);

/// Runs the benchmark with `args`.
pub fn run(args: &[String]) -> Result<()> {
    let BenchArgs { runs, keel } = BenchArgs::parse(args, 20)?;
    let workspace = workspace_root()?;
    let keel = match keel {
        Some(keel) => keel,
        None => build_keel(&workspace)?,
    };

    let listener = TcpListener::bind("127.0.0.1:0").context("cannot listen on loopback")?;
    let port = listener.local_addr()?.port();
    let (arrivals, received) = mpsc::channel::<Instant>();
    std::thread::spawn(move || serve(listener, arrivals));
    let base_url = format!("http://127.0.0.1:{port}/v1");

    let sample = workspace.join("examples/sample-project");
    let scratch = std::env::temp_dir().join(format!("keel-bench-startup-{}", std::process::id()));
    let mut samples = Vec::with_capacity(runs);
    for n in 0..runs {
        let root = scratch.join(format!("run-{n}"));
        copy_dir(&sample, &root)?;
        // Nothing from an earlier run may count for this one.
        while received.try_recv().is_ok() {}
        let started = Instant::now();
        let mut child = Command::new(&keel)
            .args([
                "run",
                "--provider",
                "openai",
                "--base-url",
                &base_url,
                "--root",
            ])
            .arg(&root)
            .arg("Say hello and finish.")
            .env("OPENAI_API_KEY", "test")
            .env("KEEL_CONFIG_DIR", &scratch)
            .env_remove("KEEL_MODEL")
            .env_remove("KEEL_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", keel.display()))?;
        let arrived = match received.recv_timeout(RUN_LIMIT) {
            Ok(at) => at,
            Err(_) => {
                let _ = child.kill();
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = pipe.read_to_string(&mut stderr);
                }
                bail!("run {n}: no model request within {RUN_LIMIT:?}\n{stderr}");
            }
        };
        samples.push(arrived.saturating_duration_since(started));
        let status = wait_with_limit(&mut child, RUN_LIMIT)?;
        if !status.success() {
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                let _ = pipe.read_to_string(&mut stderr);
            }
            bail!("run {n}: keel exited with {status}\n{stderr}");
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);

    print_table(&keel, runs, &samples);
    Ok(())
}

/// The `--runs N` and `--keel PATH` the process benchmarks take.
pub(crate) struct BenchArgs {
    /// Runs per figure (at least 1).
    pub runs: usize,
    /// A `keel` binary to measure instead of building the release one.
    pub keel: Option<PathBuf>,
}

impl BenchArgs {
    /// Reads `args`; `runs` is `default_runs` unless given.
    pub(crate) fn parse(args: &[String], default_runs: usize) -> Result<Self> {
        let mut parsed = BenchArgs {
            runs: default_runs,
            keel: None,
        };
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--runs" => {
                    parsed.runs = rest
                        .next()
                        .context("--runs needs a number")?
                        .parse()
                        .context("--runs needs a number")?;
                }
                "--keel" => {
                    parsed.keel = Some(PathBuf::from(rest.next().context("--keel needs a path")?));
                }
                other => bail!("unknown option `{other}` (expected --runs N or --keel PATH)"),
            }
        }
        if parsed.runs == 0 {
            bail!("--runs must be at least 1");
        }
        Ok(parsed)
    }
}

/// The workspace's root folder.
pub(crate) fn workspace_root() -> Result<PathBuf> {
    Ok(Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask has no parent folder")?
        .to_owned())
}

/// `cargo build --release -p keel-cli`, returning the binary's path.
pub(crate) fn build_keel(workspace: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("building keel (release)…");
    let status = Command::new(cargo)
        .args(["build", "--release", "--bin", "keel", "-p", "keel-cli"])
        .current_dir(workspace)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo build --release -p keel-cli failed ({status})");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let keel = target.join("release").join("keel");
    if !keel.exists() {
        bail!("no binary at {}", keel.display());
    }
    Ok(keel)
}

/// Answers every request on `listener` with [`SSE_BODY`], reporting when each request was
/// fully received.
fn serve(listener: TcpListener, arrivals: mpsc::Sender<Instant>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let arrivals = arrivals.clone();
        std::thread::spawn(move || {
            if let Ok(at) = answer(stream) {
                // An error only means the benchmark is over.
                let _ = arrivals.send(at);
            }
        });
    }
}

/// Reads one HTTP request (headers and `Content-Length` body) and streams the answer.
fn answer(stream: TcpStream) -> std::io::Result<Instant> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let at = Instant::now();
    let mut stream = stream;
    if request_line.contains("/chat/completions") {
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{SSE_BODY}",
            SSE_BODY.len()
        )?;
    } else {
        stream.write_all(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        )?;
    }
    stream.flush()?;
    Ok(at)
}

fn wait_with_limit(
    child: &mut std::process::Child,
    limit: Duration,
) -> Result<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            bail!("keel did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The nearest-rank percentile `p` (0–100) of sorted `values`.
pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub(crate) fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1_000.0)
}

fn print_table(keel: &Path, runs: usize, samples: &[Duration]) {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let mean = sorted.iter().sum::<Duration>() / sorted.len().max(1) as u32;
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned());
    println!("keel start-up: spawn → first model request received");
    println!("binary: {}", keel.display());
    println!("runs: {runs}, {cores} CPU(s), load average (1 min) {load}");
    println!();
    println!("| min (ms) | p50 (ms) | p95 (ms) | max (ms) | mean (ms) |");
    println!("|---------:|---------:|---------:|---------:|----------:|");
    println!(
        "| {} | {} | {} | {} | {} |",
        ms(sorted[0]),
        ms(percentile(&sorted, 50.0)),
        ms(percentile(&sorted, 95.0)),
        ms(sorted[sorted.len() - 1]),
        ms(mean)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let values: Vec<Duration> = (1..=20).map(Duration::from_millis).collect();
        assert_eq!(percentile(&values, 50.0), Duration::from_millis(10));
        assert_eq!(percentile(&values, 95.0), Duration::from_millis(19));
        assert_eq!(percentile(&values, 100.0), Duration::from_millis(20));
        assert_eq!(percentile(&values, 0.0), Duration::from_millis(1));
        assert_eq!(percentile(&[], 50.0), Duration::ZERO);
    }

    #[test]
    fn the_answer_is_a_complete_stream() {
        let data: Vec<&str> = SSE_BODY
            .split("\n\n")
            .filter(|chunk| !chunk.is_empty())
            .map(|chunk| chunk.trim_start_matches("data: "))
            .collect();
        assert_eq!(data.last(), Some(&"[DONE]"));
        for chunk in &data[..data.len() - 1] {
            let value: serde_json::Value = serde_json::from_str(chunk).unwrap();
            assert_eq!(value["object"], "chat.completion.chunk");
        }
    }
}
