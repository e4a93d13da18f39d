//! `keel safety check`: classify a command line with the safety check `execute_command` uses.

use std::process::ExitCode;

use clap::Subcommand;
use keel_safety::classify;

/// `keel safety` subcommands.
#[derive(Debug, Subcommand)]
pub enum SafetyCommand {
    /// Say whether a command line is dangerous, and why (or that part of it, such as an
    /// interpreter's inline code built at run time, cannot be judged: approval policies ask).
    ///
    /// Exit status: 0 whatever the verdict, 2 for usage errors.
    Check {
        /// Print `{"dangerous": bool, "category": string|null, "reason": string}`, with
        /// `"uncertain": true` added when part of the line could not be judged.
        #[arg(long)]
        json: bool,
        /// The command line; quote it as one argument (several words are joined by spaces).
        #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
}

/// Runs `keel safety …`.
pub fn run(command: SafetyCommand) -> ExitCode {
    match command {
        SafetyCommand::Check { json, command } => {
            let verdict = classify(&command.join(" "));
            if json {
                match serde_json::to_string(&verdict) {
                    Ok(text) => println!("{text}"),
                    Err(e) => {
                        eprintln!("keel safety check: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                match verdict.category {
                    Some(category) => println!("dangerous ({category}): {}", verdict.reason),
                    None if verdict.uncertain => {
                        println!("cannot judge (approval is asked): {}", verdict.reason);
                    }
                    None => println!("not dangerous: {}", verdict.reason),
                }
            }
            ExitCode::SUCCESS
        }
    }
}
