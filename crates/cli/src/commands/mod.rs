//! Subcommands of `keel`.

use std::process::ExitCode;

use clap::Subcommand;

pub mod acp;
pub mod agent_args;
pub mod chat;
mod chat_images;
pub mod checkpoints;
pub mod config;
pub mod doctor;
pub mod eval;
pub mod exec_file;
pub mod import_log;
pub mod index;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod replay;
pub mod repomap;
pub mod rewind;
pub mod rules;
pub mod run;
pub mod safety;
pub mod sandbox;
#[cfg(feature = "serve")]
pub mod serve;
pub mod sessions;
pub mod shadow;
pub mod shell;
pub mod skills;
pub mod tool;
pub mod trust;

/// Exit code for usage errors (bad flags, bad JSON arguments).
pub const EXIT_USAGE: u8 = 2;

/// All subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the JSON Schema of the event contract.
    Schema,
    /// List the built-in tools, or call one with JSON arguments.
    #[command(subcommand)]
    Tool(tool::ToolCommand),
    /// Print the repository map: ranked definitions within a token budget.
    Repomap(repomap::RepomapArgs),
    /// Build or refresh a folder's search index (`.keel/index`).
    Index(index::IndexArgs),
    /// Search a folder's index by meaning: the chunks that answer a question in words.
    Search(index::SearchArgs),
    /// Render a recorded JSONL event log as the terminal shows a live run.
    Replay(replay::ReplayArgs),
    /// Check whether a command line is dangerous (the check `execute_command` applies).
    #[command(subcommand)]
    Safety(safety::SafetyCommand),
    /// What the OS sandbox for commands can enforce on this system.
    #[command(subcommand)]
    Sandbox(sandbox::SandboxCommand),
    /// Run one script file of a workspace, streaming its output (or its events as JSON lines).
    ExecFile(exec_file::ExecFileArgs),
    /// Run one task with the agent: the model works on the project with the tools until done.
    Run(run::RunArgs),
    /// List the checkpoints tools recorded before changing files.
    #[command(subcommand)]
    Checkpoints(checkpoints::CheckpointsCommand),
    /// Undo a checkpoint's changes and every later checkpoint's, newest first.
    Rollback(checkpoints::RollbackArgs),
    /// Take a session back to before a checkpoint's turn: its history, its files, or both.
    Rewind(rewind::RewindArgs),
    /// Chat with the agent: every input line is a turn of one session.
    Chat(chat::ChatArgs),
    /// List, show or resume the sessions kept in the project's store.
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// Check an OpenAI-compatible endpoint: what works, and the settings to use with it.
    Doctor(doctor::DoctorArgs),
    /// Run an agent (Keel, or another's command line) on task suites and score the work:
    /// solved or not, time, model calls and tokens as a metering proxy saw them.
    Eval(Box<eval::EvalArgs>),
    /// List or forget what the project remembers (`.keel/memory.json`).
    #[command(subcommand)]
    Memory(memory::MemoryCommand),
    /// Show the effective settings (`keel config show [--origin]`).
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// List, add or remove approval rules (`.keel/rules.toml`, `$KEEL_CONFIG_DIR/rules.toml`).
    #[command(subcommand)]
    Rules(rules::RulesCommand),
    /// List the skills (`SKILL.md` folders) a session on the project has, or show one.
    #[command(subcommand)]
    Skills(skills::SkillsCommand),
    /// Trust a folder, so that its own hooks run (`keel trust [DIR]`), or list (`--list`) or
    /// revoke (`--revoke DIR`) the trusted folders.
    Trust(trust::TrustArgs),
    /// Review, apply or discard the changes a `--shadow` session staged.
    #[command(subcommand)]
    Shadow(shadow::ShadowCommand),
    /// Run as an editor's agent over the Agent Client Protocol on stdio (Zed and other ACP
    /// clients).
    Acp(acp::AcpArgs),
    /// Keel and the Model Context Protocol: the MCP servers sessions start (list, add,
    /// remove, test), and `keel mcp serve`, which offers Keel to MCP clients.
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// The project's language servers: `keel lsp check [PATH…]` prints their diagnostics.
    #[command(subcommand)]
    Lsp(lsp::LspCommand),
    /// Run the HTTP server (sessions, live event streams, the Activity Timeline page).
    #[cfg(feature = "serve")]
    Serve(Box<serve::ServeArgs>),
    /// Import a legacy log (`[SelfRepairLoop] …`, `[move] a → b`, …) into the project's
    /// timeline as a session of the store.
    ImportLog(import_log::ImportLogArgs),
    /// Print shell completions: `source <(keel completions bash)`.
    Completions(shell::CompletionsArgs),
    /// Print the manual page (roff): `keel man | man -l -`.
    Man,
}

impl Command {
    /// Whether `-v` / `--verbose` was given (subcommands without the flag: never).
    pub fn verbose(&self) -> bool {
        match self {
            Self::Run(args) => args.agent.verbose,
            Self::Chat(args) => args.agent.verbose,
            Self::Replay(args) => args.verbose,
            Self::Sessions(command) => command.verbose(),
            _ => false,
        }
    }

    /// Whether the subcommand installs its own log subscriber (`keel serve` logs as
    /// `keel-server` does).
    pub fn sets_up_logging(&self) -> bool {
        #[cfg(feature = "serve")]
        if matches!(self, Self::Serve(_)) {
            return true;
        }
        false
    }
}

/// Runs a subcommand and returns the process exit code.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Schema => {
            print!("{}", keel_events_schema());
            ExitCode::SUCCESS
        }
        Command::Tool(command) => tool::run(command),
        Command::Repomap(args) => repomap::run(args),
        Command::Index(args) => index::run_index(args),
        Command::Search(args) => index::run_search(args),
        Command::Replay(args) => replay::run(args),
        Command::Safety(command) => safety::run(command),
        Command::Sandbox(command) => sandbox::run(command),
        Command::ExecFile(args) => exec_file::run(args),
        Command::Run(args) => run::run(args),
        Command::Checkpoints(command) => checkpoints::list(command),
        Command::Rollback(args) => checkpoints::rollback(args),
        Command::Rewind(args) => rewind::run(args),
        Command::Chat(args) => chat::run(args),
        Command::Sessions(command) => sessions::run(command),
        Command::Doctor(args) => doctor::run(args),
        Command::Eval(args) => eval::run(*args),
        Command::Memory(command) => memory::run(command),
        Command::Config(command) => config::run(command),
        Command::Rules(command) => rules::run(command),
        Command::Shadow(command) => shadow::run(command),
        Command::Skills(command) => skills::run(command),
        Command::Trust(args) => trust::run(args),
        Command::Mcp(command) => mcp::run(command),
        Command::Lsp(command) => lsp::run(command),
        Command::Acp(args) => acp::run(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(*args),
        Command::ImportLog(args) => import_log::run(args),
        Command::Completions(args) => shell::completions(&args),
        Command::Man => shell::man(),
    }
}

/// The event schema exactly as committed in `schemas/events.schema.json`.
fn keel_events_schema() -> String {
    keel_events::codegen::events_schema()
}
