//! Keel's tools: what the model can do to a project.
//!
//! A [`Tool`] has a name, a description written for the model, a JSON Schema for its arguments
//! and an async `call` returning a [`ToolResult`] `{success, message, content}`. Every path a
//! tool touches is confined to the workspace root, every command is classified before it runs,
//! and every file change is reported as a `run.file.change` event and recorded in a checkpoint
//! so a turn can be rolled back.

mod approval;
mod tool;

pub use approval::{
    ApprovalPolicy, ApprovalReply, ApprovalRequest, ApproveAll, Approver, CannotAsk, UnknownPolicy,
};
pub use tool::{Tool, ToolContext, ToolResult, TypedTool};
