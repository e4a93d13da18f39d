//! A project's Activity Timeline: the seed 003 projection of its sessions' stored events,
//! through the window that keeps the newest events and never orphans half of a move; and the
//! import of a legacy log into it.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode, header};
use keel_events::projection::{TimelineWindow, to_timeline_all};
use keel_store::{EventRange, LogImportRequest, SessionFilter, import_log};

use super::extract::{ApiPath, ApiQuery};
use crate::api::{BadLineView, ImportLogQuery, ImportLogResult, Timeline, TimelineQuery};
use crate::error::{ApiError, ApiResult, ErrorBody, ErrorCode};
use crate::state::{Caller, SharedState};

/// Sessions of a project whose events feed the timeline (newest first).
const TIMELINE_SESSIONS: u32 = 50;
/// Stored events read per session (its newest).
const EVENTS_PER_SESSION: u64 = 5000;

/// The project's timeline, oldest first.
#[utoipa::path(get, path = "/v1/projects/{project_id}/timeline", operation_id = "projectTimeline", tag = "timeline",
    params(("project_id" = String, Path, description = "Project id"), TimelineQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Timeline events", body = Timeline),
        (status = 400, description = "Bad query", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Project not visible to the token", body = ErrorBody)))]
pub async fn timeline(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(project_id): ApiPath<String>,
    ApiQuery(query): ApiQuery<TimelineQuery>,
) -> ApiResult<Json<Timeline>> {
    if !scope.sees_project(&project_id) {
        return Err(ApiError::not_found(format!("no project `{project_id}`")));
    }
    let limit = query.limit.unwrap_or(100).clamp(1, 1000) as usize;
    let sessions = state
        .store
        .list_sessions(&SessionFilter::project(project_id.clone()).with_limit(TIMELINE_SESSIONS))
        .await?;
    let mut records = Vec::new();
    for session in &sessions {
        let last = state.store.last_seq(&session.id).await?;
        let after = last.saturating_sub(EVENTS_PER_SESSION);
        let events = state
            .store
            .read_events(&session.id, EventRange::after(after))
            .await?;
        for event in &events {
            for record in to_timeline_all(event) {
                records.push((
                    record.timestamp.clone(),
                    session.id.clone(),
                    event.seq,
                    record,
                ));
            }
        }
    }
    records.sort_by(|a, b| (&a.0, &a.1, a.2).cmp(&(&b.0, &b.1, b.2)));
    let mut window = TimelineWindow::with_capacity(limit);
    for (_, _, _, record) in records {
        window.push(record);
    }
    let events = window
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(Timeline { events }))
}

/// Whether the request says its body is `text/plain` (any parameters, such as a charset).
fn is_plain_text(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("text/plain"))
}

/// Largest log `POST /v1/projects/{project_id}/timeline/import` accepts (32 MiB).
pub const IMPORT_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// Imports a legacy log (seed 003 §8: `[SelfRepairLoop] Attempt i/n: …`, `[move] a → b`,
/// anything else as a raw log line) as a new completed session of the project, so its lines
/// show on the timeline. Bad lines (not UTF-8, a NUL byte, longer than 16 KiB) are reported by
/// number and skipped; the rest are stored together or not at all.
#[utoipa::path(post, path = "/v1/projects/{project_id}/timeline/import", operation_id = "importTimelineLog", tag = "timeline",
    params(("project_id" = String, Path, description = "Project id"), ImportLogQuery),
    request_body(content = String, content_type = "text/plain", description = "The log, one entry a line (at most 32 MiB)"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "What was imported and which lines were skipped", body = ImportLogResult),
        (status = 400, description = "Bad query or unreadable body", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Project not visible to the token", body = ErrorBody),
        (status = 413, description = "Log larger than 32 MiB", body = ErrorBody),
        (status = 415, description = "No body, or not `Content-Type: text/plain`", body = ErrorBody)))]
pub async fn import(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(project_id): ApiPath<String>,
    ApiQuery(query): ApiQuery<ImportLogQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<ImportLogResult>> {
    if !scope.sees_project(&project_id) {
        return Err(ApiError::not_found(format!("no project `{project_id}`")));
    }
    if !is_plain_text(&headers) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "expected the log as the body, with `Content-Type: text/plain`",
        ));
    }
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!("the log is larger than {IMPORT_BODY_LIMIT} bytes"),
            )
        } else {
            ApiError::bad_request(rejection.body_text())
        }
    })?;
    let root = state
        .config
        .roots_for(&project_id)
        .first()
        .cloned()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let request = LogImportRequest {
        project_id,
        root,
        source: query
            .source
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "upload".to_owned()),
    };
    let report = import_log(&*state.store, &request, &body).await?;
    Ok(Json(ImportLogResult {
        session_id: report.session_id,
        imported: report.imported,
        blank_lines: report.blank_lines,
        bad_lines: report
            .bad_lines
            .into_iter()
            .map(|bad| BadLineView {
                line: bad.line,
                error: bad.error,
            })
            .collect(),
    }))
}
