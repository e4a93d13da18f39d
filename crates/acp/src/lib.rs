//! Keel as an editor's agent over the Agent Client Protocol (`keel acp`): Zed and other ACP
//! clients open sessions (new or stored), send prompts, watch the answer stream in with tool
//! calls, their status and diffs, answer permission requests (Keel's approvals) and cancel.
//!
//! [`serve_stdio`] speaks ACP v1 on standard input and output. The sessions themselves are the
//! front end's ([`SessionHost`]: the CLI's session host); this crate maps them to ACP: events to
//! `session/update` notifications ([`UpdateMapper`]), approvals to `session/request_permission`
//! ([`AcpApprover`]), the session's custom commands to an `available_commands_update` and a
//! `/NAME ARGS` prompt to its template's expansion.

mod agent;
mod diff;
mod host;
mod permission;
mod updates;

pub use agent::{AcpError, serve, serve_stdio};
pub use diff::old_text;
pub use host::{HostedSession, OpenRequest, PromptEnd, SessionHost};
pub use permission::AcpApprover;
pub use updates::{CurrentToolCall, UpdateMapper};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
