//! A project's Activity Timeline: the seed 003 projection of its sessions' stored events,
//! through the window that keeps the newest events and never orphans half of a move.

use axum::Json;
use axum::extract::State;
use keel_events::projection::{TimelineWindow, to_timeline_all};
use keel_store::{EventRange, SessionFilter};

use super::extract::{ApiPath, ApiQuery};
use crate::api::{Timeline, TimelineQuery};
use crate::error::{ApiError, ApiResult, ErrorBody};
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
