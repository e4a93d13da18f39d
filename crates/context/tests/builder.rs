//! The prompt builder end to end: summarising through a `Summarizer` (and what happens when it
//! fails), the fitting order, eviction costed as history, and `run.context.*` payloads.

use crate::support;

use std::collections::BTreeMap;

use async_trait::async_trait;
use keel_context::{
    Budget, ChatMessage, Conversation, EvictionLimits, ExtractiveSummarizer, FallbackSummarizer,
    FitStep, FocusedFiles, PromptBuilder, PromptSources, RetentionPolicy, Role, SummarizeError,
    Summarizer, SummarizerKind, Summary, SummaryRequest, TokenCounter, ToolCallRequest,
};
use support::{Call, Session, python_source};

fn long_session(turns: usize) -> Session {
    let disk: BTreeMap<String, String> = [
        ("a.py".to_owned(), python_source("a", 150)),
        ("b.py".to_owned(), python_source("b", 150)),
    ]
    .into_iter()
    .collect();
    let mut s = Session::new(disk);
    for t in 0..turns {
        s.user(&format!("Turn {t}: look into case {t}."));
        s.round(
            "",
            vec![Call::Read(if t % 2 == 0 { "a.py" } else { "b.py" })],
        );
        s.round("", vec![Call::Shell("pytest", "ok\n".repeat(400))]);
        s.answer(&format!("Case {t} is fine."));
    }
    s.user("Now the final question.");
    s
}

struct Failing;

#[async_trait]
impl Summarizer for Failing {
    async fn summarize(&self, _: &SummaryRequest) -> Result<Summary, SummarizeError> {
        Err(SummarizeError::Failed("model unavailable".into()))
    }
}

#[tokio::test]
async fn summarises_the_oldest_turns_when_over_budget() {
    let mut s = long_session(12);
    let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(16_000));
    let sources_focused = s.focused.clone();
    let memory = s.memory.clone();
    let before = s.conversation.len();
    let sources = keel_context::PromptSources {
        instructions: support::INSTRUCTIONS,
        memory: Some(&memory),
        repo_map: None,
        libraries: None,
        focused: &sources_focused,
        turn_notes: None,
    };
    let untouched = builder.render(sources, &s.conversation);
    assert!(builder.counter().count_messages(&untouched) > builder.budget().message_limit());

    let built = builder
        .build(sources, &mut s.conversation, &ExtractiveSummarizer)
        .await;
    assert!(built.fits, "{:?}", built.steps);
    let compression = built.compression.clone().expect("summarised");
    assert!(compression.compressed_tokens < compression.original_tokens);
    assert!(compression.summary.contains("User asked: Turn 0"));
    assert_eq!(compression.summarizer, Some(SummarizerKind::Extractive));
    assert_eq!(compression.fallback_reason, None);
    assert!(matches!(built.steps[0], FitStep::Summarized { .. }));
    assert!(s.conversation.len() < before);
    assert_eq!(s.conversation.summary(), Some(compression.summary.as_str()));
    let system = &built.messages[0];
    assert_eq!(system.role, Role::System);
    assert!(
        system
            .content
            .contains("## Earlier in this conversation (summary)")
    );
    // History after the summary starts at a user message.
    assert_eq!(built.messages[1].role, Role::User);
    assert_eq!(built.window.limit, 16_000);
    assert_eq!(built.window.tokens_used, built.tokens as u64);

    // The next request fits without summarising again.
    let again = builder
        .build(sources, &mut s.conversation, &ExtractiveSummarizer)
        .await;
    assert!(again.compression.is_none());
    assert!(again.fits);
}

#[tokio::test]
async fn a_failing_summarizer_falls_back_to_dropping_turns() {
    let mut s = long_session(12);
    let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(16_000));
    let before = s.conversation.clone();
    let sources_focused = s.focused.clone();
    let sources = keel_context::PromptSources {
        instructions: support::INSTRUCTIONS,
        memory: None,
        repo_map: None,
        libraries: None,
        focused: &sources_focused,
        turn_notes: None,
    };
    let built = builder.build(sources, &mut s.conversation, &Failing).await;
    assert!(built.fits);
    assert!(built.compression.is_none());
    assert_eq!(s.conversation, before, "nothing summarised, nothing lost");
    assert_eq!(
        built.steps[0],
        FitStep::SummaryFailed {
            error: "summarising failed: model unavailable".into()
        }
    );
    assert!(
        built.steps[1..]
            .iter()
            .all(|s| matches!(s, FitStep::DroppedTurn { .. }))
    );
    // The turn's first message opens with the turn's context.
    assert!(
        built
            .messages
            .last()
            .unwrap()
            .content
            .ends_with("## Task\n\nNow the final question.")
    );
}

#[tokio::test]
async fn the_summary_says_when_the_fallback_wrote_it() {
    let mut s = long_session(12);
    let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(16_000));
    let focused = s.focused.clone();
    let sources = keel_context::PromptSources {
        instructions: support::INSTRUCTIONS,
        memory: None,
        repo_map: None,
        libraries: None,
        focused: &focused,
        turn_notes: None,
    };
    let chain = FallbackSummarizer::new(&Failing, &ExtractiveSummarizer);
    let built = builder.build(sources, &mut s.conversation, &chain).await;
    assert!(built.fits);
    let compression = built.compression.expect("summarised by the fallback");
    assert_eq!(compression.summarizer, Some(SummarizerKind::Extractive));
    assert_eq!(
        compression.fallback_reason.as_deref(),
        Some("model unavailable")
    );
    assert_eq!(compression.usage, None);
    assert!(matches!(built.steps[0], FitStep::Summarized { .. }));
}

#[test]
fn fitting_order_turns_then_rounds_then_files_then_map_then_caps() {
    let mut s = long_session(2);
    s.repo_map = Some("map ".repeat(500));
    s.round("", vec![Call::Shell("make", "step one\n".repeat(50))]);
    s.round("", vec![Call::Shell("make", "step two\n".repeat(50))]);
    s.round(
        "",
        vec![Call::Shell("make all", "step three done\n".repeat(600))],
    );
    let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(2_000));
    let built = builder.build_without_summary(s.sources(), &s.conversation);
    assert!(built.fits, "{:?}", built.steps);
    let kinds: Vec<&str> = built
        .steps
        .iter()
        .map(|step| match step {
            FitStep::DroppedTurn { .. } => "turn",
            FitStep::DroppedRound { .. } => "round",
            FitStep::DroppedFocusedFile { .. } => "file",
            FitStep::DroppedRepoMap => "map",
            FitStep::DroppedLibraryDocs => "libraries",
            FitStep::CappedToolResult { .. } => "cap",
            FitStep::DroppedMemory => "memory",
            FitStep::DroppedSummary => "summary",
            FitStep::Summarized { .. } | FitStep::SummaryFailed { .. } => "summarise",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "turn", "turn", "round", "round", "file", "file", "map", "cap"
        ]
    );
    // The user's request and the latest round survive.
    let history: Vec<_> = built.messages[1..].iter().collect();
    assert_eq!(history[0].content, "Now the final question.");
    assert_eq!(
        history[1].tool_calls[0].arguments,
        "{\"command\":\"make all\",\"requires_approval\":false}"
    );
    assert!(history[2].content.contains("characters omitted"));
}

#[test]
fn evicting_costs_messages_as_history_shows_them() {
    let mut s = long_session(6);
    let builder = PromptBuilder::for_model("gpt-4o");
    let limits = EvictionLimits {
        max_messages: Some(1_000),
        max_tokens: Some(300),
    };
    let focused = s.focused.clone();
    let dropped = builder.evict(&mut s.conversation, &focused, &limits);
    assert!(dropped > 0);
    assert!(!s.conversation.messages()[0].is_tool());
    let kept = builder.render(s.sources(), &s.conversation);
    // The history as eviction costs it: the turn's context that opens the current turn's
    // first message is not history.
    let history_tokens: usize = kept[1..]
        .iter()
        .map(|m| match m.content.split_once("## Task\n\n") {
            Some((_, task)) => builder.counter().count_message(&ChatMessage::user(task)),
            None => builder.counter().count_message(m),
        })
        .sum();
    assert!(history_tokens <= 300, "{history_tokens}");
}

#[test]
fn an_impossible_prompt_is_returned_marked_as_not_fitting() {
    let mut s = long_session(1);
    s.round("", vec![Call::Shell("make", "x\n".repeat(5_000))]);
    let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(300));
    let built = builder.build_without_summary(s.sources(), &s.conversation);
    assert!(!built.fits);
    assert!(built.tokens > built.limit);
    // Everything that could go went, each thing once.
    let caps = built
        .steps
        .iter()
        .filter(|s| matches!(s, FitStep::CappedToolResult { .. }))
        .count();
    assert_eq!(caps, 1);
    assert_eq!(
        built.messages.len(),
        4,
        "system, request, call, capped result"
    );
}

#[test]
fn capping_a_fresh_read_keeps_the_prompt_whole() {
    let disk: BTreeMap<String, String> = [("big.py".to_owned(), python_source("big", 600))]
        .into_iter()
        .collect();
    let mut s = Session::new(disk);
    // The turn's focus is as the turn began: before the read.
    let before = s.focused.clone();
    s.user("Read big.py.");
    s.round("", vec![Call::Read("big.py")]);
    let sources = PromptSources {
        focused: &before,
        turn_notes: None,
        ..s.sources()
    };
    let tight = PromptBuilder::new(TokenCounter::default(), Budget::new(3_000));
    let built = tight.build_without_summary(sources, &s.conversation);
    assert!(built.fits, "{:?}", built.steps);
    assert!(
        built
            .steps
            .iter()
            .any(|s| matches!(s, FitStep::CappedToolResult { .. }))
    );
    let last = &built.messages.last().unwrap().content;
    assert!(last.contains("characters omitted"), "{last}");
}

#[test]
fn a_read_in_the_current_turn_is_shown_once() {
    // keel's read_file answers "Read `path` (N lines)." and then the content.
    let content = python_source("big", 40);
    let mut conversation = Conversation::new();
    conversation.push_user("Read big.py.");
    let call = ToolCallRequest::new("c1", "read_file", r#"{"path":"big.py"}"#);
    conversation.push_assistant("", vec![call]).unwrap();
    let result = format!("Read `big.py` (40 lines).\n\n{content}");
    conversation
        .add_tool_result("c1", result, true, &RetentionPolicy::default())
        .unwrap();
    // The turn began with nothing focused: the read's result is where the content is.
    let focused = FocusedFiles::new();
    let sources = PromptSources {
        instructions: "Agent.",
        memory: None,
        repo_map: None,
        libraries: None,
        focused: &focused,
        turn_notes: None,
    };
    let messages = PromptBuilder::for_model("gpt-4o").render(sources, &conversation);
    let everything: String = messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(everything.matches(content.as_str()).count(), 1);
    assert!(messages.last().unwrap().content.ends_with(content.as_str()));
}

#[test]
fn library_docs_sit_after_memory_and_go_after_the_repo_map() {
    let mut conversation = Conversation::new();
    conversation.push_user("Use tokio.");
    let focused = FocusedFiles::new();
    let docs = "# tokio 1.54.1 (cargo, locked in Cargo.lock)\n\nAn async runtime.";
    let map = "src/main.rs:\n  fn main()\n".repeat(200);
    let sources = PromptSources {
        instructions: "Agent.",
        memory: None,
        repo_map: Some(&map),
        libraries: Some(docs),
        focused: &focused,
        turn_notes: None,
    };
    let messages = PromptBuilder::for_model("gpt-4o").render(sources, &conversation);
    // The docs are in the system prompt; the map opens the turn's first message, after it.
    let system = &messages[0].content;
    assert!(system.contains("## Library documentation"));
    assert!(system.contains(docs));
    assert!(!system.contains("## Repository map"));
    assert!(messages[1].content.starts_with("## Repository map"));
    assert!(messages[1].content.ends_with("## Task\n\nUse tokio."));
    // Over budget: the repo map goes first, then the library docs.
    let counter = TokenCounter::default();
    let tight = counter.count(docs) + 120;
    let built = PromptBuilder::new(counter, Budget::new(tight as u64 * 10 / 8))
        .build_without_summary(sources, &conversation);
    let steps: Vec<&FitStep> = built
        .steps
        .iter()
        .filter(|s| matches!(s, FitStep::DroppedRepoMap | FitStep::DroppedLibraryDocs))
        .collect();
    assert_eq!(
        steps.first(),
        Some(&&FitStep::DroppedRepoMap),
        "{:?}",
        built.steps
    );
}
