//! `remember`: the model writes project memory (`.keel/memory.json`). The entry is recorded
//! under the calling session (deduplicated and capped by keel-context's [`Memory`] rules),
//! `run.memory.update{source: remember}` reports it, and a session shows the updated memory in
//! its next request. It works outside a session too (`keel tool call remember …`).
//!
//! [`Memory`]: keel_context::Memory

use async_trait::async_trait;
use keel_context::{MemoryKind, MemoryLimits, MemoryStore, NewEntry};
use keel_events::{MemorySource, RunMemoryUpdate};
use keel_protocol::ToolResult;
use keel_tools::{ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

/// Name of the memory tool.
pub const REMEMBER: &str = "remember";

/// Arguments of `remember`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// What it is: `fact` (true about the project), `convention` (how things are done here) or
    /// `decision` (a choice that was made, with its reason).
    pub kind: MemoryKind,
    /// What to remember: one or two self-contained sentences a later session can act on.
    pub text: String,
    /// Optional short labels, e.g. ["testing"].
    #[serde(default)]
    pub tags: Vec<String>,
}

/// `remember`: saves a fact, a convention or a decision to the project's memory.
#[derive(Debug, Clone, Copy, Default)]
pub struct Remember;

#[async_trait]
impl TypedTool for Remember {
    type Args = RememberArgs;

    fn name(&self) -> &'static str {
        REMEMBER
    }

    fn description(&self) -> &'static str {
        "Save something a later session on this project must know to the project's long-term memory, which is shown to you at the start of every session: a fact about the project, a convention it follows, or a decision taken and why. Only for lasting knowledge that is hard to find out again, not for the progress of the current task. Entries are deduplicated."
    }

    async fn run(&self, ctx: &ToolContext, args: RememberArgs) -> ToolResult {
        let limit = MemoryLimits::default().max_entry_chars;
        let text = args.text.trim();
        if text.is_empty() {
            return ToolResult::error("Nothing to remember: `text` is empty.");
        }
        let chars = text.chars().count();
        if chars > limit {
            return ToolResult::error(format!(
                "Not remembered: `text` has {chars} characters; a memory entry holds at most {limit}. Say it in one or two sentences."
            ));
        }
        let mut entry = NewEntry::new(args.kind, text).with_tags(args.tags);
        let session_id = ctx.emitter.sequencer().session_id();
        if !session_id.is_empty() {
            entry = entry.in_session(session_id);
        }
        let store = MemoryStore::for_project(&ctx.root);
        let recorded = tokio::task::spawn_blocking(move || store.record([entry])).await;
        let (memory, outcome) = match recorded {
            Ok(Ok(done)) => done,
            Ok(Err(e)) => return ToolResult::error(format!("Not remembered: {e}")),
            Err(e) => return ToolResult::error(format!("Not remembered: {e}")),
        };
        ctx.emitter.emit(RunMemoryUpdate {
            source: MemorySource::Remember,
            entries: outcome.recorded.clone(),
            dropped: u32::try_from(outcome.dropped.len()).unwrap_or(u32::MAX),
            total: u32::try_from(memory.len()).unwrap_or(u32::MAX),
        });
        match outcome.recorded.first() {
            Some(record) if record.new => ToolResult::ok(format!(
                "Remembered as {} ({}): {}",
                record.id, record.kind, record.text
            )),
            Some(record) => ToolResult::ok(format!(
                "Already remembered as {} ({}); recorded again: {}",
                record.id, record.kind, record.text
            )),
            None => ToolResult::error("Not remembered: the entry did not fit in memory."),
        }
    }
}
