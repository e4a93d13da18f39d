//! `keel config show [--origin]`: every effective setting of a project (the same layering an
//! agent command uses: defaults, the user's and the project's `keel.toml`, a profile, the
//! environment, the flags) and, with `--origin`, where each came from.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::commands::EXIT_USAGE;
use crate::commands::agent_args::AgentArgs;
use crate::config::Settings;

/// `keel config` subcommands.
///
/// Exit status: 0 on success; 2 when a settings file cannot be used (it is named with the line).
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every effective setting as a `keel.toml` line.
    Show(ShowArgs),
}

/// Arguments of `keel config show`: the agent flags (they take part as they would in `keel
/// run`), and `--origin`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Follow each value with where it came from: default, the user's or the project's file,
    /// a profile, an environment variable or a flag.
    #[arg(long)]
    pub origin: bool,
    /// The settings flags of `keel run`.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Runs a `keel config` subcommand.
pub fn run(command: ConfigCommand) -> ExitCode {
    match command {
        ConfigCommand::Show(args) => show(&args),
    }
}

fn show(args: &ShowArgs) -> ExitCode {
    let settings = match Settings::load(&args.agent) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("keel config show: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let entries = keel_config::show::entries(&settings.config, &settings.origins);
    print!("{}", keel_config::show::render(&entries, args.origin));
    ExitCode::SUCCESS
}
