//! Rewinding a session to before one of its checkpoints' turns: history cut back, files
//! restored, the rewound turns' events kept and marked by `run.checkpoint.rewind`.

use keel_events::{RewindScope, RunCheckpointRewind, Sequencer};
use keel_store::{EventRange, Session, Store, TurnStatus};
use keel_tools::{Checkpoint, CheckpointError, CheckpointStore};
use serde_json::Value;

use crate::error::HostError;
use crate::saved::{SAVED_CONVERSATION_VERSION, SavedConversation};

/// Why a session could not be rewound or forked. Nothing was changed when one is returned,
/// except where [`RewindError::Store`] says otherwise.
#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    /// The checkpoint is unknown, damaged, or its files could not be read or restored.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint was made in another session's turn.
    #[error(
        "checkpoint `{checkpoint}` belongs to session `{owner}`, not `{session}`; \
         list the session's checkpoints to pick one of its own"
    )]
    OtherSession {
        /// The checkpoint.
        checkpoint: String,
        /// The session asked for.
        session: String,
        /// The session whose turn it covers.
        owner: String,
    },
    /// The checkpoint records no conversation position (made outside a session, e.g. by
    /// `keel tool call`, or by an older version): only its files can be restored.
    #[error(
        "checkpoint `{0}` records no conversation position (it was made outside a session); \
         only `--files` can be restored from it"
    )]
    NoConversation(String),
    /// A turn of the session is running: rewinding under it would lose its work.
    #[error("session `{session}` is running turn `{turn}`; wait for it to end or cancel it first")]
    TurnRunning {
        /// The session.
        session: String,
        /// The running turn.
        turn: String,
    },
    /// The store or the saved conversation failed.
    #[error(transparent)]
    Host(#[from] HostError),
}

impl From<keel_store::StoreError> for RewindError {
    fn from(e: keel_store::StoreError) -> Self {
        Self::Host(e.into())
    }
}

/// What a rewind did; [`RewindReport::event`] is its `run.checkpoint.rewind` payload.
///
/// A rewind never touches git: when the rewound turns were committed (`--commit`), their
/// commits stay on the branch and only the work tree (and the history) goes back; the report
/// names those commits ([`RewindReport::commits_kept`]) and says so ([`RewindReport::git`]),
/// and the person undoes them with git if they want them gone.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RewindReport {
    /// The session rewound.
    pub session_id: String,
    /// The `run.checkpoint.rewind` payload recording it.
    #[serde(flatten)]
    pub event: RunCheckpointRewind,
    /// The commits Keel made of the rewound turns, oldest first: kept in git.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commits_kept: Vec<String>,
    /// What the rewind did to those commits, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<String>,
}

/// The ids of the commits Keel made (its `system.log{metadata.git: "commit"}`) among `events`.
fn commits_among(events: &[keel_events::Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            keel_events::EventKind::SystemLog(log) => {
                let metadata = log.metadata.as_ref()?;
                (metadata.get("git")?.as_str()? == "commit")
                    .then(|| metadata.get("commit")?.as_str().map(str::to_owned))
                    .flatten()
            }
            _ => None,
        })
        .collect()
}

/// The sentence saying the commits stay.
fn kept_sentence(commits: &[String], files: bool) -> String {
    let ids: Vec<&str> = commits.iter().map(|c| c.get(..12).unwrap_or(c)).collect();
    let restored = if files {
        "the files were restored in the work tree only, so it now differs from HEAD"
    } else {
        "no file was changed"
    };
    format!(
        "the rewound turns' commits stay in git ({}): {restored}; undo them with `git revert` or `git reset` if you want them gone",
        ids.join(", ")
    )
}

/// Rewinds `session` (as stored in `store`, working in `checkpoints`' workspace) to before the
/// turn of checkpoint `checkpoint_id`: with [`RewindScope::conversation`], its saved
/// conversation becomes the one before that turn; with [`RewindScope::files`], that turn's and
/// every later turn's file changes are undone ([`CheckpointStore::rollback`]). Checks first —
/// the checkpoint belongs to the session, no turn runs, every blob is intact — so a refusal
/// changes nothing. The caller records [`RewindReport::event`] on the session's log
/// ([`append_rewind`] when nothing else writes it).
pub async fn rewind(
    store: &dyn Store,
    checkpoints: &CheckpointStore,
    session_id: &str,
    checkpoint_id: &str,
    scope: RewindScope,
) -> Result<RewindReport, RewindError> {
    let session = store.get_session(session_id).await?;
    let checkpoint = checkpoints.get(checkpoint_id)?;
    check_owner(&checkpoint, session_id, scope.conversation())?;
    if let Some(turn) = store
        .list_turns(session_id)
        .await?
        .into_iter()
        .find(|t| t.status == TurnStatus::Running)
    {
        return Err(RewindError::TurnRunning {
            session: session_id.to_owned(),
            turn: turn.id,
        });
    }
    let to_seq = store.last_seq(session_id).await?;
    let mut commits_kept = Vec::new();
    let (from_seq, turn_ids) = match &checkpoint.conversation {
        Some(mark) => {
            let events = store
                .read_events(session_id, EventRange::after(mark.seq_before))
                .await?;
            commits_kept = commits_among(&events);
            let mut turn_ids: Vec<String> = Vec::new();
            for id in events.iter().filter_map(|e| e.turn_id.as_deref()) {
                if !turn_ids.iter().any(|t| t == id) {
                    turn_ids.push(id.to_owned());
                }
            }
            (mark.seq_before + 1, turn_ids)
        }
        None => (to_seq, vec![checkpoint.turn_id.clone()]),
    };
    let saved = if scope.conversation() {
        Some(saved_at(checkpoints, &checkpoint, &session)?)
    } else {
        None
    };
    let mut event = RunCheckpointRewind {
        checkpoint_id: checkpoint.id.clone(),
        scope,
        turn_ids,
        from_seq,
        to_seq,
        messages: None,
        files_restored: Vec::new(),
        files_removed: Vec::new(),
    };
    if scope.files() {
        let report = checkpoints.rollback(&checkpoint.id)?;
        event.files_restored = report.restored;
        event.files_removed = report.removed;
    }
    if let Some(saved) = saved {
        event.messages = Some(saved.conversation.len() as u64);
        store
            .save_conversation(session_id, &saved.to_value(session_id)?)
            .await?;
    }
    let git = (!commits_kept.is_empty()).then(|| kept_sentence(&commits_kept, scope.files()));
    Ok(RewindReport {
        session_id: session_id.to_owned(),
        event,
        commits_kept,
        git,
    })
}

/// Appends a rewind's `run.checkpoint.rewind` to the session's stored log, after its last
/// event (for a process that writes nothing else on the session); returns its seq.
pub async fn append_rewind(store: &dyn Store, report: &RewindReport) -> Result<u64, HostError> {
    let session = store.get_session(&report.session_id).await?;
    let last = store.last_seq(&session.id).await?;
    let event =
        Sequencer::resume(&session.id, &session.project_id, last).stamp(None, report.event.clone());
    store.append_event(&event).await?;
    Ok(event.seq)
}

/// Refuses a checkpoint made in another session's turn, and, when `needs_conversation`, one
/// that records no conversation.
pub(crate) fn check_owner(
    checkpoint: &Checkpoint,
    session_id: &str,
    needs_conversation: bool,
) -> Result<(), RewindError> {
    match checkpoint.session_id() {
        Some(owner) if owner != session_id => Err(RewindError::OtherSession {
            checkpoint: checkpoint.id.clone(),
            session: session_id.to_owned(),
            owner: owner.to_owned(),
        }),
        None if needs_conversation => Err(RewindError::NoConversation(checkpoint.id.clone())),
        _ => Ok(()),
    }
}

/// The conversation `checkpoint` saved, read as the session's stored conversation is.
pub(crate) fn saved_at(
    checkpoints: &CheckpointStore,
    checkpoint: &Checkpoint,
    session: &Session,
) -> Result<SavedConversation, RewindError> {
    let (Some(mark), Some(bytes)) = (
        checkpoint.conversation.as_ref(),
        checkpoints.conversation(checkpoint)?,
    ) else {
        return Err(RewindError::NoConversation(checkpoint.id.clone()));
    };
    let damaged = |reason: String| {
        RewindError::Checkpoint(CheckpointError::Damaged {
            id: checkpoint.id.clone(),
            reason,
        })
    };
    let conversation: Value = serde_json::from_slice(&bytes)
        .map_err(|e| damaged(format!("its conversation is not JSON: {e}")))?;
    let wrapped = serde_json::json!({
        "version": SAVED_CONVERSATION_VERSION,
        "conversation_id": mark.conversation_id,
        "conversation": conversation,
    });
    SavedConversation::from_value(session, &wrapped)
        .map_err(|e| damaged(format!("its conversation cannot be read: {e}")))
}
