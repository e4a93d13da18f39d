//! `keel rewind CHECKPOINT`: a session taken back to before a checkpoint's turn — its history,
//! its files, or both — with the rewound turns' events kept and marked in its log.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Args};
use keel_events::RewindScope;
use keel_host::{RewindError, append_rewind, rewind};
use keel_tools::{CheckpointError, CheckpointStore};

use super::run::{block_on, usage};
use super::sessions::existing_store;

/// Arguments of `keel rewind`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("scope").args(["files", "conversation", "both"])))]
pub struct RewindArgs {
    /// Checkpoint id (see `keel checkpoints list`): its turn and every later one are undone.
    pub checkpoint: String,
    /// Restore the files only.
    #[arg(long)]
    pub files: bool,
    /// Cut the history back only.
    #[arg(long)]
    pub conversation: bool,
    /// Both (the default).
    #[arg(long)]
    pub both: bool,
    /// Workspace root (its `.keel/checkpoints` and `.keel/keel.db`).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

impl RewindArgs {
    fn scope(&self) -> RewindScope {
        if self.files {
            RewindScope::Files
        } else if self.conversation {
            RewindScope::Conversation
        } else {
            RewindScope::Both
        }
    }
}

/// Runs `keel rewind`: prints the report (JSON) and exits 0; 2 for an unknown or foreign
/// checkpoint or an unusable root, 1 when a turn runs or the store fails (nothing changed).
pub fn run(args: RewindArgs) -> ExitCode {
    block_on("rewind", rewind_command(args))
}

async fn rewind_command(args: RewindArgs) -> ExitCode {
    let command = "rewind";
    let scope = args.scope();
    let checkpoints = match CheckpointStore::open(&args.root) {
        Ok(store) => store,
        Err(e) => return usage(command, format!("--root: {e}")),
    };
    let checkpoint = match checkpoints.get(&args.checkpoint) {
        Ok(checkpoint) => checkpoint,
        Err(e @ CheckpointError::NotFound(_)) => return usage(command, e),
        Err(e) => return failure(command, e),
    };
    let Some(session_id) = checkpoint.session_id().map(str::to_owned) else {
        // Made outside a session: only its files can come back.
        if scope.conversation() {
            return usage(command, RewindError::NoConversation(checkpoint.id));
        }
        return match checkpoints.rollback(&checkpoint.id) {
            Ok(report) => print_json(&report),
            Err(e) => failure(command, e),
        };
    };
    let store = match existing_store(&args.root).await {
        Ok(Some(store)) => store,
        Ok(None) => {
            return usage(
                command,
                format!(
                    "checkpoint `{}` belongs to session `{session_id}`, but {} has no session store",
                    checkpoint.id,
                    args.root.display()
                ),
            );
        }
        Err(e) => return failure(command, e),
    };
    let result = async {
        let report = rewind(
            store.as_ref(),
            &checkpoints,
            &session_id,
            &checkpoint.id,
            scope,
        )
        .await?;
        let seq = append_rewind(store.as_ref(), &report).await?;
        Ok::<_, RewindError>((report, seq))
    }
    .await;
    store.close().await;
    match result {
        Ok((report, seq)) => {
            let mut value = serde_json::to_value(&report).unwrap_or_default();
            if let Some(object) = value.as_object_mut() {
                object.insert("seq".to_owned(), seq.into());
            }
            print_json(&value)
        }
        Err(e @ (RewindError::OtherSession { .. } | RewindError::NoConversation(_))) => {
            usage(command, e)
        }
        Err(e) => failure(command, e),
    }
}

fn print_json(value: &impl serde::Serialize) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => failure("rewind", e),
    }
}

fn failure(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("keel {command}: {message}");
    ExitCode::FAILURE
}
