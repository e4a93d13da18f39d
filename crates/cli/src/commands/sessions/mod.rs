//! `keel sessions list|show|resume|fork`: the sessions kept in a project's store.

mod fork;
mod text;

use std::io::{ErrorKind, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use keel_events::EventHandler as _;
use keel_host::open_session;
use keel_store::{
    EventRange, Session, SessionFilter, SessionOrder, SqliteStore, Store, StoreError,
    default_db_path,
};
use serde::Serialize;

use super::agent_args::AgentArgs;
use super::chat::chat;
use super::run::{block_on, turn_exit_code, usage};
use crate::config::Settings;
use crate::host::{Host, Resume, TurnEnd};
use keel_render::{ColorWhen, ConsoleRenderer, NoSpinner, RenderOptions};

/// `keel sessions` subcommands. An unknown session id is a usage error (exit 2).
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List the project's sessions, most recently updated first.
    List(ListArgs),
    /// Show a session: its settings, its turns, then its events as `keel run` showed them.
    Show(ShowArgs),
    /// Continue a session: run TASK as its next turn, or chat when no TASK is given.
    Resume(Box<ResumeArgs>),
    /// Start a new session from a session's history (now, or before a checkpoint's turn with
    /// `--at`); the original is not changed.
    Fork(fork::ForkArgs),
}

impl SessionsCommand {
    /// Whether `-v` / `--verbose` was given.
    pub fn verbose(&self) -> bool {
        match self {
            Self::List(_) | Self::Fork(_) => false,
            Self::Show(args) => args.verbose,
            Self::Resume(args) => args.agent.verbose,
        }
    }
}

/// Arguments of `keel sessions list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Project folder whose store (`.keel/keel.db`) is read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// At most this many sessions.
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `keel sessions show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session id.
    pub id: String,
    /// Project folder whose store (`.keel/keel.db`) is read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// Print the stored events as JSON lines (nothing else).
    #[arg(long)]
    pub json: bool,
    /// Show thinking, tool output and model-call detail.
    #[arg(long, short)]
    pub verbose: bool,
    /// Colour: auto, always or never.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Language of the terminal's words: en or zh-CN [default: from LC_ALL, LC_MESSAGES or
    /// LANG, else en].
    #[arg(long, value_name = "en|zh-CN")]
    pub lang: Option<keel_events::Lang>,
}

/// Arguments of `keel sessions resume`.
///
/// Exit status as for `keel run` with a TASK, as for `keel chat` without.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The session id.
    pub id: String,
    /// The next task; without it, chat.
    pub task: Option<String>,
    /// Agent settings (the store is the one under `--root`).
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// One line of `keel sessions list --json`.
#[derive(Debug, Serialize)]
struct SessionLine<'a> {
    #[serde(flatten)]
    session: &'a Session,
    turns: usize,
    last_seq: u64,
}

/// Runs a `keel sessions` subcommand.
pub fn run(command: SessionsCommand) -> ExitCode {
    match command {
        SessionsCommand::List(args) => block_on("sessions list", list(args)),
        SessionsCommand::Show(args) => block_on("sessions show", show(args)),
        SessionsCommand::Resume(args) => block_on("sessions resume", resume(*args)),
        SessionsCommand::Fork(args) => block_on("sessions fork", fork::fork(args)),
    }
}

/// The project's store if it exists (`Ok(None)` when the project has none yet).
pub(super) async fn existing_store(root: &Path) -> Result<Option<Arc<dyn Store>>, StoreError> {
    let path = default_db_path(root);
    if !path.exists() {
        return Ok(None);
    }
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await?);
    // A session a killed `keel` left running shows as failed, not running forever.
    // No event stream yet: a failure is printed.
    if let Some(warning) = keel_host::recover_interrupted(store.as_ref()).await {
        eprintln!("keel: warning: {warning}");
    }
    Ok(Some(store))
}

/// The store and the session `id`, or the exit code of a clear error.
async fn find_session(
    command: &str,
    root: &Path,
    id: &str,
) -> Result<(Arc<dyn Store>, Session), ExitCode> {
    let not_found = || {
        usage(
            command,
            format!(
                "no session `{id}` in {} (see `keel sessions list`)",
                default_db_path(root).display()
            ),
        )
    };
    let store = match existing_store(root).await {
        Ok(Some(store)) => store,
        Ok(None) => return Err(not_found()),
        Err(e) => return Err(failure(command, e)),
    };
    match store.get_session(id).await {
        Ok(session) => Ok((store, session)),
        Err(e) if e.is_not_found() => {
            store.close().await;
            Err(not_found())
        }
        Err(e) => Err(failure(command, e)),
    }
}

fn failure(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("keel {command}: {message}");
    ExitCode::FAILURE
}

/// Writes `text` to standard output; a closed pipe (`| head`) is not an error.
fn print(text: &str) -> Result<(), ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(failure("sessions", format!("cannot write the output: {e}"))),
    }
}

async fn list(args: ListArgs) -> ExitCode {
    let store = match existing_store(&args.root).await {
        Ok(Some(store)) => store,
        Ok(None) => {
            if !args.json {
                eprintln!(
                    "keel sessions list: no sessions yet in {}",
                    args.root.display()
                );
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => return failure("sessions list", e),
    };
    let mut filter = SessionFilter::all().with_order(SessionOrder::RecentlyUpdated);
    if let Some(limit) = args.limit {
        filter = filter.with_limit(limit);
    }
    let result = async {
        let mut rows = Vec::new();
        for session in store.list_sessions(&filter).await? {
            let turns = keel_host::session_turns(store.as_ref(), &session.id)
                .await?
                .len();
            let last_seq = if args.json {
                store.last_seq(&session.id).await?
            } else {
                0
            };
            rows.push((text::Row { session, turns }, last_seq));
        }
        Ok::<_, StoreError>(rows)
    }
    .await;
    store.close().await;
    let rows = match result {
        Ok(rows) => rows,
        Err(e) => return failure("sessions list", e),
    };
    let out = if args.json {
        let mut out = String::new();
        for (row, last_seq) in &rows {
            let line = SessionLine {
                session: &row.session,
                turns: row.turns,
                last_seq: *last_seq,
            };
            match serde_json::to_string(&line) {
                Ok(json) => {
                    out.push_str(&json);
                    out.push('\n');
                }
                Err(e) => return failure("sessions list", e),
            }
        }
        out
    } else {
        let rows: Vec<text::Row> = rows.into_iter().map(|(row, _)| row).collect();
        text::table(&rows)
    };
    match print(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

async fn show(args: ShowArgs) -> ExitCode {
    let (store, session) = match find_session("sessions show", &args.root, &args.id).await {
        Ok(found) => found,
        Err(code) => return code,
    };
    let result = async {
        let turns = keel_host::session_turns(store.as_ref(), &session.id).await?;
        let events = store.read_events(&session.id, EventRange::all()).await?;
        Ok::<_, StoreError>((turns, events))
    }
    .await;
    store.close().await;
    let (turns, events) = match result {
        Ok(found) => found,
        Err(e) => return failure("sessions show", e),
    };
    if args.json {
        let mut out = String::new();
        for event in &events {
            match serde_json::to_string(event) {
                Ok(json) => {
                    out.push_str(&json);
                    out.push('\n');
                }
                Err(e) => return failure("sessions show", e),
            }
        }
        return match print(&out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        };
    }
    let mut out = text::header(&session, &turns, events.len() as u64);
    out.push_str("\nEvents:\n");
    if let Err(code) = print(&out) {
        return code;
    }
    let options = RenderOptions {
        color: args.color.for_stdout(),
        verbose: args.verbose,
        lang: keel_events::Lang::from_env(args.lang),
    };
    let rewrite = std::io::stdout().is_terminal() && options.color;
    let mut renderer =
        ConsoleRenderer::new(std::io::stdout(), options).with_spinner(Box::new(NoSpinner));
    if rewrite {
        renderer = renderer.with_rewrite(keel_render::stdout_width());
    }
    for event in &events {
        renderer.handle(event);
        if renderer.error().is_some() {
            break;
        }
    }
    match renderer.finish() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => failure("sessions show", format!("cannot write the output: {e}")),
    }
}

async fn resume(args: ResumeArgs) -> ExitCode {
    let command = "sessions resume";
    let (store, session) = match find_session(command, &args.agent.root, &args.id).await {
        Ok(found) => found,
        Err(code) => return code,
    };
    let opened = match open_session(store.as_ref(), &session.id).await {
        Ok(opened) => opened,
        Err(e) => return failure(command, e),
    };
    let settings = match Settings::load(&args.agent) {
        Ok(settings) => settings,
        Err(e) => return usage(command, e),
    };
    let resume = Resume { store, opened };
    let mut host = match Host::start(&settings, Some(resume)).await {
        Ok(host) => host,
        Err(e) => return usage(command, e),
    };
    match args.task {
        Some(task) => {
            let end = host.turn(&task).await;
            if end != TurnEnd::Interrupted {
                host.end_session().await;
            }
            if !settings.json && std::io::stderr().is_terminal() {
                host.notice_session();
            }
            host.close().await;
            turn_exit_code(end)
        }
        None => chat(host, &settings).await,
    }
}
