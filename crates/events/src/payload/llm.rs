//! `run.response.*`, `run.llm.*`, `run.thinking.*`, `run.usage.report`: talking to the model.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ResponseMode, ToolCall, Usage};

/// `run.response.start`: the agent starts answering, in this mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunResponseStart {
    /// Direct tool loop or plan.
    pub mode: ResponseMode,
}

/// `run.response.end`: the answer in this mode is finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunResponseEnd {
    /// Direct tool loop or plan.
    pub mode: ResponseMode,
}

/// `run.llm.start`: a request is about to be sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunLlmStart {
    /// Model asked.
    pub model: String,
    /// 1-based loop iteration within the turn.
    pub iteration: u32,
    /// Messages in the request.
    pub message_count: u32,
    /// The system prompt, when the producer chose to include it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_prompt: Option<String>,
}

/// `run.llm.delta`: a piece of streamed answer text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunLlmDelta {
    /// The new text.
    pub text: String,
}

/// `run.llm.end`: the model's response is complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunLlmEnd {
    /// All answer text of this response.
    pub llm_output: String,
    /// Tool calls requested, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Tokens used by this call, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<Usage>,
}

/// Why a model response ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end of the answer.
    Stop,
    /// The model asked for tools.
    ToolCalls,
    /// The output token limit was hit.
    Length,
    /// The provider filtered the output.
    ContentFilter,
    /// The stream ended without a finish reason (truncated).
    Truncated,
    /// The turn was cancelled mid-stream.
    Cancelled,
    /// A reason this catalogue does not know.
    Other,
}

/// `run.llm.retry`: a model call failed and will be tried again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunLlmRetry {
    /// 1-based attempt that failed.
    pub attempt: u32,
    /// Attempts allowed in all.
    pub max_attempts: u32,
    /// Wait before the next attempt.
    pub delay_ms: u64,
    /// What went wrong.
    pub error: String,
}

/// `run.thinking.start`: the model began a reasoning block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunThinkingStart {
    /// Agent that is thinking.
    pub agent_name: String,
    /// The turn's first reasoning: in the turn's first model call (seed 001: 是否初次规划).
    /// `false` in events recorded before it was reported.
    #[serde(default)]
    pub is_initial: bool,
    /// Keel required this reasoning: the first call of a plan-mode turn, where the model must
    /// plan before anything else (seed 001: 是否强制). `false` in events recorded before it
    /// was reported.
    #[serde(default)]
    pub is_forced: bool,
}

/// `run.thinking.delta`: a piece of streamed reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunThinkingDelta {
    /// Agent that is thinking.
    pub agent_name: String,
    /// The new reasoning text.
    pub text: String,
}

/// `run.thinking.end`: the reasoning block finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunThinkingEnd {
    /// Agent that was thinking.
    pub agent_name: String,
    /// The whole reasoning text.
    pub result: String,
}

/// `run.thinking.fail`: the reasoning block broke off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunThinkingFail {
    /// Agent that was thinking.
    pub agent_name: String,
    /// What went wrong (seed 001's name; events recorded before it was renamed say `error`,
    /// which is still read).
    #[serde(alias = "error")]
    pub error_message: String,
}

/// `run.usage.report`: tokens used by the latest call, and so far in the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunUsageReport {
    /// Prompt tokens of the latest call.
    pub prompt_tokens: u64,
    /// Completion tokens of the latest call.
    pub completion_tokens: u64,
    /// Total tokens of the latest call.
    pub total_tokens: u64,
    /// Cached prompt tokens of the latest call, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cached_tokens: Option<u64>,
    /// Running total for the session.
    pub cumulative: Usage,
    /// The model that answered the call, when the producer knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// What the call cost in US dollars, from the model's price per million tokens (input,
    /// cached input, output); absent when the model's price is unknown (never a made-up 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost_usd: Option<f64>,
    /// What the call was for, when it was not one of a turn's own model calls: a summary of
    /// older history a turn asked for, or a session-level call (`memory_distill`) made
    /// between turns. Absent: a turn's call (as in every stream recorded before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub purpose: Option<CallPurpose>,
}

/// What a model call was for (`run.usage.report`'s `purpose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum CallPurpose {
    /// One of a turn's own model calls (what a report without `purpose` is).
    Turn,
    /// The summary of older history a turn asked for when its prompt did not fit (part of
    /// that turn).
    Summary,
    /// The end-of-session memory distillation: a session-level call made between turns,
    /// after the last `agent.end`. Its events carry no `turn_id`, no turn's `agent.end`
    /// usage counts it, and the session's running total (`cumulative`) does.
    MemoryDistill,
    /// The commit message of a turn's changes (`--commit`): a session-level call made after
    /// the turn's `agent.end`, counted like `memory_distill`.
    CommitMessage,
    /// A pull request's title and description (`--pr`, the `pull_request` session option): a
    /// session-level call made after the turn's commit, counted like `memory_distill`.
    PullRequest,
}

impl CallPurpose {
    /// Whether the call belongs to the session rather than to a turn.
    pub fn is_session_level(self) -> bool {
        matches!(
            self,
            CallPurpose::MemoryDistill | CallPurpose::CommitMessage | CallPurpose::PullRequest
        )
    }

    /// The purpose's name (`turn`, `summary`, `memory_distill`, `commit_message`,
    /// `pull_request`).
    pub fn as_str(self) -> &'static str {
        match self {
            CallPurpose::Turn => "turn",
            CallPurpose::Summary => "summary",
            CallPurpose::MemoryDistill => "memory_distill",
            CallPurpose::CommitMessage => "commit_message",
            CallPurpose::PullRequest => "pull_request",
        }
    }
}
