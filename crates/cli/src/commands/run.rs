//! `keel run "TASK"`: one agent turn on a project, rendered for a person or as JSON lines.

use std::future::Future;
use std::io::{BufRead, IsTerminal, Write as _};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keel_context::MemoryStore;
use keel_engine::agent::{CannotAnswer, Question, QuestionAnswerer, QuestionKind};
use keel_engine::{
    AgentConfig, AgentSession, Mode, ModelChain, OpenAiConfig, OpenAiProvider, Provider,
    ScriptedProvider,
};
use keel_events::{
    AgentStatus, ApprovalDecision, Bus, Emitter, Event, EventHandler, JsonlHandler, Sequencer,
};
use keel_tools::{ApprovalPolicy, ApprovalReply, ApprovalRequest, Approver, CannotAsk};

use super::EXIT_USAGE;
use crate::render::{
    ColorWhen, ConsoleRenderer, NoSpinner, RenderOptions, Spinner, TerminalSpinner,
};

/// Model used with `--provider openai` when neither `--model` nor `KEEL_MODEL` is given.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";

/// Exit code after a second Ctrl-C.
const EXIT_INTERRUPTED: i32 = 130;

/// Planning mode of `keel run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// The model decides whether to plan.
    Auto,
    /// Never plan.
    Direct,
    /// Plan first.
    Plan,
}

/// Arguments of `keel run`.
///
/// Exit status: 0 when the task completed; 1 when it failed, was cancelled or ran out of
/// iterations; 2 for usage errors (bad flags, missing API key, unreadable script); 130 after a
/// second Ctrl-C.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The task, in plain words.
    pub task: String,
    /// Model back end: `openai` (any OpenAI-compatible endpoint; needs OPENAI_API_KEY) or
    /// `scripted:FILE` (replays a script of model turns, offline).
    #[arg(long, default_value = "openai", value_name = "openai|scripted:FILE")]
    pub provider: String,
    /// Model, or a comma-separated fallback chain (`gpt-4o,gpt-4o-mini`). Default for openai:
    /// gpt-4o-mini.
    #[arg(long, env = "KEEL_MODEL", value_name = "MODEL[,FALLBACK…]")]
    pub model: Option<String>,
    /// Base URL of the OpenAI-compatible API (default: OPENAI_BASE_URL, else api.openai.com).
    #[arg(long, env = "KEEL_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
    /// Project folder the agent works in.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// When commands need approval: never, on-dangerous, always, deny-dangerous.
    #[arg(long, default_value = "on-dangerous", value_parser = parse_policy)]
    pub approval: ApprovalPolicy,
    /// auto (the model decides), direct (never plan) or plan (plan first).
    #[arg(long, value_enum, default_value_t = ModeArg::Auto)]
    pub mode: ModeArg,
    /// Most model calls in the turn.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_iterations: u32,
    /// Retries of a failed model call (429, 5xx, dropped connections).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Seconds without data from the model before the call fails (and is retried).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: Option<u64>,
    /// Ask before executing a plan.
    #[arg(long)]
    pub approve_plans: bool,
    /// Print the events as JSON lines instead of rendering them.
    #[arg(long)]
    pub json: bool,
    /// Show thinking, tool output and model-call detail.
    #[arg(long, short)]
    pub verbose: bool,
    /// Colour: auto, always or never.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

fn parse_policy(s: &str) -> Result<ApprovalPolicy, String> {
    s.parse::<ApprovalPolicy>().map_err(|e| e.to_string())
}

/// Runs `keel run`.
pub fn run(args: RunArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("keel run: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run_task(args))
}

/// What a usage error looks like.
fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("keel run: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// The provider and model chain the flags ask for.
fn provider(args: &RunArgs) -> Result<(Arc<dyn Provider>, Vec<String>), String> {
    let models: Vec<String> = args
        .model
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect();
    if let Some(file) = args.provider.strip_prefix("scripted:") {
        let provider = ScriptedProvider::from_file(file).map_err(|e| e.to_string())?;
        let models = if models.is_empty() {
            vec!["scripted".to_owned()]
        } else {
            models
        };
        return Ok((Arc::new(provider), models));
    }
    if args.provider != "openai" {
        return Err(format!(
            "unknown provider `{}` (expected `openai` or `scripted:FILE`)",
            args.provider
        ));
    }
    let models = if models.is_empty() {
        vec![DEFAULT_OPENAI_MODEL.to_owned()]
    } else {
        models
    };
    let mut config = OpenAiConfig::from_env(models[0].clone());
    if config.api_key.trim().is_empty() {
        return Err("no API key: set OPENAI_API_KEY (for another OpenAI-compatible server also set --base-url or KEEL_BASE_URL), or run offline with --provider scripted:FILE".to_owned());
    }
    if let Some(base) = &args.base_url {
        config.base_url = base.trim_end_matches('/').to_owned();
    }
    if let Some(secs) = args.idle_timeout {
        config.idle_timeout = Duration::from_secs(secs);
    }
    let provider = OpenAiProvider::new(config).map_err(|e| e.to_string())?;
    Ok((Arc::new(provider), models))
}

/// The console renderer, shared so it can be finished after the turn.
#[derive(Clone)]
struct SharedRenderer(Arc<Mutex<ConsoleRenderer<std::io::Stdout>>>);

impl EventHandler for SharedRenderer {
    fn handle(&mut self, event: &Event) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .handle(event);
    }

    fn flush(&mut self) {
        EventHandler::flush(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

async fn run_task(args: RunArgs) -> ExitCode {
    let (provider, models) = match provider(&args) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let chain = match ModelChain::new(models) {
        Ok(chain) => chain,
        Err(e) => return usage(e),
    };
    let mut config = AgentConfig::new(&args.root, chain);
    config.mode = match args.mode {
        ModeArg::Auto => Mode::Auto,
        ModeArg::Direct => Mode::Direct,
        ModeArg::Plan => Mode::Plan,
    };
    config.max_iterations = args.max_iterations;
    config.approval = args.approval;
    config.approve_plans = args.approve_plans;
    if let Some(retries) = args.max_retries {
        config.retry.max_attempts = retries.saturating_add(1);
    }

    let emitter = Emitter::new(
        Sequencer::new(format!("cli-{}", std::process::id()), "cli"),
        Bus::default(),
    );
    let renderer = if args.json {
        emitter
            .bus()
            .add_handler(JsonlHandler::new(std::io::stdout()));
        None
    } else {
        let stdout = std::io::stdout();
        let spinner: Box<dyn Spinner> = if stdout.is_terminal() {
            Box::new(TerminalSpinner::stdout())
        } else {
            Box::new(NoSpinner)
        };
        let options = RenderOptions {
            color: args.color.for_stdout(),
            verbose: args.verbose,
        };
        let shared = SharedRenderer(Arc::new(Mutex::new(
            ConsoleRenderer::new(stdout, options).with_spinner(spinner),
        )));
        emitter.bus().add_handler(shared.clone());
        Some(shared)
    };

    let session = match AgentSession::new(config, provider, emitter.clone()) {
        Ok(session) => session,
        Err(e) => return usage(e),
    };
    let session = match MemoryStore::for_project(&session.config().root).load() {
        Ok(memory) if !memory.is_empty() => session.with_memory(memory),
        Ok(_) => session,
        Err(e) => {
            eprintln!("keel run: project memory not used: {e}");
            session
        }
    };
    let interactive = std::io::stdin().is_terminal();
    let mut session = if interactive {
        session
            .with_approver(Arc::new(TerminalApprover::default()))
            .with_answerer(Arc::new(TerminalAnswerer::default()))
    } else {
        session
            .with_approver(Arc::new(CannotAsk))
            .with_answerer(Arc::new(CannotAnswer))
    };

    let cancel = session.cancel_handle();
    let interrupts = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\nkeel: cancelling the turn (Ctrl-C again to quit)");
            cancel.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(EXIT_INTERRUPTED);
            }
        }
    });

    let outcome = session.run_turn(args.task.clone()).await;
    interrupts.abort();
    emitter.bus().flush();
    if let Some(renderer) = renderer {
        let mut renderer = renderer.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = renderer.finish() {
            eprintln!("keel run: cannot write the output: {e}");
        }
    }
    let _ = std::io::stdout().flush();
    if outcome.status == AgentStatus::Completed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Reads one line from the terminal (off the async threads).
async fn read_line(prompt: String) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{prompt}");
        let _ = stderr.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}

/// Asks approvals on the terminal.
#[derive(Debug, Default)]
struct TerminalApprover {
    /// One question at a time.
    lock: tokio::sync::Mutex<()>,
}

/// A boxed future, as the `async_trait` traits of the engine and tools expect.
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Approver for TerminalApprover {
    fn approve<'a, 'b, 'f>(&'a self, request: &'b ApprovalRequest) -> BoxFuture<'f, ApprovalReply>
    where
        'a: 'f,
        'b: 'f,
        Self: 'f,
    {
        Box::pin(self.ask(request))
    }
}

impl TerminalApprover {
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalReply {
        let _one = self.lock.lock().await;
        let prompt = format!(
            "\n? Approve {:?}: {}\n  ({})\n  [y]es / [n]o (reason) / [e]dit (new command): ",
            request.kind, request.subject, request.reason
        );
        let Some(line) = read_line(prompt).await else {
            return ApprovalReply::reject("no answer (input closed)");
        };
        let (word, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        match word.to_ascii_lowercase().as_str() {
            "y" | "yes" => ApprovalReply::approve(),
            "e" | "edit" if !rest.trim().is_empty() => ApprovalReply {
                decision: ApprovalDecision::Modify,
                reason: None,
                modified: Some(serde_json::Value::String(rest.trim().to_owned())),
            },
            _ => {
                let reason = if rest.trim().is_empty() {
                    "the user said no"
                } else {
                    rest.trim()
                };
                ApprovalReply::reject(reason)
            }
        }
    }
}

/// Asks the model's questions on the terminal.
#[derive(Debug, Default)]
struct TerminalAnswerer {
    /// One question at a time.
    lock: tokio::sync::Mutex<()>,
}

impl QuestionAnswerer for TerminalAnswerer {
    fn answer<'a, 'b, 'f>(&'a self, question: &'b Question) -> BoxFuture<'f, String>
    where
        'a: 'f,
        'b: 'f,
        Self: 'f,
    {
        Box::pin(self.ask(question))
    }
}

impl TerminalAnswerer {
    async fn ask(&self, question: &Question) -> String {
        let _one = self.lock.lock().await;
        let heading = match question.kind {
            QuestionKind::FollowUp => "? ",
            QuestionKind::PlanResponse => "? (planning) ",
        };
        let options = if question.options.is_empty() {
            String::new()
        } else {
            format!("\n  options: {}", question.options.join(" | "))
        };
        read_line(format!("\n{heading}{}{options}\n> ", question.text))
            .await
            .unwrap_or_else(|| keel_engine::agent::CANNOT_ANSWER.to_owned())
    }
}
