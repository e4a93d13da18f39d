//! Forking a session: a new session with the history up to now or up to a checkpoint; the
//! original's rows are only read.

use keel_store::{NewSession, Session, Store};
use keel_tools::{Checkpoint, CheckpointStore};
use serde_json::Value;

use crate::rewind::{RewindError, check_owner, saved_at};
use crate::saved::{CONVERSATION_ID_KEY, SavedConversation};
use crate::session::open_session;

/// The session metadata key naming where a fork came from: `{"session_id", "checkpoint_id"?}`.
pub const FORKED_FROM_KEY: &str = "forked_from";

/// A fork: the new session and, when forked at a checkpoint, the fork's own checkpoint holding
/// the files' state there.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Fork {
    /// The new session (idle, same project, root, title, model and mode).
    pub session: Session,
    /// Forked at a checkpoint: the fork's checkpoint of the files' state before that turn
    /// (rewinding the fork to it with `files` puts the working tree in that state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
}

/// Creates a new session from session `id`: its history as stored now, or with `at`, as it
/// was before checkpoint `at`'s turn (which must be one of `id`'s). The working tree is not
/// touched; with `at`, the fork gets its own checkpoint of the files' state there. The
/// original's session, turn, event and conversation rows are only read.
pub async fn fork_session(
    store: &dyn Store,
    checkpoints: &CheckpointStore,
    id: &str,
    at: Option<&str>,
) -> Result<Fork, RewindError> {
    let original = open_session(store, id).await?;
    let conversation_id = format!("conv_{}", uuid::Uuid::now_v7().simple());
    let (history, origin) = match at {
        Some(at) => {
            let checkpoint = checkpoints.get(at)?;
            check_owner(&checkpoint, id, true)?;
            let saved = saved_at(checkpoints, &checkpoint, &original.session)?;
            (Some(saved.conversation), Some(checkpoint))
        }
        None => (original.saved.map(|s| s.conversation), None),
    };
    let source = &original.session;
    let mut metadata = source.metadata.clone();
    let mut forked_from = serde_json::Map::new();
    forked_from.insert("session_id".to_owned(), Value::String(source.id.clone()));
    if let Some(checkpoint) = &origin {
        forked_from.insert(
            "checkpoint_id".to_owned(),
            Value::String(checkpoint.id.clone()),
        );
    }
    metadata.insert(FORKED_FROM_KEY.to_owned(), Value::Object(forked_from));
    metadata.insert(
        CONVERSATION_ID_KEY.to_owned(),
        Value::String(conversation_id.clone()),
    );
    let mut new = NewSession::new(&source.project_id, &source.root)
        .with_title(&source.title)
        .with_metadata(metadata);
    new.model = source.model.clone();
    new.mode = source.mode.clone();
    let session = store.create_session(new).await?;
    let made = async {
        let checkpoint = match &origin {
            Some(checkpoint) => {
                Some(checkpoints.fork_state(&checkpoint.id, &session.id, &conversation_id)?)
            }
            None => None,
        };
        if let Some(conversation) = history {
            let saved = SavedConversation::new(&conversation_id, conversation);
            store
                .save_conversation(&session.id, &saved.to_value(&session.id)?)
                .await?;
        }
        Ok::<_, RewindError>(checkpoint)
    }
    .await;
    match made {
        Ok(checkpoint) => Ok(Fork {
            session: store.get_session(&session.id).await?,
            checkpoint,
        }),
        Err(e) => {
            // Leave no half-made fork behind.
            if let Err(cleanup) = store.delete_session(&session.id).await {
                tracing::warn!(error = %cleanup, session = %session.id, "half-made fork left");
            }
            Err(e)
        }
    }
}
