//! Keel's tools: what the model can do to a project.
//!
//! A [`Tool`] has a name, a description written for the model, a JSON Schema for its arguments
//! and an async `call` returning a [`ToolResult`] `{success, message, content}`. Every path a
//! tool touches is confined to the workspace root, every command is classified before it runs,
//! and every file change is reported as a `run.file.change` event and recorded in a checkpoint
//! so a turn can be rolled back. With a [`Shadow`] workspace, changes are staged in a copy of
//! the tree and reach the real tree only when applied.

pub mod approval_rules;
pub mod builtin;
pub mod checkpoint;
pub mod compact;
pub mod file_change;
pub mod file_run;
pub mod file_text;
pub mod hooks;
pub mod packages;
pub mod process;
pub mod registry;
pub mod search_replace;
pub mod served;
pub mod shadow;
mod tool;
pub mod walk;
pub mod workspace;

pub use approval_rules::{
    Rule, RuleDecision, RuleScope, RuleSet, RuleSpec, RuleTarget, RuleVerdict, RulesError,
};

pub use checkpoint::{
    Checkpoint, CheckpointError, CheckpointSize, CheckpointStore, CheckpointUsage,
    ConversationMark, FileSnapshot, RollbackReport,
};
pub use registry::ToolRegistry;
pub use served::ServedTools;
pub use shadow::{
    ApplyReport, Batch, ChangeKind, DiscardReport, Shadow, ShadowError, StagedChange,
};
pub use tool::{McpCalls, Tool, ToolContext, ToolSource, TypedTool};
pub use workspace::{PathError, Workspace};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
