//! Keel's front-end contract: the small types a front end (terminal, HTTP server, ACP, MCP
//! server) and the agent exchange, kept apart from the crates that implement them so a front
//! end links only this and `keel-events`, not the tools, the index or the tree-sitter grammars.
//!
//! - **Approvals**: [`ApprovalPolicy`] (when a command needs a person's yes), [`EditApproval`],
//!   and the [`Approver`] a front end implements to ask ([`ApprovalRequest`] →
//!   [`ApprovalReply`]); [`CannotAsk`] and [`ApproveAll`] for front ends that cannot ask.
//! - **Answers**: the model's [`Question`]s and the [`QuestionAnswerer`] that answers them
//!   ([`CannotAnswer`] when nobody can).
//! - **Mode**: [`Mode`], whether a turn may, must or must not plan.
//! - **Tool results**: [`ToolResult`] `{success, message, content}`, and the [`ToolService`]
//!   a server offers its client ([`ToolSpec`], [`CallContext`]).
//! - **Images in**: a turn's [`TurnInput`] (text and [`Image`]s), images checked by their
//!   bytes (PNG, JPEG, GIF, WebP, at most [`MAX_IMAGE_BYTES`]) with errors naming the file.
//!
//! ```
//! use keel_protocol::{ApprovalPolicy, Mode, ToolResult};
//!
//! assert_eq!("plan".parse::<Mode>(), Ok(Mode::Plan));
//! assert_eq!("on-dangerous".parse::<ApprovalPolicy>(), Ok(ApprovalPolicy::OnDangerous));
//! assert!(!ToolResult::error("no such file").success);
//! ```

mod approval;
mod image;
mod mode;
mod question;
mod tool_result;
mod tool_service;

pub use approval::{
    ApprovalPolicy, ApprovalReply, ApprovalRequest, ApproveAll, Approver, CannotAsk, EditApproval,
    UnknownPolicy,
};
pub use image::{Image, ImageError, ImageType, MAX_IMAGE_BYTES, TurnInput, image_dimensions};
pub use mode::{Mode, UnknownMode};
pub use question::{CANNOT_ANSWER, CannotAnswer, Question, QuestionAnswerer, QuestionKind};
pub use tool_result::ToolResult;
pub use tool_service::{CallContext, MCP_TOOL_PREFIX, ToolService, ToolSpec};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
