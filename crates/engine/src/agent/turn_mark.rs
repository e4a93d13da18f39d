//! Recording where the conversation stood before a turn, in the turn's checkpoint, so the
//! session can later be rewound or forked to before it.

use keel_context::Conversation;
use keel_events::Emitter;
use keel_tools::CheckpointStore;

/// Opens `turn_id`'s checkpoint in `store` with the session's position (from `emitter`) and
/// `conversation` as it is before the turn. Says why when it could not (the turn still runs;
/// only rewinding to it is lost).
pub(crate) fn mark_turn(
    store: &CheckpointStore,
    emitter: &Emitter,
    turn_id: &str,
    conversation_id: &str,
    conversation: &Conversation,
) -> Result<(), String> {
    let json = serde_json::to_vec(conversation)
        .map_err(|e| format!("the conversation could not be encoded for its checkpoint: {e}"))?;
    let sequencer = emitter.sequencer();
    store
        .begin_turn(
            turn_id,
            sequencer.session_id(),
            sequencer.last_seq(),
            conversation_id,
            conversation.len() as u64,
            &json,
        )
        .map(|_| ())
        .map_err(|e| format!("this turn cannot be rewound: {e}"))
}
