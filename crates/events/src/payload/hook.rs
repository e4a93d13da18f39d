//! `run.hook.*`: a hook (a command configured to run at a point of the session) ran.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a hook decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum HookDecision {
    /// Go on as usual (also when the hook failed: see `error`).
    Continue,
    /// `PreToolUse`: the call is allowed (Keel's own approval rules still apply).
    Allow,
    /// `PreToolUse`: the person is asked before the call runs.
    Ask,
    /// The call, prompt or stop is blocked, with a reason.
    Block,
}

impl HookDecision {
    /// The decision's name (`continue`, `allow`, `ask`, `block`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Block => "block",
        }
    }
}

/// `run.hook.start`: a hook is started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunHookStart {
    /// The hook event (`PreToolUse`, `Stop`, … as Claude Code names them).
    pub hook_event: String,
    /// The command line.
    pub command: String,
    /// The matcher it was configured with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub matcher: Option<String>,
    /// The tool call it runs for (`PreToolUse`, `PostToolUse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub call_id: Option<String>,
    /// Where it was configured (`FILE:LINE`).
    pub source: String,
}

/// `run.hook.end`: a hook finished, was killed, or could not start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunHookEnd {
    /// The hook event.
    pub hook_event: String,
    /// The command line.
    pub command: String,
    /// The matcher it was configured with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub matcher: Option<String>,
    /// The tool call it ran for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub call_id: Option<String>,
    /// What it decided.
    pub decision: HookDecision,
    /// Why, when it blocked or asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
    /// Whether it rewrote the tool call's input (`updatedInput`).
    #[serde(default)]
    pub updated_input: bool,
    /// Its exit code (absent when it was killed or never started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exit_code: Option<i32>,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// What went wrong (it timed out, could not start, exited with another code than 0 or 2,
    /// printed invalid JSON); the session goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}
