//! The model-call part of a turn: builds the prompt from what the model sees, sends it along
//! the model chain (retries, fallbacks) while streaming its events, and reports the response
//! and the tokens it used.

use std::collections::HashMap;
use std::sync::Arc;

use keel_context::{
    Budget, BuildOptions, BuiltPrompt, FallbackSummarizer, FitStep, ModelWindows, PromptBuilder,
    PromptSources, SummarizeError, TokenCounter,
};
use keel_events::{
    CallPurpose, Emitter, FinishReason, LogLevel, RunLlmEnd, RunLlmStart, RunUsageReport,
    StatusKind, SystemLog, SystemStatus, Usage,
};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::compaction::{ModelSummarizer, summary_prompt_limit};
use super::config::ToolFormat;
use super::instructions::{Style, instructions};
use super::model_context::ModelContext;
use super::observer::EventObserver;
use super::output_limit::continuation_messages;
use super::tool_call::Functions;
use super::turn_state::ResponseGate;
use super::xml_format::{XmlProvider, to_xml_messages, tool_catalogue};
use crate::assemble::AssembledResponse;
use crate::error::ProviderError;
use crate::fallback::ModelChain;
use crate::pricing::Pricing;
use crate::provider::{ChatRequest, Provider, ReportedWindow, Sampling};
use crate::repetition::RepetitionGuard;
use crate::retry::RetryPolicy;
use crate::text_tool_calls::TextCallProvider;
use keel_protocol::Mode;

/// The session's line to the model: the provider, and what it counts across turns.
pub(crate) struct ModelCaller {
    provider: Arc<dyn Provider>,
    /// XML tool calls numbered so far (for their ids).
    xml_calls: u64,
    /// Tokens used by the session so far.
    usage: Usage,
    /// The window each model's server reported (`None`: it did not say), asked once.
    reported_windows: HashMap<String, Option<ReportedWindow>>,
}

impl std::fmt::Debug for ModelCaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelCaller")
            .field("xml_calls", &self.xml_calls)
            .field("usage", &self.usage)
            .field("reported_windows", &self.reported_windows)
            .finish_non_exhaustive()
    }
}

/// What one model call reads and updates.
pub(crate) struct ModelCall<'a> {
    /// The models to try, in order (a fallback moves it on).
    pub(crate) models: &'a mut ModelChain,
    pub(crate) retry: &'a RetryPolicy,
    /// How the answer is sampled.
    pub(crate) sampling: Sampling,
    pub(crate) mode: Mode,
    /// The instructions the model gets (the compact profile's, and how it works this turn).
    pub(crate) style: Style,
    pub(crate) tool_format: ToolFormat,
    /// The window set in the settings; it beats the one the server reports, which beats
    /// keel-context's table.
    pub(crate) context_window: Option<u64>,
    /// Whether the model writes the summaries of older turns (else the session's summariser
    /// does).
    pub(crate) model_summaries: bool,
    pub(crate) agent_name: &'a str,
    pub(crate) emitter: &'a Emitter,
    pub(crate) context: &'a mut ModelContext,
    /// Counts tokens for the current model.
    pub(crate) counter: TokenCounter,
    /// The tool definitions offered (counted with `counter`).
    pub(crate) functions: &'a Functions,
    /// The turn's model-call number (for `run.llm.start`).
    pub(crate) iteration: u32,
    /// Whether `run.llm.start` carries the system prompt.
    pub(crate) include_system_prompt: bool,
    pub(crate) cancel: &'a CancellationToken,
    /// The turn's usage, which this call's is added to.
    pub(crate) turn_usage: &'a mut Usage,
    /// The turn's response, announced by the first streamed piece that shows its mode.
    pub(crate) response: &'a mut ResponseGate,
    /// The answer so far, when this call asks the model to continue an answer cut off at the
    /// output limit.
    pub(crate) continuation: Option<&'a str>,
    /// Model prices, for the cost of the call.
    pub(crate) pricing: &'a Pricing,
    /// The session's `PreCompact` hooks, run before older history is summarised (`None`:
    /// there are none).
    pub(crate) pre_compact: Option<keel_tools::hooks::HookRunner<'a>>,
}

impl ModelCall<'_> {
    fn xml(&self) -> bool {
        self.tool_format == ToolFormat::Xml
    }
}

impl ModelCaller {
    /// A caller of `provider`.
    pub(crate) fn new(provider: Arc<dyn Provider>) -> Self {
        Self {
            provider,
            xml_calls: 0,
            usage: Usage::default(),
            reported_windows: HashMap::new(),
        }
    }

    /// Tokens used by the session so far.
    pub(crate) fn usage(&self) -> Usage {
        self.usage
    }

    /// Adds tokens used by a subagent to the session's (its own `run.usage.report`s told
    /// them).
    pub(crate) fn add_usage(&mut self, usage: &Usage) {
        self.usage.accumulate(usage);
    }

    /// The provider calls go to.
    pub(crate) fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }

    /// The provider, shared (to call it while this caller is borrowed for its usage).
    pub(crate) fn shared_provider(&self) -> Arc<dyn Provider> {
        Arc::clone(&self.provider)
    }

    /// Adds a call's `usage` on `model` to the session's and reports it as `run.usage.report`,
    /// with the model, what the call was for (`None`: a turn's own call) and, when `pricing`
    /// knows the model, the cost.
    pub(crate) fn report_usage(
        &mut self,
        emitter: &Emitter,
        pricing: &Pricing,
        model: &str,
        usage: &Usage,
        purpose: Option<CallPurpose>,
    ) {
        self.usage.accumulate(usage);
        emitter.emit(RunUsageReport {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.total_tokens,
            cached_tokens: usage.cached_tokens,
            cumulative: self.usage,
            model: Some(model.to_owned()),
            cost_usd: pricing.cost(model, usage),
            purpose,
        });
    }

    /// Builds the prompt and asks the model, streaming its response as events.
    pub(crate) async fn call(
        &mut self,
        mut call: ModelCall<'_>,
    ) -> Result<AssembledResponse, ProviderError> {
        let model = call.models.current().to_owned();
        let span = tracing::info_span!("model_call", model = %model, iteration = call.iteration);
        async move {
            if call.context_window.is_none() {
                call.context_window = self
                    .reported_window(&model, call.cancel, call.emitter)
                    .await;
            }
            call.context.attach_images();
            let (built, summary_usage) =
                build_prompt(&model, &mut call, self.provider.as_ref()).await;
            if let Some(usage) = summary_usage {
                call.turn_usage.accumulate(&usage);
                self.report_usage(
                    call.emitter,
                    call.pricing,
                    &model,
                    &usage,
                    Some(CallPurpose::Summary),
                );
            }
            // Cancelled while the summary was written: the request is not sent.
            if call.cancel.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            let xml = call.xml();
            // Offered no tools, the model reads the edits made from its answers as it wrote
            // them.
            let as_text = !xml && call.functions.definitions.is_empty();
            let mut messages = if xml {
                to_xml_messages(built.messages)
            } else if as_text {
                super::edits_as_text::edits_as_text(built.messages)
            } else {
                built.messages
            };
            let prompt_len = messages.len();
            if let Some(answer) = call.continuation {
                messages.extend(continuation_messages(answer));
            }
            call.emitter.emit(RunLlmStart {
                model: model.clone(),
                iteration: call.iteration,
                message_count: u32::try_from(messages.len()).unwrap_or(u32::MAX),
                system_prompt: call
                    .include_system_prompt
                    .then(|| system_prompt(&messages))
                    .flatten(),
            });
            // Holds until the first streamed event or the end of the call.
            call.emitter.emit(SystemStatus::waiting(
                StatusKind::WaitingForModel,
                format!("waiting for {model}"),
            ));
            let request = if xml {
                ChatRequest::new(model, messages)
            } else {
                ChatRequest::new(model, messages).with_tools(call.functions.definitions.clone())
            }
            .with_sampling(call.sampling);
            let initial = call.iteration <= 1;
            let mut observer = EventObserver::new(
                call.emitter.clone(),
                call.agent_name.to_owned(),
                initial,
                initial && call.mode == Mode::Plan,
                *call.response,
            );
            let result = self.send(&mut call, &request, &mut observer).await;
            *call.response = observer.response();
            if !xml && !as_text {
                // The next request starts from this one's unchanged history instead of copying
                // it.
                let mut messages = request.messages;
                messages.truncate(prompt_len);
                call.context.prompt_cache.recycle(messages);
            }
            self.report(&mut call, result, &mut observer)
        }
        .instrument(span)
        .await
    }

    /// The context window `model` works with: `configured`, else what its server reports,
    /// else keel-context's table.
    pub(crate) async fn window(
        &mut self,
        model: &str,
        configured: Option<u64>,
        cancel: &CancellationToken,
        emitter: &Emitter,
    ) -> u64 {
        match configured {
            Some(window) => window,
            None => match self.reported_window(model, cancel, emitter).await {
                Some(window) => window,
                None => Budget::for_model(model, &ModelWindows::new()).window,
            },
        }
    }

    /// The window `model`'s server reports: asked the first time only (a `system.log` says
    /// what it reported), and not at all once cancelled.
    async fn reported_window(
        &mut self,
        model: &str,
        cancel: &CancellationToken,
        emitter: &Emitter,
    ) -> Option<u64> {
        if let Some(known) = self.reported_windows.get(model) {
            return known.as_ref().map(|w| w.tokens);
        }
        let reported = tokio::select! {
            biased;
            _ = cancel.cancelled() => return None,
            reported = self.provider.context_window(model) => reported,
        };
        if let Some(window) = &reported {
            tracing::info!(model, tokens = window.tokens, source = %window.source, "the server reports the context window");
            emitter.emit(SystemLog {
                level: LogLevel::Info,
                message: format!(
                    "context window of {model}: {} tokens, as the server reports ({})",
                    window.tokens, window.source
                ),
                metadata: None,
            });
        }
        let tokens = reported.as_ref().map(|w| w.tokens);
        self.reported_windows.insert(model.to_owned(), reported);
        tokens
    }

    /// Sends `request` along the model chain, stopping an answer caught in a loop. The answer's
    /// text is read for a leading
    /// `<think>` block and, when the request offers tools, for tool calls written as text;
    /// with the XML convention it is then parsed for XML calls.
    async fn send(
        &self,
        call: &mut ModelCall<'_>,
        request: &ChatRequest,
        observer: &mut EventObserver,
    ) -> Result<(AssembledResponse, String), ProviderError> {
        let guarded = RepetitionGuard::new(self.provider.as_ref());
        let text_calls = TextCallProvider::new(&guarded);
        let xml_provider = call
            .xml()
            .then(|| XmlProvider::new(&text_calls, &call.functions.definitions));
        let provider: &dyn Provider = match &xml_provider {
            Some(wrapper) => wrapper,
            None => &text_calls,
        };
        call.models
            .complete(
                provider,
                request,
                call.retry,
                call.emitter,
                call.cancel,
                observer,
            )
            .await
    }

    /// Closes the streamed events of a finished call: `run.llm.end` and the usage report, or
    /// the failed thinking block.
    fn report(
        &mut self,
        call: &mut ModelCall<'_>,
        result: Result<(AssembledResponse, String), ProviderError>,
        observer: &mut EventObserver,
    ) -> Result<AssembledResponse, ProviderError> {
        match result {
            Ok((mut response, model)) => {
                observer.close_thinking();
                if call.xml() {
                    self.number_xml_calls(&call.context.conversation, &mut response);
                }
                call.emitter.emit(RunLlmEnd {
                    llm_output: response.text.clone(),
                    tool_calls: response.tool_calls.iter().map(|c| c.to_event()).collect(),
                    finish_reason: response.finish(),
                    usage: response.usage,
                });
                if let Some(usage) = response.usage {
                    call.turn_usage.accumulate(&usage);
                    self.report_usage(call.emitter, call.pricing, &model, &usage, None);
                }
                Ok(response)
            }
            Err(error) => {
                tracing::warn!(%error, "model call failed");
                observer.fail_thinking(&error.to_string());
                // The response was stopped here: its call ends, with what was streamed.
                let stopped = match error {
                    ProviderError::Cancelled => Some(FinishReason::Cancelled),
                    ProviderError::Repetition { .. } => Some(FinishReason::Other),
                    _ => None,
                };
                if let Some(finish_reason) = stopped {
                    call.emitter.emit(RunLlmEnd {
                        llm_output: String::new(),
                        tool_calls: Vec::new(),
                        finish_reason,
                        usage: None,
                    });
                }
                Err(error)
            }
        }
    }

    /// Gives the calls parsed from XML text ids that are stable and unique in the session
    /// (`xml_1`, `xml_2`, …), continuing after any such id already in `conversation`.
    fn number_xml_calls(
        &mut self,
        conversation: &keel_context::Conversation,
        response: &mut AssembledResponse,
    ) {
        if self.xml_calls == 0 {
            self.xml_calls = conversation
                .messages()
                .iter()
                .flat_map(|m| m.tool_calls())
                .filter_map(|c| c.id.strip_prefix("xml_")?.parse::<u64>().ok())
                .max()
                .unwrap_or(0);
        }
        for call in &mut response.tool_calls {
            self.xml_calls += 1;
            call.id = format!("xml_{}", self.xml_calls);
        }
    }
}

/// A rendered repo map without the sections (`path:` and its indented lines) of the files in
/// `focused`.
fn without_files(map: &str, focused: &keel_context::FocusedFiles) -> String {
    if focused.is_empty() {
        return map.to_owned();
    }
    let mut out = String::with_capacity(map.len());
    let mut keep = true;
    for line in map.split_inclusive('\n') {
        let header = !line.starts_with([' ', '\t']) && line.trim_end().ends_with(':');
        if header {
            let path = line.trim_end().trim_end_matches(':');
            keep = focused.get(path).is_none();
        }
        if keep {
            out.push_str(line);
        }
    }
    out
}

/// The text of the request's system message, if it has one.
fn system_prompt(messages: &[keel_context::ChatMessage]) -> Option<String> {
    messages
        .first()
        .filter(|m| m.role == keel_context::Role::System)
        .map(|m| m.content.clone())
}

/// The prompt for `model` within its budget, with `run.context.window` and
/// `run.context.compress` emitted. Checked before every model call, mid-turn included: when
/// the prompt is over budget, older turns are summarised — by the model when
/// [`ModelCall::model_summaries`] is set, the session's summariser standing in when that call
/// fails. Returns the prompt and the tokens a summary call used.
async fn build_prompt(
    model: &str,
    call: &mut ModelCall<'_>,
    provider: &dyn Provider,
) -> (BuiltPrompt, Option<keel_events::Usage>) {
    let xml = call.xml();
    // Native: the definitions travel beside the messages. XML: they are in the system prompt,
    // where the builder counts them.
    let tool_tokens = if xml { 0 } else { call.functions.tokens };
    let budget = match call.context_window {
        Some(window) => Budget::new(window),
        None => Budget::for_model(model, &ModelWindows::new()),
    };
    let options = BuildOptions::default();
    let builder = PromptBuilder::new(call.counter, budget.with_extra_tokens(tool_tokens as u64))
        .with_options(options);
    let mut instructions = instructions(
        call.mode,
        call.style,
        call.context.turn_prompt.text(),
        &call.context.skills,
    );
    if xml {
        instructions.push_str("\n\n");
        instructions.push_str(&tool_catalogue(&call.functions.definitions));
    }
    let context = &mut *call.context;
    // The map need not outline a file whose whole content the focused files show.
    let repo_map = context
        .repo_map
        .as_deref()
        .map(|map| without_files(map, &context.turn_focus));
    let turn_notes = context.turn_notes.join("\n\n");
    let sources = PromptSources {
        instructions: &instructions,
        memory: context.memory.as_ref(),
        repo_map: repo_map.as_deref(),
        libraries: context.libraries.as_ref().map(|l| l.text.as_str()),
        focused: &context.turn_focus,
        turn_notes: Some(turn_notes.as_str()),
    };
    let by_model = ModelSummarizer::new(
        provider,
        model,
        call.counter,
        summary_prompt_limit(&budget, options.summary_max_tokens),
        call.emitter,
        call.cancel,
    );
    let fallback = context.summarizer.as_ref();
    let summarizer = FallbackSummarizer::new(&by_model, fallback);
    let summarizer: &dyn keel_context::Summarizer = if call.model_summaries {
        &summarizer
    } else {
        fallback
    };
    let hooked = call.pre_compact.map(|runner| super::hooks::PreCompact {
        inner: summarizer,
        runner,
    });
    let summarizer: &dyn keel_context::Summarizer = match &hooked {
        Some(hooked) => hooked,
        None => summarizer,
    };
    let mut built = builder
        .build_cached(
            sources,
            &mut context.conversation,
            summarizer,
            &mut context.prompt_cache,
        )
        .await;
    let summary_usage = by_model.take_usage();
    let cancelled = SummarizeError::Cancelled.to_string();
    for step in &built.steps {
        if let FitStep::SummaryFailed { error } = step
            && *error != cancelled
        {
            tracing::warn!(%error, "older turns not summarised; the prompt is fitted without a summary");
        }
    }
    call.emitter.emit(built.window.clone());
    if let Some(compression) = &mut built.compression {
        compression.usage = summary_usage;
        tracing::debug!(
            original_tokens = compression.original_tokens,
            compressed_tokens = compression.compressed_tokens,
            summarizer = ?compression.summarizer,
            "older turns summarised to fit the window"
        );
        call.emitter.emit(compression.clone());
    }
    (built, summary_usage)
}

#[cfg(test)]
mod map_tests {
    use super::without_files;

    #[test]
    fn focused_files_leave_the_map() {
        let map = "calc/stats.py:\n  4-8: def mean(values)\ncalc/__init__.py:\n  5: __all__\n⋮\ntests/t.py:\n  1: class T\n";
        let mut focused = keel_context::FocusedFiles::new();
        assert_eq!(without_files(map, &focused), map);
        focused.upsert("calc/stats.py", "x", false);
        focused.upsert("tests/t.py", "x", false);
        assert_eq!(
            without_files(map, &focused),
            "calc/__init__.py:\n  5: __all__\n⋮\n"
        );
    }
}
