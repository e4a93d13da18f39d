//! `keel eval DIR…`: runs an agent on task suites and scores the work (keel-eval does the
//! work; this is the command line, the progress display and Ctrl-C). Also `--verify` (the
//! tasks' own soundness) and `--report` (earlier results side by side).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keel_engine::openai::DEFAULT_BASE_URL;
use keel_eval::{
    Agent, EvalSettings, Outcome, Progress, ResultsFile, Task, TaskResult, discover, run_suite,
    verify_task,
};
use tokio_util::sync::CancellationToken;

use super::agent_args::AgentArgs;
use super::run::{EXIT_INTERRUPTED, block_on, usage};
use crate::config::Settings;

/// The `--agent-cmd` example the help and the crate README give: Aider on the same model,
/// through the same metering proxy.
const AIDER_EXAMPLE: &str = "\
Compare with another agent on the same tasks and model, e.g. Aider:

  keel eval eval/tasks --base-url http://localhost:8080/v1 --model qwen2.5-coder \\
    --agent-cmd 'aider --model openai/$KEEL_EVAL_MODEL --openai-api-base $KEEL_EVAL_BASE_URL \
--yes-always --no-show-model-warnings --no-check-update --no-analytics \
${KEEL_EVAL_TEST_CMD:+--test-cmd \"$KEEL_EVAL_TEST_CMD\" --auto-test} --message-file $KEEL_EVAL_TASK_FILE'

  keel eval --report eval-out/keel-*/results.jsonl eval-out/aider-*/results.jsonl

The command runs with `sh -c` in the project copy, in its own process group, with
KEEL_EVAL_TASK (the task's text), KEEL_EVAL_TASK_FILE (a file holding it), KEEL_EVAL_BASE_URL
(the metering proxy's /v1 URL; also OPENAI_API_BASE and OPENAI_BASE_URL), KEEL_EVAL_MODEL,
KEEL_EVAL_TEST_CMD (empty when the task has none) and OPENAI_API_KEY (a dummy when unset).
Its answer is its standard output.";

/// Arguments of `keel eval`.
///
/// Exit status: 0 when every task ran (solved or not); 1 when `--verify` finds an unsound task;
/// 2 for usage errors (a folder that does not exist or holds no task, a results file that
/// cannot be read); 130 after Ctrl-C (the finished tasks' results are kept and summarised).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AIDER_EXAMPLE)]
pub struct EvalArgs {
    /// Task folders or suites (folders of tasks); with `--report`, results files.
    #[arg(required = true, value_name = "DIR")]
    pub paths: Vec<PathBuf>,
    /// Keel's model back end, passed to each `keel run` [default: openai].
    #[arg(
        long,
        value_name = "openai|scripted:FILE",
        conflicts_with = "agent_cmd"
    )]
    pub provider: Option<String>,
    /// Base URL of the real model endpoint the metering proxy forwards to [env: KEEL_BASE_URL]
    /// [default: keel.toml's, else OPENAI_BASE_URL, else api.openai.com].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model [env: KEEL_MODEL] [default: keel.toml's].
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Tasks run at once, each with its own project copy and proxy.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// Longest time an agent may work on one task, in seconds.
    #[arg(long, default_value_t = 600, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub cap: u64,
    /// The results file (JSON lines; the summary goes beside it as FILE.md, the run folders
    /// under runs/) [default: eval-out/LABEL-UTCTIME/results.jsonl].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Run another agent's command line (with `sh -c`) instead of Keel.
    #[arg(long, value_name = "CMD")]
    pub agent_cmd: Option<String>,
    /// The agent's name in the results [default: keel, or the first word of --agent-cmd].
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// An argument passed verbatim to each `keel run` (repeat for more).
    #[arg(
        long = "keel-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        conflicts_with = "agent_cmd"
    )]
    pub keel_args: Vec<String>,
    /// Longest time `check.sh` may take, in seconds.
    #[arg(long, default_value_t = 120, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub check_timeout: u64,
    /// Run only the tasks whose name contains SUBSTRING (repeat for more).
    #[arg(long = "filter", value_name = "SUBSTRING")]
    pub filters: Vec<String>,
    /// Keep each project copy under its run folder (runs/TASK/project).
    #[arg(long)]
    pub keep: bool,
    /// Verify the tasks instead of running an agent: each check must fail on the untouched
    /// repo, pass with the reference fix.patch (or answer.txt), and still fail with the
    /// repo's tests deleted.
    #[arg(long, conflicts_with_all = ["report", "agent_cmd"])]
    pub verify: bool,
    /// Print a side-by-side Markdown table of earlier results files (the paths given) instead
    /// of running.
    #[arg(long)]
    pub report: bool,
}

/// Runs `keel eval`.
pub fn run(args: EvalArgs) -> ExitCode {
    if args.report {
        return report(&args.paths);
    }
    block_on("eval", async move {
        let mut tasks = match discover(&args.paths) {
            Ok(tasks) => tasks,
            Err(e) => return usage("eval", e),
        };
        if !args.filters.is_empty() {
            tasks.retain(|t| args.filters.iter().any(|f| t.name.contains(f.as_str())));
            if tasks.is_empty() {
                return usage(
                    "eval",
                    format!("no task matches --filter {}", args.filters.join(", ")),
                );
            }
        }
        if args.verify {
            verify(&tasks, &args).await
        } else {
            evaluate(&tasks, &args).await
        }
    })
}

fn report(paths: &[PathBuf]) -> ExitCode {
    match keel_eval::report::read_columns(paths) {
        Ok(columns) => {
            print!("{}", keel_eval::report::report(&columns));
            ExitCode::SUCCESS
        }
        Err(e) => usage("eval", e),
    }
}

async fn verify(tasks: &[Task], args: &EvalArgs) -> ExitCode {
    use futures::StreamExt as _;
    let timeout = Duration::from_secs(args.check_timeout);
    let cancel = CancellationToken::new();
    let watcher = match watch_ctrl_c(cancel.clone()) {
        Ok(watcher) => watcher,
        Err(e) => return usage("eval", format!("cannot watch for Ctrl-C: {e}")),
    };
    let mut verdicts = futures::stream::iter(tasks)
        .map(|task| verify_task(task, timeout))
        .buffer_unordered(args.jobs as usize);
    let (mut checked, mut unsound) = (0, 0);
    loop {
        // Dropping the stream on Ctrl-C kills the checks still running (their process groups).
        let verdict = tokio::select! {
            verdict = verdicts.next() => verdict,
            () = cancel.cancelled() => break,
        };
        let Some(verdict) = verdict else { break };
        println!("{verdict}");
        checked += 1;
        unsound += usize::from(!verdict.ok());
    }
    drop(verdicts);
    watcher.abort();
    println!("{checked} task(s) verified, {unsound} unsound");
    if cancel.is_cancelled() {
        eprintln!("keel eval: interrupted");
        ExitCode::from(EXIT_INTERRUPTED)
    } else if unsound == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

async fn evaluate(tasks: &[Task], args: &EvalArgs) -> ExitCode {
    let settings = match settings(args) {
        Ok(settings) => settings,
        Err(message) => return usage("eval", message),
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&settings.label));
    let runs_dir = out.parent().unwrap_or_else(|| Path::new(".")).join("runs");
    let settings = EvalSettings {
        runs_dir: std::path::absolute(&runs_dir).unwrap_or(runs_dir),
        ..settings
    };
    let mut results = match ResultsFile::open(&out) {
        Ok(file) => file,
        Err(e) => return usage("eval", e),
    };
    let cancel = CancellationToken::new();
    let watcher = match watch_ctrl_c(cancel.clone()) {
        Ok(watcher) => watcher,
        Err(e) => return usage("eval", format!("cannot watch for Ctrl-C: {e}")),
    };
    let progress = Lines::new(tasks.len());
    let run = run_suite(
        tasks,
        &settings,
        args.jobs as usize,
        &mut results,
        &progress,
        &cancel,
    )
    .await;
    watcher.abort();
    progress.done();
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            eprintln!("keel eval: {e}");
            return ExitCode::FAILURE;
        }
    };
    let summary = keel_eval::summary::summary(&run.results);
    print!("{summary}");
    let summary_path = out.with_extension("md");
    if let Err(e) = std::fs::write(&summary_path, &summary) {
        eprintln!("keel eval: cannot write {}: {e}", summary_path.display());
    }
    eprintln!(
        "results: {} (summary {}, logs {})",
        out.display(),
        summary_path.display(),
        settings.runs_dir.display()
    );
    if run.interrupted {
        eprintln!("keel eval: interrupted; the finished tasks' results are kept");
        ExitCode::from(EXIT_INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    }
}

/// The settings every run shares: the agent, its label, the upstream and model as `keel run`
/// would resolve them (flags, environment, `keel.toml`).
fn settings(args: &EvalArgs) -> Result<EvalSettings, String> {
    let resolved = Settings::load(&AgentArgs {
        base_url: args.base_url.clone(),
        model: args.model.clone(),
        root: PathBuf::from("."),
        ..AgentArgs::default()
    })
    .map_err(|e| e.to_string())?;
    let upstream = resolved
        .config
        .base_url
        .clone()
        .or_else(|| {
            std::env::var("OPENAI_BASE_URL")
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
    let agent = match &args.agent_cmd {
        Some(command) => Agent::Command(command.clone()),
        None => Agent::Keel {
            exe: std::env::current_exe()
                .map_err(|e| format!("cannot find the keel executable: {e}"))?,
            provider: args.provider.clone(),
            args: args.keel_args.clone(),
        },
    };
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| default_label(args.agent_cmd.as_deref()));
    Ok(EvalSettings {
        agent,
        label,
        upstream,
        // Keel takes a fallback chain; another agent gets the first model.
        model: match &args.agent_cmd {
            None if !resolved.config.models.is_empty() => Some(resolved.config.models.join(",")),
            _ => resolved.config.models.first().cloned(),
        },
        cap: Duration::from_secs(args.cap),
        check_timeout: Duration::from_secs(args.check_timeout),
        keep: args.keep,
        runs_dir: PathBuf::new(),
    })
}

/// `keel`, or the program of `--agent-cmd` (its first word that is not `NAME=value`, without
/// its folder).
fn default_label(agent_cmd: Option<&str>) -> String {
    agent_cmd
        .and_then(|command| {
            command
                .split_whitespace()
                .find(|word| !word.contains('='))
                .map(|word| word.rsplit('/').next().unwrap_or(word).to_owned())
        })
        .filter(|label| !label.is_empty())
        .unwrap_or_else(|| "keel".to_owned())
}

/// `eval-out/LABEL-UTCTIME/results.jsonl` under the current folder.
fn default_out(label: &str) -> PathBuf {
    let safe: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    PathBuf::from("eval-out")
        .join(format!("{safe}-{stamp}"))
        .join("results.jsonl")
}

/// Cancels `cancel` on the first Ctrl-C (SIGINT) and exits 130 on the second. The handler is
/// in place when this returns.
fn watch_ctrl_c(cancel: CancellationToken) -> std::io::Result<tokio::task::JoinHandle<()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupts = signal(SignalKind::interrupt())?;
    Ok(tokio::spawn(async move {
        if interrupts.recv().await.is_some() {
            cancel.cancel();
        }
        if interrupts.recv().await.is_some() {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    }))
}

/// Progress on standard error: a line per task as it starts and finishes, under a bar on a
/// terminal.
struct Lines {
    bar: Option<ProgressBar>,
}

impl Lines {
    fn new(tasks: usize) -> Self {
        use std::io::IsTerminal as _;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(tasks as u64), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} tasks, {elapsed}")
            {
                bar.set_style(style);
            }
            bar
        });
        Self { bar }
    }

    fn line(&self, text: String) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Lines {
    fn started(&self, task: &Task) {
        self.line(format!("  … {}", task.id));
    }

    fn finished(&self, task: &Task, result: &TaskResult) {
        let mark = if result.solved { "✓" } else { "✗" };
        let how = match (result.outcome, &result.error) {
            (Outcome::Solved, _) => String::new(),
            (Outcome::Error, Some(error)) => format!("  error: {error}"),
            (Outcome::Cap, _) => "  cap".to_owned(),
            _ => "  unsolved".to_owned(),
        };
        self.line(format!(
            "  {mark} {}  {}{how}",
            task.id,
            keel_eval::summary::secs(result.wall_secs)
        ));
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_is_the_agent_program() {
        assert_eq!(default_label(None), "keel");
        assert_eq!(default_label(Some("aider --yes-always")), "aider");
        assert_eq!(
            default_label(Some("FOO=1 /usr/local/bin/aider --x")),
            "aider"
        );
        assert_eq!(default_label(Some("  ")), "keel");
    }
}
