//! `run.subagent.*`: a subagent (a child agent the `task` tool started) ran.
//!
//! Both events carry the `task` call's id twice: in `call_id`, and — like every event the
//! child emits — in the envelope's `parent_call_id`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{AgentStatus, Usage};

/// `run.subagent.start`: a `task` call started a subagent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunSubagentStart {
    /// The parent's `task` call.
    pub call_id: String,
    /// The kind of subagent (`explorer`, `worker`, or a custom agent's name).
    pub subagent_type: String,
    /// The job in a few words, as the parent described it.
    pub description: String,
    /// How deep it runs: 1 for a child of the top agent, 2 for its child, ….
    pub depth: u32,
    /// The model it runs on.
    pub model: String,
}

/// `run.subagent.end`: a subagent ended; only its report went back to the parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunSubagentEnd {
    /// The parent's `task` call.
    pub call_id: String,
    /// The kind of subagent.
    pub subagent_type: String,
    /// How it ended (as in `agent.end`).
    pub status: AgentStatus,
    /// The length of the report handed back to the parent, in characters.
    pub report_chars: u64,
    /// Model calls it made.
    pub iterations: u32,
    /// Tokens it used (its own calls; the parent's totals include them once).
    pub usage: Usage,
    /// What its calls cost in US dollars, when its model's price is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost_usd: Option<f64>,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
}
