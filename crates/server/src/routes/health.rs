//! `GET /healthz` and `GET /openapi.json`.

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;

use crate::api::Health;
use crate::error::ErrorBody;
use crate::state::{Caller, SharedState};

/// Liveness and the store backend.
#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "server",
    responses((status = 200, description = "The server is up", body = Health)))]
pub async fn healthz(State(state): State<SharedState>) -> Json<Health> {
    Json(Health {
        status: "ok".to_owned(),
        store: state.store.backend().to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    })
}

/// The OpenAPI document.
#[utoipa::path(get, path = "/openapi.json", operation_id = "openapi", tag = "server",
    security(("bearer" = [])),
    responses((status = 200, description = "OpenAPI 3.1 document"),
        (status = 401, description = "No or bad token", body = ErrorBody)))]
pub async fn openapi(_caller: Caller) -> impl IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        crate::openapi::openapi_json(),
    )
}
