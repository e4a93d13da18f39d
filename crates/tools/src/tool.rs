//! The tool trait, its result, and the context a call runs in.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use keel_events::Emitter;
/// Tools return the contract's result type; the modules of this crate import it from here.
pub(crate) use keel_protocol::ToolResult;
use keel_protocol::{ApprovalPolicy, Approver};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::checkpoint::CheckpointStore;
use crate::process::CommandSandbox;

/// Where and how a tool call runs.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The workspace root (canonical); every path is resolved inside it.
    pub root: PathBuf,
    /// Where the call's events (`run.file.change`, `run.tool.output`) go.
    pub emitter: Emitter,
    /// The model's id for this call.
    pub call_id: String,
    /// Plan step the call belongs to.
    pub step_id: Option<u32>,
    /// Cancelled when the turn is cancelled: long-running tools stop and clean up.
    pub cancel: CancellationToken,
    /// When commands need approval.
    pub approval: ApprovalPolicy,
    /// Who is asked when approval is needed.
    pub approver: Arc<dyn Approver>,
    /// Where file changes are recorded so a turn can be rolled back (`None`: not recorded).
    pub checkpoints: Option<Arc<CheckpointStore>>,
    /// The OS sandbox commands run in.
    pub sandbox: CommandSandbox,
    /// Approval rules (`.keel/rules.toml`, the user's `rules.toml`), checked before the policy.
    pub rules: Arc<crate::approval_rules::RuleSet>,
    /// Whether file edits are asked about, with their diff, before they apply.
    pub approval_edits: keel_protocol::EditApproval,
    /// Whether `root` is a shadow workspace (`--shadow`): file changes are staged there and
    /// their `run.file.change` events say `staged`.
    pub shadowed: bool,
    /// The session's MCP servers, for built-in tools that call them (`None`: no session
    /// servers, e.g. one `keel tool call` without any).
    pub mcp: Option<Arc<dyn McpCalls>>,
    /// The language of the messages the seeds fix in Chinese (`move_file`'s, seed 003 §5.3;
    /// default English).
    pub lang: keel_events::Lang,
    /// Whether the session's model accepts images: `read_file` on an image then attaches it
    /// (default false: it says what the image is and that the model cannot see it).
    pub vision: bool,
}

impl ToolContext {
    /// A context for `root` reporting to `emitter`: a fresh call id, no step, default approval
    /// policy, an approver that cannot ask, no checkpoints, no sandbox.
    pub fn new(root: impl Into<PathBuf>, emitter: Emitter) -> Self {
        Self {
            root: root.into(),
            emitter,
            call_id: format!("call_{}", uuid::Uuid::now_v7().simple()),
            step_id: None,
            cancel: CancellationToken::new(),
            approval: ApprovalPolicy::default(),
            approver: Arc::new(keel_protocol::CannotAsk),
            checkpoints: None,
            sandbox: CommandSandbox::Off,
            rules: Arc::default(),
            approval_edits: keel_protocol::EditApproval::Never,
            shadowed: false,
            mcp: None,
            lang: keel_events::Lang::En,
            vision: false,
        }
    }

    /// The same context for a model that accepts images (`true`) or does not.
    pub fn with_vision(mut self, vision: bool) -> Self {
        self.vision = vision;
        self
    }

    /// The same context speaking `lang` where a seed fixes the words.
    pub fn with_lang(mut self, lang: keel_events::Lang) -> Self {
        self.lang = lang;
        self
    }

    /// The same context reaching the session's MCP servers through `mcp`.
    pub fn with_mcp(mut self, mcp: Arc<dyn McpCalls>) -> Self {
        self.mcp = Some(mcp);
        self
    }

    /// The same context running commands in `sandbox`.
    pub fn with_sandbox(mut self, sandbox: CommandSandbox) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The same context asking (or not) before file edits apply.
    pub fn with_edit_approval(mut self, approval_edits: keel_protocol::EditApproval) -> Self {
        self.approval_edits = approval_edits;
        self
    }

    /// The same context checking `rules` before the approval policy.
    pub fn with_rules(mut self, rules: Arc<crate::approval_rules::RuleSet>) -> Self {
        self.rules = rules;
        self
    }

    /// The same context working in a shadow workspace rooted at `tree`: file changes and
    /// commands stay there until `keel shadow apply`.
    pub fn in_shadow(mut self, tree: impl Into<PathBuf>) -> Self {
        self.root = tree.into();
        self.shadowed = true;
        self.checkpoints = None;
        self
    }

    /// The same context recording file changes in `store`.
    pub fn with_checkpoints(mut self, store: Arc<CheckpointStore>) -> Self {
        self.checkpoints = Some(store);
        self
    }

    /// The same context with another approval policy and approver.
    pub fn with_approval(mut self, policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Self {
        self.approval = policy;
        self.approver = approver;
        self
    }

    /// The key file changes of this call are grouped under: the current turn id, or the call id
    /// when there is no turn (e.g. one `keel tool call`).
    pub fn change_group(&self) -> String {
        self.emitter
            .turn_id()
            .unwrap_or_else(|| self.call_id.clone())
    }
}

/// A tool the model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Name the model calls it by.
    fn name(&self) -> &'static str;

    /// Other names accepted for it (e.g. `write_to_file` for `write_file`).
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// Description written for the model: what it does, when to use it.
    fn description(&self) -> &'static str;

    /// A one-line description for small prompts (the compact tool profile), when the tool has
    /// one; the compact profile offers only tools that do.
    fn brief(&self) -> Option<&'static str> {
        None
    }

    /// JSON Schema of the arguments object.
    fn parameters(&self) -> serde_json::Value;

    /// Runs the tool. Bad arguments produce an unsuccessful result, never a panic.
    async fn call(&self, ctx: &ToolContext, arguments: serde_json::Value) -> ToolResult;

    /// The MCP server a call with `arguments` goes to (`None`: Keel runs it itself).
    fn mcp_server(&self, _arguments: &serde_json::Value) -> Option<String> {
        None
    }

    /// Whether the tool is offered only with native tool calls (the XML tool format leaves it
    /// out, e.g. one MCP server tool, reachable there through `use_mcp_tool`).
    fn native_only(&self) -> bool {
        false
    }

    /// Whether the tool can work as configured: one that cannot (`generate_image` without an
    /// image model) is not offered to the model, though it can still be called by name.
    fn usable(&self) -> bool {
        true
    }
}

/// `arguments` with each string parameter that came as a list of strings (a file's lines, a
/// diff's lines: what small models send) joined with newlines; anything else as it is.
pub(crate) fn lines_joined(
    mut arguments: serde_json::Value,
    schema: &serde_json::Value,
) -> serde_json::Value {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return arguments;
    };
    let Some(map) = arguments.as_object_mut() else {
        return arguments;
    };
    for (name, value) in map.iter_mut() {
        let wants_string = properties.get(name).is_some_and(|p| match &p["type"] {
            serde_json::Value::String(t) => t == "string",
            serde_json::Value::Array(types) => types.iter().any(|t| t == "string"),
            _ => false,
        });
        let lines: Option<Vec<&str>> = value
            .as_array()
            .and_then(|items| items.iter().map(serde_json::Value::as_str).collect());
        if wants_string && let Some(lines) = lines {
            *value = serde_json::Value::String(lines.join("\n"));
        }
    }
    arguments
}

/// Tools that come and go during a session (e.g. those of MCP servers): the session offers
/// the current set before each model call.
pub trait ToolSource: Send + Sync + std::fmt::Debug {
    /// A number that changes whenever [`ToolSource::tools`] would return another set.
    fn generation(&self) -> u64;

    /// The tools offered now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// The source's servers as built-in tools call them, if it has any (MCP servers).
    fn mcp_calls(&self) -> Option<Arc<dyn McpCalls>> {
        None
    }
}

/// The session's MCP servers as a built-in tool reaches them (`use_rag_tool`'s servers backed
/// by an MCP search tool); implemented where the MCP client lives.
#[async_trait]
pub trait McpCalls: Send + Sync + std::fmt::Debug {
    /// The names of the tools `server` offers now, or why it cannot be called (not
    /// configured, failed, disabled, not running), in a sentence.
    fn server_tools(&self, server: &str) -> Result<Vec<String>, String>;

    /// Calls `tool` of `server` with `arguments` (an object); the server's answer (an
    /// `isError` one as a failed result). Cancelling `cancel` abandons the call.
    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Value,
        cancel: &CancellationToken,
    ) -> ToolResult;
}

/// A tool whose arguments are a typed struct; implementing this implements [`Tool`], with
/// argument parsing and precise error messages for free.
#[async_trait]
pub trait TypedTool: Send + Sync {
    /// The arguments struct; its schemars schema is what the model is shown.
    type Args: DeserializeOwned + JsonSchema + Send;

    /// See [`Tool::name`].
    fn name(&self) -> &'static str;

    /// See [`Tool::aliases`].
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// See [`Tool::description`].
    fn description(&self) -> &'static str;

    /// See [`Tool::brief`].
    fn brief(&self) -> Option<&'static str> {
        None
    }

    /// See [`Tool::usable`].
    fn usable(&self) -> bool {
        true
    }

    /// Runs the tool with parsed arguments.
    async fn run(&self, ctx: &ToolContext, args: Self::Args) -> ToolResult;
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn name(&self) -> &'static str {
        TypedTool::name(self)
    }

    fn aliases(&self) -> &'static [&'static str] {
        TypedTool::aliases(self)
    }

    fn description(&self) -> &'static str {
        TypedTool::description(self)
    }

    fn brief(&self) -> Option<&'static str> {
        TypedTool::brief(self)
    }

    fn usable(&self) -> bool {
        TypedTool::usable(self)
    }

    fn parameters(&self) -> serde_json::Value {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator()
            .into_root_schema_for::<T::Args>();
        let mut value = serde_json::to_value(schema).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.remove("$schema");
            map.remove("title");
        }
        value
    }

    async fn call(&self, ctx: &ToolContext, arguments: serde_json::Value) -> ToolResult {
        // Models sometimes send the arguments object as a JSON string.
        let arguments = match arguments {
            serde_json::Value::String(text) => match serde_json::from_str(&text) {
                Ok(value) => value,
                Err(e) => {
                    return ToolResult::error(format!(
                        "Invalid arguments for {}: not a JSON object ({e}). Send an object matching the tool's parameters.",
                        TypedTool::name(self)
                    ));
                }
            },
            serde_json::Value::Null => serde_json::Value::Object(Default::default()),
            other => other,
        };
        let arguments = lines_joined(arguments, &self.parameters());
        match serde_path_to_error::deserialize::<_, T::Args>(arguments) {
            Ok(args) => self.run(ctx, args).await,
            Err(e) => {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let at = if path == "." {
                    String::new()
                } else {
                    format!(" at `{path}`")
                };
                ToolResult::error(format!(
                    "Invalid arguments for {}{at}: {inner}. Check the tool's parameters and call it again.",
                    TypedTool::name(self)
                ))
            }
        }
    }
}

impl ToolContext {
    /// Asks [`ToolContext::approver`] to approve something, reporting it as
    /// `run.approval.request` (and a `system.status` of kind `waiting_for_approval`) then
    /// `run.approval.resolve`. Used by `execute_command` (kind
    /// `command`) and reusable for plans and other tools. Cancelling the turn while waiting
    /// counts as a rejection.
    pub async fn request_approval(
        &self,
        kind: keel_events::ApprovalKind,
        subject: impl Into<String>,
        reason: impl Into<String>,
    ) -> keel_protocol::ApprovalReply {
        self.ask_approval(kind, subject.into(), reason.into(), None)
            .await
    }

    /// [`ToolContext::request_approval`] for `plan`, which `run.approval.request` carries.
    pub async fn request_plan_approval(
        &self,
        plan: &keel_events::Plan,
        subject: impl Into<String>,
        reason: impl Into<String>,
    ) -> keel_protocol::ApprovalReply {
        self.ask_approval(
            keel_events::ApprovalKind::Plan,
            subject.into(),
            reason.into(),
            Some(plan.clone()),
        )
        .await
    }

    async fn ask_approval(
        &self,
        kind: keel_events::ApprovalKind,
        subject: String,
        reason: String,
        plan: Option<keel_events::Plan>,
    ) -> keel_protocol::ApprovalReply {
        let request = keel_protocol::ApprovalRequest {
            approval_id: format!("appr_{}", uuid::Uuid::now_v7().simple()),
            kind,
            subject,
            reason,
        };
        self.emitter.emit(keel_events::RunApprovalRequest {
            approval_id: request.approval_id.clone(),
            kind,
            subject: request.subject.clone(),
            reason: request.reason.clone(),
            plan,
        });
        // Holds until `run.approval.resolve`.
        let what = match kind {
            keel_events::ApprovalKind::Plan => "waiting for approval of the plan",
            keel_events::ApprovalKind::Command => "waiting for approval of the command",
            keel_events::ApprovalKind::Tool => "waiting for approval of the tool call",
        };
        self.emitter.emit(keel_events::SystemStatus::waiting(
            keel_events::StatusKind::WaitingForApproval,
            what,
        ));
        let reply = tokio::select! {
            reply = self.approver.approve(&request) => reply,
            () = self.cancel.cancelled() => keel_protocol::ApprovalReply::reject(
                "the turn was cancelled while waiting for approval",
            ),
        };
        self.emitter.emit(keel_events::RunApprovalResolve {
            approval_id: request.approval_id,
            decision: reply.decision,
            kind: Some(kind),
            reason: reply.reason.clone(),
            modified: reply.modified.clone(),
        });
        reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_of_lines_for_a_string_parameter_is_joined() {
        let schema = json!({"properties": {
            "diff": {"type": "string"},
            "path": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}},
            "note": {"type": ["string", "null"]}
        }});
        let joined = lines_joined(
            json!({"path": "a.js", "diff": ["<<<<<<< SEARCH", "a", "=======", "b", ">>>>>>> REPLACE"],
                   "paths": ["x", "y"], "note": ["n1", "n2"]}),
            &schema,
        );
        assert_eq!(
            joined,
            json!({"path": "a.js", "diff": "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE",
                   "paths": ["x", "y"], "note": "n1\nn2"})
        );
        // Lists that are not all strings stay as they are (and fail the schema, as before).
        let mixed = json!({"diff": ["a", 1]});
        assert_eq!(lines_joined(mixed.clone(), &schema), mixed);
    }
}
