//! `keel`: the terminal front end. Each subcommand lives in its own module under `commands/`.
//!
//! Library logs (`tracing`) stay off the terminal unless `-v` is given (Keel's crates at debug)
//! or `RUST_LOG` is set; `keel serve` logs as `keel-server` does.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod commands;
mod config;
mod host;
mod stdout;
mod terminal;

use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

/// Keel: a coding agent that reports everything it does as typed events.
#[derive(Debug, Parser)]
#[command(name = "keel", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

/// The log filter of `-v`: Keel's crates at debug, the rest at warn.
const VERBOSE_FILTER: &str = "warn,keel=debug";

/// Rust's allocations go to mimalloc, as do tree-sitter's (see `main`): parsing a repository
/// map is mostly small allocations on several threads.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // SAFETY: first thing in the process, before any tree-sitter object exists.
    #[allow(unsafe_code)]
    unsafe {
        keel_repomap::allocate_trees_with_mimalloc()
    };
    stdout::end_quietly_when_closed();
    let cli = Cli::parse();
    if !cli.command.sets_up_logging()
        && let Some(filter) = log_filter(cli.command.verbose())
    {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init();
    }
    commands::run(cli.command)
}

/// `RUST_LOG` when set, else [`VERBOSE_FILTER`] with `-v`, else none: no log output at all.
fn log_filter(verbose: bool) -> Option<EnvFilter> {
    match std::env::var(EnvFilter::DEFAULT_ENV) {
        Ok(directives) if !directives.trim().is_empty() => match EnvFilter::try_new(&directives) {
            Ok(filter) => Some(filter),
            Err(e) => {
                eprintln!("keel: ignoring RUST_LOG `{directives}`: {e}");
                None
            }
        },
        _ => verbose.then(|| EnvFilter::new(VERBOSE_FILTER)),
    }
}
