//! Sessions: create, list, show, and the files of a session's root.

use std::path::{Component, Path, PathBuf};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use keel_store::{NewSession, SessionFilter};

use super::extract::{ApiJson, ApiPath, ApiQuery};
use crate::api::{CreateSession, FileList, ListSessionsQuery, SessionList, SessionView};
use crate::auth::Scope;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::state::{Caller, SharedState};

/// Most files `GET /v1/sessions/{id}/files` lists.
pub const MAX_FILES: usize = 5000;

/// Creates a session.
#[utoipa::path(post, path = "/v1/sessions", operation_id = "createSession", tag = "sessions", request_body = CreateSession,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Created", body = SessionView),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 403, description = "Root not allowed for the project", body = ErrorBody),
        (status = 409, description = "`pull_request` refused by the project's state: not a git work tree, a work tree with changes, a detached HEAD, no remote, the default branch", body = ErrorBody),
        (status = 422, description = "Invalid fields", body = ErrorBody)))]
pub async fn create(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiJson(body): ApiJson<CreateSession>,
) -> ApiResult<(StatusCode, Json<SessionView>)> {
    if body.project_id.trim().is_empty() {
        return Err(ApiError::unprocessable("`project_id` must not be empty"));
    }
    if !scope.sees_project(&body.project_id) {
        return Err(ApiError::forbidden(format!(
            "this token has no access to project `{}`",
            body.project_id
        )));
    }
    let root = allowed_root(&state, &body.project_id, &body.root)?;
    let mut new = NewSession::new(body.project_id.clone(), root);
    new.title = body.title.unwrap_or_default();
    if let Some(model) = body.model.filter(|m| !m.trim().is_empty()) {
        new.model = Some(model);
    }
    if let Some(mode) = body.mode {
        new.mode = Some(mode.as_str().to_owned());
    }
    if body.shadow == Some(true) {
        new.metadata.insert(
            crate::api::SHADOW_KEY.to_owned(),
            serde_json::Value::Bool(true),
        );
    }
    if body.pull_request == Some(true) {
        // Refused now rather than at the first turn: a pull request cannot come from here.
        let options = keel_host::git::GitOptions {
            pull_request: true,
            ..keel_host::git::GitOptions::default()
        };
        keel_host::git::GitWork::prepare(&new.root, options)
            .await
            .map_err(|e| ApiError::conflict(format!("`pull_request`: {e}")))?;
        new.metadata.insert(
            crate::api::PULL_REQUEST_KEY.to_owned(),
            serde_json::Value::Bool(true),
        );
    }
    let session = state.host.create_session(new).await?;
    Ok((StatusCode::CREATED, Json(SessionView::new(session, 0))))
}

/// The canonical root if it lies inside a root allowed for the project.
fn allowed_root(state: &SharedState, project_id: &str, root: &str) -> ApiResult<PathBuf> {
    let requested = Path::new(root);
    if root.trim().is_empty() || !requested.is_absolute() {
        return Err(ApiError::unprocessable("`root` must be an absolute path"));
    }
    let configured = state.config.roots_for(project_id);
    let allowed: Vec<PathBuf> = if configured.is_empty() {
        std::env::current_dir().into_iter().collect()
    } else {
        configured.to_vec()
    };
    let allowed: Vec<PathBuf> = allowed
        .iter()
        .map(|r| r.canonicalize().unwrap_or_else(|_| r.clone()))
        .collect();
    match requested.canonicalize() {
        Ok(canonical) => {
            if allowed.iter().any(|a| canonical.starts_with(a)) {
                if canonical.is_dir() {
                    Ok(canonical)
                } else {
                    Err(ApiError::unprocessable(format!("`{root}` is not a folder")))
                }
            } else {
                Err(ApiError::forbidden(format!(
                    "`{root}` is not inside a workspace root allowed for project `{project_id}`"
                )))
            }
        }
        Err(_) => {
            let lexical = normalize(requested);
            if allowed.iter().any(|a| lexical.starts_with(a)) {
                Err(ApiError::unprocessable(format!("`{root}` does not exist")))
            } else {
                Err(ApiError::forbidden(format!(
                    "`{root}` is not inside a workspace root allowed for project `{project_id}`"
                )))
            }
        }
    }
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Lists sessions, newest first.
#[utoipa::path(get, path = "/v1/sessions", operation_id = "listSessions", tag = "sessions", params(ListSessionsQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Sessions visible to the token", body = SessionList),
        (status = 400, description = "Bad query", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiQuery(query): ApiQuery<ListSessionsQuery>,
) -> ApiResult<Json<SessionList>> {
    let limit = query.limit.unwrap_or(50).clamp(1, 500) as usize;
    if let Some(project) = &query.project_id
        && !scope.sees_project(project)
    {
        return Ok(Json(SessionList {
            sessions: Vec::new(),
        }));
    }
    let mut filter = match &query.project_id {
        Some(project) => SessionFilter::project(project.clone()),
        None => SessionFilter::all(),
    };
    if matches!(scope, Scope::All) || query.project_id.is_some() {
        filter = filter.with_limit(limit as u32);
    }
    let sessions = state.store.list_sessions(&filter).await?;
    let mut out = Vec::new();
    for session in sessions
        .into_iter()
        .filter(|s| scope.sees_project(&s.project_id))
        .take(limit)
    {
        let last_seq = state.store.last_seq(&session.id).await?;
        out.push(SessionView::new(session, last_seq));
    }
    Ok(Json(SessionList { sessions: out }))
}

/// One session.
#[utoipa::path(get, path = "/v1/sessions/{id}", operation_id = "getSession", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The session", body = SessionView),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn get(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<SessionView>> {
    let session = state.visible_session(&scope, &id).await?;
    let last_seq = state.store.last_seq(&id).await?;
    Ok(Json(SessionView::new(session, last_seq)))
}

/// The files of the session's root (gitignore-aware, `.keel/` excluded, at most 5,000).
#[utoipa::path(get, path = "/v1/sessions/{id}/files", operation_id = "listSessionFiles", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Files, sorted", body = FileList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn files(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<FileList>> {
    let session = state.visible_session(&scope, &id).await?;
    let root = session.root.clone();
    let list = tokio::task::spawn_blocking(move || list_files(&root))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(list))
}

fn list_files(root: &Path) -> FileList {
    let mut files = Vec::new();
    let mut truncated = false;
    for entry in keel_tools::walk::walker(root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        if files.len() == MAX_FILES {
            truncated = true;
            break;
        }
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        files.push(parts.join("/"));
    }
    files.sort();
    FileList { files, truncated }
}
