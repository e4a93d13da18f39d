//! `keel run "TASK"`: one agent turn on a project, rendered for a person or as JSON lines, kept
//! as a session in the project's store.

use std::process::ExitCode;

use keel_events::AgentStatus;

use super::EXIT_USAGE;
use super::agent_args::AgentArgs;
use crate::config::Settings;
use crate::host::{Host, TurnEnd};

/// Exit code after a second Ctrl-C (or Ctrl-C at the chat prompt).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Arguments of `keel run`.
///
/// Exit status: 0 when the task completed (and with `--pr`, the pull request was opened or
/// its branch pushed); 1 when it failed, was cancelled or ran out of iterations, or the pull
/// request could not be made; 2 for usage errors (bad flags or settings file, missing API key, unreadable
/// script); 130 after a second Ctrl-C.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The task, in plain words.
    pub task: String,
    /// An image for the model to see with the task: PNG, JPEG, GIF or WebP (read from its
    /// bytes), at most 10 MiB; repeat for more. A model that does not accept images refuses
    /// the turn (see `vision` in keel.toml).
    #[arg(long = "image", value_name = "FILE")]
    pub images: Vec<std::path::PathBuf>,
    /// After the turn, push the branch and open a pull request (through `gh` when it is
    /// installed and signed in, else the push and the page to open it on); implies `--commit`.
    /// Refused before the turn on a work tree with changes, a detached HEAD, no remote or the
    /// default branch.
    #[arg(long)]
    pub pr: bool,
    /// Agent settings.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Runs `keel run`.
pub fn run(args: RunArgs) -> ExitCode {
    block_on("run", async move {
        let mut settings = match Settings::load(&args.agent) {
            Ok(settings) => settings,
            Err(e) => return usage("run", e),
        };
        let mut images = Vec::with_capacity(args.images.len());
        for path in &args.images {
            match keel_protocol::Image::read(path) {
                Ok(image) => images.push(image),
                Err(e) => return usage("run", e),
            }
        }
        settings.git.pull_request = args.pr;
        settings.ask_trust();
        let mut host = match Host::start(&settings, None).await {
            Ok(host) => host,
            Err(e) => return usage("run", e),
        };
        let mut end = host
            .turn(keel_protocol::TurnInput::new(args.task, images))
            .await;
        if end == TurnEnd::Finished(AgentStatus::Completed)
            && let Some(Err(_)) = host.open_pull_request().await
        {
            // Said on the stream; the run did not do all it was asked.
            end = TurnEnd::Finished(AgentStatus::Failed);
        }
        if end != TurnEnd::Interrupted {
            host.end_session().await;
        }
        if !settings.json {
            host.notice_session();
        }
        host.close().await;
        turn_exit_code(end)
    })
}

/// Runs `future` on a fresh runtime (two workers), reporting a runtime that cannot start.
pub fn block_on(command: &str, future: impl Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(future),
        Err(e) => {
            eprintln!("keel {command}: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints a usage error of `command` and returns exit code 2.
pub fn usage(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("keel {command}: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// 0 for a completed turn, 130 for an interrupted one, 1 otherwise.
pub fn turn_exit_code(end: TurnEnd) -> ExitCode {
    match end {
        TurnEnd::Finished(AgentStatus::Completed) => ExitCode::SUCCESS,
        TurnEnd::Finished(_) => ExitCode::FAILURE,
        TurnEnd::Interrupted => ExitCode::from(EXIT_INTERRUPTED),
    }
}
