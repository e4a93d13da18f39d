//! A shadowed session's turn ends (`--shadow`): the view its tools use is made (or reopened)
//! before the turn and brought up to date before each tool call, and the staged batch is
//! announced after it.

use keel_events::{Emitter, FileOp, LogLevel, RunFileChange, SystemError, SystemLog};
use keel_tools::{ChangeKind, Shadow};

use super::config::{AgentConfig, ShadowEnv};
use super::tap::ChangeLog;

/// Opens the session's shadow copy (making it on first use, or again after it was applied or
/// discarded) and points the tools at it. `Err` is the turn's result: the turn must not run,
/// since its changes would otherwise land in the real tree.
pub(crate) fn prepare(config: &mut AgentConfig, emitter: &Emitter) -> Result<(), String> {
    let session = emitter.sequencer().session_id().to_owned();
    match Shadow::open_or_create(&config.root, &session) {
        Ok(shadow) => {
            let tree = shadow.tree();
            if config
                .shadow_env
                .as_ref()
                .is_none_or(|env| env.tree != tree)
            {
                let sandbox = config.sandbox.rooted_at(&tree);
                config.shadow_env = Some(ShadowEnv { tree, sandbox });
            }
            Ok(())
        }
        Err(e) => {
            emitter.emit(SystemError {
                error: e.to_string(),
                error_type: "shadow".to_owned(),
                recoverable: true,
                stack: None,
                error_display: None,
            });
            Err(format!(
                "the shadow workspace cannot be used, so nothing was run: {e}"
            ))
        }
    }
}

/// Before a tool call of a shadowed turn: records what the last call changed in the view and
/// refreshes the paths the session did not change from the real tree, so the call reads the
/// real files as they are now. When that fails the call still runs in the view as it is (the
/// real tree is never touched either way), with a `system.log` warning saying it may be stale.
pub(crate) fn before_call(config: &AgentConfig, emitter: &Emitter) {
    if config.shadow_env.is_none() {
        return;
    }
    let session = emitter.sequencer().session_id();
    if let Err(e) = Shadow::open(&config.root, session).and_then(|mut shadow| shadow.sync()) {
        emitter.emit(SystemLog {
            level: LogLevel::Warn,
            message: format!(
                "the shadow workspace could not be brought up to date; this call sees it as it was: {e}"
            ),
            metadata: None,
        });
    }
}

/// After a shadowed turn: a staged `run.file.change` for each batch path no tool reported
/// this turn (what commands changed), and a `system.log` naming the batch and how to apply it.
pub(crate) fn announce(config: &AgentConfig, emitter: &Emitter, changes: &ChangeLog) {
    let session = emitter.sequencer().session_id().to_owned();
    let mut shadow = Shadow::open(&config.root, &session);
    let batch = match shadow
        .as_mut()
        .map_err(|e| e.to_string())
        .and_then(|s| s.batch().map_err(|e| e.to_string()))
    {
        Ok(batch) => batch,
        Err(e) => {
            emitter.emit(SystemLog {
                level: LogLevel::Warn,
                message: format!("the shadow workspace's staged batch cannot be read: {e}"),
                metadata: None,
            });
            return;
        }
    };
    let reported = changes.since(0);
    for change in &batch.changes {
        if reported.contains(&change.path) {
            continue;
        }
        let (op, verb) = match change.kind {
            ChangeKind::Created => (FileOp::Create, "Created"),
            ChangeKind::Updated => (FileOp::Update, "Updated"),
            ChangeKind::Deleted => (FileOp::Delete, "Deleted"),
            ChangeKind::Moved => (FileOp::Move, "Moved"),
        };
        let shown = match &change.from {
            Some(from) => format!("{from} → {}", change.path),
            None => change.path.clone(),
        };
        emitter.emit(RunFileChange {
            path: change.path.clone(),
            op,
            from_path: change.from.clone(),
            to_path: change.from.as_ref().map(|_| change.path.clone()),
            summary: format!(
                "{verb} {shown} (+{} -{}, by a command, staged)",
                change.lines_added, change.lines_removed
            ),
            lines_added: change.lines_added,
            lines_removed: change.lines_removed,
            size: None,
            mime_type: keel_tools::file_change::mime_type(&change.path),
            diff: change.diff.clone(),
            staged: Some(true),
        });
    }
    let paths = batch.paths();
    let conflicts: Vec<String> = batch
        .changes
        .iter()
        .filter(|c| c.conflict.is_some())
        .map(|c| c.path.clone())
        .collect();
    let message = if paths.is_empty() {
        // Nothing to review: the copy goes (the next turn makes a fresh one).
        if let Ok(shadow) = shadow
            && let Err(e) = shadow.discard()
        {
            tracing::warn!("the empty shadow workspace could not be removed: {e}");
        }
        "Shadow workspace: nothing staged; the real tree is unchanged.".to_owned()
    } else {
        format!(
            "Shadow workspace: {} change(s) staged, the real tree is unchanged until applied: {}. \
             Review with `keel shadow diff --session {session}`, then `keel shadow apply` or `keel shadow discard`.",
            paths.len(),
            paths.join(", ")
        )
    };
    let mut metadata = serde_json::Map::new();
    metadata.insert("session".to_owned(), session.into());
    metadata.insert("staged".to_owned(), paths.into());
    metadata.insert("conflicts".to_owned(), conflicts.into());
    metadata.insert("diff".to_owned(), batch.diff.into());
    emitter.emit(SystemLog {
        level: LogLevel::Info,
        message,
        metadata: Some(metadata),
    });
}
