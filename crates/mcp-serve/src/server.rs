//! The rmcp server handler: the built-in tools and `keel_task`.

use std::path::PathBuf;
use std::str::FromStr as _;
use std::sync::Arc;

use keel_events::{AgentStatus, EventHandler};
use keel_protocol::{ApprovalPolicy, CallContext, Mode, ToolService};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt as _};

use crate::approval::ClientApprover;
use crate::progress::ProgressStream;
use crate::task::{TaskArgs, TaskContext, TaskRequest, TaskRunner};
use crate::tool_result::tool_result_to_mcp;

/// The name of the tool that runs a whole agent turn.
pub const TASK_TOOL: &str = "keel_task";

/// Built-in tools that only read: offered with `readOnlyHint`.
const READ_ONLY: &[&str] = &[
    "read_file",
    "list_files",
    "search_files",
    "list_code_definition_names",
    "get_project_structure",
];

/// Why the server stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The client never completed the MCP handshake.
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The connection broke while serving.
    #[error("the MCP connection failed: {0}")]
    Connection(String),
}

/// Keel's MCP server for one workspace.
#[derive(Clone)]
pub struct McpServer {
    root: PathBuf,
    tools: Arc<dyn ToolService>,
    approval: ApprovalPolicy,
    runner: Option<Arc<dyn TaskRunner>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("root", &self.root)
            .field("approval", &self.approval)
            .field("keel_task", &self.runner.is_some())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server offering `tools` (keel-tools' `ServedTools` for the built-ins), which are
    /// confined to `root` (canonical) and gated by `approval`; both are named to the client.
    pub fn new(root: PathBuf, approval: ApprovalPolicy, tools: Arc<dyn ToolService>) -> Self {
        Self {
            root,
            tools,
            approval,
            runner: None,
        }
    }

    /// The same server also offering `keel_task`, run by `runner`.
    pub fn with_task_runner(mut self, runner: Arc<dyn TaskRunner>) -> Self {
        self.runner = Some(runner);
        self
    }

    /// Every tool offered, built-ins first.
    pub fn tools(&self) -> Vec<Tool> {
        let mut tools: Vec<Tool> = self
            .tools
            .specs()
            .into_iter()
            .map(|spec| {
                let schema = match spec.parameters {
                    serde_json::Value::Object(map) => map,
                    _ => JsonObject::new(),
                };
                let read_only = READ_ONLY.contains(&spec.name.as_str());
                let mut annotations = ToolAnnotations::new().read_only(read_only);
                if !read_only {
                    annotations = annotations.destructive(spec.name != "execute_command");
                }
                Tool::new(spec.name, spec.description, Arc::new(schema))
                    .with_annotations(annotations)
            })
            .collect();
        if self.runner.is_some() {
            let schema = match serde_json::to_value(schemars::schema_for!(TaskArgs)) {
                Ok(serde_json::Value::Object(map)) => map,
                _ => JsonObject::new(),
            };
            tools.push(Tool::new(
                TASK_TOOL,
                "Run a whole Keel agent turn on the workspace: the model works on `task` with \
                 Keel's tools until it is done. Returns the final answer and the files changed; \
                 progress is streamed as MCP progress notifications.",
                Arc::new(schema),
            ));
        }
        tools
    }

    async fn call_builtin(
        &self,
        name: &str,
        arguments: serde_json::Value,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let call = CallContext {
            approver: Arc::new(ClientApprover::new(context.peer.clone())),
            cancel: context.ct.clone(),
        };
        let result = self.tools.call(name, arguments, call).await;
        tool_result_to_mcp(&result)
    }

    async fn call_task(
        &self,
        runner: &Arc<dyn TaskRunner>,
        arguments: serde_json::Value,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let args: TaskArgs = match serde_json::from_value(arguments) {
            Ok(args) => args,
            Err(e) => {
                return failed(format!(
                    "Invalid arguments for {TASK_TOOL}: {e}. Send {{\"task\": \"…\", \"mode\": \"auto|direct|plan\"}}."
                ));
            }
        };
        let mode = match args.mode.as_deref().map(Mode::from_str).transpose() {
            Ok(mode) => mode,
            Err(e) => return failed(format!("Invalid arguments for {TASK_TOOL}: {e}.")),
        };
        if args.task.trim().is_empty() {
            return failed(format!(
                "Invalid arguments for {TASK_TOOL}: `task` is empty."
            ));
        }
        let (progress, events): (Option<ProgressStream>, Box<dyn EventHandler>) =
            match context.meta.get_progress_token() {
                Some(token) => {
                    let (stream, events) = ProgressStream::start(context.peer.clone(), token);
                    (Some(stream), Box::new(events))
                }
                None => (None, Box::new(NoProgress)),
            };
        let outcome = runner
            .run(
                TaskRequest {
                    task: args.task,
                    mode,
                },
                TaskContext {
                    events,
                    approver: Arc::new(ClientApprover::new(context.peer.clone())),
                    cancel: context.ct.clone(),
                },
            )
            .await;
        if let Some(progress) = progress {
            progress.finish().await;
        }
        match outcome {
            Ok(report) => {
                let mut text = report.answer.clone();
                if !report.files_changed.is_empty() {
                    text.push_str("\n\nFiles changed: ");
                    text.push_str(&report.files_changed.join(", "));
                }
                let blocks = vec![ContentBlock::text(text)];
                let mut result = if report.status == AgentStatus::Completed {
                    CallToolResult::success(blocks)
                } else {
                    CallToolResult::error(blocks)
                };
                result.structured_content = serde_json::to_value(&report).ok();
                result
            }
            Err(e) => failed(format!("{TASK_TOOL} could not run: {e}")),
        }
    }
}

/// A failed tool result with `message`.
fn failed(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The events of a call whose client asked for no progress: dropped.
struct NoProgress;

impl EventHandler for NoProgress {
    fn handle(&mut self, _event: &keel_events::Event) {}
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("keel", env!("CARGO_PKG_VERSION")).with_title("Keel"),
            )
            .with_instructions(format!(
                "Keel's tools, confined to the workspace {}. Paths are relative to it. \
                 Commands are checked for danger and approved per the `{}` policy.",
                self.root.display(),
                self.approval
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        Err(McpError::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!(
                "unknown method `{}`: Keel's MCP server offers tools (tools/list, tools/call)",
                request.method
            ),
            None,
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.as_ref();
        if name == TASK_TOOL
            && let Some(runner) = &self.runner
        {
            return Ok(self.call_task(runner, arguments, &context).await.into());
        }
        if !self.tools.has(name) {
            let mut available: Vec<String> = self
                .tools
                .specs()
                .into_iter()
                .map(|spec| spec.name)
                .collect();
            if self.runner.is_some() {
                available.push(TASK_TOOL.to_owned());
            }
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{name}` (available: {})",
                    available.join(", ")
                ),
                None,
            ));
        }
        Ok(self.call_builtin(name, arguments, &context).await.into())
    }
}

/// Serves `server` on standard input and output until the client disconnects.
pub async fn serve_stdio(server: McpServer) -> Result<(), ServeError> {
    let running = server
        .serve(crate::transport::line_transport(
            tokio::io::stdin(),
            tokio::io::stdout(),
        ))
        .await
        .map_err(|e| ServeError::Handshake(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Connection(e.to_string()))?;
    Ok(())
}
