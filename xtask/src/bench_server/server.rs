//! The `keel-server` process under test: start it on a free loopback port, read its memory
//! from `/proc`, stop it; and the few HTTP calls the benchmark makes.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// Longest wait for the server to listen (PostgreSQL migrations included).
const START_LIMIT: Duration = Duration::from_secs(60);
/// Lines of the server's stderr kept for error reports.
const KEPT_LINES: usize = 40;

/// How to start one server.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The `keel-server` binary.
    pub binary: PathBuf,
    /// `--data-dir`.
    pub data_dir: PathBuf,
    /// `--database-url`; `None`: SQLite in the data dir.
    pub database_url: Option<String>,
    /// `--token`.
    pub token: String,
    /// The scripted provider's script (`--provider scripted:FILE`).
    pub script: PathBuf,
    /// `--allow-root`.
    pub allowed_root: PathBuf,
    /// More arguments, appended last.
    pub extra_args: Vec<String>,
}

/// A running `keel-server`.
#[derive(Debug)]
pub struct Process {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

/// Memory of the server process, KiB.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident set size (`VmRSS`).
    pub rss_kib: u64,
    /// Peak resident set size (`VmHWM`).
    pub hwm_kib: u64,
}

impl Process {
    /// Starts the server on a free port and waits until it listens.
    pub fn start(spec: &Spec) -> Result<Self> {
        let mut command = Command::new(&spec.binary);
        command
            .arg("--addr")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(&spec.data_dir)
            .arg("--token")
            .arg(&spec.token)
            .arg("--provider")
            .arg(format!("scripted:{}", spec.script.display()))
            .arg("--allow-root")
            .arg(&spec.allowed_root)
            .args(["--approval", "never", "--repo-map", "false"]);
        if let Some(url) = &spec.database_url {
            command.arg("--database-url").arg(url);
        }
        command.args(&spec.extra_args);
        // Settings of the environment must not change what is measured.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("KEEL_") || name == "RUST_LOG" {
                command.env_remove(name);
            }
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", spec.binary.display()))?;
        let pipe = child.stderr.take().context("no stderr pipe")?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (address_tx, address_rx) = mpsc::channel();
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some((_, address)) = line.split_once("keel-server listening on ") {
                    // The receiver is gone once the server started: nothing to tell.
                    let _ = address_tx.send(address.trim().to_owned());
                }
                let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == KEPT_LINES {
                    kept.remove(0);
                }
                kept.push(line);
            }
        });
        let mut process = Self {
            child,
            base: String::new(),
            stderr,
        };
        let deadline = Instant::now() + START_LIMIT;
        loop {
            match address_rx.recv_timeout(Duration::from_millis(100)) {
                Ok(address) => {
                    process.base = address;
                    return Ok(process);
                }
                Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {
                    if let Some(status) = process.child.try_wait()? {
                        bail!(
                            "keel-server exited with {status}:\n{}",
                            process.stderr_tail()
                        );
                    }
                }
                Err(_) => bail!(
                    "keel-server did not listen within {START_LIMIT:?}:\n{}",
                    process.stderr_tail()
                ),
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .join("\n")
    }

    /// Current and peak resident memory, from `/proc/PID/status`.
    pub fn memory(&self) -> Result<Memory> {
        let path = format!("/proc/{}/status", self.pid());
        let status =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
        let field = |name: &str| -> Result<u64> {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .with_context(|| format!("no {name} in {path}"))
        };
        Ok(Memory {
            rss_kib: field("VmRSS:")?,
            hwm_kib: field("VmHWM:")?,
        })
    }

    /// CPU time (user + system) the server has used so far, seconds.
    pub fn cpu_secs(&self) -> Result<f64> {
        cpu_secs(&format!("/proc/{}/stat", self.pid()))
    }

    /// Asks the server to shut down (SIGTERM), killing it after 10 s.
    pub fn stop(mut self) -> Result<()> {
        let pid = Pid::from_raw(i32::try_from(self.pid()).context("pid out of range")?);
        if self.child.try_wait()?.is_none() {
            kill(pid, Signal::SIGTERM).context("cannot signal keel-server")?;
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                self.child.kill()?;
                self.child.wait()?;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // After `stop` the child is already reaped and this does nothing.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Clock ticks per second of `/proc/*/stat` times (`USER_HZ`, 100 on Linux).
const USER_HZ: f64 = 100.0;

/// CPU time (user + system) of the process whose `stat` file is `path`, seconds.
pub fn cpu_secs(path: &str) -> Result<f64> {
    let stat = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    cpu_secs_from_stat(&stat).with_context(|| format!("unexpected format of {path}"))
}

/// `utime + stime` of a `/proc/PID/stat` line, seconds.
fn cpu_secs_from_stat(stat: &str) -> Option<f64> {
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

/// The HTTP calls the benchmark makes, with bearer auth.
#[derive(Debug, Clone)]
pub struct Api {
    /// Shared connection pool.
    pub client: reqwest::Client,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Bearer token.
    pub token: String,
}

impl Api {
    async fn call(&self, request: reqwest::RequestBuilder, what: &str) -> Result<Value> {
        let response = request
            .bearer_auth(&self.token)
            .send()
            .await
            .with_context(|| format!("{what}: request failed"))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .with_context(|| format!("{what}: cannot read the response"))?;
        if !status.is_success() {
            bail!("{what}: HTTP {status}: {text}");
        }
        serde_json::from_str(&text).with_context(|| format!("{what}: response is not JSON: {text}"))
    }

    /// `POST /v1/sessions`; returns the session id.
    pub async fn create_session(&self, project: &str, root: &Path) -> Result<String> {
        let body = json!({"project_id": project, "root": root, "title": "bench"});
        let session = self
            .call(
                self.client
                    .post(format!("{}/v1/sessions", self.base))
                    .json(&body),
                "create a session",
            )
            .await?;
        string_field(&session, "id")
    }

    /// `GET /v1/sessions/{id}`: the session's `last_seq`.
    pub async fn last_seq(&self, session: &str) -> Result<u64> {
        let value = self
            .call(
                self.client
                    .get(format!("{}/v1/sessions/{session}", self.base)),
                "read the session",
            )
            .await?;
        value["last_seq"]
            .as_u64()
            .with_context(|| format!("session without last_seq: {value}"))
    }

    /// `POST /v1/sessions/{id}/turns`; returns the turn id.
    pub async fn start_turn(&self, session: &str, input: &str) -> Result<String> {
        let body = json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": input});
        let value = self
            .call(
                self.client
                    .post(format!("{}/v1/sessions/{session}/turns", self.base))
                    .json(&body),
                "start a turn",
            )
            .await?;
        string_field(&value["turn"], "id")
    }

    /// Polls `GET /v1/sessions/{id}/turns` until the turn is no longer running; returns its
    /// status and error, if any.
    pub async fn wait_turn(
        &self,
        session: &str,
        turn: &str,
        limit: Duration,
    ) -> Result<(String, Option<String>)> {
        let deadline = Instant::now() + limit;
        loop {
            let value = self
                .call(
                    self.client
                        .get(format!("{}/v1/sessions/{session}/turns", self.base)),
                    "list turns",
                )
                .await?;
            let found = value["turns"]
                .as_array()
                .and_then(|turns| turns.iter().find(|t| t["id"] == turn))
                .with_context(|| format!("turn {turn} not listed: {value}"))?;
            let status = string_field(found, "status")?;
            if status != "running" && status != "pending" {
                let error = found["error"].as_str().map(str::to_owned);
                return Ok((status, error));
            }
            if Instant::now() > deadline {
                bail!("the turn was still {status} after {limit:?}");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Reads the session's stored events after `after` through the JSON pages.
    pub async fn read_back(&self, session: &str, after: u64) -> Result<Stored> {
        let mut cursor = after;
        let mut stored = Stored::default();
        loop {
            let page = self
                .call(
                    self.client.get(format!(
                        "{}/v1/sessions/{session}/events?after={cursor}&limit=1000",
                        self.base
                    )),
                    "read an event page",
                )
                .await?;
            let events = page["events"]
                .as_array()
                .with_context(|| format!("page without events: {page}"))?;
            for event in events {
                if let (Some(seq), Some(kind)) = (event["seq"].as_u64(), event["type"].as_str()) {
                    stored.types.insert(seq, kind.to_owned());
                    if let Some(ts) = event["ts"].as_str().and_then(super::sse::rfc3339_micros) {
                        stored.ts_us.insert(seq, ts);
                    }
                }
            }
            stored.count += events.len() as u64;
            if let Some(last) = events.last() {
                stored.last_ts = last["ts"].as_str().map(str::to_owned);
            }
            let next = page["next_after"]
                .as_u64()
                .with_context(|| format!("page without next_after: {page}"))?;
            if page["has_more"] != true || events.is_empty() {
                return Ok(stored);
            }
            cursor = next;
        }
    }
}

/// A session's stored events, as the JSON pages return them.
#[derive(Debug, Default)]
pub struct Stored {
    /// How many.
    pub count: u64,
    /// The `ts` of the last one.
    pub last_ts: Option<String>,
    /// Each one's type, by seq.
    pub types: HashMap<u64, String>,
    /// Each one's `ts`, µs since the epoch, by seq.
    pub ts_us: HashMap<u64, i64>,
}

fn string_field(value: &Value, name: &str) -> Result<String> {
    value[name]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("no `{name}` in {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_is_read_after_the_command_name() {
        let stat = "4242 (keel server) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 9 0";
        assert_eq!(cpu_secs_from_stat(stat), Some(3.0));
        assert_eq!(cpu_secs_from_stat("4242 (x) S 1"), None);
        assert!(cpu_secs("/proc/self/stat").unwrap() >= 0.0);
    }
}
