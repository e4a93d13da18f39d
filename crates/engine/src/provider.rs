//! The provider interface: one streaming call to a model.

use std::pin::Pin;

use futures::Stream;
use keel_events::{FinishReason, Usage};

use crate::error::ProviderError;
use keel_context::ChatMessage;

/// One request to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// Model to ask. The fallback driver rewrites it for each model of its chain.
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<ChatMessage>,
    /// Tool definitions in OpenAI function format
    /// (`{"type":"function","function":{"name":…,"description":…,"parameters":{…}}}`).
    pub tools: Vec<serde_json::Value>,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
    /// Nucleus sampling (`top_p`), when set.
    pub top_p: Option<f32>,
    /// Output token limit, when set.
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    /// A request for `model` with these messages, no tools and default sampling.
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        Self {
            model: model.into(),
            messages,
            tools: Vec::new(),
            temperature: None,
            top_p: None,
            max_tokens: None,
        }
    }

    /// The same request with these tool definitions.
    pub fn with_tools(mut self, tools: Vec<serde_json::Value>) -> Self {
        self.tools = tools;
        self
    }

    /// The same request sampled with `sampling`.
    pub fn with_sampling(mut self, sampling: Sampling) -> Self {
        self.temperature = sampling.temperature;
        self.top_p = sampling.top_p;
        self
    }
}

/// The temperature a request is sampled at unless told otherwise: low, because tool calls and
/// edits want the model's most likely answer, not a creative one (a server's own default is
/// often 0.8 or 1, at which small models garble their calls).
pub const DEFAULT_TEMPERATURE: f32 = 0.0;

/// How a model's answer is sampled (`temperature`, `top_p` in `keel.toml` and flags).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// Temperature; `None` leaves it to the server.
    pub temperature: Option<f32>,
    /// Nucleus sampling; `None` leaves it to the server.
    pub top_p: Option<f32>,
}

impl Default for Sampling {
    fn default() -> Self {
        Self {
            temperature: Some(DEFAULT_TEMPERATURE),
            top_p: None,
        }
    }
}

/// A sampling value out of its range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SamplingError {
    /// `temperature` outside 0–2.
    #[error("temperature must be between 0 and 2 (got {0})")]
    Temperature(f32),
    /// `top_p` outside (0, 1].
    #[error("top_p must be greater than 0 and at most 1 (got {0})")]
    TopP(f32),
}

impl Sampling {
    /// `value` as a temperature: 0 to 2, as OpenAI-compatible servers accept.
    pub fn temperature(value: f32) -> Result<f32, SamplingError> {
        if (0.0..=2.0).contains(&value) {
            Ok(value)
        } else {
            Err(SamplingError::Temperature(value))
        }
    }

    /// `value` as a `top_p`: above 0, at most 1.
    pub fn top_p(value: f32) -> Result<f32, SamplingError> {
        if value > 0.0 && value <= 1.0 {
            Ok(value)
        } else {
            Err(SamplingError::TopP(value))
        }
    }

    /// No sampling parameter sent: the server's defaults.
    pub fn server_defaults() -> Self {
        Self {
            temperature: None,
            top_p: None,
        }
    }
}

/// A piece of one tool call. Pieces with the same `index` belong to the same call; `id` and
/// `name` usually come with the first piece only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallDelta {
    /// Position of the call within the response (parallel calls have distinct indexes).
    pub index: u32,
    /// The call's id, when this piece carries it.
    pub id: Option<String>,
    /// The tool name, when this piece carries it.
    pub name: Option<String>,
    /// The next piece of the argument text (may be empty).
    pub arguments: String,
}

/// One item of a streamed model response.
///
/// A provider's stream yields any number of deltas, usage and warnings, then exactly one
/// [`StreamItem::Finish`] as its last item — [`FinishReason::Truncated`] when the response ended
/// without the model saying why. An `Err` item ends the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// A piece of answer text.
    Text(String),
    /// A piece of reasoning text.
    Thinking(String),
    /// A piece of a tool call.
    ToolCall(ToolCallDelta),
    /// Token counts for the call.
    Usage(Usage),
    /// Something was wrong with the response but the stream could go on (e.g. an XML tool block
    /// left open at its end).
    Warning(String),
    /// The response is over, for this reason.
    Finish(FinishReason),
}

/// A context window a server says it runs a model with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportedWindow {
    /// The window, in tokens.
    pub tokens: u64,
    /// Where the server said it (`llama.cpp /props default_generation_settings.n_ctx`, …).
    pub source: String,
}

/// The stream a provider returns.
pub type ItemStream = Pin<Box<dyn Stream<Item = Result<StreamItem, ProviderError>> + Send>>;

/// A model back end.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// Short name for logs and events (`openai`, `scripted`).
    fn name(&self) -> &str;

    /// Sends `request` and returns the response as a stream of items.
    ///
    /// Errors before the first item (refused connection, HTTP error status) come back as `Err`
    /// here; errors after it arrive as an `Err` item of the stream.
    async fn stream(&self, request: &ChatRequest) -> Result<ItemStream, ProviderError>;

    /// The context window the server says it runs `model` with, when it says. The agent asks
    /// once per model and session, before its first call; any failure is `None` (the built-in
    /// table is used). Default: `None`.
    async fn context_window(&self, model: &str) -> Option<ReportedWindow> {
        let _ = model;
        None
    }

    /// Whether a session should make its end-of-session memory distillation call through this
    /// provider (default yes). A scripted provider replays a fixed list of answers and says yes
    /// only when its script asks (`"distill_memory": true`), so existing scripts keep working.
    fn distills_memory(&self) -> bool {
        true
    }

    /// Whether a session should make side calls through this provider (a turn's commit
    /// message, a pull request's text; see `AgentSession::side_call`; default yes). A scripted
    /// provider says yes only when its script asks (`"side_calls": true`); otherwise the
    /// caller writes its text without the model.
    fn answers_side_calls(&self) -> bool {
        true
    }
}
