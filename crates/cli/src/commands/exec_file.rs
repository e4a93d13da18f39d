//! `keel exec-file`: run one script file of a workspace (seed 000's file run), streaming its
//! output, or its `exec.file.*` events as JSON lines.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use keel_events::{Bus, Emitter, Event, EventHandler, EventKind, JsonlHandler, Sequencer};
use keel_sandbox::{Sandbox, SandboxMode};
use keel_tools::file_run::{FileRun, FileRunError, run_file};
use tokio_util::sync::CancellationToken;

use super::EXIT_USAGE;

/// Arguments of `keel exec-file`.
///
/// Exit status: the script's exit code; 1 when it was killed (time-out, Ctrl-C, signal);
/// 2 for usage errors (bad path, no interpreter for the file).
#[derive(Debug, clap::Args)]
pub struct ExecFileArgs {
    /// The script, relative to the workspace root.
    pub path: String,
    /// Arguments for the script, passed as they are (no shell). Everything from the first
    /// argument on is the script's; put `--` before the first if it starts with `-`.
    #[arg(value_name = "ARGS", trailing_var_arg = true)]
    pub args: Vec<String>,
    /// Print the run's events as JSON lines instead of its output.
    #[arg(long)]
    pub json: bool,
    /// Workspace root the script must be inside (it also runs there).
    #[arg(long, value_name = "DIR")]
    pub root: PathBuf,
    /// Seconds before the script and everything it started are killed (default 120).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// The OS sandbox the script runs in: read-only, workspace-write or off [default: the
    /// root's keel.toml `sandbox`, else workspace-write].
    #[arg(long, value_parser = super::agent_args::parse_sandbox, value_name = "MODE")]
    pub sandbox: Option<SandboxMode>,
}

/// Prints the script's output as it arrives.
struct Human;

impl EventHandler for Human {
    fn handle(&mut self, event: &Event) {
        match &event.kind {
            EventKind::ExecFileStdout(out) => {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(out.content.as_bytes());
                let _ = stdout.flush();
            }
            EventKind::ExecFileStderr(err) => {
                let mut stderr = std::io::stderr().lock();
                let _ = stderr.write_all(err.content.as_bytes());
                let _ = stderr.flush();
            }
            _ => {}
        }
    }
}

/// Runs `keel exec-file`.
pub fn run(args: ExecFileArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("keel exec-file: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(exec(args))
}

async fn exec(args: ExecFileArgs) -> ExitCode {
    let emitter = Emitter::new(
        Sequencer::new(format!("cli-{}", std::process::id()), "cli"),
        Bus::default(),
    );
    if args.json {
        emitter
            .bus()
            .add_handler(JsonlHandler::new(std::io::stdout()));
    } else {
        emitter.bus().add_handler(Human);
    }
    let sandbox = match sandbox_for(&args) {
        Ok(sandbox) => sandbox,
        Err(message) => {
            eprintln!("keel exec-file: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Some(warning) = sandbox.as_ref().and_then(|s| s.warning()) {
        eprintln!("keel exec-file: warning: {warning}");
    }
    let mut request = FileRun::new(&args.root, &args.path)
        .with_args(args.args.iter().cloned())
        .with_sandbox(sandbox);
    if let Some(secs) = args.timeout {
        request = request.with_timeout(Duration::from_secs(secs));
    }
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });

    let result = run_file(&request, &emitter, &cancel).await;
    emitter.bus().flush();
    match result {
        Ok(outcome) => {
            if !args.json {
                let ending = if outcome.timed_out {
                    format!("timed out after {} s, killed", request.timeout.as_secs())
                } else if outcome.cancelled {
                    "interrupted, killed".to_owned()
                } else {
                    match outcome.exit_code {
                        Some(code) => format!("exit code {code}"),
                        None => "killed by a signal".to_owned(),
                    }
                };
                eprintln!("[{}: {ending} in {} ms]", outcome.file, outcome.duration_ms);
                if let Some(blocked) = &outcome.blocked {
                    eprintln!("[{}: {blocked}]", outcome.file);
                }
            }
            match outcome.exit_code {
                Some(code) if !outcome.timed_out && !outcome.cancelled => {
                    ExitCode::from(u8::try_from(code).unwrap_or(1))
                }
                _ => ExitCode::FAILURE,
            }
        }
        Err(e @ FileRunError::Process(_)) => {
            eprintln!("keel exec-file: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("keel exec-file: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The sandbox the script runs in: `--sandbox` over the root's and the user's keel.toml
/// (`None` when off). A mode this system cannot enforce is refused (unless
/// `sandbox_fallback = "warn"`), naming what is missing.
fn sandbox_for(args: &ExecFileArgs) -> Result<Option<std::sync::Arc<Sandbox>>, String> {
    let root = args
        .root
        .canonicalize()
        .map_err(|e| format!("--root `{}`: {e}", args.root.display()))?;
    let policy = crate::config::load_sandbox(&root, args.sandbox).map_err(|e| e.to_string())?;
    keel_host::file_run_sandbox(&policy, &root).map_err(|e| format!("the script was not run: {e}"))
}
