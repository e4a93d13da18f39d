//! One session's events as GenAI spans (OpenTelemetry semantic conventions for generative AI):
//!
//! | events | span | attributes |
//! |---|---|---|
//! | `agent.start` … `agent.end` | `invoke_agent keel` (internal) | `gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.conversation.id`, `gen_ai.request.model`, token totals, `keel.session.id`, `keel.turn.id`, `keel.agent.status` |
//! | `run.llm.start` … `run.llm.end` | `chat MODEL` (client) | `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens` / `output_tokens`, `keel.usage.cached_tokens` |
//! | `run.tool.start` … `run.tool.end` | `execute_tool TOOL` (internal) | `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, `keel.tool.status` |
//!
//! A span's times are its events' timestamps. Content (`gen_ai.input.messages`,
//! `gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) is
//! recorded only when asked for. Spans left open when a turn ends are ended with it.

use std::collections::HashMap;
use std::time::SystemTime;

use keel_events::{AgentStatus, Event, EventHandler, EventKind, ToolStatus};
use opentelemetry::trace::{Span as _, SpanBuilder, SpanKind, Status, TraceContextExt as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::{SdkTracer, Span};
use serde_json::json;

/// Turns one session's events into spans; see the module docs.
pub struct GenAiSpans {
    tracer: SdkTracer,
    capture_content: bool,
    model: Option<String>,
    conversation_id: Option<String>,
    /// The running turn's span, as the parent of its calls.
    turn: Option<Context>,
    chat: Option<Span>,
    /// A model call whose `run.llm.end` came, waiting for its `run.usage.report` (which
    /// follows it) before it ends at the `run.llm.end`'s time.
    ended_chat: Option<(Span, SystemTime)>,
    tools: HashMap<String, Span>,
}

impl std::fmt::Debug for GenAiSpans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GenAiSpans")
            .field("capture_content", &self.capture_content)
            .field("in_turn", &self.turn.is_some())
            .finish_non_exhaustive()
    }
}

impl GenAiSpans {
    pub(crate) fn new(tracer: SdkTracer, capture_content: bool) -> Self {
        Self {
            tracer,
            capture_content,
            model: None,
            conversation_id: None,
            turn: None,
            chat: None,
            ended_chat: None,
            tools: HashMap::new(),
        }
    }

    fn start(&self, name: String, kind: SpanKind, at: SystemTime, attrs: Vec<KeyValue>) -> Span {
        let parent = self.turn.clone().unwrap_or_default();
        SpanBuilder::from_name(name)
            .with_kind(kind)
            .with_start_time(at)
            .with_attributes(attrs)
            .start_with_context(&self.tracer, &parent)
    }

    fn turn_started(&mut self, event: &Event, task: &str) {
        self.end_turn(event, None);
        let mut attrs = vec![
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.name", "keel"),
            KeyValue::new("keel.session.id", event.session_id.clone()),
        ];
        if let Some(turn) = &event.turn_id {
            attrs.push(KeyValue::new("keel.turn.id", turn.clone()));
        }
        if self.capture_content {
            attrs.push(KeyValue::new(
                "gen_ai.input.messages",
                messages("user", task),
            ));
        }
        let span = SpanBuilder::from_name("invoke_agent keel")
            .with_kind(SpanKind::Internal)
            .with_start_time(SystemTime::from(event.ts))
            .with_attributes(attrs)
            .start(&self.tracer);
        self.turn = Some(Context::new().with_span(span));
    }

    /// Ends the running turn's span (and any call left open in it).
    fn end_turn(&mut self, event: &Event, end: Option<&keel_events::AgentEnd>) {
        let at = SystemTime::from(event.ts);
        self.end_ended_chat();
        if let Some(mut chat) = self.chat.take() {
            chat.end_with_timestamp(at);
        }
        for (_, mut tool) in self.tools.drain() {
            tool.end_with_timestamp(at);
        }
        let Some(turn) = self.turn.take() else {
            return;
        };
        let span = turn.span();
        if let Some(model) = &self.model {
            span.set_attribute(KeyValue::new("gen_ai.request.model", model.clone()));
        }
        if let Some(id) = &self.conversation_id {
            span.set_attribute(KeyValue::new("gen_ai.conversation.id", id.clone()));
        }
        if let Some(end) = end {
            span.set_attributes([
                KeyValue::new("keel.agent.status", status_name(end.status)),
                KeyValue::new("gen_ai.usage.input_tokens", tokens(end.usage.prompt_tokens)),
                KeyValue::new(
                    "gen_ai.usage.output_tokens",
                    tokens(end.usage.completion_tokens),
                ),
            ]);
            if self.capture_content {
                span.set_attribute(KeyValue::new(
                    "gen_ai.output.messages",
                    messages("assistant", &end.result),
                ));
            }
            if matches!(end.status, AgentStatus::Failed) {
                span.set_status(Status::error(end.result.clone()));
            }
        }
        span.end_with_timestamp(at);
    }
}

impl GenAiSpans {
    fn end_ended_chat(&mut self) {
        if let Some((mut chat, at)) = self.ended_chat.take() {
            chat.end_with_timestamp(at);
        }
    }
}

impl EventHandler for GenAiSpans {
    fn handle(&mut self, event: &Event) {
        let at = SystemTime::from(event.ts);
        if !matches!(event.kind, EventKind::RunUsageReport(_)) {
            self.end_ended_chat();
        }
        match &event.kind {
            EventKind::AgentStart(start) => self.turn_started(event, &start.task_input),
            EventKind::PrepareConversationOpen(open) => {
                self.conversation_id = Some(open.conversation_id.clone());
            }
            EventKind::PrepareModelSelect(select) => {
                self.model = Some(select.final_model.clone());
            }
            EventKind::RunLlmStart(start) => {
                if let Some(mut open) = self.chat.take() {
                    open.end_with_timestamp(at);
                }
                self.model = Some(start.model.clone());
                let span = self.start(
                    format!("chat {}", start.model),
                    SpanKind::Client,
                    at,
                    vec![
                        KeyValue::new("gen_ai.operation.name", "chat"),
                        KeyValue::new("gen_ai.provider.name", "openai"),
                        KeyValue::new("gen_ai.request.model", start.model.clone()),
                        KeyValue::new("keel.llm.iteration", i64::from(start.iteration)),
                    ],
                );
                self.chat = Some(span);
            }
            EventKind::RunUsageReport(usage) => {
                let chat = match &mut self.ended_chat {
                    Some((chat, _)) => Some(chat),
                    None => self.chat.as_mut(),
                };
                if let Some(chat) = chat {
                    chat.set_attributes([
                        KeyValue::new("gen_ai.usage.input_tokens", tokens(usage.prompt_tokens)),
                        KeyValue::new(
                            "gen_ai.usage.output_tokens",
                            tokens(usage.completion_tokens),
                        ),
                    ]);
                    if let Some(cached) = usage.cached_tokens {
                        chat.set_attribute(KeyValue::new(
                            "keel.usage.cached_tokens",
                            tokens(cached),
                        ));
                    }
                    if let Some(model) = &usage.model {
                        chat.set_attribute(KeyValue::new("gen_ai.response.model", model.clone()));
                    }
                }
                self.end_ended_chat();
            }
            EventKind::RunLlmEnd(end) => {
                if let Some(mut chat) = self.chat.take() {
                    let reason = serde_json::to_value(end.finish_reason)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    chat.set_attribute(KeyValue::new(
                        "gen_ai.response.finish_reasons",
                        opentelemetry::Value::Array(opentelemetry::Array::String(vec![
                            reason.into(),
                        ])),
                    ));
                    if self.capture_content {
                        chat.set_attribute(KeyValue::new(
                            "gen_ai.output.messages",
                            messages("assistant", &end.llm_output),
                        ));
                    }
                    self.ended_chat = Some((chat, at));
                }
            }
            EventKind::RunToolStart(start) => {
                let mut attrs = vec![
                    KeyValue::new("gen_ai.operation.name", "execute_tool"),
                    KeyValue::new("gen_ai.tool.name", start.tool_name.clone()),
                    KeyValue::new("gen_ai.tool.call.id", start.call_id.clone()),
                    KeyValue::new("gen_ai.tool.type", "function"),
                ];
                if self.capture_content {
                    attrs.push(KeyValue::new(
                        "gen_ai.tool.call.arguments",
                        start.arguments.to_string(),
                    ));
                }
                let span = self.start(
                    format!("execute_tool {}", start.tool_name),
                    SpanKind::Internal,
                    at,
                    attrs,
                );
                self.tools.insert(start.call_id.clone(), span);
            }
            EventKind::RunToolEnd(end) => {
                if let Some(mut span) = self.tools.remove(&end.call_id) {
                    span.set_attribute(KeyValue::new("keel.tool.status", tool_status(end.status)));
                    if self.capture_content {
                        span.set_attribute(KeyValue::new(
                            "gen_ai.tool.call.result",
                            end.result.clone(),
                        ));
                    }
                    if end.status == ToolStatus::Error {
                        span.set_status(Status::error(end.result_summary.clone()));
                    }
                    span.end_with_timestamp(at);
                }
            }
            EventKind::AgentEnd(end) => self.end_turn(event, Some(end)),
            _ => {}
        }
    }
}

/// A token count as a span attribute (an i64, saturating).
fn tokens(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One message in the conventions' JSON shape: `[{"role", "parts": [{"type": "text", …}]}]`.
fn messages(role: &str, text: &str) -> String {
    json!([{"role": role, "parts": [{"type": "text", "content": text}]}]).to_string()
}

fn status_name(status: AgentStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn tool_status(status: ToolStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
