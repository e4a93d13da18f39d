//! `run.context.*`: what the prompt holds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `run.context.compress`: older history was summarised to fit the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunContextCompress {
    /// Tokens of the history before.
    pub original_tokens: u64,
    /// Tokens after.
    pub compressed_tokens: u64,
    /// The summary that replaced the older turns.
    pub summary: String,
}

/// `run.context.window`: how full the model's context window is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunContextWindow {
    /// Tokens in the prompt about to be sent.
    pub tokens_used: u64,
    /// The model's context window.
    pub limit: u64,
}
