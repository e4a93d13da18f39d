//! A shadow session's staged batch (`"shadow": true` at creation): see it, apply all or some
//! of it to the real tree, or discard it.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use keel_events::SystemLog;
use keel_tools::{Shadow, ShadowError};
use serde::de::DeserializeOwned;

use super::extract::ApiPath;
use crate::api::{
    ShadowApplyBody, ShadowApplyView, ShadowBatchView, ShadowDiscardBody, ShadowDiscarded,
};
use crate::error::{ApiError, ApiResult, ErrorBody, ErrorCode};
use crate::state::{Caller, SharedState};

fn shadow_error(error: ShadowError) -> ApiError {
    match error {
        ShadowError::NoPending { .. } | ShadowError::NoneAtAll(_) => {
            ApiError::not_found(error.to_string())
        }
        ShadowError::NothingToApply(_) | ShadowError::Damaged { .. } | ShadowError::Several(_) => {
            ApiError::conflict(error.to_string())
        }
        ShadowError::NotInBatch { .. } | ShadowError::InvalidSession(_) | ShadowError::Root(_) => {
            ApiError::unprocessable(error.to_string())
        }
        ShadowError::Io { .. } => ApiError::internal(error.to_string()),
    }
}

/// Runs blocking shadow work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ShadowError> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(shadow_error)
}

/// An optional JSON body: empty or `null` means the default.
fn optional_body<T: DeserializeOwned + Default>(body: &Bytes) -> ApiResult<T> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    // JSON `null` is what the document allows besides the object: like no body.
    serde_json::from_slice::<Option<T>>(body)
        .map_err(|e| {
            if e.is_data() {
                ApiError::unprocessable(e.to_string())
            } else {
                ApiError::new(ErrorCode::InvalidJson, e.to_string())
            }
        })
        .map(Option::unwrap_or_default)
}

/// 409 `turn_running` while a turn works in the shadow copy.
fn not_while_running(state: &SharedState, id: &str) -> ApiResult<()> {
    match state.live_if_any(id) {
        Some(live) if live.turn_running() => Err(ApiError::new(
            ErrorCode::TurnRunning,
            "a turn is running in this session's shadow workspace; wait for it to end",
        )),
        _ => Ok(()),
    }
}

/// The session's staged batch: every path, its change kind and diff, and the combined diff.
#[utoipa::path(get, path = "/v1/sessions/{id}/shadow", operation_id = "getShadow", tag = "shadow",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The staged batch", body = ShadowBatchView),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session, or no pending shadow batch", body = ErrorBody),
        (status = 409, description = "The shadow workspace is damaged (discard it)", body = ErrorBody),
        (status = 500, description = "The shadow copy cannot be read", body = ErrorBody)))]
pub async fn get(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<ShadowBatchView>> {
    let session = state.visible_session(&scope, &id).await?;
    let batch = blocking(move || Shadow::open(&session.root, &session.id)?.batch()).await?;
    Ok(Json(batch.into()))
}

/// Applies the staged changes (all, or `paths`) to the real tree. A path whose real file
/// changed since the agent saw it is a conflict: reported, never overwritten, still staged; the
/// other paths still apply. A `system.log` naming what was applied (a warning when paths
/// conflicted) is added to the session's events, as `keel shadow apply` does.
#[utoipa::path(post, path = "/v1/sessions/{id}/shadow/apply", operation_id = "applyShadow", tag = "shadow",
    params(("id" = String, Path, description = "Session id")),
    request_body(content = Option<ShadowApplyBody>, description = "Paths to apply; no body (or no `paths`): all"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "What was applied, and the conflicts", body = ShadowApplyView),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session, or no pending shadow batch", body = ErrorBody),
        (status = 409, description = "`turn_running`, or `conflict`: nothing staged, the shadow workspace is damaged, or another instance writes the session", body = ErrorBody),
        (status = 422, description = "A path is not in the batch (nothing applied), or unknown fields", body = ErrorBody),
        (status = 500, description = "A file could not be read or written", body = ErrorBody)))]
pub async fn apply(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
    body: Bytes,
) -> ApiResult<Json<ShadowApplyView>> {
    let session = state.visible_session(&scope, &id).await?;
    let body: ShadowApplyBody = optional_body(&body)?;
    not_while_running(&state, &id)?;
    let paths = body.paths.unwrap_or_default();
    let root = session.root.clone();
    let session_id = session.id.clone();
    // Applied and recorded under the session's writer claim: refused while another instance
    // writes the session.
    let live = state.live(&id);
    let report = live
        .between_turns(&state, async move {
            let report = blocking(move || Shadow::open(&root, &session_id)?.apply(&paths)).await?;
            let log: SystemLog = report.log();
            if !report.conflicts.is_empty() {
                tracing::warn!(session = %session.id, "{}", log.message);
            }
            Ok((report, vec![log.into()]))
        })
        .await?;
    Ok(Json(report.into()))
}

/// Discards the staged changes: all of them (the shadow workspace is removed, even a damaged
/// one), or only `paths` (the agent sees the real files there again; a `system.log` records
/// it). The real tree is left as it is.
#[utoipa::path(post, path = "/v1/sessions/{id}/shadow/discard", operation_id = "discardShadow", tag = "shadow",
    params(("id" = String, Path, description = "Session id")),
    request_body(content = Option<ShadowDiscardBody>, description = "Paths to discard; no body (or no `paths`): all"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Discarded", body = ShadowDiscarded),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session, or no pending shadow batch", body = ErrorBody),
        (status = 409, description = "`turn_running`: a turn works in the shadow workspace; or, with `paths`, the shadow workspace is damaged (discard it all), or another instance writes the session", body = ErrorBody),
        (status = 422, description = "A path is not in the batch or is outside the root (nothing discarded), or unknown fields", body = ErrorBody),
        (status = 500, description = "The shadow folder could not be changed", body = ErrorBody)))]
pub async fn discard(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
    body: Bytes,
) -> ApiResult<Json<ShadowDiscarded>> {
    let session = state.visible_session(&scope, &id).await?;
    let body: ShadowDiscardBody = optional_body(&body)?;
    not_while_running(&state, &id)?;
    let session_id = session.id.clone();
    let root = session.root.clone();
    match body.paths {
        Some(paths) if !paths.is_empty() => {
            let live = state.live(&id);
            let report = live
                .between_turns(&state, async move {
                    let report =
                        blocking(move || Shadow::open(&root, &session_id)?.discard_paths(&paths))
                            .await?;
                    let log: SystemLog = report.log();
                    Ok((report, vec![log.into()]))
                })
                .await?;
            Ok(Json(ShadowDiscarded {
                session: report.session,
                discarded: true,
                paths: Some(report.discarded),
                remaining: report.remaining,
                closed: report.closed,
            }))
        }
        _ => {
            let discarded =
                blocking(move || keel_tools::shadow::discard(&root, Some(&session_id))).await?;
            Ok(Json(ShadowDiscarded {
                session: discarded,
                discarded: true,
                paths: None,
                remaining: Vec::new(),
                closed: true,
            }))
        }
    }
}
