//! Approval rules of a session's project: list them, revoke one.

use std::path::PathBuf;

use axum::Json;
use axum::extract::State;
use keel_tools::RuleSet;
use keel_tools::approval_rules::{
    RuleScope, RulesError, project_rules_path, remove_rule, user_rules_path,
};

use super::extract::ApiPath;
use crate::api::{RuleList, RuleView};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::state::{Caller, SharedState};

/// The user's config folder whose `rules.toml` holds user-wide rules
/// ([`ServerConfig::user_config_dir`](crate::ServerConfig::user_config_dir)).
pub fn user_rules_dir(state: &crate::state::AppState) -> Option<PathBuf> {
    state.config.user_config_dir.clone()
}

pub(super) fn rules_error(error: RulesError) -> ApiError {
    match error {
        RulesError::NoSuchRule { .. } => ApiError::not_found(error.to_string()),
        RulesError::Invalid { .. } => ApiError::unprocessable(error.to_string()),
        RulesError::Io { .. } => ApiError::internal(error.to_string()),
    }
}

/// The approval rules in force for the session's root: the project's, then the user's.
#[utoipa::path(get, path = "/v1/sessions/{id}/rules", operation_id = "listRules", tag = "rules",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The rules, numbered per file", body = RuleList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody),
        (status = 422, description = "A rules file does not parse (file and line named)", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<RuleList>> {
    let session = state.visible_session(&scope, &id).await?;
    let root = session.root.clone();
    let user_dir = user_rules_dir(&state);
    let set = tokio::task::spawn_blocking(move || RuleSet::load(Some(&root), user_dir.as_deref()))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(rules_error)?;
    let mut files = vec![project_rules_path(&session.root).display().to_string()];
    if let Some(dir) = user_rules_dir(&state) {
        files.push(user_rules_path(&dir).display().to_string());
    }
    Ok(Json(RuleList {
        rules: set.rules().iter().map(RuleView::new).collect(),
        files,
    }))
}

/// Revokes rule `index` (from 1) of the project's (`project`) or the user's (`user`) rules
/// file; the other rules and the file's comments are kept.
#[utoipa::path(delete, path = "/v1/sessions/{id}/rules/{scope}/{index}", operation_id = "revokeRule", tag = "rules",
    params(
        ("id" = String, Path, description = "Session id"),
        ("scope" = String, Path, description = "`project` or `user`", pattern = "^(project|user)$"),
        ("index" = u64, Path, description = "The rule's number in its file, from 1", minimum = 1, maximum = 4294967295_u64)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The rule revoked", body = RuleView),
        (status = 400, description = "Bad scope or index in the path", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session, or no such rule", body = ErrorBody),
        (status = 422, description = "Bad scope, or the file does not parse (left as it was)", body = ErrorBody)))]
pub async fn revoke(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath((id, rule_scope, index)): ApiPath<(String, String, usize)>,
) -> ApiResult<Json<RuleView>> {
    let session = state.visible_session(&scope, &id).await?;
    let (file, rule_scope) = match rule_scope.as_str() {
        "project" => (project_rules_path(&session.root), RuleScope::Project),
        "user" => match user_rules_dir(&state) {
            Some(dir) => (user_rules_path(&dir), RuleScope::User),
            None => {
                return Err(ApiError::not_found(
                    "the server has no user config folder for a rules file (set KEEL_CONFIG_DIR)",
                ));
            }
        },
        other => {
            return Err(ApiError::unprocessable(format!(
                "unknown rule scope `{other}` (expected project or user)"
            )));
        }
    };
    let removed = tokio::task::spawn_blocking(move || remove_rule(&file, rule_scope, index))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(rules_error)?;
    Ok(Json(RuleView::new(&removed)))
}
