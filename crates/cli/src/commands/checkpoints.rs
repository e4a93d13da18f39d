//! `keel checkpoints list` and `keel rollback ID`: the per-turn snapshots tools record before
//! changing files, and undoing them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_tools::CheckpointStore;

use super::EXIT_USAGE;

/// `keel checkpoints` subcommands.
#[derive(Debug, Subcommand)]
pub enum CheckpointsCommand {
    /// List the checkpoints recorded in a workspace, oldest first (JSON).
    List {
        /// Workspace root.
        #[arg(long, default_value = ".")]
        root: PathBuf,
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
    let CheckpointsCommand::List { root } = command;
    with_store("keel checkpoints", &root, |store| {
        store
            .list()
            .map(|list| serde_json::to_string_pretty(&list).unwrap_or_default())
    })
}

/// Runs `keel rollback`: undoes the checkpoint's changes and every later checkpoint's, newest
/// first, and prints the report (JSON).
pub fn rollback(args: RollbackArgs) -> ExitCode {
    with_store("keel rollback", &args.root, |store| {
        store
            .rollback(&args.id)
            .map(|report| serde_json::to_string_pretty(&report).unwrap_or_default())
    })
}

/// Opens the workspace's checkpoint store and prints what `action` returns: exit 0 on success,
/// 1 when the store reports an error, 2 when the root is unusable.
fn with_store(
    command: &str,
    root: &Path,
    action: impl FnOnce(&CheckpointStore) -> Result<String, keel_tools::CheckpointError>,
) -> ExitCode {
    let store = match CheckpointStore::open(root) {
        Ok(store) => store,
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
