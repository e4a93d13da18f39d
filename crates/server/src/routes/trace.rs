//! A span per request (method and path; never the query, which may carry a stream token) and a
//! debug event with the status and time taken when the handler answers.

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument as _;

/// Runs the rest of the stack inside the request's span and logs how it was answered.
pub async fn trace_request(request: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        "request",
        method = %request.method(),
        path = request.uri().path(),
    );
    async move {
        let started = Instant::now();
        let response = next.run(request).await;
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        tracing::debug!(status = response.status().as_u16(), elapsed_ms, "answered");
        response
    }
    .instrument(span)
    .await
}
