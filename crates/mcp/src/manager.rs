//! The session's MCP servers: started together, watched, restarted once, and their tools
//! offered as one [`ToolSource`].

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use keel_events::{Emitter, LogLevel, SystemLog};
use keel_protocol::ToolResult;
use keel_sandbox::SandboxPolicy;
use keel_tools::{McpCalls, Tool, ToolSource};
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::config::ServerSpec;
use crate::connection::Connection;
use crate::content;
use crate::error::McpError;
use crate::names::offered_name;
use crate::tools::{AccessMcpResource, McpTool, UseMcpTool};

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "reason")]
pub enum ServerStatus {
    /// `enabled = false`.
    Disabled,
    /// Not started yet.
    Stopped,
    /// Connected.
    Running,
    /// Could not start, or crashed again after its restart: why.
    Failed(String),
}

/// One tool of a server, as the server lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerTool {
    /// The server's own name for it.
    pub name: String,
    /// The name the model calls it by (`None`: not offered: filtered out or colliding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_as: Option<String>,
    /// Its description.
    pub description: String,
    /// Its input JSON Schema.
    #[serde(skip)]
    pub input_schema: serde_json::Value,
    /// `readOnlyHint`.
    #[serde(skip)]
    pub read_only: bool,
    /// `destructiveHint` (absent counts as true, as the protocol says).
    #[serde(skip)]
    pub destructive: bool,
}

/// A server's name, status and tools, for listings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerReport {
    /// Its name.
    pub name: String,
    /// How it is reached (command line or URL).
    pub transport: String,
    /// Where it is.
    pub status: ServerStatus,
    /// Its tools (empty unless running).
    pub tools: Vec<ServerTool>,
}

/// What a server's slot knows besides its connection.
#[derive(Debug)]
struct SlotInfo {
    status: ServerStatus,
    tools: Vec<ServerTool>,
    /// Restarts so far (one is allowed).
    restarts: u32,
    /// Counts connections, so that two failing calls restart a server once.
    epoch: u64,
}

#[derive(Debug)]
struct Slot {
    spec: ServerSpec,
    connection: tokio::sync::Mutex<Option<Connection>>,
    info: Mutex<SlotInfo>,
}

pub(crate) struct Inner {
    root: PathBuf,
    /// The session's sandbox; each stdio server runs in [`ServerSpec::sandbox_policy`] of it.
    sandbox: Mutex<SandboxPolicy>,
    slots: BTreeMap<String, Slot>,
    generation: AtomicU64,
    emitter: Mutex<Option<Emitter>>,
    offered: Mutex<Vec<Arc<dyn Tool>>>,
    me: Weak<Inner>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("root", &self.root)
            .field("servers", &self.slots.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// A session's MCP servers. Dropping it kills every stdio server's process group.
#[derive(Debug, Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl McpManager {
    /// The servers of `specs`, not started, for a project at `root` (relative `cwd`s are taken
    /// from it).
    pub fn new(root: impl Into<PathBuf>, specs: Vec<ServerSpec>) -> Self {
        let root = root.into();
        let inner = Arc::new_cyclic(|me| Inner {
            root,
            sandbox: Mutex::new(SandboxPolicy::off()),
            slots: specs
                .into_iter()
                .map(|spec| {
                    let status = if spec.enabled {
                        ServerStatus::Stopped
                    } else {
                        ServerStatus::Disabled
                    };
                    let slot = Slot {
                        spec,
                        connection: tokio::sync::Mutex::new(None),
                        info: Mutex::new(SlotInfo {
                            status,
                            tools: Vec::new(),
                            restarts: 0,
                            epoch: 0,
                        }),
                    };
                    (slot.spec.name.clone(), slot)
                })
                .collect(),
            generation: AtomicU64::new(0),
            emitter: Mutex::new(None),
            offered: Mutex::new(Vec::new()),
            me: me.clone(),
        });
        Self { inner }
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.inner.slots.is_empty()
    }

    /// Runs the stdio servers started from now on in the session's `sandbox` (each server's
    /// own `sandbox`/`network` keys over it; see [`ServerSpec::sandbox_policy`]). Without this
    /// call they run unconfined.
    pub fn confine(&self, sandbox: SandboxPolicy) {
        if let Ok(mut slot) = self.inner.sandbox.lock() {
            *slot = sandbox;
        }
    }

    /// Reports failures, restarts and name collisions as `system.log` on `emitter` from now on.
    pub fn report_to(&self, emitter: Emitter) {
        if let Ok(mut slot) = self.inner.emitter.lock() {
            *slot = Some(emitter);
        }
    }

    /// Starts every enabled server at once and waits until each runs or has failed (within
    /// its start-up time). A failure is reported and the others go on.
    pub async fn start_all(&self) {
        let starts = self
            .inner
            .slots
            .values()
            .filter(|slot| slot.spec.enabled)
            .map(|slot| self.inner.start(slot));
        futures::future::join_all(starts).await;
        self.inner.rebuild();
    }

    /// Starts only server `name` and says why it failed, if it did (`keel mcp test`).
    pub async fn start_one(&self, name: &str) -> Result<(), McpError> {
        let slot = self.inner.slot(name)?;
        self.inner.start(slot).await;
        self.inner.rebuild();
        match self.inner.status(slot) {
            ServerStatus::Running => Ok(()),
            ServerStatus::Failed(reason) => Err(McpError::Start {
                server: name.to_owned(),
                reason,
            }),
            other => Err(McpError::Unavailable {
                server: name.to_owned(),
                reason: format!("{other:?}"),
            }),
        }
    }

    /// Every server with its status and tools, by name.
    pub fn reports(&self) -> Vec<ServerReport> {
        self.inner
            .slots
            .values()
            .map(|slot| {
                let (status, tools) = match slot.info.lock() {
                    Ok(info) => (info.status.clone(), info.tools.clone()),
                    Err(_) => (ServerStatus::Failed("state lost".to_owned()), Vec::new()),
                };
                ServerReport {
                    name: slot.spec.name.clone(),
                    transport: slot.spec.describe(),
                    status,
                    tools,
                }
            })
            .collect()
    }

    /// The process id of stdio server `name`, while it runs.
    pub async fn pid(&self, name: &str) -> Option<u32> {
        let slot = self.inner.slot(name).ok()?;
        slot.connection
            .lock()
            .await
            .as_ref()
            .and_then(Connection::pid)
    }

    /// Calls `tool` of `server` with `arguments` (see [`McpManager::call_tool_cancellable`]).
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Value,
    ) -> ToolResult {
        self.call_tool_cancellable(server, tool, arguments, &CancellationToken::new())
            .await
    }

    /// Calls `tool` of `server`: the answer as a tool result; a failure, a time-out (the server
    /// is then restarted) or a crash (restarted once, then failed) as a failed result saying
    /// so. Cancelling `cancel` abandons the call.
    pub async fn call_tool_cancellable(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Value,
        cancel: &CancellationToken,
    ) -> ToolResult {
        self.inner.call_tool(server, tool, arguments, cancel).await
    }

    /// Reads resource `uri` of `server`.
    pub async fn read_resource(&self, server: &str, uri: &str) -> ToolResult {
        self.inner.read_resource(server, uri).await
    }

    /// Stops every server (their process groups are killed).
    pub async fn shutdown(&self) {
        for slot in self.inner.slots.values() {
            if let Some(connection) = slot.connection.lock().await.take() {
                connection.shutdown().await;
            }
            if let Ok(mut info) = slot.info.lock()
                && info.status == ServerStatus::Running
            {
                info.status = ServerStatus::Stopped;
                info.tools.clear();
            }
        }
        self.inner.rebuild();
    }
}

impl McpManager {
    pub(crate) fn wrap(inner: Arc<Inner>) -> Self {
        Self { inner }
    }
}

impl ToolSource for McpManager {
    fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::Acquire)
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.inner
            .offered
            .lock()
            .map(|tools| tools.clone())
            .unwrap_or_default()
    }

    fn mcp_calls(&self) -> Option<Arc<dyn McpCalls>> {
        Some(Arc::new(self.clone()))
    }
}

#[async_trait::async_trait]
impl McpCalls for McpManager {
    fn server_tools(&self, server: &str) -> Result<Vec<String>, String> {
        let slot = self
            .inner
            .slot(server)
            .map_err(|e| format!("{e} (configured: {})", self.inner.names()))?;
        let info = slot
            .info
            .lock()
            .map_err(|_| format!("MCP server `{server}` lost its state"))?;
        match &info.status {
            ServerStatus::Running => Ok(info.tools.iter().map(|t| t.name.clone()).collect()),
            ServerStatus::Failed(reason) => Err(format!(
                "MCP server `{server}` is not connected: it failed ({reason})"
            )),
            ServerStatus::Disabled => Err(format!(
                "MCP server `{server}` is not connected: it is disabled (`enabled = false`)"
            )),
            ServerStatus::Stopped => Err(format!(
                "MCP server `{server}` is not connected: it is not running"
            )),
        }
    }

    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Value,
        cancel: &CancellationToken,
    ) -> ToolResult {
        self.call_tool_cancellable(server, tool, arguments, cancel)
            .await
    }
}

/// How a request to a server went wrong.
enum Failure {
    /// The server answered with an error; it is fine.
    Refused(String),
    /// The connection is gone or the server did not answer in time: restart it.
    Broken(String),
}

impl Inner {
    fn slot(&self, name: &str) -> Result<&Slot, McpError> {
        self.slots
            .get(name)
            .ok_or_else(|| McpError::UnknownServer(name.to_owned()))
    }

    fn status(&self, slot: &Slot) -> ServerStatus {
        slot.info
            .lock()
            .map(|i| i.status.clone())
            .unwrap_or(ServerStatus::Failed("state lost".to_owned()))
    }

    pub(crate) fn spec(&self, server: &str) -> Option<&ServerSpec> {
        self.slots.get(server).map(|s| &s.spec)
    }

    pub(crate) fn server_tool(&self, server: &str, tool: &str) -> Option<ServerTool> {
        let slot = self.slots.get(server)?;
        let info = slot.info.lock().ok()?;
        info.tools.iter().find(|t| t.name == tool).cloned()
    }

    fn warn(&self, server: &str, message: String) {
        tracing::warn!(server, "{message}");
        let emitter = self.emitter.lock().ok().and_then(|e| e.clone());
        if let Some(emitter) = emitter {
            let mut metadata = serde_json::Map::new();
            metadata.insert("mcp_server".to_owned(), server.into());
            emitter.emit(SystemLog {
                level: LogLevel::Warn,
                message,
                metadata: Some(metadata),
            });
        }
    }

    /// Connects `slot` and lists its tools, recording the outcome.
    async fn start(&self, slot: &Slot) {
        let mut connection = slot.connection.lock().await;
        if let Some(old) = connection.take() {
            old.shutdown().await;
        }
        match self.connect(&slot.spec).await {
            Ok((conn, tools)) => {
                *connection = Some(conn);
                if let Ok(mut info) = slot.info.lock() {
                    info.status = ServerStatus::Running;
                    info.tools = tools;
                    info.epoch += 1;
                }
            }
            Err(reason) => {
                if let Ok(mut info) = slot.info.lock() {
                    info.status = ServerStatus::Failed(reason.clone());
                    info.tools.clear();
                }
                self.warn(
                    &slot.spec.name,
                    format!(
                        "MCP server `{}` could not start, the session goes on without it: {reason}",
                        slot.spec.name
                    ),
                );
            }
        }
    }

    async fn connect(&self, spec: &ServerSpec) -> Result<(Connection, Vec<ServerTool>), String> {
        let me = self.me.clone();
        let name = spec.name.clone();
        let on_change = Arc::new(move || {
            let me = me.clone();
            let name = name.clone();
            tokio::spawn(async move {
                if let Some(inner) = me.upgrade() {
                    inner.refresh_tools(&name).await;
                }
            });
        });
        let sandbox = self
            .sandbox
            .lock()
            .map(|s| s.clone())
            .map_err(|_| "its sandbox settings were lost".to_owned())?;
        let conn = Connection::start(spec, &self.root, &sandbox, on_change).await?;
        if let Some(warning) = &conn.sandbox_warning {
            self.warn(&spec.name, format!("MCP server `{}`: {warning}", spec.name));
        }
        let listed =
            tokio::time::timeout(spec.startup_timeout, conn.service.peer().list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => {
                conn.shutdown().await;
                return Err(format!("`tools/list` failed: {e}"));
            }
            Err(_) => {
                conn.shutdown().await;
                return Err(format!(
                    "it did not list its tools within {}s",
                    spec.startup_timeout.as_secs()
                ));
            }
        };
        Ok((conn, tools.into_iter().map(server_tool).collect()))
    }

    /// Lists the tools of `server` again (after `tools/list_changed`).
    async fn refresh_tools(&self, server: &str) {
        let Ok(slot) = self.slot(server) else {
            return;
        };
        let peer = match slot.connection.lock().await.as_ref() {
            Some(conn) => conn.service.peer().clone(),
            None => return,
        };
        match tokio::time::timeout(slot.spec.startup_timeout, peer.list_all_tools()).await {
            Ok(Ok(tools)) => {
                if let Ok(mut info) = slot.info.lock() {
                    info.tools = tools.into_iter().map(server_tool).collect();
                }
                self.rebuild();
            }
            Ok(Err(e)) => self.warn(
                server,
                format!("MCP server `{server}`: relisting its tools failed: {e}"),
            ),
            Err(_) => self.warn(
                server,
                format!("MCP server `{server}`: relisting its tools timed out"),
            ),
        }
    }

    /// Rebuilds the offered tools from every running server's list: names made unique (a
    /// colliding one is reported and left to `use_mcp_tool`), filtered by the server's globs.
    fn rebuild(&self) {
        let mut offered: Vec<Arc<dyn Tool>> = Vec::new();
        let mut taken: HashSet<String> = HashSet::new();
        let mut collisions = Vec::new();
        let mut catalogue = Vec::new();
        let mut first_owner: BTreeMap<String, String> = BTreeMap::new();
        for slot in self.slots.values() {
            let Ok(mut info) = slot.info.lock() else {
                continue;
            };
            if info.status != ServerStatus::Running {
                continue;
            }
            for tool in &mut info.tools {
                tool.offered_as = None;
                if !slot.spec.offers(&tool.name) {
                    continue;
                }
                catalogue.push((slot.spec.name.clone(), tool.clone()));
                let name = offered_name(&slot.spec.name, &tool.name);
                if !taken.insert(name.clone()) {
                    let other = first_owner.get(&name).cloned().unwrap_or_default();
                    collisions.push((slot.spec.name.clone(), other, tool.name.clone(), name));
                    continue;
                }
                first_owner.insert(name.clone(), tool.name.clone());
                tool.offered_as = Some(name.clone());
                offered.push(Arc::new(McpTool::new(
                    self.me.clone(),
                    &slot.spec.name,
                    tool,
                    intern(name),
                )));
            }
        }
        if !self.slots.is_empty() {
            offered.push(Arc::new(UseMcpTool::new(self.me.clone(), &catalogue)));
            offered.push(Arc::new(AccessMcpResource::new(self.me.clone())));
        }
        if let Ok(mut slot) = self.offered.lock() {
            *slot = offered;
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        for (server, first, second, name) in collisions {
            self.warn(
                &server,
                format!(
                    "MCP server `{server}`: tools `{first}` and `{second}` both become `{name}`; only `{first}` is offered under that name (`{second}` stays reachable through use_mcp_tool)"
                ),
            );
        }
    }

    /// Restarts `slot` after its connection `epoch` broke, unless it was restarted already
    /// (once per session): the result says what happened.
    async fn recover(&self, slot: &Slot, epoch: u64, why: &str) -> String {
        let name = &slot.spec.name;
        let restarts = {
            let Ok(info) = slot.info.lock() else {
                return "its state was lost".to_owned();
            };
            if info.epoch != epoch {
                return "it has been restarted since".to_owned();
            }
            info.restarts
        };
        if restarts >= 1 {
            if let Some(conn) = slot.connection.lock().await.take() {
                conn.shutdown().await;
            }
            if let Ok(mut info) = slot.info.lock() {
                info.status = ServerStatus::Failed(format!("{why} (after a restart)"));
                info.tools.clear();
            }
            self.rebuild();
            self.warn(
                name,
                format!("MCP server `{name}` failed again ({why}); it is marked failed for the rest of the session"),
            );
            return "it had been restarted once already, so it is now marked failed and its tools are gone".to_owned();
        }
        if let Ok(mut info) = slot.info.lock() {
            info.restarts += 1;
        }
        self.warn(name, format!("MCP server `{name}`: {why}; restarting it"));
        self.start(slot).await;
        self.rebuild();
        match self.status(slot) {
            ServerStatus::Running => "the server was restarted".to_owned(),
            ServerStatus::Failed(reason) => format!("restarting it failed: {reason}"),
            other => format!("it is {other:?}"),
        }
    }

    /// The peer of a running `slot` and its connection epoch.
    async fn peer(
        &self,
        slot: &Slot,
    ) -> Result<(rmcp::Peer<rmcp::service::RoleClient>, u64), String> {
        let connection = slot.connection.lock().await;
        let epoch = slot.info.lock().map(|i| i.epoch).unwrap_or_default();
        match connection.as_ref() {
            Some(conn) if !conn.is_closed() => Ok((conn.service.peer().clone(), epoch)),
            Some(_) => Err(format!("closed:{epoch}")),
            None => Err(match self.status(slot) {
                ServerStatus::Failed(reason) => format!("it failed: {reason}"),
                ServerStatus::Disabled => "it is disabled (`enabled = false`)".to_owned(),
                _ => "it is not running".to_owned(),
            }),
        }
    }

    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Value,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let slot = match self.slot(server) {
            Ok(slot) => slot,
            Err(e) => {
                return ToolResult::error(format!("{e}. Configured servers: {}.", self.names()));
            }
        };
        let arguments = match arguments {
            serde_json::Value::Object(map) => map,
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::String(text) => match serde_json::from_str(&text) {
                Ok(serde_json::Value::Object(map)) => map,
                _ => {
                    return ToolResult::error(format!(
                        "The arguments of `{tool}` must be a JSON object."
                    ));
                }
            },
            _ => {
                return ToolResult::error(format!(
                    "The arguments of `{tool}` must be a JSON object."
                ));
            }
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let outcome = self
            .request(slot, cancel, |peer| async move {
                peer.call_tool(params)
                    .await
                    .map(|r| serde_json::to_value(r).unwrap_or_default())
            })
            .await;
        match outcome {
            Ok(value) => content::call_result(server, tool, &value),
            Err(message) => ToolResult::error(format!(
                "The MCP tool `{tool}` of server `{server}` failed: {message}"
            )),
        }
    }

    async fn read_resource(&self, server: &str, uri: &str) -> ToolResult {
        let slot = match self.slot(server) {
            Ok(slot) => slot,
            Err(e) => {
                return ToolResult::error(format!("{e}. Configured servers: {}.", self.names()));
            }
        };
        let params = ReadResourceRequestParams::new(uri);
        let outcome = self
            .request(slot, &CancellationToken::new(), |peer| async move {
                peer.read_resource(params)
                    .await
                    .map(|r| serde_json::to_value(r).unwrap_or_default())
            })
            .await;
        match outcome {
            Ok(value) => content::resource_result(server, uri, &value),
            Err(message) => ToolResult::error(format!(
                "Reading `{uri}` from MCP server `{server}` failed: {message}"
            )),
        }
    }

    /// Runs one request on `slot` within its tool time: a broken connection or a time-out
    /// restarts the server (see [`Inner::recover`]).
    async fn request<F, Fut>(
        &self,
        slot: &Slot,
        cancel: &CancellationToken,
        send: F,
    ) -> Result<serde_json::Value, String>
    where
        F: FnOnce(rmcp::Peer<rmcp::service::RoleClient>) -> Fut,
        Fut: std::future::Future<Output = Result<serde_json::Value, ServiceError>>,
    {
        let (peer, epoch) = match self.peer(slot).await {
            Ok(found) => found,
            Err(closed) if closed.starts_with("closed:") => {
                let epoch = closed["closed:".len()..].parse().unwrap_or_default();
                let what = self
                    .recover(slot, epoch, "its connection had closed (the server exited)")
                    .await;
                return Err(format!(
                    "the server had exited; {what}. Call the tool again if it still makes sense."
                ));
            }
            Err(why) => return Err(format!("the server is not available: {why}")),
        };
        let timeout = slot.spec.tool_timeout;
        let failure = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err("the call was cancelled".to_owned()),
            answer = tokio::time::timeout(timeout, send(peer)) => match answer {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(ServiceError::McpError(e))) => Failure::Refused(e.to_string()),
                Ok(Err(e)) => Failure::Broken(format!("the connection broke ({e})")),
                Err(_) => Failure::Broken(format!("it did not answer within {}s (tool_timeout_secs)", timeout.as_secs())),
            },
        };
        match failure {
            Failure::Refused(message) => {
                Err(format!("the server answered with an error: {message}"))
            }
            Failure::Broken(why) => {
                let what = self.recover(slot, epoch, &why).await;
                Err(format!("{why}; {what}."))
            }
        }
    }

    fn names(&self) -> String {
        if self.slots.is_empty() {
            return "none".to_owned();
        }
        self.slots
            .keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The tool as Keel keeps it.
fn server_tool(tool: rmcp::model::Tool) -> ServerTool {
    let annotations = tool.annotations.as_ref();
    ServerTool {
        name: tool.name.to_string(),
        offered_as: None,
        description: tool.description.as_deref().unwrap_or_default().to_owned(),
        input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
        read_only: annotations.and_then(|a| a.read_only_hint).unwrap_or(false),
        destructive: annotations.and_then(|a| a.destructive_hint).unwrap_or(true),
    }
}

/// `text` as a `&'static str`, kept once however often it is asked for: tool names and
/// descriptions are `&'static str` in [`Tool`], and a session offers a bounded set of them.
pub(crate) fn intern(text: String) -> &'static str {
    static TABLE: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| Mutex::new(HashSet::new()));
    let mut table = match table.lock() {
        Ok(table) => table,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(found) = table.get(text.as_str()) {
        return found;
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    table.insert(leaked);
    leaked
}
