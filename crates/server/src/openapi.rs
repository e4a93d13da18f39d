//! The OpenAPI 3.1 document of the HTTP contract, generated with utoipa and committed as
//! `crates/server/openapi.json`.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::api;
use crate::error::{ErrorBody, ErrorDetail};
use crate::routes::{
    checkpoints, commands, events, file_runs, health, interactions, mcp, memory, rules, sessions,
    shadow, stream_tokens, timeline, turns,
};

/// The API description.
#[derive(OpenApi)]
#[openapi(
    info(title = "keel-server", description = "Keel's HTTP API: sessions, turns, approvals, live event streams and the Activity Timeline."),
    paths(
        health::healthz, health::openapi,
        sessions::create, sessions::list, sessions::get, sessions::files,
        turns::create, turns::list, turns::cancel,
        events::events, events::ws,
        interactions::approve, interactions::answer,
        file_runs::create, timeline::timeline, timeline::import, stream_tokens::create,
        rules::list, rules::revoke, mcp::list, commands::list, memory::list, memory::forget,
        checkpoints::list, checkpoints::rewind, checkpoints::fork,
        shadow::get, shadow::apply, shadow::discard,
    ),
    components(schemas(
        ErrorBody, ErrorDetail, api::Health, api::CreateSession, api::SessionMode,
        api::SessionView, api::UsageView, api::SessionList, api::CreateTurn, api::ImageUpload, api::TurnView, api::TurnCreated,
        api::TurnList, api::Cancelled, api::EventPage, api::ApprovalBody, api::Decision,
        api::ApprovalResult, api::AnswerBody, api::AnswerResult, api::FileRunBody,
        api::FileRunStarted, api::Timeline, api::StreamTokenBody, api::StreamToken,
        api::FileList, api::RuleView, api::RuleList, api::ImportLogResult, api::BadLineView,
        mcp::McpServerList, mcp::McpServerView, mcp::McpToolView,
        commands::CommandList, commands::CommandView,
        api::MemoryList, api::MemoryEntryView,
        api::CheckpointView, api::CheckpointList, api::RewindBody, api::RewindResult,
        api::ForkBody,
        api::ShadowBatchView, api::StagedChangeView, api::ShadowApplyBody, api::ShadowApplyView, api::ShadowDiscardBody,
        api::ShadowConflictView, api::ShadowDiscarded,
    )),
    modifiers(&Security, &SessionLinks),
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "stream_token",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::new("token"))),
        );
    }
}

/// Links from `POST /v1/sessions`'s `201` to every operation under `/v1/sessions/{id}`, with
/// `id` taken from the created session (`$response.body#/id`), so a stateful client or tester
/// can follow a new session to what it offers.
struct SessionLinks;

impl Modify for SessionLinks {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::link::LinkBuilder;

        const PREFIX: &str = "/v1/sessions/{id}";
        let mut links = Vec::new();
        for (path, item) in &openapi.paths.paths {
            if !path.starts_with(PREFIX) {
                continue;
            }
            let escaped = path.replace('~', "~0").replace('/', "~1");
            for (method, operation) in [
                ("get", &item.get),
                ("post", &item.post),
                ("put", &item.put),
                ("patch", &item.patch),
                ("delete", &item.delete),
            ] {
                let Some(operation) = operation else { continue };
                let name = operation
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| format!("{method} {path}"));
                let link = LinkBuilder::new()
                    .operation_ref(format!("#/paths/{escaped}/{method}"))
                    .parameter("id", "$response.body#/id")
                    .description(format!("`{name}` of the created session"))
                    .build();
                links.push((
                    format!("{method}{}", link_name(&path[PREFIX.len()..])),
                    link,
                ));
            }
        }
        let created = openapi
            .paths
            .paths
            .get_mut("/v1/sessions")
            .and_then(|item| item.post.as_mut())
            .and_then(|op| op.responses.responses.get_mut("201"));
        if let Some(RefOr::T(response)) = created {
            for (name, link) in links {
                response.links.insert(name, RefOr::T(link));
            }
        }
    }
}

/// `/turns/{turn_id}` → `TurnsTurnId`; `` → `Session`.
fn link_name(rest: &str) -> String {
    let mut name = String::new();
    for part in rest.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    if name.is_empty() {
        "Session".to_owned()
    } else {
        name
    }
}

/// Constraints utoipa has no attribute for, added to the serialized document: a `modify`
/// decision needs its `modified` replacement (JSON Schema `if`/`then`); an optional header is
/// absent or a value, never `null`.
fn refine(doc: &mut serde_json::Value) {
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        for item in paths.values_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for operation in item.values_mut() {
                let Some(parameters) = operation
                    .get_mut("parameters")
                    .and_then(|p| p.as_array_mut())
                else {
                    continue;
                };
                for parameter in parameters {
                    if parameter.get("in").and_then(|i| i.as_str()) != Some("header") {
                        continue;
                    }
                    if let Some(types) = parameter.pointer_mut("/schema/type")
                        && let Some(list) = types.as_array()
                    {
                        let kept: Vec<serde_json::Value> =
                            list.iter().filter(|t| *t != "null").cloned().collect();
                        *types = match kept.as_slice() {
                            [one] => one.clone(),
                            _ => serde_json::Value::Array(kept),
                        };
                    }
                }
            }
        }
    }
    if let Some(approval) = doc.pointer_mut("/components/schemas/ApprovalBody")
        && let Some(approval) = approval.as_object_mut()
    {
        approval.insert(
            "if".to_owned(),
            serde_json::json!({
                "properties": {"decision": {"const": "modify"}},
                "required": ["decision"]
            }),
        );
        approval.insert(
            "then".to_owned(),
            serde_json::json!({
                "required": ["modified"],
                "properties": {"modified": {"not": {"type": "null"}}}
            }),
        );
    }
}

/// The OpenAPI document as pretty JSON with a final newline (what `openapi.json` holds).
pub fn openapi_json() -> String {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    let json = serde_json::to_value(&doc).and_then(|mut value| {
        refine(&mut value);
        serde_json::to_string_pretty(&value)
    });
    match json {
        Ok(mut json) => {
            json.push('\n');
            json
        }
        Err(e) => format!("{{\"error\": \"{e}\"}}\n"),
    }
}
