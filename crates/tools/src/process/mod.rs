//! Running child processes for tools: in the workspace, in their own process group, with a
//! time-out and cancellation that end the whole group (SIGTERM, then SIGKILL after a grace
//! period), no standard input unless one is given (a hook's event), output streamed in
//! line-ish chunks and captured up to a cap (head and tail kept; standard output and error
//! also each alone), and provider secrets removed from the environment.
//!
//! Background processes a command starts do not outlive it: once the command itself exits,
//! anything left in its group is killed (after a short wait for its output).
//!
//! A spec may carry a [`Sandbox`]: the child is then confined between fork and exec, and a
//! failed run says what the sandbox blocked ([`ProcessOutcome::blocked`]).

mod capture;
mod env;
mod group;
mod sandbox;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use keel_events::OutputStream;
use keel_sandbox::{Sandbox, SandboxError};
use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

pub use env::{is_secret_name, scrubbed_env};
pub use sandbox::CommandSandbox;

use capture::{Capture, Chunker};
pub use group::GroupGuard;

/// `text` capped at `cap` bytes the way command output is: the first and last halves kept, with
/// a marker saying how much was cut from the middle.
pub fn cap_output(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_owned();
    }
    let mut capture = Capture::new(cap);
    capture.push(text.as_bytes());
    capture.text()
}

/// Default time-out of a command.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default time between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// Default cap on captured output, in bytes (head and tail halves).
pub const DEFAULT_OUTPUT_CAP: usize = 64 * 1024;
/// How long output is still read after the command exits while something it started holds
/// its pipes open; then the rest of the group is killed.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(300);
/// Upper bound on reading after the group was killed.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(2);

/// What to run and how.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// The program (looked up on `PATH` when it has no `/`).
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Working directory (the workspace root).
    pub cwd: PathBuf,
    /// Wall-clock limit; the whole group is ended when it passes.
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL when ending the group.
    pub grace: Duration,
    /// Cap on captured output in bytes.
    pub output_cap: usize,
    /// Environment before scrubbing; `None` means this process's own.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// The sandbox the child runs in; `None` runs it unconfined.
    pub sandbox: Option<Arc<Sandbox>>,
    /// Written to the child's standard input, which is then closed (`None`: no standard
    /// input).
    pub stdin: Option<Arc<[u8]>>,
}

impl ProcessSpec {
    /// `program args…` in `cwd` with the defaults.
    pub fn new(
        program: impl Into<OsString>,
        args: impl IntoIterator<Item = impl Into<OsString>>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: cwd.into(),
            timeout: DEFAULT_TIMEOUT,
            grace: DEFAULT_GRACE,
            output_cap: DEFAULT_OUTPUT_CAP,
            env: None,
            sandbox: None,
            stdin: None,
        }
    }

    /// A command line run by [`shell_program`] `-c`.
    pub fn shell(command: &str, cwd: impl Into<PathBuf>) -> Self {
        Self::new(shell_program(), ["-c", command], cwd)
    }

    /// The same spec with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same spec with another grace period.
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The same spec with another output cap.
    pub fn with_output_cap(mut self, cap: usize) -> Self {
        self.output_cap = cap;
        self
    }

    /// The same spec starting from `env` instead of this process's environment (secrets are
    /// still removed).
    pub fn with_env(mut self, env: Vec<(OsString, OsString)>) -> Self {
        self.env = Some(env);
        self
    }

    /// The same spec with `input` on the child's standard input.
    pub fn with_stdin(mut self, input: impl Into<Arc<[u8]>>) -> Self {
        self.stdin = Some(input.into());
        self
    }

    /// The same spec confined by `sandbox` (`None`: unconfined).
    pub fn with_sandbox(mut self, sandbox: Option<Arc<Sandbox>>) -> Self {
        self.sandbox = sandbox;
        self
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutcome {
    /// Exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// Ended by the time-out.
    pub timed_out: bool,
    /// Ended by cancellation.
    pub cancelled: bool,
    /// Wall time.
    pub duration: Duration,
    /// Captured standard output and error, interleaved as they arrived; capped (see
    /// [`ProcessSpec::output_cap`]) with a marker saying how much was cut.
    pub output: String,
    /// Standard output alone, capped the same way.
    pub stdout: String,
    /// Standard error alone, capped the same way.
    pub stderr: String,
    /// Bytes of output in all.
    pub output_bytes: u64,
    /// Bytes of output cut from the capture.
    pub output_cut: u64,
    /// What the sandbox stopped, when the run failed and its output shows a sandbox denial
    /// ("blocked by the sandbox: write to /etc/hosts").
    pub blocked: Option<String>,
}

impl ProcessOutcome {
    /// Exited by itself with code 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.cancelled
    }

    /// One line on how it ended: `exit code 0`, `timed out after 120 s`, `killed by signal 9`.
    pub fn describe(&self, timeout: Duration) -> String {
        if self.timed_out {
            format!("timed out after {} s and was killed", timeout.as_secs_f64())
        } else if self.cancelled {
            "cancelled and killed".to_owned()
        } else if let Some(code) = self.exit_code {
            format!("exit code {code}")
        } else if let Some(signal) = self.signal {
            format!("killed by signal {signal}")
        } else {
            "ended without an exit code".to_owned()
        }
    }
}

/// Why a process could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The program could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The sandbox could not be set up for it.
    #[error("cannot sandbox `{program}`: {source}")]
    Sandbox {
        /// The program.
        program: String,
        /// Why.
        source: SandboxError,
    },
    /// Waiting for it failed.
    #[error("lost track of `{program}`: {source}")]
    Wait {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The shell command lines run in ([`ProcessSpec::shell`]): `bash`, or `sh` where there is no
/// bash on `PATH`.
pub fn shell_program() -> &'static str {
    if find_program("bash").is_some() {
        "bash"
    } else {
        "sh"
    }
}

/// The full path of `name` on `PATH` (or `name` itself when it contains `/` and is a file).
pub fn find_program(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let path = Path::new(name);
        return path.is_file().then(|| path.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Runs `spec`, calling `on_output` with each chunk of output as it arrives, until it exits,
/// times out or `cancel` fires.
pub async fn run(
    spec: &ProcessSpec,
    cancel: &CancellationToken,
    on_output: &mut (dyn FnMut(OutputStream, &str) + Send),
) -> Result<ProcessOutcome, ProcessError> {
    let program = spec.program.to_string_lossy().into_owned();
    let env = match &spec.env {
        Some(env) => scrubbed_env(env.iter().cloned()),
        None => scrubbed_env(std::env::vars_os()),
    };
    let mut command = tokio::process::Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(env)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let confinement = match &spec.sandbox {
        Some(sandbox) => {
            Some(
                sandbox
                    .confine(&mut command)
                    .map_err(|source| ProcessError::Sandbox {
                        program: program.clone(),
                        source,
                    })?,
            )
        }
        None => None,
    };
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| ProcessError::Spawn {
        program: program.clone(),
        source,
    })?;
    let group = GroupGuard::new(child.id());
    tracing::debug!(%program, pid = child.id(), cwd = %spec.cwd.display(), "process started");
    if let (Some(input), Some(mut pipe)) = (spec.stdin.clone(), child.stdin.take()) {
        // Written beside the reads, so a child that answers before reading everything does
        // not block; a child that never reads gets a broken pipe, which is its business.
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = pipe.write_all(&input).await;
            let _ = pipe.shutdown().await;
        });
    }
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut out_buf = vec![0u8; 8192];
    let mut err_buf = vec![0u8; 8192];
    let mut out_chunks = Chunker::default();
    let mut err_chunks = Chunker::default();
    let mut capture = Capture::new(spec.output_cap);
    let mut out_only = Capture::new(spec.output_cap);
    let mut err_only = Capture::new(spec.output_cap);

    let deadline = tokio::time::sleep(spec.timeout);
    tokio::pin!(deadline);
    let mut kill_timer: Option<Pin<Box<Sleep>>> = None;
    let mut drain_timer: Option<Pin<Box<Sleep>>> = None;
    let mut status = None;
    let mut timed_out = false;
    let mut cancelled = false;
    let mut killed = false;

    loop {
        if status.is_some() && stdout.is_none() && stderr.is_none() {
            break;
        }
        let ending = timed_out || cancelled;
        tokio::select! {
            read = read_some(&mut stdout, &mut out_buf) => {
                match read {
                    Ok(n) if n > 0 => {
                        let bytes = &out_buf[..n];
                        capture.push(bytes);
                        out_only.push(bytes);
                        if let Some(chunk) = out_chunks.push(bytes) {
                            on_output(OutputStream::Stdout, &chunk);
                        }
                    }
                    _ => {
                        stdout = None;
                        if let Some(chunk) = out_chunks.finish() {
                            on_output(OutputStream::Stdout, &chunk);
                        }
                    }
                }
            }
            read = read_some(&mut stderr, &mut err_buf) => {
                match read {
                    Ok(n) if n > 0 => {
                        let bytes = &err_buf[..n];
                        capture.push(bytes);
                        err_only.push(bytes);
                        if let Some(chunk) = err_chunks.push(bytes) {
                            on_output(OutputStream::Stderr, &chunk);
                        }
                    }
                    _ => {
                        stderr = None;
                        if let Some(chunk) = err_chunks.finish() {
                            on_output(OutputStream::Stderr, &chunk);
                        }
                    }
                }
            }
            waited = child.wait(), if status.is_none() => {
                let exit = waited.map_err(|source| ProcessError::Wait { program: program.clone(), source })?;
                status = Some(exit);
                drain_timer = Some(Box::pin(tokio::time::sleep(DRAIN_AFTER_EXIT)));
            }
            () = &mut deadline, if !ending && status.is_none() => {
                tracing::debug!(
                    %program,
                    timeout = ?spec.timeout,
                    "process timed out: SIGTERM to its group"
                );
                timed_out = true;
                group.signal(Signal::SIGTERM);
                kill_timer = Some(Box::pin(tokio::time::sleep(spec.grace)));
            }
            () = cancel.cancelled(), if !ending && status.is_none() => {
                tracing::debug!(%program, "process cancelled: SIGTERM to its group");
                cancelled = true;
                group.signal(Signal::SIGTERM);
                kill_timer = Some(Box::pin(tokio::time::sleep(spec.grace)));
            }
            () = sleep_some(&mut kill_timer) => {
                tracing::debug!(
                    %program,
                    grace = ?spec.grace,
                    "process outlived its grace: SIGKILL to its group"
                );
                kill_timer = None;
                group.signal(Signal::SIGKILL);
            }
            () = sleep_some(&mut drain_timer) => {
                if killed {
                    // The pipes are still open after SIGKILL: give up on the rest.
                    break;
                }
                tracing::debug!(
                    %program,
                    "process exited but its pipes stay open: SIGKILL to its group"
                );
                killed = true;
                group.signal(Signal::SIGKILL);
                drain_timer = Some(Box::pin(tokio::time::sleep(DRAIN_AFTER_KILL)));
            }
        }
    }
    // Nothing of the group outlives the command.
    group.signal(Signal::SIGKILL);
    drop(group);

    let (exit_code, signal) = match status {
        Some(status) => {
            use std::os::unix::process::ExitStatusExt;
            (status.code(), status.signal())
        }
        None => (None, None),
    };
    tracing::debug!(
        %program,
        exit_code,
        signal,
        timed_out,
        cancelled,
        elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "process ended"
    );
    let output = capture.text();
    let failed = exit_code != Some(0) || timed_out || cancelled;
    let blocked = confinement
        .filter(|_| failed)
        .and_then(|c| c.explain(&output))
        .map(|blocked| blocked.to_string());
    Ok(ProcessOutcome {
        exit_code,
        signal,
        timed_out,
        cancelled,
        duration: started.elapsed(),
        output,
        stdout: out_only.text(),
        stderr: err_only.text(),
        blocked,
        output_bytes: capture.total(),
        output_cut: capture.cut(),
    })
}

/// Reads from a pipe, or waits forever once it is closed.
async fn read_some<R: AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match pipe {
        Some(pipe) => pipe.read(buf).await,
        None => std::future::pending().await,
    }
}

/// Waits for a timer, or forever when there is none.
async fn sleep_some(timer: &mut Option<Pin<Box<Sleep>>>) {
    match timer {
        Some(timer) => timer.as_mut().await,
        None => std::future::pending().await,
    }
}
