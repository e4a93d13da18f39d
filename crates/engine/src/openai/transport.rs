//! The HTTP path under async-openai: sends each request exactly once and keeps the status and
//! `Retry-After` of a failed response.
//!
//! async-openai 0.43's default client wraps its transport in `OpenAIRetryLayer` (three retries
//! with back-off on 429, 5xx and connect errors, hidden from the caller). Installing this
//! service with `Client::with_http_service` replaces that stack, so no request is retried
//! behind the engine's back. It also turns a non-success response into a [`HttpFailure`]
//! carrying the status, the server's requested delay and the body: async-openai's own error
//! path drops the headers.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;

use crate::retry::parse_retry_after;

/// A non-success HTTP response, as read by [`SendOnce`].
#[derive(Debug, thiserror::Error)]
#[error("HTTP {status}")]
pub(crate) struct HttpFailure {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) body: String,
}

/// A tower service sending each request once with a plain reqwest client.
#[derive(Debug, Clone)]
pub(crate) struct SendOnce {
    client: reqwest::Client,
}

impl SendOnce {
    pub(crate) fn new(client: reqwest::Client) -> Self {
        Self { client }
    }
}

type SendFuture = Pin<Box<dyn Future<Output = Result<reqwest::Response, OpenAIError>> + Send>>;

impl tower::Service<HttpRequestFactory> for SendOnce {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = SendFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let client = self.client.clone();
        Box::pin(async move {
            let request = factory.build().await?;
            let response = client.execute(request).await?;
            if response.status().is_success() {
                return Ok(response);
            }
            let status = response.status().as_u16();
            let headers = response.headers();
            let retry_after = headers
                .get("retry-after-ms")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|ms| ms.is_finite() && *ms >= 0.0)
                .map(|ms| Duration::from_secs_f64(ms / 1000.0))
                .or_else(|| {
                    headers
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()))
                });
            // A body that cannot be read still leaves the status to report.
            let body = response.text().await.unwrap_or_default();
            Err(OpenAIError::Boxed(Box::new(HttpFailure {
                status,
                retry_after,
                body,
            })))
        })
    }
}
