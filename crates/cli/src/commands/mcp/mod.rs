//! `keel mcp …`: Keel and the Model Context Protocol. `list|add|remove|test` manage the MCP
//! servers sessions start (`[mcp_servers.NAME]` in `keel.toml`, and `.mcp.json`); `serve` offers
//! Keel itself to MCP clients.
//!
//! Exit status: 0 on success; 1 when a server cannot be reached (`test`), a name is missing
//! or taken, or a file cannot be read or written (left as it was); 2 for usage errors.

mod edit;
pub mod serve;
mod status;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

/// `keel mcp` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start every configured server and list it: status and tools with their descriptions.
    List(ListArgs),
    /// Add a server to keel.toml: `keel mcp add NAME -- COMMAND ARGS…` (stdio) or
    /// `keel mcp add NAME --url URL` (streamable HTTP).
    Add(AddArgs),
    /// Remove a server from keel.toml (the project's, else the user's).
    Remove(RemoveArgs),
    /// Connect to one server and list its tools; exit 0 if it works, 1 with the reason if not.
    Test(TestArgs),
    /// Serve Keel over MCP on standard input and output: the built-in tools, confined to
    /// `--root` and gated by `--approval`, and `keel_task`, which runs a whole agent turn.
    Serve(serve::ServeArgs),
}

/// Arguments of `keel mcp list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Project folder whose keel.toml and .mcp.json are read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// One JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `keel mcp add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name (its tools are offered as `mcp__NAME__TOOL`).
    pub name: String,
    /// The endpoint of a streamable HTTP server (instead of a command).
    #[arg(long, conflicts_with = "command")]
    pub url: Option<String>,
    /// An HTTP header sent with every request, `Name:value` (repeatable; with --url).
    #[arg(long = "header", value_name = "K:V", requires = "url")]
    pub headers: Vec<String>,
    /// An environment variable for the server, `NAME=value` (repeatable; `$VAR` is expanded
    /// when the server starts).
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// Write to the project's keel.toml (the default).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Write to the user's keel.toml.
    #[arg(long)]
    pub user: bool,
    /// Project folder.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Arguments of `keel mcp remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The server's name.
    pub name: String,
    /// Only from the project's keel.toml.
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Only from the user's keel.toml.
    #[arg(long)]
    pub user: bool,
    /// Project folder.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// Arguments of `keel mcp test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The server's name.
    pub name: String,
    /// Project folder whose keel.toml and .mcp.json are read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// Runs a `keel mcp` subcommand.
pub fn run(command: McpCommand) -> ExitCode {
    match command {
        McpCommand::List(args) => super::run::block_on("mcp list", status::list(args)),
        McpCommand::Test(args) => super::run::block_on("mcp test", status::test(args)),
        McpCommand::Add(args) => edit::add(&args),
        McpCommand::Remove(args) => edit::remove(&args),
        McpCommand::Serve(args) => serve::run(args),
    }
}
