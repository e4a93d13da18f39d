//! `keel mcp …`: Keel and the Model Context Protocol.

use std::process::ExitCode;

use clap::Subcommand;

pub mod serve;

/// `keel mcp` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Serve Keel over MCP on standard input and output: the built-in tools, confined to
    /// `--root` and gated by `--approval`, and `keel_task`, which runs a whole agent turn.
    Serve(serve::ServeArgs),
}

/// Runs `keel mcp …`.
pub fn run(command: McpCommand) -> ExitCode {
    match command {
        McpCommand::Serve(args) => serve::run(args),
    }
}
