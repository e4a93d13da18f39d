//! Short-lived signed tokens for `EventSource` and WebSocket clients.

use axum::Json;
use axum::extract::State;

use super::extract::ApiJson;
use crate::api::{StreamToken, StreamTokenBody};
use crate::error::{ApiResult, ErrorBody};
use crate::state::{Caller, SharedState};

/// Issues a stream token for one session.
#[utoipa::path(post, path = "/v1/stream-tokens", operation_id = "createStreamToken", tag = "events", request_body = StreamTokenBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A token for `?token=` on the session's SSE/WS routes", body = StreamToken),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody),
        (status = 422, description = "Invalid fields", body = ErrorBody)))]
pub async fn create(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiJson(body): ApiJson<StreamTokenBody>,
) -> ApiResult<Json<StreamToken>> {
    state.visible_session(&scope, &body.session_id).await?;
    let issued = state.stream_tokens.issue(&body.session_id);
    Ok(Json(StreamToken {
        token: issued.token,
        expires_at: issued.expires_at,
    }))
}
