//! A session's checkpoints: list them, rewind the session to one, fork the session at one.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use keel_events::RewindScope;
use keel_host::{RewindError, fork_session};
use keel_tools::{CheckpointError, CheckpointStore};

use super::extract::{ApiJson, ApiPath};
use crate::api::{CheckpointList, ForkBody, RewindBody, RewindResult, SessionView};
use crate::error::{ApiError, ApiResult, ErrorBody, ErrorCode};
use crate::live::RewindFailure;
use crate::state::{Caller, SharedState};

/// The checkpoint store of a session's root, bounded by its project's `checkpoint_max_mb`.
fn open(state: &SharedState, session: &keel_store::Session) -> ApiResult<CheckpointStore> {
    CheckpointStore::open(&session.root)
        .map(|store| store.with_max_bytes(state.config.checkpoint_max_bytes(&session.project_id)))
        .map_err(|e| ApiError::unprocessable(e.to_string()))
}

fn rewind_error(error: RewindError) -> ApiError {
    match error {
        RewindError::Checkpoint(CheckpointError::NotFound(_)) => {
            ApiError::not_found(error.to_string())
        }
        RewindError::TurnRunning { .. } => ApiError::new(ErrorCode::TurnRunning, error.to_string()),
        RewindError::OtherSession { .. }
        | RewindError::NoConversation(_)
        | RewindError::Checkpoint(CheckpointError::Damaged { .. } | CheckpointError::Json { .. }) => {
            ApiError::unprocessable(error.to_string())
        }
        RewindError::Host(keel_host::HostError::Store(e)) => e.into(),
        other => ApiError::internal(other.to_string()),
    }
}

/// The session's checkpoints (the ones made before its turns), oldest first, with sizes, and
/// the root's store against its bound (what `keel checkpoints list --json` prints).
#[utoipa::path(get, path = "/v1/sessions/{id}/checkpoints", operation_id = "listCheckpoints", tag = "checkpoints",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Checkpoints, oldest first, and the store's usage and bound", body = CheckpointList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody),
        (status = 422, description = "The root's checkpoints cannot be read (a damaged file is named)", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<CheckpointList>> {
    let session = state.visible_session(&scope, &id).await?;
    let store = open(&state, &session)?;
    let usage = tokio::task::spawn_blocking(move || store.usage())
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| ApiError::unprocessable(e.to_string()))?;
    Ok(Json(usage.of_session(&id).into()))
}

/// Rewinds the session to before a checkpoint's turn: its history (`conversation`), the files
/// that turn and later ones changed (`files`), or `both`. The undone turns' events stay in
/// the log, marked by a `run.checkpoint.rewind`.
#[utoipa::path(post, path = "/v1/sessions/{id}/rewind", operation_id = "rewindSession", tag = "checkpoints", request_body = RewindBody,
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Rewound", body = RewindResult),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session or checkpoint", body = ErrorBody),
        (status = 409, description = "`turn_running`: a turn runs in the session, or `conflict`: another server instance writes it; nothing changed", body = ErrorBody),
        (status = 422, description = "Bad scope, a checkpoint of another session or without a conversation, or a damaged checkpoint; nothing changed", body = ErrorBody)))]
pub async fn rewind(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<RewindBody>,
) -> ApiResult<Json<RewindResult>> {
    let session = state.visible_session(&scope, &id).await?;
    let rewind_scope = match body.scope.as_deref() {
        None => RewindScope::Both,
        Some(name) => name
            .parse::<RewindScope>()
            .map_err(|e| ApiError::unprocessable(e.to_string()))?,
    };
    let checkpoints = open(&state, &session)?;
    let live = state.live(&id);
    match live
        .rewind(&state, &checkpoints, &body.checkpoint, rewind_scope)
        .await
    {
        Ok(report) => Ok(Json(report.event.into())),
        Err(RewindFailure::Running) => Err(ApiError::new(
            ErrorCode::TurnRunning,
            "a turn is running in this session; wait for it to end or cancel it first",
        )),
        Err(RewindFailure::Rewind(e)) => Err(rewind_error(e)),
        Err(RewindFailure::Api(e)) => Err(e),
    }
}

/// A new session with this session's history, whole or (with `at`) before a checkpoint's
/// turn; with `at`, the fork also gets a checkpoint of the files' state there. The original
/// session is not changed, nor is the working tree.
#[utoipa::path(post, path = "/v1/sessions/{id}/fork", operation_id = "forkSession", tag = "checkpoints", request_body = ForkBody,
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The new session", body = SessionView),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session or checkpoint", body = ErrorBody),
        (status = 422, description = "A checkpoint of another session or without a conversation, or a damaged one", body = ErrorBody)))]
pub async fn fork(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<ForkBody>,
) -> ApiResult<(StatusCode, Json<SessionView>)> {
    let session = state.visible_session(&scope, &id).await?;
    let checkpoints = open(&state, &session)?;
    let fork = fork_session(state.store.as_ref(), &checkpoints, &id, body.at.as_deref())
        .await
        .map_err(rewind_error)?;
    Ok((StatusCode::CREATED, Json(SessionView::new(fork.session, 0))))
}
