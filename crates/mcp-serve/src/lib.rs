//! Keel as an MCP server (`keel mcp serve`): any Model Context Protocol client (Claude Desktop,
//! Cursor, the MCP Inspector, the Python SDK) gets Keel's built-in tools, confined to one
//! workspace and gated by Keel's approval policy, plus one `keel_task` tool that runs a whole
//! agent turn and streams its progress as MCP progress notifications.
//!
//! [`McpServer`] is the rmcp handler; [`serve_stdio`] runs it on standard input and output. The
//! turn behind `keel_task` is the front end's to run ([`TaskRunner`]): this crate only maps it to
//! MCP. The built-in tools come the same way, as a keel-protocol
//! [`ToolService`](keel_protocol::ToolService) (keel-tools' `ServedTools`), so this crate links
//! neither the tools nor the index and its tree-sitter grammars. Approvals that need a person are asked through MCP elicitation when the client supports
//! it ([`ClientApprover`]) and refused with a clear message otherwise.

mod approval;
mod progress;
mod server;
mod task;
mod tool_result;
mod transport;

pub use approval::ClientApprover;
pub use progress::{ProgressEvents, progress_message};
pub use server::{McpServer, ServeError, TASK_TOOL, serve_stdio};
pub use task::{TaskContext, TaskError, TaskReport, TaskRequest, TaskRunner};
pub use tool_result::tool_result_to_mcp;

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
