//! The tools the model calls: one `mcp__SERVER__TOOL` per server tool, and seed 004's
//! `use_mcp_tool` and `access_mcp_resource` (the only way in the XML tool format).

use std::sync::Weak;

use async_trait::async_trait;
use keel_events::ApprovalKind;
use keel_protocol::{ApprovalPolicy, ToolResult};
use keel_tools::{Tool, ToolContext};
use serde_json::{Value, json};

use crate::config::ServerApproval;
use crate::manager::{Inner, ServerTool, intern};

/// Name of the generic call tool.
pub const USE_MCP_TOOL: &str = "use_mcp_tool";

/// Name of the resource tool.
pub const ACCESS_MCP_RESOURCE: &str = "access_mcp_resource";

/// One tool of one server, offered under its `mcp__SERVER__TOOL` name.
pub(crate) struct McpTool {
    inner: Weak<Inner>,
    server: String,
    tool: String,
    name: &'static str,
    description: &'static str,
    schema: Value,
}

impl McpTool {
    pub(crate) fn new(
        inner: Weak<Inner>,
        server: &str,
        tool: &ServerTool,
        name: &'static str,
    ) -> Self {
        let description = if tool.description.trim().is_empty() {
            format!("Tool `{}` of MCP server `{server}`.", tool.name)
        } else {
            format!("{} (MCP server `{server}`)", tool.description.trim())
        };
        let mut schema = tool.input_schema.clone();
        if let Some(map) = schema.as_object_mut() {
            map.entry("type").or_insert_with(|| json!("object"));
            map.remove("$schema");
        }
        Self {
            inner,
            server: server.to_owned(),
            tool: tool.name.clone(),
            name,
            description: intern(description),
            schema,
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn parameters(&self) -> Value {
        self.schema.clone()
    }

    async fn call(&self, ctx: &ToolContext, arguments: Value) -> ToolResult {
        call(&self.inner, ctx, &self.server, &self.tool, arguments).await
    }

    fn mcp_server(&self, _arguments: &Value) -> Option<String> {
        Some(self.server.clone())
    }

    fn native_only(&self) -> bool {
        true
    }
}

/// `use_mcp_tool(server_name, tool_name, arguments)`.
pub(crate) struct UseMcpTool {
    inner: Weak<Inner>,
    description: &'static str,
}

impl UseMcpTool {
    /// The tool, its description listing `catalogue` (server, tool) so that a model without
    /// native tool calls knows what there is.
    pub(crate) fn new(inner: Weak<Inner>, catalogue: &[(String, ServerTool)]) -> Self {
        let mut description = String::from(
            "Call a tool of a connected MCP server: `server_name`, `tool_name` and `arguments` (a JSON object matching the tool's input schema).",
        );
        if catalogue.is_empty() {
            description.push_str(" No MCP server tools are available now.");
        } else {
            description.push_str(" Available tools:");
            for (server, tool) in catalogue {
                let first_line = tool.description.lines().next().unwrap_or_default();
                description.push_str(&format!(
                    "\n- server `{server}`, tool `{}`: {first_line} Input schema: {}",
                    tool.name, tool.input_schema
                ));
            }
        }
        Self {
            inner,
            description: intern(description),
        }
    }
}

#[async_trait]
impl Tool for UseMcpTool {
    fn name(&self) -> &'static str {
        USE_MCP_TOOL
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "server_name": {"type": "string", "description": "The MCP server's name."},
                "tool_name": {"type": "string", "description": "The tool's name on that server."},
                "arguments": {"type": "object", "description": "The tool's arguments."}
            },
            "required": ["server_name", "tool_name"]
        })
    }

    async fn call(&self, ctx: &ToolContext, arguments: Value) -> ToolResult {
        let arguments = object(arguments);
        let (Some(server), Some(tool)) = (
            arguments.get("server_name").and_then(Value::as_str),
            arguments.get("tool_name").and_then(Value::as_str),
        ) else {
            return ToolResult::error(
                "use_mcp_tool needs `server_name` and `tool_name` (strings) and `arguments` (an object).",
            );
        };
        let tool_args = arguments.get("arguments").cloned().unwrap_or(Value::Null);
        call(&self.inner, ctx, server, tool, tool_args).await
    }

    fn mcp_server(&self, arguments: &Value) -> Option<String> {
        object(arguments.clone())
            .get("server_name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

/// `access_mcp_resource(server_name, uri)`.
pub(crate) struct AccessMcpResource {
    inner: Weak<Inner>,
}

impl AccessMcpResource {
    pub(crate) fn new(inner: Weak<Inner>) -> Self {
        Self { inner }
    }
}

#[async_trait]
impl Tool for AccessMcpResource {
    fn name(&self) -> &'static str {
        ACCESS_MCP_RESOURCE
    }

    fn description(&self) -> &'static str {
        "Read a resource (a file, a record, a page) a connected MCP server offers, by the server's name and the resource's URI."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "server_name": {"type": "string", "description": "The MCP server's name."},
                "uri": {"type": "string", "description": "The resource's URI."}
            },
            "required": ["server_name", "uri"]
        })
    }

    async fn call(&self, _ctx: &ToolContext, arguments: Value) -> ToolResult {
        let arguments = object(arguments);
        let (Some(server), Some(uri)) = (
            arguments.get("server_name").and_then(Value::as_str),
            arguments.get("uri").and_then(Value::as_str),
        ) else {
            return ToolResult::error(
                "access_mcp_resource needs `server_name` and `uri` (strings).",
            );
        };
        let Some(inner) = self.inner.upgrade() else {
            return ToolResult::error("The MCP servers of this session have stopped.");
        };
        crate::McpManager::from_inner(inner)
            .read_resource(server, uri)
            .await
    }

    fn mcp_server(&self, arguments: &Value) -> Option<String> {
        object(arguments.clone())
            .get("server_name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

/// Arguments as an object (models sometimes send the object as a JSON string).
fn object(arguments: Value) -> serde_json::Map<String, Value> {
    match arguments {
        Value::Object(map) => map,
        Value::String(text) => match serde_json::from_str(&text) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        },
        _ => serde_json::Map::new(),
    }
}

/// Whether a call of `tool` needs a person's yes: the tool's own setting, the server's, else
/// its annotations (read-only and not destructive: no), under the session's policy.
pub(crate) fn needs_approval(
    session: ApprovalPolicy,
    configured: Option<ServerApproval>,
    tool: Option<&ServerTool>,
) -> Approval {
    let dangerous = tool.is_none_or(|t| !t.read_only);
    match (session, configured) {
        (_, Some(ServerApproval::Always)) | (ApprovalPolicy::Always, _) => Approval::Ask,
        (_, Some(ServerApproval::Never)) | (ApprovalPolicy::Never, _) => Approval::Run,
        (ApprovalPolicy::DenyDangerous, _) if dangerous => Approval::Refuse,
        _ if dangerous => Approval::Ask,
        _ => Approval::Run,
    }
}

/// What the approval check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approval {
    Run,
    Ask,
    Refuse,
}

async fn call(
    inner: &Weak<Inner>,
    ctx: &ToolContext,
    server: &str,
    tool: &str,
    arguments: Value,
) -> ToolResult {
    let Some(inner) = inner.upgrade() else {
        return ToolResult::error("The MCP servers of this session have stopped.");
    };
    let configured = inner
        .spec(server)
        .and_then(|spec| spec.tool_approval.get(tool).copied().or(spec.approval));
    let known = inner.server_tool(server, tool);
    match needs_approval(ctx.approval, configured, known.as_ref()) {
        Approval::Run => {}
        Approval::Refuse => {
            return ToolResult::error(format!(
                "Refused to run the MCP tool `{tool}` of server `{server}`: it may change things and the approval policy refuses such calls."
            ));
        }
        Approval::Ask => {
            let subject = format!("{server}.{tool} {arguments}");
            let reason = match &known {
                Some(t) if t.destructive => "an MCP tool that may change or delete things",
                _ => "an MCP tool call",
            };
            let reply = ctx
                .request_approval(ApprovalKind::Tool, subject, reason)
                .await;
            if reply.decision == keel_events::ApprovalDecision::Reject {
                let why = reply.reason.unwrap_or_default();
                return ToolResult::error(format!(
                    "The user denied the call of MCP tool `{tool}` of server `{server}`. {why}"
                ));
            }
        }
    }
    crate::McpManager::from_inner(inner)
        .call_tool_cancellable(server, tool, arguments, &ctx.cancel)
        .await
}
