//! The message builder: turns instructions, memory, the repo map, focused files and the
//! conversation into provider-agnostic messages that fit the model's window.
//!
//! Layout, what changes least first so a provider's prompt cache reuses the longest prefix:
//! one system message (instructions, project memory, library docs, summary of earlier turns —
//! see [`crate::prompt`]), then the history. Earlier turns are shown in their de-duplicated
//! history form ([`crate::dedup`]); the current turn is sent complete, each message as it was
//! first sent, so every request of a turn repeats the previous one and adds to it. The turn's
//! context — the repository map and the focused files as they were when the turn began —
//! opens the current turn's first message (the person's), so it changes only from one turn to
//! the next and never invalidates the system prompt or the tool definitions after it. When
//! the prompt is over budget the steps of [`crate::budget`] apply.

use std::borrow::Cow;

use keel_events::{RunContextCompress, RunContextWindow};

use crate::budget::{Budget, FitStep};
use crate::conversation::{Conversation, Message, NOT_RUN_RESULT, turn_ranges};
use crate::dedup::{HISTORY_CAP_CHARS, cap};
use crate::eviction::{EvictionLimits, eviction_point};
use crate::focused_files::FocusedFiles;
use crate::history::{current_turn_start, paths_of, render_one, whole_from};
use crate::memory::Memory;
use crate::message::ChatMessage;
use crate::model_window::ModelWindows;
use crate::prompt::{
    FOCUSED_HEADING, LIBRARIES_HEADING, MEMORY_HEADING, REPO_MAP_HEADING, SECTION_SEPARATOR,
    SUMMARY_HEADING, TASK_HEADING, focused_file_block, join_sections, section,
};
use crate::prompt_cache::PromptCache;
use crate::summarizer::{Summarizer, SummaryRequest};
use crate::tokens::{TOKENS_PER_MESSAGE, TOKENS_REPLY_PRIMING, TokenCounter};

/// Everything besides the conversation that goes into the prompt.
#[derive(Debug, Clone, Copy)]
pub struct PromptSources<'a> {
    /// The agent's instructions (start of the system prompt).
    pub instructions: &'a str,
    /// Project memory, shown as background.
    pub memory: Option<&'a Memory>,
    /// The repository map, already rendered to its own token budget.
    pub repo_map: Option<&'a str>,
    /// Preloaded library documentation digests, already within their own token budget.
    pub libraries: Option<&'a str>,
    /// The focused files, as the current turn shows them (the turn's context shows them as
    /// they were when the turn began).
    pub focused: &'a FocusedFiles,
    /// More of the turn's context, after the focused files (e.g. the project's tests as they
    /// stood before the turn changed anything): markdown sections.
    pub turn_notes: Option<&'a str>,
}

/// Tuning for summaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuildOptions {
    /// Longest summary asked for, in tokens (longer answers are cut).
    pub summary_max_tokens: usize,
    /// After summarising, the share of the message limit the prompt should be down to, so that
    /// the next requests do not summarise again at once (0.5).
    pub summarize_to: f64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            summary_max_tokens: 1_000,
            summarize_to: 0.5,
        }
    }
}

/// A built prompt and how it was made to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltPrompt {
    /// The messages: system first, then history.
    pub messages: Vec<ChatMessage>,
    /// Exact tokens of the messages (framing included, tool definitions not).
    pub tokens: usize,
    /// Most tokens the messages were allowed ([`Budget::message_limit`]).
    pub limit: usize,
    /// Whether `tokens <= limit`.
    pub fits: bool,
    /// What was done to fit, in order.
    pub steps: Vec<FitStep>,
    /// The `run.context.window` payload: tokens used (messages plus tool definitions) and the
    /// model's window.
    pub window: RunContextWindow,
    /// The `run.context.compress` payload, when older turns were summarised.
    pub compression: Option<RunContextCompress>,
}

/// Builds prompts for one model: its tokenizer and budget.
#[derive(Debug, Clone, Copy)]
pub struct PromptBuilder {
    counter: TokenCounter,
    budget: Budget,
    options: BuildOptions,
}

impl PromptBuilder {
    /// A builder for `model`: its encoding and its window from the built-in table.
    pub fn for_model(model: &str) -> Self {
        Self::for_model_with(model, &ModelWindows::new())
    }

    /// A builder for `model`, its window looked up in `windows`.
    pub fn for_model_with(model: &str, windows: &ModelWindows) -> Self {
        Self::new(
            TokenCounter::for_model(model),
            Budget::for_model(model, windows),
        )
    }

    /// A builder counting with `counter` under `budget`.
    pub fn new(counter: TokenCounter, budget: Budget) -> Self {
        Self {
            counter,
            budget,
            options: BuildOptions::default(),
        }
    }

    /// The same builder with other summary options.
    pub fn with_options(mut self, options: BuildOptions) -> Self {
        self.options = options;
        self
    }

    /// The same builder with another budget (e.g. once the tool definitions are known).
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// The token counter.
    pub fn counter(&self) -> TokenCounter {
        self.counter
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Everything, with no fitting: system prompt and the whole history.
    pub fn render(
        &self,
        sources: PromptSources<'_>,
        conversation: &Conversation,
    ) -> Vec<ChatMessage> {
        let mut cache = PromptCache::new();
        Draft::new(self.counter, sources, conversation, &mut cache).assemble()
    }

    /// The prompt within budget, without summarising (steps 2–7 of [`crate::budget`]).
    pub fn build_without_summary(
        &self,
        sources: PromptSources<'_>,
        conversation: &Conversation,
    ) -> BuiltPrompt {
        let mut cache = PromptCache::new();
        let draft = Draft::new(self.counter, sources, conversation, &mut cache);
        self.fit(draft, Vec::new(), None)
    }

    /// The prompt within budget. When it is over, the oldest turns before the current one are
    /// first summarised with `summarizer` — which replaces them in `conversation` — and then
    /// the other steps of [`crate::budget`] apply to this request. A summarizer failure is
    /// recorded as a [`FitStep::SummaryFailed`] and the build goes on without a summary.
    pub async fn build(
        &self,
        sources: PromptSources<'_>,
        conversation: &mut Conversation,
        summarizer: &dyn Summarizer,
    ) -> BuiltPrompt {
        let mut cache = PromptCache::new();
        self.build_cached(sources, conversation, summarizer, &mut cache)
            .await
    }

    /// [`Self::build`], reusing the renderings and token counts `cache` holds from earlier
    /// builds of the same conversation, so only what changed is rendered and counted again.
    /// The result is the same as without the cache.
    pub async fn build_cached(
        &self,
        sources: PromptSources<'_>,
        conversation: &mut Conversation,
        summarizer: &dyn Summarizer,
        cache: &mut PromptCache,
    ) -> BuiltPrompt {
        let limit = self.budget.message_limit();
        let mut steps = Vec::new();
        let plan = {
            let draft = Draft::new(self.counter, sources, conversation, cache);
            if draft.estimate() > limit {
                draft.summary_plan(limit, &self.options)
            } else {
                None
            }
        };
        let mut compression = None;
        if let Some(plan) = plan {
            let request = SummaryRequest {
                previous_summary: conversation.summary().map(str::to_owned),
                messages: plan.messages,
                max_tokens: self.options.summary_max_tokens,
            };
            match summarizer.summarize(&request).await {
                Ok(summary) if !summary.text.trim().is_empty() => {
                    let text =
                        self.clip_tokens(summary.text.trim(), self.options.summary_max_tokens);
                    match conversation.replace_prefix_with_summary(plan.cut, text) {
                        Ok(()) => {
                            let after = Draft::new(self.counter, sources, conversation, cache);
                            compression = Some(RunContextCompress {
                                original_tokens: plan.history_tokens as u64,
                                compressed_tokens: after.history_tokens() as u64,
                                summary: conversation.summary().unwrap_or("").to_owned(),
                                summarizer: Some(summary.summarizer),
                                fallback_reason: summary.fallback_reason,
                                usage: None,
                            });
                            steps.push(FitStep::Summarized { messages: plan.cut });
                        }
                        Err(error) => steps.push(FitStep::SummaryFailed {
                            error: error.to_string(),
                        }),
                    }
                }
                Ok(_) => steps.push(FitStep::SummaryFailed {
                    error: "the summarizer returned an empty summary".to_owned(),
                }),
                Err(error) => steps.push(FitStep::SummaryFailed {
                    error: error.to_string(),
                }),
            }
        }
        let draft = Draft::new(self.counter, sources, conversation, cache);
        self.fit(draft, steps, compression)
    }

    /// Drops the oldest messages of `conversation` until `limits` hold, costing each message as
    /// history would show it with `focused`. Returns how many were dropped.
    pub fn evict(
        &self,
        conversation: &mut Conversation,
        focused: &FocusedFiles,
        limits: &EvictionLimits,
    ) -> usize {
        let mut cache = PromptCache::new();
        let settled = cache.update(self.counter, conversation, focused);
        let costs: Vec<usize> = history_items(
            self.counter,
            conversation.messages(),
            focused,
            &cache,
            settled,
        )
        .iter()
        .map(|item| item.tokens)
        .collect();
        conversation.evict_with_costs(limits, &costs)
    }

    /// Seed 002 §3.2's history limit: when `conversation` holds more messages than `limits`
    /// allow, the oldest are folded into its summary by `summarizer` (which also folds the
    /// previous summary in) and dropped, whole turns at a time (the history left opens with a
    /// request, and no tool result is separated from its call). Returns what happened, as `run.context.compress` reports it; `None` when
    /// nothing was over. When the summariser fails the messages are dropped all the same,
    /// the previous summary kept, and `fallback_reason` says why.
    pub async fn fold_oldest(
        &self,
        conversation: &mut Conversation,
        focused: &FocusedFiles,
        limits: &EvictionLimits,
        summarizer: &dyn Summarizer,
    ) -> Option<RunContextCompress> {
        let (cut, dropped, before, after) = {
            let mut cache = PromptCache::new();
            let settled = cache.update(self.counter, conversation, focused);
            let items = history_items(
                self.counter,
                conversation.messages(),
                focused,
                &cache,
                settled,
            );
            let costs: Vec<usize> = items
                .iter()
                .filter(|item| item.source.is_some())
                .map(|item| item.tokens)
                .collect();
            // From the first turn that may stay, so history opens with a request.
            let messages = conversation.messages();
            let cut = eviction_point(messages, &costs, limits);
            let cut = (cut..messages.len())
                .find(|&index| index == 0 || messages[index].starts_turn())
                .unwrap_or(messages.len());
            if cut == 0 {
                return None;
            }
            let dropped: Vec<ChatMessage> = items
                .iter()
                .filter(|item| item.source.is_some_and(|index| index < cut))
                .map(|item| item.message.clone().into_owned())
                .collect();
            let before: usize = costs.iter().sum();
            let after: usize = costs.iter().skip(cut).sum();
            (cut, dropped, before, after)
        };
        let previous = conversation.summary().map(str::to_owned);
        let request = SummaryRequest {
            previous_summary: previous.clone(),
            messages: dropped,
            max_tokens: self.options.summary_max_tokens,
        };
        let (text, summarizer, fallback_reason) = match summarizer.summarize(&request).await {
            Ok(summary) if !summary.text.trim().is_empty() => (
                self.clip_tokens(summary.text.trim(), self.options.summary_max_tokens),
                Some(summary.summarizer),
                summary.fallback_reason,
            ),
            Ok(_) => (
                previous.unwrap_or_default(),
                None,
                Some("the summarizer returned an empty summary".to_owned()),
            ),
            Err(error) => (previous.unwrap_or_default(), None, Some(error.to_string())),
        };
        // `cut` is a boundary (see `eviction_point`), so this cannot fail.
        conversation.replace_prefix_with_summary(cut, text).ok()?;
        Some(RunContextCompress {
            original_tokens: before as u64,
            compressed_tokens: after as u64,
            summary: conversation.summary().unwrap_or("").to_owned(),
            summarizer,
            fallback_reason,
            usage: None,
        })
    }

    fn fit(
        &self,
        mut draft: Draft<'_>,
        mut steps: Vec<FitStep>,
        compression: Option<RunContextCompress>,
    ) -> BuiltPrompt {
        let limit = self.budget.message_limit();
        let mut slack = 0usize;
        loop {
            let mut exhausted = false;
            while draft.estimate().saturating_add(slack) > limit {
                match draft.next_step() {
                    Some(step) => steps.push(step),
                    None => {
                        exhausted = true;
                        break;
                    }
                }
            }
            let messages = draft.assemble();
            let tokens = draft.exact_tokens(&messages);
            if tokens <= limit || exhausted {
                let fits = tokens <= limit;
                return BuiltPrompt {
                    messages,
                    tokens,
                    limit,
                    fits,
                    steps,
                    window: RunContextWindow {
                        tokens_used: (tokens as u64).saturating_add(self.budget.extra_tokens),
                        limit: self.budget.window,
                    },
                    compression,
                };
            }
            // Sections joined into one text can tokenize differently from their sum: take the
            // difference as slack and keep going.
            slack = slack.saturating_add(tokens.saturating_sub(draft.estimate()).max(1));
        }
    }

    /// `text` cut to about `max_tokens`.
    fn clip_tokens(&self, text: &str, max_tokens: usize) -> String {
        let mut text = text.to_owned();
        for _ in 0..4 {
            let tokens = self.counter.count(&text);
            if tokens <= max_tokens {
                break;
            }
            let chars = text.chars().count();
            let keep = chars * max_tokens / tokens.max(1) * 9 / 10;
            text = text.chars().take(keep).collect::<String>() + "…";
        }
        text
    }
}

/// A part of the system prompt with its token count.
#[derive(Debug, Clone)]
struct Part {
    text: String,
    tokens: usize,
}

impl Part {
    fn new(counter: TokenCounter, text: String) -> Self {
        let tokens = counter.count(&text);
        Self { text, tokens }
    }
}

#[derive(Debug, Clone)]
struct FocusPart {
    path: String,
    editing: bool,
    part: Part,
}

/// One history message as it will be sent.
#[derive(Debug, Clone)]
struct HistoryItem<'a> {
    message: Cow<'a, ChatMessage>,
    tokens: usize,
    /// Index in the conversation (`None`: a placeholder result for an unanswered call).
    source: Option<usize>,
    /// Files whose focus changes how this message renders.
    paths: Cow<'a, [String]>,
    /// Part of the current turn: sent complete, as first sent.
    whole: bool,
    /// Already capped by a fitting step.
    capped: bool,
    kept: bool,
}

struct SummaryPlan {
    /// Messages to replace (a prefix of the conversation).
    cut: usize,
    /// The messages as history shows them.
    messages: Vec<ChatMessage>,
    /// Tokens of the summary and history before.
    history_tokens: usize,
}

/// A prompt being fitted: every part with its tokens, and what is still included.
struct Draft<'a> {
    counter: TokenCounter,
    source_messages: &'a [Message],
    /// The cache the settled history comes from (and the given-back vector).
    cache: &'a PromptCache,
    /// The focused files as this prompt shows them (a copy once fitting drops one).
    visible: Cow<'a, FocusedFiles>,
    instructions: Part,
    memory: Option<Part>,
    libraries: Option<Part>,
    summary: Option<Part>,
    repo_map: Option<Part>,
    focused_heading: Part,
    focused: Vec<FocusPart>,
    /// The turn's notes ([`PromptSources::turn_notes`]).
    turn_notes: Option<Part>,
    /// The history index (= conversation index) of the current turn's first message, which
    /// the turn's context (repo map, focused files) opens; `None`: no such message, and the
    /// context closes the system prompt instead.
    turn_start: Option<usize>,
    history: Vec<HistoryItem<'a>>,
    /// Index ranges (into `history`) of whole turns before the current one.
    previous_turns: Vec<std::ops::Range<usize>>,
    /// Index ranges of earlier rounds of the current turn.
    rounds: Vec<std::ops::Range<usize>>,
}

impl<'a> Draft<'a> {
    fn new(
        counter: TokenCounter,
        sources: PromptSources<'a>,
        conversation: &'a Conversation,
        cache: &'a mut PromptCache,
    ) -> Self {
        let messages = conversation.messages();
        let settled = cache.update(counter, conversation, sources.focused);
        let cache: &'a PromptCache = cache;
        let history = history_items(counter, messages, sources.focused, cache, settled);
        let (previous_turns, rounds) = droppable_ranges(messages, history.len());
        let nonempty = |text: &str| !text.trim().is_empty();
        Self {
            counter,
            source_messages: messages,
            cache,
            visible: Cow::Borrowed(sources.focused),
            instructions: Part::new(counter, sources.instructions.trim_end().to_owned()),
            memory: sources
                .memory
                .and_then(Memory::render)
                .map(|body| Part::new(counter, section(MEMORY_HEADING, &body))),
            libraries: sources
                .libraries
                .filter(|l| nonempty(l))
                .map(|l| Part::new(counter, section(LIBRARIES_HEADING, l))),
            summary: conversation
                .summary()
                .filter(|s| nonempty(s))
                .map(|s| Part::new(counter, section(SUMMARY_HEADING, s))),
            repo_map: sources
                .repo_map
                .filter(|m| nonempty(m))
                .map(|m| Part::new(counter, section(REPO_MAP_HEADING, m))),
            focused_heading: Part::new(counter, FOCUSED_HEADING.to_owned()),
            focused: sources
                .focused
                .iter()
                .map(|file| FocusPart {
                    path: file.path().to_owned(),
                    editing: file.editing(),
                    part: Part::new(counter, focused_file_block(file)),
                })
                .collect(),
            turn_notes: sources
                .turn_notes
                .filter(|n| nonempty(n))
                .map(|n| Part::new(counter, n.trim_end().to_owned())),
            turn_start: current_turn_start(messages).filter(|&i| {
                history
                    .get(i)
                    .is_some_and(|item| item.source == Some(i) && item.kept)
            }),
            history,
            previous_turns,
            rounds,
        }
    }

    fn system_parts(&self) -> Vec<&Part> {
        let mut parts = vec![&self.instructions];
        parts.extend(self.memory.iter());
        parts.extend(self.libraries.iter());
        parts.extend(self.summary.iter());
        if self.turn_start.is_none() {
            parts.extend(self.turn_parts());
        }
        parts.retain(|p| !p.text.is_empty());
        parts
    }

    /// The turn's context: the repo map and the focused files.
    fn turn_parts(&self) -> Vec<&Part> {
        let mut parts: Vec<&Part> = self.repo_map.iter().collect();
        if !self.focused.is_empty() {
            parts.push(&self.focused_heading);
            parts.extend(self.focused.iter().map(|f| &f.part));
        }
        parts.extend(self.turn_notes.iter());
        parts.retain(|p| !p.text.is_empty());
        parts
    }

    /// The turn's context as it opens the turn's first message (empty when it closes the
    /// system prompt or there is none), and its tokens.
    fn turn_context(&self) -> Option<(String, usize)> {
        self.turn_start?;
        let parts = self.turn_parts();
        if parts.is_empty() {
            return None;
        }
        let separator = self.counter.count(SECTION_SEPARATOR);
        let tokens = parts.iter().map(|p| p.tokens).sum::<usize>()
            + separator * parts.len()
            + self.counter.count(TASK_HEADING);
        let text = join_sections(parts.iter().map(|p| p.text.as_str()));
        Some((text, tokens))
    }

    fn turn_context_tokens(&self) -> usize {
        self.turn_context().map_or(0, |(_, tokens)| tokens)
    }

    fn system_tokens(&self) -> usize {
        let parts = self.system_parts();
        if parts.is_empty() {
            return 0;
        }
        let separator = self.counter.count(SECTION_SEPARATOR);
        TOKENS_PER_MESSAGE
            + parts.iter().map(|p| p.tokens).sum::<usize>()
            + separator * (parts.len() - 1)
    }

    fn history_tokens(&self) -> usize {
        self.history
            .iter()
            .filter(|item| item.kept)
            .map(|item| item.tokens)
            .sum::<usize>()
            + self.summary.as_ref().map_or(0, |s| s.tokens)
    }

    fn estimate(&self) -> usize {
        TOKENS_REPLY_PRIMING
            + self.system_tokens()
            + self.turn_context_tokens()
            + self
                .history
                .iter()
                .filter(|item| item.kept)
                .map(|item| item.tokens)
                .sum::<usize>()
    }

    fn assemble(&self) -> Vec<ChatMessage> {
        let system = join_sections(self.system_parts().iter().map(|p| p.text.as_str()));
        let has_system = !system.is_empty();
        // Leading history items that are cached items, unchanged and kept: a given-back vector
        // from the previous build already holds (a prefix of) them.
        let unchanged = self
            .history
            .iter()
            .enumerate()
            .take_while(|(i, item)| {
                item.kept && item.source == Some(*i) && matches!(item.message, Cow::Borrowed(_))
            })
            .count();
        let (mut messages, reused) = self.cache.take_spare(has_system, unchanged);
        if has_system {
            let system = ChatMessage::system(system);
            // A given-back vector starts with the previous system message.
            match messages.first_mut() {
                Some(first) => *first = system,
                None => {
                    messages.reserve(self.history.len() + 1);
                    messages.push(system);
                }
            }
        }
        let context = self.turn_context();
        messages.extend(
            self.history[reused..]
                .iter()
                .filter(|item| item.kept)
                .map(|item| match &context {
                    Some((text, _)) if item.source.is_some() && item.source == self.turn_start => {
                        let mut message = item.message.as_ref().clone();
                        message.content = format!(
                            "{text}{SECTION_SEPARATOR}{TASK_HEADING}{SECTION_SEPARATOR}{}",
                            message.content
                        );
                        message
                    }
                    _ => item.message.as_ref().clone(),
                }),
        );
        self.cache.handed_out(&messages, has_system, unchanged);
        messages
    }

    /// Exact tokens of `messages` (this draft's [`Self::assemble`]): the system message counted
    /// whole, the history from the items' counts, which are exact per message.
    fn exact_tokens(&self, messages: &[ChatMessage]) -> usize {
        let system = messages
            .first()
            .filter(|m| m.role == crate::message::Role::System)
            .map_or(0, |m| self.counter.count_message(m));
        let offset = usize::from(system > 0);
        let opened = self.turn_context().is_some();
        let history: usize = self
            .history
            .iter()
            .filter(|item| item.kept)
            .enumerate()
            .map(|(position, item)| {
                if opened && item.source.is_some() && item.source == self.turn_start {
                    // The turn's first message carries the context: counted as sent.
                    messages
                        .get(offset + position)
                        .map_or(item.tokens, |m| self.counter.count_message(m))
                } else {
                    item.tokens
                }
            })
            .sum();
        TOKENS_REPLY_PRIMING + system + history
    }

    /// Which oldest whole turns to summarise, if any turn precedes the current one.
    fn summary_plan(&self, limit: usize, options: &BuildOptions) -> Option<SummaryPlan> {
        if self.previous_turns.is_empty() {
            return None;
        }
        let target = (limit as f64 * options.summarize_to.clamp(0.0, 1.0)) as usize;
        let estimate = self.estimate();
        let old_summary = self.summary.as_ref().map_or(0, |s| s.tokens);
        let mut removed = old_summary;
        let mut chosen = self.previous_turns.len();
        for (k, turn) in self.previous_turns.iter().enumerate() {
            removed += self.history[turn.clone()]
                .iter()
                .map(|i| i.tokens)
                .sum::<usize>();
            if estimate.saturating_sub(removed) + options.summary_max_tokens <= target {
                chosen = k + 1;
                break;
            }
        }
        let end = self.previous_turns[chosen - 1].end;
        let cut = self.history[..end]
            .iter()
            .filter_map(|item| item.source)
            .max()
            .map_or(0, |i| i + 1);
        Some(SummaryPlan {
            cut,
            messages: self.history[..end]
                .iter()
                .map(|i| i.message.as_ref().clone())
                .collect(),
            history_tokens: self.history_tokens(),
        })
    }

    /// Applies the next fitting step (see [`crate::budget`]), or `None` when none is left.
    fn next_step(&mut self) -> Option<FitStep> {
        if let Some(turn) = self.take_range(true) {
            return Some(FitStep::DroppedTurn { messages: turn });
        }
        if let Some(round) = self.take_range(false) {
            return Some(FitStep::DroppedRound { messages: round });
        }
        let next_file =
            self.focused
                .iter()
                .position(|f| !f.editing)
                .or(if self.focused.is_empty() {
                    None
                } else {
                    Some(0)
                });
        if let Some(index) = next_file {
            let file = self.focused.remove(index);
            self.visible.to_mut().remove(&file.path);
            self.rerender(&file.path);
            return Some(FitStep::DroppedFocusedFile {
                path: file.path,
                editing: file.editing,
            });
        }
        if self.repo_map.take().is_some() {
            return Some(FitStep::DroppedRepoMap);
        }
        if self.libraries.take().is_some() {
            return Some(FitStep::DroppedLibraryDocs);
        }
        if let Some(step) = self.cap_largest_whole_result() {
            return Some(step);
        }
        if self.memory.take().is_some() {
            return Some(FitStep::DroppedMemory);
        }
        if self.summary.take().is_some() {
            return Some(FitStep::DroppedSummary);
        }
        None
    }

    fn take_range(&mut self, turns: bool) -> Option<usize> {
        let ranges = if turns {
            &mut self.previous_turns
        } else {
            &mut self.rounds
        };
        if ranges.is_empty() {
            return None;
        }
        let range = ranges.remove(0);
        let count = range.len();
        for item in &mut self.history[range] {
            item.kept = false;
        }
        Some(count)
    }

    /// Renders again the history messages that depend on whether `path` is focused.
    fn rerender(&mut self, path: &str) {
        let affected: Vec<usize> = self
            .history
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.whole && item.paths.iter().any(|p| p == path))
            .map(|(i, _)| i)
            .collect();
        for index in affected {
            let Some(source) = self.history[index].source else {
                continue;
            };
            let whole_from = whole_from(self.source_messages);
            let message = render_one(self.source_messages, source, &self.visible, whole_from);
            self.history[index].tokens = self.counter.count_message(&message);
            self.history[index].message = Cow::Owned(message);
        }
    }

    fn cap_largest_whole_result(&mut self) -> Option<FitStep> {
        let (index, chars) = self
            .history
            .iter()
            .enumerate()
            .filter(|(_, item)| {
                item.kept
                    && item.whole
                    && !item.capped
                    && item.message.role == crate::message::Role::Tool
            })
            .map(|(i, item)| (i, item.message.content.chars().count()))
            .filter(|(_, chars)| *chars > HISTORY_CAP_CHARS)
            .max_by_key(|(_, chars)| *chars)?;
        let item = &mut self.history[index];
        let capped = cap(&item.message.content, HISTORY_CAP_CHARS).into_owned();
        item.message.to_mut().content = capped;
        item.capped = true;
        item.tokens = self.counter.count_message(&item.message);
        // Focused files (including any pointing at this result) are already gone: capping comes
        // after dropping them, so no pointer is left dangling.
        Some(FitStep::CappedToolResult {
            tool_call_id: item.message.tool_call_id.clone().unwrap_or_default(),
            chars,
        })
    }
}

/// Every message as it will be sent, with its tokens: the settled ones from `cache` (up to date
/// for `messages` and `focused`, `settled` of them), the latest round rendered now, plus
/// placeholder results for calls of the last message still unanswered.
fn history_items<'a>(
    counter: TokenCounter,
    messages: &[Message],
    focused: &FocusedFiles,
    cache: &'a PromptCache,
    settled: usize,
) -> Vec<HistoryItem<'a>> {
    let whole_from = whole_from(messages);
    let mut items: Vec<HistoryItem<'a>> = Vec::with_capacity(messages.len() + 4);
    items.extend(
        cache
            .settled()
            .iter()
            .enumerate()
            .map(|(index, cached)| HistoryItem {
                message: Cow::Borrowed(&cached.message),
                tokens: cached.tokens,
                source: Some(index),
                paths: Cow::Borrowed(cached.paths.as_slice()),
                whole: index >= whole_from,
                capped: false,
                kept: true,
            }),
    );
    for index in settled..messages.len() {
        let message = render_one(messages, index, focused, whole_from);
        items.push(HistoryItem {
            tokens: counter.count_message(&message),
            message: Cow::Owned(message),
            source: Some(index),
            paths: Cow::Owned(paths_of(messages, index)),
            whole: index >= whole_from,
            capped: false,
            kept: true,
        });
    }
    if let Some(last) = messages.iter().rposition(|m| !m.is_tool()) {
        let answered: Vec<&str> = messages[last + 1..]
            .iter()
            .filter_map(|m| match m {
                Message::Tool(tool) => Some(tool.tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        for call in messages[last].tool_calls() {
            if !answered.contains(&call.id.as_str()) {
                let message = ChatMessage::tool(&call.id, &call.name, NOT_RUN_RESULT);
                items.push(HistoryItem {
                    tokens: counter.count_message(&message),
                    message: Cow::Owned(message),
                    source: None,
                    paths: Cow::Owned(Vec::new()),
                    whole: true,
                    capped: false,
                    kept: true,
                });
            }
        }
    }
    items
}

/// The droppable parts of history: whole turns before the current one, and the rounds of the
/// current turn between its user message and its latest round.
fn droppable_ranges(
    messages: &[Message],
    history_len: usize,
) -> (Vec<std::ops::Range<usize>>, Vec<std::ops::Range<usize>>) {
    let turns = turn_ranges(messages);
    let Some(current) = turns.last().cloned() else {
        return (Vec::new(), Vec::new());
    };
    let previous = turns[..turns.len() - 1].to_vec();
    // Segments of the current turn: each non-tool message with the tool results after it.
    let mut segments: Vec<std::ops::Range<usize>> = Vec::new();
    for index in current.clone() {
        if messages[index].is_tool() {
            if let Some(last) = segments.last_mut() {
                last.end = index + 1;
            }
        } else {
            segments.push(index..index + 1);
        }
    }
    if let Some(last) = segments.last_mut() {
        // Placeholder results belong to the last segment.
        last.end = last.end.max(history_len);
    }
    let protected_first = messages.get(current.start).is_some_and(Message::is_user);
    let skip = usize::from(protected_first);
    let rounds = if segments.len() > skip + 1 {
        segments[skip..segments.len() - 1].to_vec()
    } else {
        Vec::new()
    };
    (previous, rounds)
}
