//! What the model sees each turn: the conversation, the focused files, long-term memory, the
//! project's instruction files ([`project_instructions`]), token budgets, and the repository map
//! (keel-repomap's, which callers use directly), assembled into provider-agnostic messages.
//!
//! The engine keeps a [`Conversation`] (persisted with the session), a set of [`FocusedFiles`]
//! and the project's [`Memory`] (from [`MemoryStore`]); before each model request a
//! [`PromptBuilder`] turns them, the instructions and the rendered repo map into
//! [`ChatMessage`]s: one system prompt, then history in which file contents are not repeated
//! ([`dedup`]), kept under 80 % of the model's window ([`budget`]) by summarising old turns
//! through a [`Summarizer`] and, if need be, leaving parts out.
//!
//! ```
//! use keel_context::{
//!     Conversation, FocusedFiles, Memory, PromptBuilder, PromptSources, RetentionPolicy,
//!     ToolCallRequest,
//! };
//!
//! let policy = RetentionPolicy::default();
//! let mut conversation = Conversation::new();
//! let mut focused = FocusedFiles::new();
//! conversation.push_user("What does config.py set?");
//! // The model asks for a file; the engine runs the tool, focuses the file, records the result.
//! let call = ToolCallRequest::new("call_1", "read_file", r#"{"path":"config.py"}"#);
//! conversation.push_assistant("", vec![call])?;
//! let content = "DEBUG = True\n";
//! focused.upsert("config.py", content, false);
//! conversation.add_tool_result("call_1", content, true, &policy)?;
//!
//! let builder = PromptBuilder::for_model("gpt-4o");
//! let memory = Memory::new();
//! let sources = PromptSources {
//!     instructions: "You are a coding agent.",
//!     memory: Some(&memory),
//!     repo_map: None,
//!     libraries: None,
//!     focused: &focused,
//!     turn_notes: None,
//! };
//! let prompt = builder.build_without_summary(sources, &conversation);
//! assert!(prompt.fits);
//! // The result is returned complete this once; later requests show a reference instead.
//! assert_eq!(prompt.messages.last().map(|m| m.content.as_str()), Some(content));
//! # Ok::<(), keel_context::ConversationError>(())
//! ```

pub mod budget;
pub mod conversation;
pub mod dedup;
pub mod eviction;
pub mod focused_files;
mod history;
pub mod memory;
pub mod message;
pub mod message_builder;
pub mod model_window;
pub mod project_instructions;
pub mod prompt;
pub mod prompt_cache;
pub mod summarizer;
pub mod tokens;

pub use budget::{Budget, DEFAULT_PROMPT_RATIO, FitStep};
pub use conversation::{Conversation, ConversationError, Message, ToolMessage};
pub use dedup::{Retention, RetentionPolicy};
pub use eviction::{EvictionLimits, eviction_point};
pub use focused_files::{DEFAULT_FOCUS_BUDGET_CHARS, FocusOutcome, FocusedFile, FocusedFiles};
pub use memory::{
    Memory, MemoryEntry, MemoryError, MemoryKind, MemoryLimits, MemoryStore, MergeOutcome, NewEntry,
};
pub use message::{ChatMessage, Role, ToolCallRequest};
pub use message_builder::{BuildOptions, BuiltPrompt, PromptBuilder, PromptSources};
pub use model_window::{DEFAULT_WINDOW, ModelWindows};
pub use project_instructions::{
    AGENTS_FILE, DEFAULT_INSTRUCTIONS_MAX_TOKENS, InstructionFile, InstructionSources,
    InstructionsScope, InstructionsWarning, ProjectInstructions, RenderedInstructions,
};
pub use prompt_cache::PromptCache;
pub use summarizer::{
    ExtractiveSummarizer, FallbackSummarizer, NoSummarizer, SummarizeError, Summarizer,
    SummarizerKind, Summary, SummaryRequest,
};
pub use tokens::{Encoding, TokenCounter};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
