//! Running the agent on one task: Keel as `keel run --json` (a subprocess of the given
//! executable) or another agent's command line under `sh -c`, in the project copy, in its own
//! process group, its output kept in the run's log folder. At the cap or on cancel it is asked
//! to stop (Keel: SIGINT, which cancels its turn and the commands it runs; another agent:
//! SIGTERM) and killed with its group a few seconds later.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::error::EvalError;
use crate::events::KeelRun;
use crate::group::{self, Ending, Signal, Stopping};

/// `OPENAI_API_KEY` when none is set: local servers ignore it, clients insist on one.
pub const DUMMY_API_KEY: &str = "sk-keel-eval-dummy";

/// Most bytes of another agent's standard output kept as its answer (the start is dropped).
const ANSWER_CAP: usize = 4 << 20;

/// How long an agent has to end after it is asked to stop (the cap, Ctrl-C) before it is
/// killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// How long to wait for an agent's pipes to close after it ended.
const DRAIN_GRACE: Duration = Duration::from_secs(5);

/// Which agent works on the tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agent {
    /// Keel: `EXE run --json …` for each task.
    Keel {
        /// The `keel` executable.
        exe: PathBuf,
        /// `--provider` for `keel run`, when given.
        provider: Option<String>,
        /// More arguments for `keel run`, passed verbatim before the task.
        args: Vec<String>,
    },
    /// Another agent: this command line, run with `sh -c`.
    Command(String),
}

/// What one run of the agent is given.
#[derive(Debug, Clone)]
pub struct Invocation<'a> {
    /// The project copy, the agent's working folder.
    pub project: &'a Path,
    /// The task's text.
    pub task: &'a str,
    /// A file holding the task's text.
    pub task_file: &'a Path,
    /// The metering proxy's `/v1` URL.
    pub base_url: &'a str,
    /// The model, when one was given.
    pub model: Option<&'a str>,
    /// The project's test command, when the task names one.
    pub test_cmd: Option<&'a str>,
    /// The run's log folder.
    pub log_dir: &'a Path,
    /// The longest the agent may take.
    pub cap: Duration,
}

/// How the agent's run went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentOutcome {
    /// Exited (with its code), killed at the cap, or cancelled.
    pub ending: Ending,
    /// Start to end.
    pub wall: Duration,
    /// The answer: the last `agent.end`'s result for Keel, standard output (ANSI escapes
    /// stripped) for another agent.
    pub answer: String,
    /// Keel's events read, for Keel.
    pub keel: Option<KeelRun>,
    /// The last lines of the agent's standard error.
    pub stderr_tail: String,
}

impl Agent {
    /// The log file of the agent's standard output in the run's folder.
    pub fn output_log(&self) -> &'static str {
        match self {
            Agent::Keel { .. } => "events.jsonl",
            Agent::Command(_) => "agent.log",
        }
    }

    /// Runs the agent once, as `invocation` says.
    pub async fn run(
        &self,
        invocation: &Invocation<'_>,
        cancel: &CancellationToken,
    ) -> Result<AgentOutcome, EvalError> {
        match self {
            Agent::Keel {
                exe,
                provider,
                args,
            } => run_keel(exe, provider.as_deref(), args, invocation, cancel).await,
            Agent::Command(command) => run_command(command, invocation, cancel).await,
        }
    }
}

/// The arguments of `keel run` for one task.
pub fn keel_args(provider: Option<&str>, extra: &[String], inv: &Invocation<'_>) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--json",
        "--root",
        &inv.project.to_string_lossy(),
        "--approval",
        "never",
        "--base-url",
        inv.base_url,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let mut option = |flag: &str, value: Option<&str>| {
        if let Some(value) = value {
            args.extend([flag.to_owned(), value.to_owned()]);
        }
    };
    option("--model", inv.model);
    option("--provider", provider);
    option("--test-cmd", inv.test_cmd);
    args.extend(extra.iter().cloned());
    args.extend(["--".to_owned(), inv.task.to_owned()]);
    args
}

async fn run_keel(
    exe: &Path,
    provider: Option<&str>,
    extra: &[String],
    inv: &Invocation<'_>,
    cancel: &CancellationToken,
) -> Result<AgentOutcome, EvalError> {
    let events_path = inv.log_dir.join("events.jsonl");
    let stderr_path = inv.log_dir.join("stderr.log");
    let mut command = Command::new(exe);
    command
        .args(keel_args(provider, extra, inv))
        .current_dir(inv.project)
        .stdin(Stdio::null())
        .stdout(create(&events_path)?)
        .stderr(create(&stderr_path)?)
        .process_group(0)
        .kill_on_drop(true);
    if std::env::var_os("OPENAI_API_KEY").is_none() {
        command.env("OPENAI_API_KEY", DUMMY_API_KEY);
    }
    let mut child = command.spawn().map_err(|source| EvalError::Spawn {
        what: format!("{} run", exe.display()),
        source,
    })?;
    // SIGINT: Keel cancels the turn, stopping the commands it runs in groups of their own.
    let stopping = Stopping {
        signal: Signal::SIGINT,
        grace: STOP_GRACE,
    };
    let (ending, wall) = group::wait(&mut child, inv.cap, cancel, Some(stopping)).await;
    let keel = KeelRun::read(&events_path);
    Ok(AgentOutcome {
        ending,
        wall,
        answer: keel.answer.clone().unwrap_or_default(),
        keel: Some(keel),
        stderr_tail: tail(&std::fs::read_to_string(&stderr_path).unwrap_or_default()),
    })
}

async fn run_command(
    line: &str,
    inv: &Invocation<'_>,
    cancel: &CancellationToken,
) -> Result<AgentOutcome, EvalError> {
    let log = Arc::new(Mutex::new(create(&inv.log_dir.join("agent.log"))?));
    let stderr_log = Arc::new(Mutex::new(create(&inv.log_dir.join("stderr.log"))?));
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(line)
        .current_dir(inv.project)
        .env("KEEL_EVAL_TASK", inv.task)
        .env("KEEL_EVAL_TASK_FILE", inv.task_file)
        .env("KEEL_EVAL_BASE_URL", inv.base_url)
        .env("KEEL_EVAL_MODEL", inv.model.unwrap_or(""))
        .env("KEEL_EVAL_TEST_CMD", inv.test_cmd.unwrap_or(""))
        .env("OPENAI_API_BASE", inv.base_url)
        .env("OPENAI_BASE_URL", inv.base_url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if std::env::var_os("OPENAI_API_KEY").is_none() {
        command.env("OPENAI_API_KEY", DUMMY_API_KEY);
    }
    let mut child = command.spawn().map_err(|source| EvalError::Spawn {
        what: format!("sh -c {line}"),
        source,
    })?;
    let stdout = child
        .stdout
        .take()
        .map(|out| tokio::spawn(copy_out(out, vec![Arc::clone(&log)], true)));
    let stderr = child
        .stderr
        .take()
        .map(|err| tokio::spawn(copy_out(err, vec![log, stderr_log], false)));
    let stopping = Stopping {
        signal: Signal::SIGTERM,
        grace: STOP_GRACE,
    };
    let (ending, wall) = group::wait(&mut child, inv.cap, cancel, Some(stopping)).await;
    let answer = match stdout {
        Some(reader) => drained(reader).await,
        None => Vec::new(),
    };
    let errors = match stderr {
        Some(reader) => drained(reader).await,
        None => Vec::new(),
    };
    Ok(AgentOutcome {
        ending,
        wall,
        answer: strip_ansi(&String::from_utf8_lossy(&answer))
            .trim()
            .to_owned(),
        keel: None,
        stderr_tail: tail(&String::from_utf8_lossy(&errors)),
    })
}

/// Waits (briefly) for a pipe reader to finish; what it kept.
async fn drained(reader: tokio::task::JoinHandle<Vec<u8>>) -> Vec<u8> {
    let abort = reader.abort_handle();
    match tokio::time::timeout(DRAIN_GRACE, reader).await {
        Ok(Ok(kept)) => kept,
        _ => {
            abort.abort();
            Vec::new()
        }
    }
}

/// Copies a pipe into `logs` as it comes; keeps its last [`ANSWER_CAP`] bytes (all of it when
/// `keep_all` is false only the last 64 KiB, for error messages).
async fn copy_out(
    mut pipe: impl AsyncRead + Unpin,
    logs: Vec<Arc<Mutex<std::fs::File>>>,
    keep_all: bool,
) -> Vec<u8> {
    use std::io::Write as _;
    let cap = if keep_all { ANSWER_CAP } else { 64 << 10 };
    let mut kept = Vec::new();
    let mut buffer = vec![0u8; 16 << 10];
    loop {
        let n = match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for log in &logs {
            let mut file = log.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = file.write_all(&buffer[..n]);
        }
        kept.extend_from_slice(&buffer[..n]);
        if kept.len() > cap {
            kept.drain(..kept.len() - cap);
        }
    }
    kept
}

fn create(path: &Path) -> Result<std::fs::File, EvalError> {
    std::fs::File::create(path).map_err(|source| EvalError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The last few non-empty lines of `text`, joined by ` / `.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(3);
    crate::proxy::excerpt(&lines[start..].join(" / "), 400)
}

/// `text` without terminal escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`,
/// character set choices `ESC ( x`, and two-byte `ESC x`).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            Some('(' | ')' | '*' | '+') => {
                chars.next();
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_stripped_and_text_kept() {
        assert_eq!(
            strip_ansi(
                "\u{1b}[1;32mok\u{1b}[0m done\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{1b}\\ \u{1b}(Bend"
            ),
            "ok donelink end"
        );
    }

    #[test]
    fn keel_is_given_the_proxy_the_model_and_the_task_last() {
        let inv = Invocation {
            project: Path::new("/tmp/p"),
            task: "--fix it",
            task_file: Path::new("/tmp/t"),
            base_url: "http://127.0.0.1:9/v1",
            model: Some("m"),
            test_cmd: Some("pytest -q"),
            log_dir: Path::new("/tmp/l"),
            cap: Duration::from_secs(1),
        };
        let args = keel_args(Some("openai"), &["--max-retries".into(), "0".into()], &inv);
        assert_eq!(
            args.join(" "),
            "run --json --root /tmp/p --approval never --base-url http://127.0.0.1:9/v1 \
             --model m --provider openai --test-cmd pytest -q --max-retries 0 -- --fix it"
        );
    }
}
