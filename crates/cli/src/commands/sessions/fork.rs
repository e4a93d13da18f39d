//! `keel sessions fork ID [--at CHECKPOINT]`: a new session with the history up to now or up to
//! a checkpoint; the original's rows are only read.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use keel_host::{RewindError, fork_session};
use keel_tools::{CheckpointError, CheckpointStore};

use super::{failure, find_session, print};
use crate::commands::run::usage;

/// Arguments of `keel sessions fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The session to fork.
    pub id: String,
    /// Fork at this checkpoint of the session (its history before that turn; the fork gets a
    /// checkpoint of the files' state there, which `keel rewind ID --files` applies).
    #[arg(long, value_name = "CHECKPOINT")]
    pub at: Option<String>,
    /// Project folder whose store (`.keel/keel.db`) and checkpoints are used.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// Print the fork as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `keel sessions fork`.
pub async fn fork(args: ForkArgs) -> ExitCode {
    let command = "sessions fork";
    let checkpoints = match CheckpointStore::open(&args.root) {
        Ok(store) => store,
        Err(e) => return usage(command, format!("--root: {e}")),
    };
    let (store, session) = match find_session(command, &args.root, &args.id).await {
        Ok(found) => found,
        Err(code) => return code,
    };
    let result = fork_session(
        store.as_ref(),
        &checkpoints,
        &session.id,
        args.at.as_deref(),
    )
    .await;
    store.close().await;
    let fork = match result {
        Ok(fork) => fork,
        Err(
            e @ (RewindError::Checkpoint(CheckpointError::NotFound(_))
            | RewindError::OtherSession { .. }
            | RewindError::NoConversation(_)),
        ) => return usage(command, e),
        Err(e) => return failure(command, e),
    };
    let out = if args.json {
        match serde_json::to_string_pretty(&fork) {
            Ok(json) => format!("{json}\n"),
            Err(e) => return failure(command, e),
        }
    } else {
        let mut out = format!("forked session {} into {}\n", session.id, fork.session.id);
        if let Some(checkpoint) = &fork.checkpoint {
            out.push_str(&format!(
                "the files' state at {} is checkpoint {} (apply it with `keel rewind {} --files`)\n",
                args.at.as_deref().unwrap_or_default(),
                checkpoint.id,
                checkpoint.id
            ));
        }
        out
    };
    match print(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
