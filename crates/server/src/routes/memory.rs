//! A session's project memory (`.keel/memory.json` under its root): list the entries, forget
//! one — what `keel memory list` and `keel memory forget` do, over HTTP.

use axum::Json;
use axum::extract::State;
use keel_context::{MemoryError, MemoryStore};

use super::extract::ApiPath;
use crate::api::{MemoryEntryView, MemoryList};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::state::{Caller, SharedState};

/// The API error for a memory failure; every message names the file.
fn memory_error(error: MemoryError) -> ApiError {
    match error {
        MemoryError::UnknownId { id, path } => ApiError::not_found(format!(
            "no memory entry `{id}` in {} (list them with GET …/memory)",
            path.display()
        )),
        MemoryError::Corrupt { .. } | MemoryError::NewerVersion { .. } => {
            ApiError::unprocessable(error.to_string())
        }
        MemoryError::Io { .. } | MemoryError::Serialize(_) => ApiError::internal(error.to_string()),
    }
}

/// Runs blocking memory work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, MemoryError> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(memory_error)
}

/// The project's memory: every entry the model recorded (its `remember` tool, the
/// end-of-session distillation), the one recorded longest ago first. Reading never changes the
/// file, not even a corrupt one.
#[utoipa::path(get, path = "/v1/sessions/{id}/memory", operation_id = "listMemory", tag = "memory",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The entries (none when nothing is remembered yet)", body = MemoryList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody),
        (status = 422, description = "The memory file is corrupt or of a newer format (file named; left as it is)", body = ErrorBody),
        (status = 500, description = "The memory file cannot be read (file named)", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<MemoryList>> {
    let session = state.visible_session(&scope, &id).await?;
    let store = MemoryStore::for_project(&session.root);
    let file = store.path().display().to_string();
    let memory = blocking(move || store.read()).await?;
    Ok(Json(MemoryList {
        entries: memory.entries().iter().map(MemoryEntryView::from).collect(),
        file,
    }))
}

/// Forgets one entry of the project's memory; the others are kept. An unknown id leaves the
/// file as it was.
#[utoipa::path(delete, path = "/v1/sessions/{id}/memory/{entry_id}", operation_id = "forgetMemory", tag = "memory",
    params(
        ("id" = String, Path, description = "Session id"),
        ("entry_id" = String, Path, description = "The entry's id, e.g. `mem_3f2a9c1b`")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The entry forgotten", body = MemoryEntryView),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session, or no entry with this id (id named)", body = ErrorBody),
        (status = 422, description = "The memory file is corrupt or of a newer format (file named; left as it is)", body = ErrorBody),
        (status = 500, description = "The memory file cannot be read or written (file named)", body = ErrorBody)))]
pub async fn forget(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath((id, entry_id)): ApiPath<(String, String)>,
) -> ApiResult<Json<MemoryEntryView>> {
    let session = state.visible_session(&scope, &id).await?;
    let store = MemoryStore::for_project(&session.root);
    let entry = blocking(move || store.forget(entry_id.trim())).await?;
    Ok(Json(MemoryEntryView::from(&entry)))
}
