//! Types shared by several payloads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Token counts for one model call or a running total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens the model generated.
    pub completion_tokens: u64,
    /// `prompt_tokens + completion_tokens`.
    pub total_tokens: u64,
    /// Prompt tokens served from the provider's cache, when it reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cached_tokens: Option<u64>,
}

impl Usage {
    /// Adds another call's counts to this total.
    pub fn accumulate(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
        self.cached_tokens = match (self.cached_tokens, other.cached_tokens) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
    }
}

/// Position of a step within its plan: `current` of `total`, 1-based.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Progress {
    /// 1-based index of the step being reported.
    pub current: u32,
    /// Number of steps in the plan.
    pub total: u32,
}

/// How a turn is answered: straight through the tool loop, or through an explicit plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ResponseMode {
    /// The tool-call loop, without a plan.
    Direct,
    /// A plan from `create_plan`, executed step by step.
    Plan,
}

/// A tool call as the model asked for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ToolCall {
    /// The provider's id for this call; the tool result refers to it.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as the model sent them (free-form JSON; a string when they did not parse).
    #[ts(type = "JsonValue")]
    pub arguments: serde_json::Value,
}

/// A plan produced by the model's `create_plan` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Plan {
    /// What the plan achieves.
    pub goal: String,
    /// Ordered steps.
    pub steps: Vec<PlanStep>,
    /// The model's estimate of how hard the task is.
    pub estimated_complexity: Complexity,
}

/// One step of a [`Plan`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct PlanStep {
    /// 1-based position in the plan; also the step's `step_id` in step events.
    pub index: u32,
    /// Short title.
    pub title: String,
    /// What the step does.
    pub description: String,
    /// Tools the model expects to use in this step.
    #[serde(default)]
    pub expected_tools: Vec<String>,
}

/// Estimated complexity of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum Complexity {
    /// A few small edits.
    Low,
    /// Several files or steps.
    Medium,
    /// Broad or risky changes.
    High,
}
