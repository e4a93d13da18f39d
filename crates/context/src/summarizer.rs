//! Summarising old turns when the prompt no longer fits: the [`Summarizer`] trait (the engine
//! implements it with the model) and the request it receives.

use async_trait::async_trait;

use crate::message::{ChatMessage, Role};

/// Instructions for whoever writes the summary (normally the model).
pub const SUMMARY_INSTRUCTIONS: &str = "You compress the earlier part of a conversation between a user and a coding agent so the agent can continue the work without it. Write a concise summary in plain prose and short lists: what the user asked for, what was done (files read, created or changed, commands run and their outcome), decisions taken and why, open problems and what remains to do. Keep exact file paths, names, and error messages that still matter. Do not invent anything. If a previous summary is given, fold it in: the result replaces both.";

/// What to summarise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequest {
    /// The summary already standing in for even older turns, to be folded in.
    pub previous_summary: Option<String>,
    /// The messages being replaced, as history shows them (tool results already shortened).
    pub messages: Vec<ChatMessage>,
    /// How long the summary should be at most, in tokens.
    pub max_tokens: usize,
}

impl SummaryRequest {
    /// The messages to summarise as a plain-text transcript.
    pub fn transcript(&self) -> String {
        let mut out = String::new();
        if let Some(previous) = &self.previous_summary {
            out.push_str("[Summary of what came before]\n");
            out.push_str(previous);
            out.push_str("\n\n");
        }
        for message in &self.messages {
            let who = match message.role {
                Role::System => "System",
                Role::User => "User",
                Role::Assistant => "Assistant",
                Role::Tool => "Tool result",
            };
            out.push_str(who);
            if let Some(name) = &message.name {
                out.push_str(" (");
                out.push_str(name);
                out.push(')');
            }
            out.push_str(": ");
            out.push_str(message.content.trim());
            for call in &message.tool_calls {
                out.push_str("\n  → calls ");
                out.push_str(&call.name);
                out.push(' ');
                out.push_str(&call.arguments);
            }
            out.push_str("\n\n");
        }
        out.trim_end().to_owned()
    }

    /// A ready-made request for a chat model: [`SUMMARY_INSTRUCTIONS`] as the system message,
    /// the transcript and the length limit as the user message.
    pub fn to_messages(&self) -> Vec<ChatMessage> {
        vec![
            ChatMessage::system(SUMMARY_INSTRUCTIONS),
            ChatMessage::user(format!(
                "Summarise this conversation in at most {} tokens.\n\n{}",
                self.max_tokens,
                self.transcript()
            )),
        ]
    }
}

/// Why a summary could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("summarising failed: {0}")]
pub struct SummarizeError(pub String);

/// Writes summaries of old turns.
#[async_trait]
pub trait Summarizer: Send + Sync {
    /// A summary of `request`'s messages (and previous summary), within its token limit.
    async fn summarize(&self, request: &SummaryRequest) -> Result<String, SummarizeError>;
}

/// A summarizer that never summarises: the prompt builder falls back to dropping old turns.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSummarizer;

#[async_trait]
impl Summarizer for NoSummarizer {
    async fn summarize(&self, _request: &SummaryRequest) -> Result<String, SummarizeError> {
        Err(SummarizeError("no summarizer configured".to_owned()))
    }
}

/// A model-free summarizer for offline use and tests: keeps each user request and the first
/// line of each assistant reply, and lists the tools called, within a character limit (about
/// four characters per token of the requested maximum).
#[derive(Debug, Clone, Copy, Default)]
pub struct ExtractiveSummarizer;

#[async_trait]
impl Summarizer for ExtractiveSummarizer {
    async fn summarize(&self, request: &SummaryRequest) -> Result<String, SummarizeError> {
        let max_chars = request.max_tokens.saturating_mul(4).max(80);
        let mut lines: Vec<String> = Vec::new();
        if let Some(previous) = &request.previous_summary {
            lines.push(previous.trim().to_owned());
        }
        for message in &request.messages {
            let first = message.content.lines().find(|l| !l.trim().is_empty());
            match message.role {
                Role::User => lines.push(format!("- User asked: {}", first.unwrap_or("").trim())),
                Role::Assistant => {
                    if let Some(first) = first {
                        lines.push(format!("- Assistant: {}", first.trim()));
                    }
                    for call in &message.tool_calls {
                        lines.push(format!("- Called {}", call.name));
                    }
                }
                Role::Tool | Role::System => {}
            }
        }
        let mut out = String::new();
        for line in lines {
            let line: String = line.chars().take(200).collect();
            if out.chars().count() + line.chars().count() + 1 > max_chars {
                break;
            }
            out.push_str(&line);
            out.push('\n');
        }
        Ok(out.trim_end().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCallRequest;

    fn request() -> SummaryRequest {
        SummaryRequest {
            previous_summary: Some("Earlier: set up the project.".into()),
            messages: vec![
                ChatMessage::user("Fix the parser\nplease"),
                ChatMessage::assistant(
                    "Reading it.",
                    vec![ToolCallRequest::new("1", "read_file", r#"{"path":"p.rs"}"#)],
                ),
                ChatMessage::tool("1", "read_file", "[read_file p.rs: 3 lines]"),
            ],
            max_tokens: 100,
        }
    }

    #[test]
    fn transcript_shows_every_message() {
        let text = request().transcript();
        assert!(text.starts_with("[Summary of what came before]\nEarlier: set up the project."));
        assert!(text.contains("User: Fix the parser\nplease"));
        assert!(text.contains("→ calls read_file {\"path\":\"p.rs\"}"));
        assert!(text.contains("Tool result (read_file): [read_file p.rs: 3 lines]"));
        let messages = request().to_messages();
        assert_eq!(messages.len(), 2);
        assert!(messages[1].content.contains("at most 100 tokens"));
    }

    #[tokio::test]
    async fn extractive_summary_is_deterministic() {
        let summary = ExtractiveSummarizer.summarize(&request()).await.unwrap();
        assert_eq!(
            summary,
            "Earlier: set up the project.\n- User asked: Fix the parser\n- Assistant: Reading it.\n- Called read_file"
        );
        assert!(NoSummarizer.summarize(&request()).await.is_err());
    }
}
