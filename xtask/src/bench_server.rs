//! `cargo xtask bench-server`: the real `keel-server` binary over loopback HTTP.
//!
//! Builds `keel-server` in release (or takes `--server PATH`) and measures, each on a fresh
//! server process with a temp `--data-dir`, a `--token` and a scripted provider:
//!
//! 1. **Fan-out**: N (default 1,000) SSE subscribers on one session while the scripted run of
//!    `xtask/bench-scripts/server-fanout.json` (a few hundred deltas and four tool calls on a
//!    temp copy of `examples/sample-project`) streams. Every subscriber must see the run's
//!    seqs gap-free, without duplicates; delivery latency is receipt time − the event's `ts`,
//!    spread is receipt time − the first receipt of that seq by any subscriber.
//! 2. **Persistence**: events stored per second for one turn of a long scripted stream
//!    (`--persist-deltas`, default 50,000), on SQLite and on PostgreSQL
//!    (`KEEL_BENCH_DATABASE_URL`, default the local test server; a fresh `keel_bench_<pid>`
//!    database is created and dropped; skipped with a notice when unreachable).
//! 3. **Idle memory**: server RSS per idle session (default 1,000), then per idle SSE
//!    subscriber (one per session).
//! 4. **Many instances** (`--only multi`, not part of a default run): `--instances N`
//!    (default 4) servers on one fresh PostgreSQL database, `--multi-subscribers N` (default
//!    10,000) SSE subscribers spread across them, while the first streams one turn of
//!    `--multi-deltas N` (default 1,000) deltas `--multi-delay-ms` (default 2) apart: lost
//!    events, the delivery latency per instance, the events stored per second. Run it with
//!    `--instances 1` for the single-instance figure beside it.
//!
//! Prints a Markdown report and writes it to `target/bench-server.md`. An unoptimised build
//! re-runs itself with `cargo run --release`. Options: `--subscribers N`, `--sessions N`,
//! `--persist-deltas N`, `--runs N` (fan-out runs, each on a fresh server; the report details
//! the run with the median p99 and lists every run), `--delay-ms N` (pause before each
//! streamed item of the fan-out script; the script's own is 3 ms), `--server PATH`, `--server-arg ARG` (repeatable, passed
//! to every server, e.g. `--server-arg --stream-buffer=256`), `--skip-postgres`,
//! `--only fanout|persist|idle` (repeatable).

mod fanout;
mod idle;
mod multi;
mod persist;
mod postgres;
mod report;
pub(crate) mod server;
mod sse;
mod stats;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use keel_test_support::copy_dir;

use server::Spec;

/// Token the benchmark's servers accept.
const TOKEN: &str = "keel-bench-token";

/// Parts of the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Fanout,
    Persist,
    Idle,
    Multi,
}

/// Options of a bench run.
#[derive(Debug)]
struct Options {
    subscribers: usize,
    sessions: usize,
    persist_deltas: usize,
    server: Option<PathBuf>,
    skip_postgres: bool,
    only: Vec<Part>,
    server_args: Vec<String>,
    delay_ms: Option<u64>,
    runs: usize,
    instances: usize,
    multi_subscribers: usize,
    multi_deltas: usize,
    multi_delay_ms: u64,
}

impl Options {
    /// Whether the run includes `part` (the multi-instance figure only when asked for).
    fn wants(&self, part: Part) -> bool {
        if self.only.is_empty() {
            return part != Part::Multi;
        }
        self.only.contains(&part)
    }
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        subscribers: 1000,
        sessions: 1000,
        persist_deltas: 50_000,
        server: None,
        skip_postgres: false,
        only: Vec::new(),
        server_args: Vec::new(),
        delay_ms: None,
        runs: 1,
        instances: 4,
        multi_subscribers: 10_000,
        multi_deltas: 1_000,
        multi_delay_ms: 2,
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = |name: &str| -> Result<&String> {
            iter.next().with_context(|| format!("{name} needs a value"))
        };
        let number = |name: &str, text: &String| -> Result<usize> {
            let n: usize = text
                .parse()
                .with_context(|| format!("{name} needs a number"))?;
            if n == 0 {
                bail!("{name} must be at least 1");
            }
            Ok(n)
        };
        match arg.as_str() {
            "--subscribers" => options.subscribers = number(arg, value(arg)?)?,
            "--sessions" => options.sessions = number(arg, value(arg)?)?,
            "--persist-deltas" => options.persist_deltas = number(arg, value(arg)?)?,
            "--runs" => options.runs = number(arg, value(arg)?)?,
            "--instances" => options.instances = number(arg, value(arg)?)?,
            "--multi-subscribers" => options.multi_subscribers = number(arg, value(arg)?)?,
            "--multi-deltas" => options.multi_deltas = number(arg, value(arg)?)?,
            "--multi-delay-ms" => {
                options.multi_delay_ms = value(arg)?
                    .parse()
                    .context("--multi-delay-ms needs a number")?;
            }
            "--server" => options.server = Some(PathBuf::from(value(arg)?)),
            "--skip-postgres" => options.skip_postgres = true,
            "--delay-ms" => {
                options.delay_ms = Some(value(arg)?.parse().context("--delay-ms needs a number")?);
            }
            "--server-arg" => options.server_args.push(value(arg)?.clone()),
            "--only" => options.only.push(match value(arg)?.as_str() {
                "fanout" => Part::Fanout,
                "persist" => Part::Persist,
                "idle" => Part::Idle,
                "multi" => Part::Multi,
                other => bail!("--only takes fanout, persist, idle or multi, not `{other}`"),
            }),
            other => bail!(
                "unknown option `{other}` (expected --subscribers N, --sessions N, \
                 --persist-deltas N, --runs N, --delay-ms N, --server PATH, --server-arg ARG, --skip-postgres, \
                 --only PART, --instances N, --multi-subscribers N, --multi-deltas N, \
                 --multi-delay-ms N)"
            ),
        }
    }
    Ok(options)
}

/// Runs the benchmark with `args`.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask has no parent folder")?
        .to_owned();
    if cfg!(debug_assertions) {
        // `cargo xtask` builds without optimisation; an unoptimised client would compete with
        // the server for the CPU and skew every figure, so run the optimised build instead.
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        println!("(running the optimised build: cargo run --release -p xtask -- bench-server …)");
        let status = Command::new(cargo)
            .args(["run", "--release", "--quiet", "-p", "xtask", "--"])
            .arg("bench-server")
            .args(args)
            .current_dir(&workspace)
            .status()
            .context("running cargo")?;
        if !status.success() {
            bail!("the optimised benchmark failed ({status})");
        }
        return Ok(());
    }
    let mut connections = options.subscribers.max(options.sessions);
    if options.wants(Part::Multi) {
        connections = connections.max(options.multi_subscribers);
    }
    raise_fd_limit(connections)?;
    let binary = match &options.server {
        Some(path) => path.clone(),
        None => build_server(&workspace)?,
    };
    let scratch = std::env::temp_dir().join(format!("keel-bench-server-{}", std::process::id()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the tokio runtime")?;
    let result = runtime.block_on(bench(&options, &workspace, &binary, &scratch));
    let _ = std::fs::remove_dir_all(&scratch);
    let markdown = result?;
    println!("{markdown}");
    let out = workspace.join("target").join("bench-server.md");
    std::fs::write(&out, &markdown).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("written to {}", out.display());
    Ok(())
}

/// Runs the parts `options` asks for; returns the Markdown report.
async fn bench(
    options: &Options,
    workspace: &Path,
    binary: &Path,
    scratch: &Path,
) -> Result<String> {
    let root = scratch.join("sample-project");
    copy_dir(&workspace.join("examples/sample-project"), &root)?;
    let spec = |name: &str, script: PathBuf| Spec {
        binary: binary.to_owned(),
        data_dir: scratch.join(name),
        database_url: None,
        token: TOKEN.to_owned(),
        script,
        allowed_root: root.clone(),
        extra_args: options.server_args.clone(),
    };
    // Built together with the workspace, reqwest's TLS may be left without a crypto provider
    // (the engine's `rustls-no-provider`): install one, though only plain HTTP is used.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(64)
        .build()
        .context("cannot build the HTTP client")?;
    let mut report = report::Report::new(binary, &options.server_args, options.subscribers);

    if options.wants(Part::Fanout) {
        let mut script = workspace.join("xtask/bench-scripts/server-fanout.json");
        if let Some(delay) = options.delay_ms {
            script = with_delay(&script, delay, &scratch.join("fanout-script.json"))?;
        }
        report.fanout_delay_ms = Some(script_delay_ms(&script)?);
        for run in 1..=options.runs {
            eprintln!(
                "fan-out: {} subscribers, run {run} of {}…",
                options.subscribers, options.runs
            );
            let spec = spec(&format!("fanout-{run}"), script.clone());
            report
                .fanout
                .push(fanout::run(&spec, options.subscribers, &client).await?);
        }
    }
    if options.wants(Part::Persist) {
        let script = scratch.join("persist-script.json");
        persist::write_script(&script, options.persist_deltas)?;
        eprintln!("persistence on SQLite: {} deltas…", options.persist_deltas);
        report
            .persist
            .push(persist::run(&spec("persist-sqlite", script.clone()), "sqlite", &client).await?);
        if options.skip_postgres {
            report
                .notes
                .push("PostgreSQL skipped (--skip-postgres).".to_owned());
        } else {
            let admin = std::env::var("KEEL_BENCH_DATABASE_URL")
                .unwrap_or_else(|_| postgres::DEFAULT_URL.to_owned());
            match postgres::BenchDatabase::create(&admin).await? {
                Ok(database) => {
                    eprintln!(
                        "persistence on PostgreSQL: {} deltas…",
                        options.persist_deltas
                    );
                    let mut pg = spec("persist-postgres", script);
                    pg.database_url = Some(database.url.clone());
                    let result = persist::run(&pg, "postgres", &client).await;
                    database.drop_database().await?;
                    report.persist.push(result?);
                }
                Err(reason) => report.notes.push(format!("PostgreSQL skipped: {reason}.")),
            }
        }
    }
    if options.wants(Part::Idle) {
        let script = workspace.join("xtask/bench-scripts/server-fanout.json");
        eprintln!("idle memory: {} sessions…", options.sessions);
        report.idle = Some(idle::run(&spec("idle", script), options.sessions, &client).await?);
    }
    if options.wants(Part::Multi) {
        let script = scratch.join("multi-script.json");
        multi::write_script(&script, options.multi_deltas, options.multi_delay_ms)?;
        let admin = std::env::var("KEEL_BENCH_DATABASE_URL")
            .unwrap_or_else(|_| postgres::DEFAULT_URL.to_owned());
        eprintln!(
            "{} instances, {} subscribers, {} deltas…",
            options.instances, options.multi_subscribers, options.multi_deltas
        );
        report.multi = Some(
            multi::run(
                &spec("multi", script),
                &admin,
                options.instances,
                options.multi_subscribers,
                &client,
            )
            .await?,
        );
        report.multi_script = (options.multi_deltas, options.multi_delay_ms);
    }
    report.finish();
    Ok(report.markdown())
}

/// Writes `script` with its `delay_ms` (pause before each streamed item) set to `delay` to
/// `out`; returns `out`.
fn with_delay(script: &Path, delay: u64, out: &Path) -> Result<PathBuf> {
    let mut value = read_script(script)?;
    value["delay_ms"] = delay.into();
    std::fs::write(out, value.to_string())
        .with_context(|| format!("cannot write {}", out.display()))?;
    Ok(out.to_owned())
}

/// The `delay_ms` of `script` (0 when absent).
fn script_delay_ms(script: &Path) -> Result<u64> {
    Ok(read_script(script)?["delay_ms"].as_u64().unwrap_or(0))
}

fn read_script(path: &Path) -> Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

/// `cargo build --release -p keel-server`, returning the binary's path.
fn build_server(workspace: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("building keel-server (release)…");
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "keel-server",
            "--bin",
            "keel-server",
        ])
        .current_dir(workspace)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo build --release -p keel-server failed ({status})");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let binary = target.join("release").join("keel-server");
    if !binary.exists() {
        bail!("no binary at {}", binary.display());
    }
    Ok(binary)
}

/// Raises the soft open-files limit to the hard one (the server inherits it), and fails
/// early when even that is too low for `connections` sockets on each side.
fn raise_fd_limit(connections: usize) -> Result<()> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).context("cannot read RLIMIT_NOFILE")?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard).context("cannot raise RLIMIT_NOFILE")?;
    }
    let needed = connections as u64 + 256;
    if hard < needed {
        bail!("the open-files limit ({hard}) is below the {needed} this run needs");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_have_defaults_and_overrides() {
        let options = parse_options(&[]).unwrap();
        assert_eq!((options.subscribers, options.sessions), (1000, 1000));
        assert!(options.wants(Part::Idle));
        let options =
            parse_options(&args("--subscribers 10 --only fanout --skip-postgres")).unwrap();
        assert_eq!(options.subscribers, 10);
        assert!(options.skip_postgres);
        assert!(options.wants(Part::Fanout) && !options.wants(Part::Persist));
        // The multi-instance figure only when asked for.
        assert!(!parse_options(&[]).unwrap().wants(Part::Multi));
        let options = parse_options(&args("--only multi --instances 2")).unwrap();
        assert!(options.wants(Part::Multi) && !options.wants(Part::Fanout));
        assert_eq!((options.instances, options.multi_subscribers), (2, 10_000));
    }

    #[test]
    fn bad_options_are_errors() {
        assert!(parse_options(&args("--subscribers")).is_err());
        assert!(parse_options(&args("--subscribers 0")).is_err());
        assert!(parse_options(&args("--only everything")).is_err());
        assert!(parse_options(&args("--instances 0")).is_err());
        assert!(parse_options(&args("--frobnicate")).is_err());
    }

    #[test]
    fn the_fanout_script_is_a_valid_script() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-scripts/server-fanout.json");
        let script: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(script["turns"].as_array().unwrap().len(), 4);
        assert_eq!(
            script["turns"][3]["tool_calls"][0]["name"],
            "attempt_completion"
        );
    }
}
