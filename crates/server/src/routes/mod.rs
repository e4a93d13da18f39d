//! The HTTP routes and the router that binds them.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};

use crate::error::{ApiError, ErrorCode};
use crate::state::SharedState;

pub mod checkpoints;
pub mod commands;
pub mod events;
pub mod extract;
pub mod file_runs;
pub mod health;
pub mod interactions;
pub mod mcp;
pub mod memory;
pub mod rules;
pub mod sessions;
pub mod shadow;
pub mod stream_tokens;
pub mod timeline;
pub mod trace;
pub mod turns;

/// The server's router over `state`.
pub fn router(state: SharedState) -> Router {
    let body_limit = state.config.body_limit;
    Router::new()
        .route("/", get(index))
        .route("/assets/{*path}", get(asset))
        .route("/healthz", get(health::healthz))
        .route("/openapi.json", get(health::openapi))
        .route("/v1/sessions", post(sessions::create).get(sessions::list))
        .route("/v1/sessions/{id}", get(sessions::get))
        .route("/v1/sessions/{id}/files", get(sessions::files))
        .route(
            "/v1/sessions/{id}/turns",
            post(turns::create)
                .layer(DefaultBodyLimit::max(
                    body_limit.max(turns::TURN_BODY_LIMIT),
                ))
                .get(turns::list),
        )
        .route("/v1/sessions/{id}/cancel", post(turns::cancel))
        .route("/v1/sessions/{id}/events", get(events::events))
        .route("/v1/sessions/{id}/ws", get(events::ws))
        .route(
            "/v1/sessions/{id}/approvals/{approval_id}",
            post(interactions::approve),
        )
        .route(
            "/v1/sessions/{id}/questions/{question_id}",
            post(interactions::answer),
        )
        .route("/v1/sessions/{id}/file-runs", post(file_runs::create))
        .route("/v1/sessions/{id}/checkpoints", get(checkpoints::list))
        .route("/v1/sessions/{id}/rewind", post(checkpoints::rewind))
        .route("/v1/sessions/{id}/fork", post(checkpoints::fork))
        .route("/v1/sessions/{id}/shadow", get(shadow::get))
        .route("/v1/sessions/{id}/shadow/apply", post(shadow::apply))
        .route("/v1/sessions/{id}/shadow/discard", post(shadow::discard))
        .route("/v1/sessions/{id}/rules", get(rules::list))
        .route("/v1/sessions/{id}/mcp", get(mcp::list))
        .route("/v1/sessions/{id}/commands", get(commands::list))
        .route("/v1/sessions/{id}/memory", get(memory::list))
        .route(
            "/v1/sessions/{id}/memory/{entry_id}",
            delete(memory::forget),
        )
        .route(
            "/v1/sessions/{id}/rules/{scope}/{index}",
            delete(rules::revoke),
        )
        .route(
            "/v1/projects/{project_id}/timeline",
            get(timeline::timeline),
        )
        .route(
            "/v1/projects/{project_id}/timeline/import",
            post(timeline::import).layer(DefaultBodyLimit::max(timeline::IMPORT_BODY_LIMIT)),
        )
        .route("/v1/stream-tokens", post(stream_tokens::create))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn(trace::trace_request))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    )
}

fn serve_asset(path: &str) -> Response {
    match crate::assets::get(path) {
        Some(asset) => (
            [
                (header::CONTENT_TYPE, asset.content_type),
                (header::CACHE_CONTROL, cache_control(path)),
            ],
            asset.bytes,
        )
            .into_response(),
        None => ApiError::not_found(format!("no asset `{path}`")).into_response(),
    }
}

fn cache_control(path: &str) -> &'static str {
    if path.is_empty() || path.ends_with(".html") {
        "no-cache"
    } else {
        "public, max-age=31536000, immutable"
    }
}

async fn index() -> Response {
    serve_asset("")
}

async fn asset(axum::extract::Path(path): axum::extract::Path<String>) -> Response {
    serve_asset(&format!("assets/{path}"))
}
