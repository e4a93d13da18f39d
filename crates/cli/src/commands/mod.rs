//! Subcommands of `keel`.

use std::process::ExitCode;

use clap::Subcommand;

/// Exit code for usage errors (bad flags, bad JSON arguments).
pub const EXIT_USAGE: u8 = 2;

/// All subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the JSON Schema of the event contract.
    Schema,
}

/// Runs a subcommand and returns the process exit code.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Schema => {
            println!("{}", keel_events_schema());
            ExitCode::SUCCESS
        }
    }
}

fn keel_events_schema() -> String {
    let schema = schemars::schema_for!(keel_events::Event);
    serde_json::to_string_pretty(&schema).unwrap_or_default()
}
