//! `keel`: the terminal front end. Each subcommand lives in its own module under `commands/`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod commands;
mod config;
mod host;
mod render;
mod terminal;

use std::process::ExitCode;

use clap::Parser;

/// Keel: a coding agent that reports everything it does as typed events.
#[derive(Debug, Parser)]
#[command(name = "keel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    commands::run(cli.command)
}
