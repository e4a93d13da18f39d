//! Model fallback: try the models of a chain in order until one answers.

use keel_events::{Emitter, PrepareModelSelect};
use tokio_util::sync::CancellationToken;

use crate::assemble::AssembledResponse;
use crate::error::ProviderError;
use crate::provider::{ChatRequest, Provider};
use crate::retry::{RetryPolicy, StreamObserver, complete_with_retry};

/// An ordered list of models; the first is the one requested.
///
/// Each call starts from the model in use (the chain is sticky: once a fallback was taken, later
/// calls of the session go straight to it). A model is left when its error says it cannot serve
/// the request ([`ProviderError::is_model_unavailable`]: 404, `model_not_found`, or retries
/// exhausted); any other error ends the call. Every choice is announced as
/// `prepare.model.select`: once for the first model used, then once per fallback.
#[derive(Debug, Clone)]
pub struct ModelChain {
    models: Vec<String>,
    current: usize,
    announced: bool,
}

impl ModelChain {
    /// A chain of these models, in order of preference.
    pub fn new<I, S>(models: I) -> Result<Self, ProviderError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let models: Vec<String> = models.into_iter().map(Into::into).collect();
        if models.is_empty() {
            return Err(ProviderError::InvalidRequest(
                "the model chain is empty".to_owned(),
            ));
        }
        Ok(Self {
            models,
            current: 0,
            announced: false,
        })
    }

    /// The first model of the chain.
    pub fn requested(&self) -> &str {
        &self.models[0]
    }

    /// The model calls go to now.
    pub fn current(&self) -> &str {
        &self.models[self.current]
    }

    /// The models, in order.
    pub fn models(&self) -> &[String] {
        &self.models
    }

    /// Announces the model calls will go to now as `prepare.model.select` (a fallback when it
    /// is not the first of the chain). Later calls do not announce it again; a fallback taken
    /// during a call is still announced.
    pub fn announce(&mut self, emitter: &Emitter) {
        self.announced = true;
        emitter.emit(PrepareModelSelect {
            requested_model: self.requested().to_owned(),
            final_model: self.current().to_owned(),
            is_fallback: self.current != 0,
            reason: None,
        });
    }

    /// Sends `request` (its `model` is replaced) to the current model with retries, falling
    /// back along the chain; returns the response and the model that gave it, or the last
    /// model's error.
    pub async fn complete(
        &mut self,
        provider: &dyn Provider,
        request: &ChatRequest,
        policy: &RetryPolicy,
        emitter: &Emitter,
        cancel: &CancellationToken,
        observer: &mut dyn StreamObserver,
    ) -> Result<(AssembledResponse, String), ProviderError> {
        if !self.announced {
            self.announced = true;
            emitter.emit(PrepareModelSelect {
                requested_model: self.requested().to_owned(),
                final_model: self.current().to_owned(),
                is_fallback: false,
                reason: None,
            });
        }
        // Copy the request (its whole history) only when the model name must change.
        let mut request = std::borrow::Cow::Borrowed(request);
        loop {
            if request.model != self.current() {
                request.to_mut().model = self.current().to_owned();
            }
            match complete_with_retry(provider, &request, policy, emitter, cancel, observer).await {
                Ok(response) => return Ok((response, request.model.clone())),
                Err(e) if e.is_model_unavailable() && self.current + 1 < self.models.len() => {
                    let failed = self.current().to_owned();
                    self.current += 1;
                    tracing::warn!(failed = %failed, next = %self.current(), error = %e, "model unavailable; falling back");
                    emitter.emit(PrepareModelSelect {
                        requested_model: self.requested().to_owned(),
                        final_model: self.current().to_owned(),
                        is_fallback: true,
                        reason: Some(format!("{failed}: {e}")),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    }
}
