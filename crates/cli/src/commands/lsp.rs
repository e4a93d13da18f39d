//! `keel lsp check [PATH…]`: the project's language servers' diagnostics of files (every file
//! of a language with a server when none is named), one line each or `--json`; exit 1 when
//! there are errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_lsp::{Language, LspManager, LspSettings};
use keel_tools::process::CommandSandbox;

use crate::commands::EXIT_USAGE;
use crate::commands::agent_args::AgentArgs;
use crate::config::Settings;

/// `keel lsp …`.
#[derive(Debug, Subcommand)]
pub enum LspCommand {
    /// Print the language servers' errors and warnings of files (all of the project's files of
    /// a language with a server when none is named); exit 1 when there are errors.
    Check(CheckArgs),
}

/// Flags of `keel lsp check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The files, relative to the project root.
    pub paths: Vec<String>,
    /// The project root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Print JSON: `{"diagnostics": […], "servers": […], "uncovered": […], "timed_out": bool}`.
    #[arg(long)]
    pub json: bool,
}

/// Runs `keel lsp …`.
pub fn run(command: LspCommand) -> ExitCode {
    match command {
        LspCommand::Check(args) => super::run::block_on("lsp check", check(args)),
    }
}

async fn check(args: CheckArgs) -> ExitCode {
    let loaded = Settings::load(&AgentArgs {
        root: args.root.clone(),
        ..AgentArgs::default()
    });
    let settings = match loaded {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("keel lsp check: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let lsp = LspSettings::from_tables(&settings.config.lsp);
    let sandbox = CommandSandbox::resolve(settings.config.sandbox.clone(), &args.root);
    let manager = LspManager::new(&args.root, lsp.clone(), sandbox);
    let paths = if args.paths.is_empty() {
        project_files(&manager, &lsp)
    } else {
        args.paths.clone()
    };
    let report = manager.check(&paths).await;
    manager.shutdown().await;
    let errors = report
        .diagnostics
        .iter()
        .any(|d| d.severity == keel_events::DiagnosticSeverity::Error);
    if args.json {
        let value = serde_json::json!({
            "diagnostics": report.diagnostics,
            "servers": report.servers,
            "uncovered": report.uncovered,
            "timed_out": report.timed_out,
        });
        match serde_json::to_string_pretty(&value) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("keel lsp check: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        println!("{}", keel_lsp::tool::report_text(&report, paths.is_empty()));
    }
    if errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The project's files of every language whose server is on (`.gitignore` honoured).
fn project_files(manager: &LspManager, settings: &LspSettings) -> Vec<String> {
    let root = manager.root();
    keel_tools::walk::walker(root)
        .build()
        .flatten()
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .filter(|entry| Language::of(entry.path()).is_some_and(|l| settings.enabled(l)))
        .filter_map(|entry| {
            entry
                .path()
                .strip_prefix(root)
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .collect()
}
