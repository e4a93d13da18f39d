//! Side calls: one small model call beside the turns, for a front end's own text (a turn's
//! commit message, a pull request's title and description). The session's provider and model,
//! no tools, the caller's bounded messages, at most [`MAX_SIDE_TOKENS`] of answer; its usage is
//! reported as `run.usage.report{purpose}` with the caller's purpose, between turns (no
//! `turn_id`), and added to the session's total.
//!
//! A provider may decline ([`Provider::answers_side_calls`](crate::Provider::answers_side_calls):
//! a scripted one unless its script asks), and a call may fail: the caller then writes its
//! text without the model.

use keel_context::ChatMessage;
use keel_events::CallPurpose;
use tracing::Instrument as _;

use super::AgentSession;
use crate::provider::ChatRequest;

/// Most tokens a side call may answer with.
pub const MAX_SIDE_TOKENS: u32 = 600;

/// Why a side call gave no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SideCallError {
    /// The provider makes no side calls (a scripted one whose script does not ask).
    #[error("the provider makes no side calls")]
    Declined,
    /// The call failed (after the session's retries and fallbacks).
    #[error("the model call failed: {0}")]
    Failed(String),
    /// The model answered with no text.
    #[error("the model answered with no text")]
    Empty,
}

impl AgentSession {
    /// Asks the session's model `messages` in one call without tools, between turns, and
    /// returns its text; its usage is reported with `purpose`. Cancelled with the session's
    /// [`cancel_handle`](Self::cancel_handle).
    pub async fn side_call(
        &mut self,
        purpose: CallPurpose,
        messages: Vec<ChatMessage>,
    ) -> Result<String, SideCallError> {
        if !self.model.provider().answers_side_calls() {
            return Err(SideCallError::Declined);
        }
        let span = tracing::info_span!("side_call", purpose = purpose.as_str());
        let result = self
            .side_call_inner(purpose, messages)
            .instrument(span)
            .await;
        if self.cancel.is_cancelled() {
            self.cancel = tokio_util::sync::CancellationToken::new();
        }
        result
    }

    async fn side_call_inner(
        &mut self,
        purpose: CallPurpose,
        messages: Vec<ChatMessage>,
    ) -> Result<String, SideCallError> {
        let config = &mut self.config;
        let mut request =
            ChatRequest::new(config.models.current(), messages).with_sampling(config.sampling);
        request.max_tokens = Some(MAX_SIDE_TOKENS);
        let provider = self.model.shared_provider();
        let (response, model) = config
            .models
            .complete(
                provider.as_ref(),
                &request,
                &config.retry,
                &self.emitter,
                &self.cancel,
                &mut (),
            )
            .await
            .map_err(|e| SideCallError::Failed(e.to_string()))?;
        if let Some(usage) = response.usage {
            self.model.report_usage(
                &self.emitter,
                &config.pricing,
                &model,
                &usage,
                Some(purpose),
            );
        }
        let text = response.text.trim();
        if text.is_empty() {
            return Err(SideCallError::Empty);
        }
        Ok(text.to_owned())
    }
}
