//! File runs: a script of the session's root run on request, reported on the session's stream.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use super::extract::{ApiJson, ApiPath};
use crate::api::{FileRunBody, FileRunStarted};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::state::{Caller, SharedState};

/// Starts a file run; its `exec.file.*` events go to the session's stream.
#[utoipa::path(post, path = "/v1/sessions/{id}/file-runs", operation_id = "createFileRun", tag = "file-runs",
    request_body = FileRunBody,
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Started", body = FileRunStarted),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session, or no such file in its root", body = ErrorBody),
        (status = 409, description = "`conflict`: another server instance writes the session (it is named)", body = ErrorBody),
        (status = 422, description = "Not a runnable file inside the root, or an argument with a NUL character", body = ErrorBody)))]
pub async fn create(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<FileRunBody>,
) -> ApiResult<(StatusCode, Json<FileRunStarted>)> {
    let session = state.visible_session(&scope, &id).await?;
    if body.args.iter().any(|a| a.contains('\0')) {
        return Err(ApiError::unprocessable(
            "`args` must not contain NUL characters",
        ));
    }
    if body.path.is_empty() {
        return Err(ApiError::unprocessable("`path` must not be empty"));
    }
    let live = state.live(&id);
    let run_id = live
        .start_file_run(&state, session.root.clone(), body.path, body.args)
        .await?;
    Ok((StatusCode::ACCEPTED, Json(FileRunStarted { run_id })))
}
