//! A session's custom commands (issue 26 §3): the `/NAME ARGS` prompt templates of its project
//! (`.keel/commands/`, `.claude/commands/`) and of the server's user config folder, listed for
//! the page, and expanded when a turn's input names one.

use axum::Json;
use axum::extract::State;
use keel_extensions::{Commands, Sources};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::extract::ApiPath;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::state::{AppState, Caller, SharedState};

/// One custom command.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CommandView {
    /// What follows the `/`.
    pub name: String,
    /// Its `description` (else the first line of its template).
    pub description: String,
    /// Its `argument-hint`, what to type after the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// The model its turns run with (`model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The only tools its turns are offered (`allowed-tools`, as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// `project` or `user`.
    pub scope: String,
}

/// `GET /v1/sessions/{id}/commands` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CommandList {
    /// The commands, by name.
    pub commands: Vec<CommandView>,
    /// The template files skipped, each naming its file and line and why.
    pub warnings: Vec<String>,
}

/// The session's custom commands, found in its root and the server's user config folder each
/// time they are asked for (a template added while the session lives is there at once). A turn
/// whose input is `/NAME ARGS` runs the expanded template.
#[utoipa::path(get, path = "/v1/sessions/{id}/commands", operation_id = "listCommands", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The session's custom commands", body = CommandList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<CommandList>> {
    let session = state.visible_session(&scope, &id).await?;
    let (commands, warnings) = discover(&state, &session.root);
    Ok(Json(CommandList {
        commands: commands
            .all()
            .iter()
            .map(|c| CommandView {
                name: c.name.clone(),
                description: c.description.clone(),
                argument_hint: c.argument_hint.clone(),
                model: c.model.clone(),
                allowed_tools: c.allowed_tools.clone(),
                scope: c.scope.as_str().to_owned(),
            })
            .collect(),
        warnings: warnings.iter().map(ToString::to_string).collect(),
    }))
}

/// A turn's input with the custom command it names expanded, and the command's settings for
/// the turn; any other input as it is. A template that cannot be expanded is a 422 naming its
/// file and line (nothing runs).
pub fn expand_input(
    state: &AppState,
    root: &std::path::Path,
    input: String,
) -> ApiResult<(String, Option<keel_engine::TurnOverrides>)> {
    if !input.trim_start().starts_with('/') {
        return Ok((input, None));
    }
    let (commands, _) = discover(state, root);
    match commands.expand_prompt(&input) {
        None => Ok((input, None)),
        Some((command, Ok(prompt))) => Ok((
            prompt,
            Some(keel_engine::TurnOverrides::of_command(command)),
        )),
        Some((command, Err(e))) => Err(ApiError::unprocessable(format!(
            "/{} not run: {e}",
            command.name
        ))),
    }
}

fn discover(state: &AppState, root: &std::path::Path) -> (Commands, Vec<keel_extensions::Warning>) {
    let sources = Sources::new(root, state.config.user_config_dir.clone());
    Commands::discover(&sources, &[])
}
