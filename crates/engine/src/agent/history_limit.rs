//! Seed 002 §3.2's history limit: a turn opens with at most
//! [`AgentConfig::max_history_messages`](super::AgentConfig::max_history_messages) messages of
//! history (the new request included); older ones are folded into the summary of earlier
//! turns by the session's summariser — no model call — and `run.context.compress` says so.

use keel_context::{Budget, EvictionLimits, PromptBuilder, TokenCounter};
use keel_events::Emitter;

use super::model_context::ModelContext;

/// Folds the oldest messages of `context`'s conversation into its summary until, with the
/// request about to be added, at most `max_messages` remain.
pub(super) async fn fold_history(
    context: &mut ModelContext,
    max_messages: Option<usize>,
    counter: TokenCounter,
    emitter: &Emitter,
) {
    let Some(max) = max_messages else { return };
    // Room for the request that opens the turn.
    let keep = max.saturating_sub(1);
    if context.conversation.len() <= keep {
        return;
    }
    let limits = EvictionLimits {
        max_messages: Some(keep),
        max_tokens: None,
    };
    // Only the counter matters here: nothing is fitted to a window.
    let builder = PromptBuilder::new(counter, Budget::new(u64::MAX));
    let summarizer = context.summarizer.clone();
    let folded = builder
        .fold_oldest(
            &mut context.conversation,
            &context.focused,
            &limits,
            summarizer.as_ref(),
        )
        .await;
    if let Some(compression) = folded {
        tracing::debug!(
            max,
            original_tokens = compression.original_tokens,
            compressed_tokens = compression.compressed_tokens,
            "older messages folded into the summary"
        );
        emitter.emit(compression);
    }
}
