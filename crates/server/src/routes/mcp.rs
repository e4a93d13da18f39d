//! A session's MCP servers: which the server's configuration gives its project, and where each
//! one is (running with its tools, failed and why, or not started before the first turn).

use axum::Json;
use axum::extract::State;
use keel_mcp::{McpManager, ServerStatus};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::extract::ApiPath;
use crate::error::{ApiResult, ErrorBody};
use crate::state::{Caller, SharedState};

/// One tool of an MCP server.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct McpToolView {
    /// The server's own name for it.
    pub name: String,
    /// The name the model calls it by; absent when it is not offered (filtered out by
    /// `enabled_tools`/`disabled_tools`, or its sanitised name collides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_as: Option<String>,
    /// Its description.
    pub description: String,
}

/// One MCP server of a session.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct McpServerView {
    /// Its name in the configuration.
    pub name: String,
    /// How it is reached: the command line or the URL.
    pub transport: String,
    /// `running`, `failed`, `stopped` (not started yet: no turn has run in this process, or
    /// stopped with its session) or `disabled` (`enabled = false`).
    pub state: String,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its tools (while running).
    pub tools: Vec<McpToolView>,
}

/// `GET /v1/sessions/{id}/mcp` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct McpServerList {
    /// The servers, by name.
    pub servers: Vec<McpServerView>,
}

/// The session's MCP servers and their status. They come only from the server's configuration
/// (`[mcp_servers.NAME]`, `[projects.P.mcp_servers.NAME]`) and start with the session's agent.
#[utoipa::path(get, path = "/v1/sessions/{id}/mcp", operation_id = "listMcpServers", tag = "mcp",
    params(("id" = String, Path, description = "Session id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The session's MCP servers", body = McpServerList),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn list(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<McpServerList>> {
    let session = state.visible_session(&scope, &id).await?;
    let manager = state.live_if_any(&id).and_then(|live| live.mcp());
    let reports = match manager {
        Some(manager) => manager.reports(),
        None => {
            // Nothing started here yet: the configured servers, none started (a server that
            // does not check out is failed with the reason, as a start would say).
            let configs = state.config.mcp_servers_for(&session.project_id);
            let mut reports = Vec::new();
            let mut specs = Vec::new();
            for (name, config) in &configs {
                match keel_mcp::ServerSpec::new(name, config) {
                    Ok(spec) => specs.push(spec),
                    Err(e) => reports.push(keel_mcp::ServerReport {
                        name: name.clone(),
                        transport: String::new(),
                        status: ServerStatus::Failed(e.to_string()),
                        tools: Vec::new(),
                    }),
                }
            }
            reports.extend(McpManager::new(&session.root, specs).reports());
            reports.sort_by(|a, b| a.name.cmp(&b.name));
            reports
        }
    };
    Ok(Json(McpServerList {
        servers: reports.into_iter().map(view).collect(),
    }))
}

fn view(report: keel_mcp::ServerReport) -> McpServerView {
    let (state, reason) = match report.status {
        ServerStatus::Disabled => ("disabled", None),
        ServerStatus::Stopped => ("stopped", None),
        ServerStatus::Running => ("running", None),
        ServerStatus::Failed(reason) => ("failed", Some(reason)),
    };
    McpServerView {
        name: report.name,
        transport: report.transport,
        state: state.to_owned(),
        reason,
        tools: report
            .tools
            .into_iter()
            .map(|tool| McpToolView {
                name: tool.name,
                offered_as: tool.offered_as,
                description: tool.description,
            })
            .collect(),
    }
}
