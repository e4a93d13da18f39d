//! Where a session's conversation stood before a turn: what rewinding and forking the history
//! need besides the files.

use serde::{Deserialize, Serialize};

use super::{Checkpoint, CheckpointError, CheckpointStore, FileSnapshot};

/// A session's conversation position before a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationMark {
    /// The session the turn belongs to.
    pub session_id: String,
    /// The session's last event seq before the turn's first event.
    pub seq_before: u64,
    /// The engine's conversation id.
    pub conversation_id: String,
    /// Messages in the conversation before the turn.
    pub messages: u64,
    /// BLAKE3 hash of the blob holding the conversation (its JSON) before the turn.
    pub blob: String,
}

impl CheckpointStore {
    /// Opens `turn_id`'s checkpoint, recording that its session's conversation was
    /// `conversation` (JSON) before the turn; the files the turn changes are added to it later
    /// ([`CheckpointStore::record_before`]). Counts the store's size afresh (other processes
    /// may have written to it) and prunes it to its limit afterwards.
    pub fn begin_turn(
        &self,
        turn_id: &str,
        session_id: &str,
        seq_before: u64,
        conversation_id: &str,
        messages: u64,
        conversation: &[u8],
    ) -> Result<Checkpoint, CheckpointError> {
        let mut open = self.lock();
        let mut checkpoint = Checkpoint::new(turn_id);
        let (blob, _) = self.put_blob(conversation)?;
        checkpoint.conversation = Some(ConversationMark {
            session_id: session_id.to_owned(),
            seq_before,
            conversation_id: conversation_id.to_owned(),
            messages,
            blob,
        });
        let len = self.save(&checkpoint)?;
        open.turns
            .insert(turn_id.to_owned(), (checkpoint.clone(), len));
        open.bytes = None;
        drop(open);
        self.prune_over_limit(&checkpoint.id, 0);
        Ok(checkpoint)
    }

    /// The conversation (JSON) saved with `checkpoint`, checked against its hash; `None` when it
    /// records no conversation.
    pub fn conversation(
        &self,
        checkpoint: &Checkpoint,
    ) -> Result<Option<Vec<u8>>, CheckpointError> {
        let Some(mark) = &checkpoint.conversation else {
            return Ok(None);
        };
        let bytes = self
            .get_blob(&mark.blob)
            .map_err(|e| CheckpointError::Damaged {
                id: checkpoint.id.clone(),
                reason: format!("conversation blob: {e}"),
            })?;
        if blake3::hash(&bytes).to_hex().as_str() != mark.blob {
            return Err(CheckpointError::Damaged {
                id: checkpoint.id.clone(),
                reason: "the conversation blob does not match its hash".to_owned(),
            });
        }
        Ok(Some(bytes))
    }

    /// A new checkpoint owned by session `fork_session_id` holding the state checkpoint `id`
    /// rewinds to: its conversation, and for every file it or a later checkpoint changed, the
    /// content before `id`'s turn. Rewinding the fork to it (files) puts the working tree in
    /// that state; nothing else is touched.
    pub fn fork_state(
        &self,
        id: &str,
        fork_session_id: &str,
        fork_conversation_id: &str,
    ) -> Result<Checkpoint, CheckpointError> {
        let all = self.list()?;
        let Some(index) = all.iter().position(|c| c.id == id) else {
            return Err(CheckpointError::NotFound(id.to_owned()));
        };
        let mut files: Vec<FileSnapshot> = Vec::new();
        for checkpoint in &all[index..] {
            self.verify(checkpoint)?;
            for file in &checkpoint.files {
                if !files.iter().any(|f| f.path == file.path) {
                    files.push(file.clone());
                }
            }
        }
        let origin = &all[index];
        let mut fork = Checkpoint::new(&format!("fork_{fork_session_id}"));
        fork.files = files;
        fork.conversation = origin.conversation.clone().map(|mark| ConversationMark {
            session_id: fork_session_id.to_owned(),
            seq_before: 0,
            conversation_id: fork_conversation_id.to_owned(),
            ..mark
        });
        let len = self.save(&fork)?;
        self.prune_over_limit(&fork.id, len);
        Ok(fork)
    }
}
