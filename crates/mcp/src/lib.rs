//! Keel's MCP client: the tool servers of `[mcp_servers.NAME]` in `keel.toml` and of
//! `.mcp.json`, reached over stdio (a child in its own process group) or streamable HTTP
//! with the official `rmcp` SDK.
//!
//! [`McpManager`] starts a session's servers together, reports those that fail, restarts a
//! crashed one once, and offers their tools as a [`keel_tools::ToolSource`]: each tool as
//! `mcp__SERVER__TOOL`, plus `use_mcp_tool` and `access_mcp_resource`. Results become tool
//! results (images described, output capped); approvals go through the session's policy.

pub mod config;
mod connection;
pub mod content;
mod error;
mod manager;
pub mod names;
mod tools;

pub use config::{ServerApproval, ServerConfig, ServerSpec, Transport};
pub use error::{ConfigError, McpError};
pub use manager::{McpManager, ServerReport, ServerStatus, ServerTool};
pub use tools::{ACCESS_MCP_RESOURCE, USE_MCP_TOOL};

impl McpManager {
    pub(crate) fn from_inner(inner: std::sync::Arc<manager::Inner>) -> Self {
        Self::wrap(inner)
    }
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
