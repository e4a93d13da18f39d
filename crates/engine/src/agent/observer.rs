//! Streams a model response to the bus as it arrives: `run.thinking.start/delta/end`,
//! `run.response.start` in auto mode when the answer's first piece shows the mode, and
//! `run.llm.delta`, and a warning when a broken attempt's partial output is discarded (before
//! the `run.llm.retry` of the next attempt, or the failure of the call).

use keel_events::{
    Emitter, LogLevel, ResponseMode, RunLlmDelta, RunThinkingDelta, RunThinkingEnd,
    RunThinkingFail, RunThinkingStart, SystemLog,
};

use super::control_tools::CREATE_PLAN;
use super::turn_state::ResponseGate;
use crate::error::ProviderError;
use crate::provider::StreamItem;
use crate::retry::StreamObserver;

/// The session's [`StreamObserver`].
#[derive(Debug)]
pub(crate) struct EventObserver {
    emitter: Emitter,
    agent_name: String,
    /// Reasoning of the open thinking block (`None`: no block open).
    thinking: Option<String>,
    /// Whether this is the turn's first call (`run.thinking.start{is_initial}`).
    initial: bool,
    /// Whether Keel required the model to plan first (`run.thinking.start{is_forced}`).
    forced: bool,
    /// The turn's response: announced by the first piece of the answer that shows its mode.
    response: ResponseGate,
}

impl EventObserver {
    /// The observer of one model call: the turn's first (`initial`), in which Keel may have
    /// required the model to plan first (`forced`).
    pub(crate) fn new(
        emitter: Emitter,
        agent_name: String,
        initial: bool,
        forced: bool,
        response: ResponseGate,
    ) -> Self {
        Self {
            emitter,
            agent_name,
            thinking: None,
            initial,
            forced,
            response,
        }
    }

    /// The turn's response as this call left it.
    pub(crate) fn response(&self) -> ResponseGate {
        self.response
    }

    /// Ends an open thinking block (before answer text, or when the response is complete).
    pub(crate) fn close_thinking(&mut self) {
        if let Some(result) = self.thinking.take() {
            self.emitter.emit(RunThinkingEnd {
                agent_name: self.agent_name.clone(),
                result,
            });
        }
    }

    /// Fails an open thinking block (the call failed or was cancelled).
    pub(crate) fn fail_thinking(&mut self, error: &str) {
        if self.thinking.take().is_some() {
            self.emitter.emit(RunThinkingFail {
                agent_name: self.agent_name.clone(),
                error_message: error.to_owned(),
            });
        }
    }
}

impl StreamObserver for EventObserver {
    fn item(&mut self, item: &StreamItem) {
        match item {
            StreamItem::Thinking(text) => {
                if self.thinking.is_none() {
                    self.emitter.emit(RunThinkingStart {
                        agent_name: self.agent_name.clone(),
                        is_initial: self.initial,
                        is_forced: self.forced,
                    });
                    self.thinking = Some(String::new());
                }
                if let Some(all) = &mut self.thinking {
                    all.push_str(text);
                }
                self.emitter.emit(RunThinkingDelta {
                    agent_name: self.agent_name.clone(),
                    text: text.clone(),
                });
            }
            StreamItem::Text(text) => {
                self.close_thinking();
                if !text.is_empty() {
                    self.response.announce(&self.emitter, ResponseMode::Direct);
                    self.emitter.emit(RunLlmDelta { text: text.clone() });
                }
            }
            StreamItem::ToolCall(call) => {
                self.close_thinking();
                if let Some(name) = &call.name {
                    let mode = if name == CREATE_PLAN {
                        ResponseMode::Plan
                    } else {
                        ResponseMode::Direct
                    };
                    self.response.announce(&self.emitter, mode);
                }
            }
            StreamItem::Warning(warning) => {
                self.emitter.emit(SystemLog {
                    level: LogLevel::Warn,
                    message: format!("model stream: {warning}"),
                    metadata: None,
                });
            }
            StreamItem::Usage(_) | StreamItem::Finish(_) => {}
        }
    }

    fn discard(&mut self, attempt: u32, error: &ProviderError) {
        tracing::debug!(attempt, %error, "partial response discarded");
        self.fail_thinking(&error.to_string());
        self.emitter.emit(SystemLog {
            level: LogLevel::Warn,
            message: format!(
                "attempt {attempt} broke off after streaming part of a response; everything it streamed was discarded"
            ),
            metadata: None,
        });
    }
}
