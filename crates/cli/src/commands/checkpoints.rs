//! `keel checkpoints list` and `keel rollback ID`: the per-turn snapshots tools record before
//! changing files (with their sizes against `checkpoint_max_mb`), and undoing them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_tools::{CheckpointStore, CheckpointUsage};

use super::EXIT_USAGE;

/// `keel checkpoints` subcommands.
#[derive(Debug, Subcommand)]
pub enum CheckpointsCommand {
    /// List the checkpoints recorded in a workspace, oldest first, with their sizes and the
    /// store's total against `checkpoint_max_mb`.
    List {
        /// Workspace root.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Print `{"checkpoints": [...], "total_bytes", "max_bytes"}` (each checkpoint with its
        /// `bytes`) instead of a table: the shape `GET /v1/sessions/{id}/checkpoints` returns.
        #[arg(long)]
        json: bool,
    },
}

/// `keel rollback ID`.
#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// Checkpoint id (see `keel checkpoints list`).
    pub id: String,
    /// Workspace root.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

/// Runs `keel checkpoints …`.
pub fn list(command: CheckpointsCommand) -> ExitCode {
    let CheckpointsCommand::List { root, json } = command;
    let max_bytes = match crate::config::load_checkpoint_max_bytes(&root) {
        Ok(max) => max,
        Err(e) => {
            eprintln!("keel checkpoints: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    with_store("keel checkpoints", &root, Some(max_bytes), |store| {
        let usage = store.usage()?;
        if json {
            return Ok(serde_json::to_string_pretty(&usage).unwrap_or_default());
        }
        Ok(table(&usage))
    })
}

/// The checkpoints as a table, with the store's total against its limit.
fn table(usage: &CheckpointUsage) -> String {
    let sizes = &usage.checkpoints;
    let mut out = format!(
        "{:<36}  {:<23}  {:<36}  {:>5}  {:>9}\n",
        "ID", "CREATED", "SESSION", "FILES", "SIZE"
    );
    for row in sizes {
        out.push_str(&format!(
            "{:<36}  {:<23}  {:<36}  {:>5}  {:>9}\n",
            row.id,
            row.created_at.format("%Y-%m-%d %H:%M:%S%.3f"),
            row.session_id.as_deref().unwrap_or("-"),
            row.files,
            human_bytes(row.bytes)
        ));
    }
    out.push_str(&format!(
        "{} checkpoint{}, {} of {} (checkpoint_max_mb); the oldest are pruned past it",
        sizes.len(),
        if sizes.len() == 1 { "" } else { "s" },
        human_bytes(usage.total_bytes),
        human_bytes(usage.max_bytes)
    ));
    out
}

/// `1.5 MB`-style sizes (powers of 1024).
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Runs `keel rollback`: undoes the checkpoint's changes and every later checkpoint's, newest
/// first, and prints the report (JSON).
pub fn rollback(args: RollbackArgs) -> ExitCode {
    with_store("keel rollback", &args.root, None, |store| {
        store
            .rollback(&args.id)
            .map(|report| serde_json::to_string_pretty(&report).unwrap_or_default())
    })
}

/// Opens the workspace's checkpoint store (bounded by `max_bytes`, when given) and prints what `action`
/// returns: exit 0 on success, 1 when the store reports an error, 2 when the root is unusable.
fn with_store(
    command: &str,
    root: &Path,
    max_bytes: Option<u64>,
    action: impl FnOnce(&CheckpointStore) -> Result<String, keel_tools::CheckpointError>,
) -> ExitCode {
    let store = match CheckpointStore::open(root) {
        Ok(store) => match max_bytes {
            Some(max) => store.with_max_bytes(max),
            None => store,
        },
        Err(e) => {
            eprintln!("{command}: --root: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match action(&store) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{command}: {e}");
            ExitCode::from(1)
        }
    }
}
