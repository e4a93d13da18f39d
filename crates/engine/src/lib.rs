//! Keel's engine: talking to models.
//!
//! A [`Provider`] streams one model response as [`StreamItem`]s (text, reasoning and tool-call
//! deltas, usage, a finish reason); the [`Assembler`] turns them into an [`AssembledResponse`],
//! checking every tool call's arguments. Providers: [`OpenAiProvider`] (any OpenAI-compatible
//! endpoint) and [`ScriptedProvider`] (replays a JSON script, for tests, demos and offline
//! use). [`complete_with_retry`] adds back-off retries with `run.llm.retry` events and never
//! returns a broken attempt (no finish reason, an undecodable chunk) as a response,
//! [`ModelChain`] model fallback with `prepare.model.select`, [`xml`] parses the XML
//! tool-call format for models without native tool calling, and [`text_tool_calls`] reads the
//! tool calls a server returned as text in a chat template's format. The [`agent`] module runs the
//! agent loop on top: an [`AgentSession`] drives turns in direct or plan mode. Diagnostics go
//! to `tracing`: a span per turn, model call (and attempt) and tool call, and a warning
//! wherever the engine works around an error (retries, fallbacks, repairs).

pub mod agent;
mod assemble;
mod error;
mod fallback;
mod model_family;
pub mod openai;
pub mod pricing;
mod provider;
mod provider_spec;
pub mod repetition;
pub mod retry;
pub mod scripted;
pub mod text_tool_calls;
pub mod vision;
pub mod xml;

pub use agent::{
    AgentConfig, AgentSession, DEFAULT_MAX_HISTORY_MESSAGES, RepoMapConfig, ResumedTurn,
    SideCallError, SubagentSettings, TASK, ToolFormat, TurnOutcome, TurnOverrides, new_turn_id,
};
pub use assemble::{ArgumentsStatus, AssembledResponse, AssembledToolCall, Assembler, assemble};
pub use error::ProviderError;
pub use fallback::ModelChain;
pub use keel_context::{ChatMessage, Role, ToolCallRequest};
pub use openai::{OpenAiConfig, OpenAiProvider};
pub use pricing::{ModelPrice, Pricing};
pub use provider::{
    ChatRequest, DEFAULT_TEMPERATURE, ItemStream, Provider, ReportedWindow, Sampling,
    SamplingError, StreamItem, ToolCallDelta,
};
pub use provider_spec::{DEFAULT_OPENAI_MODEL, ProviderSpec, ProviderSpecError, SCRIPTED_MODEL};
pub use retry::{RetryPolicy, StreamObserver, complete_with_retry};
pub use scripted::{Script, ScriptedProvider};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
