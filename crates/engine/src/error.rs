//! What can go wrong talking to a model, and whether trying again can help.

use std::time::Duration;

/// An error from a [`Provider`](crate::Provider) or from the retry and fallback drivers around it.
///
/// Every variant says whether another attempt may succeed ([`ProviderError::is_retryable`]) and
/// any delay the server asked for ([`ProviderError::retry_after`]).
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderError {
    /// The server answered with a non-success HTTP status.
    #[error("HTTP {status}: {message}")]
    Http {
        /// HTTP status code.
        status: u16,
        /// The server's error message (its `error.message`, else the body).
        message: String,
        /// The server's error code or type, when it sent one (`model_not_found`, …).
        code: Option<String>,
        /// The wait the server asked for (`Retry-After` / `retry-after-ms`).
        retry_after: Option<Duration>,
    },
    /// The request never got an answer: connection refused, DNS, TLS, connect time-out.
    #[error("connection failed: {0}")]
    Connect(String),
    /// The response stream broke off (connection dropped, body error) before it was complete.
    #[error("stream broke off: {0}")]
    Stream(String),
    /// The server sent an `error` object inside a successful (200) stream.
    #[error("model error in stream: {message}")]
    InStream {
        /// The error message.
        message: String,
        /// The error's `code` or `type`, when present.
        code: Option<String>,
    },
    /// No chunk arrived within the per-chunk idle time-out.
    #[error("no data from the model for {} ms", .0.as_millis())]
    IdleTimeout(Duration),
    /// The stream carried a chunk that could not be decoded (not JSON, or JSON cut off): the
    /// attempt is broken, since whatever the chunk carried is lost.
    #[error("malformed stream: {0}")]
    MalformedStream(String),
    /// The stream ended before the model said it had finished (no finish reason): whatever
    /// arrived is a fragment, never an answer.
    #[error("the response ended before the model finished: {0}")]
    Incomplete(String),
    /// The answer was cut off at the output token limit (`finish_reason: length`) and could not
    /// be completed.
    #[error("the answer was cut off at the output token limit: {0}")]
    OutputLimit(String),
    /// The answer was stopped because it kept repeating the same lines
    /// ([`crate::repetition`]).
    #[error("{why}")]
    Repetition {
        /// What repeated.
        why: String,
        /// The answer's text written before the loop began.
        kept: String,
    },
    /// The request could not be built or was refused before sending (configuration, encoding).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// A scripted provider could not serve the request (no turn left, bad script).
    #[error("script: {0}")]
    Script(String),
    /// The operation was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// Every allowed attempt failed; `last` is the final failure.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// Attempts made.
        attempts: u32,
        /// The error of the last attempt.
        last: Box<ProviderError>,
    },
}

impl ProviderError {
    /// Whether another attempt of the same request may succeed.
    ///
    /// Retryable: 408, 409, 425, 429 (except `insufficient_quota`), 5xx, connection failures,
    /// broken streams, idle time-outs, malformed and incomplete streams, and in-stream errors
    /// other than request errors. Not retryable: other 4xx, invalid requests, the output limit
    /// (the same request is cut the same way), scripts, cancellation, and
    /// [`ProviderError::RetriesExhausted`] itself.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, code, .. } => match status {
                429 => code.as_deref() != Some("insufficient_quota"),
                408 | 409 | 425 => true,
                s => (500..=599).contains(s),
            },
            Self::Connect(_)
            | Self::Stream(_)
            | Self::IdleTimeout(_)
            | Self::MalformedStream(_)
            | Self::Incomplete(_) => true,
            Self::InStream { code, .. } => !matches!(
                code.as_deref(),
                Some(
                    "invalid_request_error"
                        | "context_length_exceeded"
                        | "content_filter"
                        | "insufficient_quota"
                        | "model_not_found"
                )
            ),
            Self::InvalidRequest(_)
            | Self::OutputLimit(_)
            | Self::Repetition { .. }
            | Self::Script(_)
            | Self::Cancelled
            | Self::RetriesExhausted { .. } => false,
        }
    }

    /// The delay the server asked for before the next attempt, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            Self::RetriesExhausted { last, .. } => last.retry_after(),
            _ => None,
        }
    }

    /// Whether the error says this model cannot serve the request at all, so another model of a
    /// fallback chain should be tried: 404, a `model_not_found` code, or retries exhausted.
    pub fn is_model_unavailable(&self) -> bool {
        match self {
            Self::Http { status, code, .. } => {
                *status == 404 || code.as_deref() == Some("model_not_found")
            }
            Self::InStream { code, .. } => code.as_deref() == Some("model_not_found"),
            Self::RetriesExhausted { .. } => true,
            _ => false,
        }
    }
}
