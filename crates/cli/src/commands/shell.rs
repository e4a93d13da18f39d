//! `keel completions SHELL` and `keel man`: shell completions and the manual page, both
//! generated from the command-line definition so they never drift from it.

use std::process::ExitCode;

use clap::{Args, CommandFactory as _};
use clap_complete::Shell;

use crate::Cli;
use crate::stdout::print;

/// Arguments of `keel completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the completion script for `args.shell` (bash: `source <(keel completions bash)`).
pub fn completions(args: &CompletionsArgs) -> ExitCode {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "keel", &mut script);
    print(&String::from_utf8_lossy(&script));
    ExitCode::SUCCESS
}

/// Prints the manual page, roff (`keel man | man -l -`): synopsis, options and every
/// subcommand with its summary (`keel help SUBCOMMAND` has the rest).
pub fn man() -> ExitCode {
    let mut page = Vec::new();
    match clap_mangen::Man::new(Cli::command()).render(&mut page) {
        Ok(()) => {
            print(&String::from_utf8_lossy(&page));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("keel man: {e}");
            ExitCode::FAILURE
        }
    }
}
