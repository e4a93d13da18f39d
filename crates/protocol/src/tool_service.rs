//! The tools a server offers an outside client (`keel mcp serve`), behind a trait so the server
//! does not link the tools themselves.

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::approval::Approver;
use crate::tool_result::ToolResult;

/// The prefix of the name an MCP server's tool is offered to the model under:
/// `mcp__SERVER__TOOL`.
pub const MCP_TOOL_PREFIX: &str = "mcp__";

/// One tool as a client sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the client calls it by.
    pub name: String,
    /// What it does, written for a model.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub parameters: serde_json::Value,
}

/// What a call gets besides its name and arguments.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// Asks for approvals the call needs.
    pub approver: Arc<dyn Approver>,
    /// Cancelled when the client cancels the call.
    pub cancel: CancellationToken,
}

/// A set of tools offered to a client, confined and gated by whoever implements it
/// (keel-tools' `ServedTools` for the built-ins).
#[async_trait]
pub trait ToolService: Send + Sync + std::fmt::Debug {
    /// Every tool offered, in a stable order.
    fn specs(&self) -> Vec<ToolSpec>;

    /// Whether a tool called `name` is offered.
    fn has(&self, name: &str) -> bool {
        self.specs().iter().any(|spec| spec.name == name)
    }

    /// Calls the tool `name` with `arguments`; an unknown name or bad arguments are a failed
    /// result, not an error.
    async fn call(
        &self,
        name: &str,
        arguments: serde_json::Value,
        context: CallContext,
    ) -> ToolResult;
}
