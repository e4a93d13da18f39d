//! Turns: start one (idempotent by request id), list them, cancel the running one.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use super::extract::{ApiJson, ApiPath};
use crate::api::{Cancelled, CreateTurn, ImageUpload, TurnCreated, TurnList, TurnView};
use crate::error::{ApiError, ApiResult, ErrorBody, ErrorCode};
use crate::live::StartError;
use crate::state::{Caller, SharedState};

/// Largest `POST /v1/sessions/{id}/turns` body (48 MiB, room for three images at the 10 MiB
/// cap in base64), unless the server's `body_limit` is larger.
pub const TURN_BODY_LIMIT: usize = 48 * 1024 * 1024;

/// Starts a turn, with any images for the model; an input `/NAME ARGS` naming one of the
/// session's custom commands runs its expanded template with its `model` and `allowed-tools`.
#[utoipa::path(post, path = "/v1/sessions/{id}/turns", operation_id = "createTurn", tag = "turns", request_body = CreateTurn,
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Turn started", body = TurnCreated),
        (status = 200, description = "The request id already started this turn", body = TurnCreated),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody),
        (status = 409, description = "`turn_running`, or `conflict`: the request id was used for another input, or another instance writes the session", body = ErrorBody),
        (status = 413, description = "The body is over the turn limit, or `input` over the server's `body_limit`", body = ErrorBody),
        (status = 422, description = "Invalid fields, an image that is no PNG, JPEG, GIF or WebP, over 10 MiB or not base64 (named), or a `/NAME ARGS` custom command whose template cannot be expanded (its file and line)", body = ErrorBody),
        (status = 503, description = "`unavailable`: this instance is draining; start the turn on another", body = ErrorBody)))]
pub async fn create(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<CreateTurn>,
) -> ApiResult<(StatusCode, Json<TurnCreated>)> {
    let session = state.visible_session(&scope, &id).await?;
    if uuid::Uuid::parse_str(&body.request_id).is_err() {
        return Err(ApiError::unprocessable("`request_id` must be a UUID"));
    }
    if body.input.trim().is_empty() {
        return Err(ApiError::unprocessable("`input` must not be empty"));
    }
    if body.input.len() > state.config.body_limit {
        // The route's larger limit is room for images; the text keeps the server's own.
        return Err(ApiError::new(
            crate::error::ErrorCode::PayloadTooLarge,
            format!(
                "`input` is {} bytes, over the server's body_limit of {} bytes",
                body.input.len(),
                state.config.body_limit
            ),
        ));
    }
    let images = images(body.images)?;
    let (text, overrides) = super::commands::expand_input(&state, &session.root, body.input)?;
    let input = keel_protocol::TurnInput::new(text, images);
    let live = state.live(&id);
    match live
        .start_turn(&state, body.request_id, input, overrides)
        .await
    {
        Ok((turn, created)) => {
            tracing::info!(session_id = %id, turn_id = %turn.id, created, "turn accepted");
            let status = if created {
                StatusCode::ACCEPTED
            } else {
                StatusCode::OK
            };
            Ok((
                status,
                Json(TurnCreated {
                    turn: turn.into(),
                    created,
                }),
            ))
        }
        Err(StartError::Running) => Err(ApiError::new(
            ErrorCode::TurnRunning,
            "a turn is already running in this session",
        )),
        Err(StartError::Draining) => Err(ApiError::new(
            ErrorCode::Unavailable,
            "this server instance is draining and takes no new turns; start the turn on another",
        )),
        Err(StartError::Api(e)) => Err(e),
    }
}

/// The uploads as images for the model, each checked by its bytes; the first that is refused
/// is a 422 naming it.
fn images(uploads: Vec<ImageUpload>) -> ApiResult<Vec<keel_protocol::Image>> {
    const TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
    uploads
        .into_iter()
        .enumerate()
        .map(|(i, upload)| {
            let name = upload
                .name
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| format!("image {}", i + 1));
            if let Some(declared) = upload.media_type.as_deref()
                && !TYPES.contains(&declared)
            {
                return Err(ApiError::unprocessable(format!(
                    "{name}: `media_type` {declared} is not one of {}",
                    TYPES.join(", ")
                )));
            }
            keel_protocol::Image::from_base64(name, &upload.data)
                .map_err(|e| ApiError::unprocessable(e.to_string()))
        })
        .collect()
}

/// The session's turns, oldest first.
#[utoipa::path(get, path = "/v1/sessions/{id}/turns", operation_id = "listTurns", tag = "turns",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Turns", body = TurnList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<TurnList>> {
    state.visible_session(&scope, &id).await?;
    let turns = state.host.turns(&id).await?;
    Ok(Json(TurnList {
        turns: turns.into_iter().map(TurnView::from).collect(),
    }))
}

/// Cancels the running turn (and file runs) of the session, here or, relayed through the store,
/// on the server instance running it.
#[utoipa::path(post, path = "/v1/sessions/{id}/cancel", operation_id = "cancelSession", tag = "turns",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Whether anything was running", body = Cancelled),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn cancel(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<(StatusCode, Json<Cancelled>)> {
    state.visible_session(&scope, &id).await?;
    let here = state.live_if_any(&id).is_some_and(|live| live.cancel());
    let cancelled = here || crate::relay::relay_cancel(&state, &id).await?;
    Ok((StatusCode::ACCEPTED, Json(Cancelled { cancelled })))
}
