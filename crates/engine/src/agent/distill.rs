//! The end-of-session memory distillation: one model call (the session's provider and model,
//! no tools, a bounded prompt) that reads what the session's turns did — each turn's task, the
//! files it changed, its final answer — next to the memory so far, and answers with the
//! decisions, conventions and facts worth keeping; they are recorded in `.keel/memory.json`
//! (deduplicated and capped, see [`keel_context::memory`]) and reported as
//! `run.memory.update{source: distill}`.
//!
//! Its usage is reported as `run.usage.report{purpose: memory_distill}`: a session-level call,
//! made between turns, so its events carry no `turn_id` and no turn's `agent.end` counts it.
//!
//! Only turns that changed files are distilled; without one there is no call. A failure (the
//! call, an answer that is not the JSON asked for, the memory file) is a `system.log` warning
//! and never fails anything. The front ends decide when: `keel run` after its turn, `keel
//! chat` when it is left with `/exit` or end of input, the server after each turn that changed
//! files.

use keel_context::{ChatMessage, Memory, MemoryKind, MemoryStore, NewEntry};
use keel_events::{
    AgentStatus, CallPurpose, Emitter, LogLevel, MemorySource, RunMemoryUpdate, SystemLog,
};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::config::AgentConfig;
use super::model_call::ModelCaller;
use super::model_context::ModelContext;
use crate::provider::ChatRequest;

/// Most turns a distillation reads (the latest).
pub const MAX_NOTES: usize = 5;
/// Most characters of a turn's task and of its answer in the prompt.
const MAX_TEXT_CHARS: usize = 1_000;
/// Most changed files listed per turn.
const MAX_FILES: usize = 20;
/// Most characters of the memory so far in the prompt.
const MAX_MEMORY_CHARS: usize = 6_000;
/// Most entries taken from one answer.
pub const MAX_DISTILLED: usize = 5;

/// What the model is asked.
const INSTRUCTIONS: &str = "You keep the long-term memory of a software project for a coding agent. \
From the session below, pick what a later session on this project must know and cannot easily find out again: \
decisions taken (with their reason), conventions the project follows, lasting facts about its layout, tools or constraints, \
and preferences the user stated. Leave out the progress of the task, temporary details, guesses, and anything the memory already says.\n\n\
Answer with JSON only, no other text:\n\
{\"entries\": [{\"kind\": \"decision\", \"text\": \"...\"}]}\n\
`kind` is \"decision\", \"convention\" or \"fact\"; `text` is one self-contained sentence of at most 200 characters. \
At most 5 entries; {\"entries\": []} when nothing is worth keeping.";

/// A finished turn, as a distillation reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnNote {
    pub(crate) task: String,
    pub(crate) status: AgentStatus,
    pub(crate) files_changed: Vec<String>,
    pub(crate) result: String,
}

/// Keeps `note` if its turn changed files, and at most [`MAX_NOTES`] notes (the latest).
pub(crate) fn keep_note(notes: &mut Vec<TurnNote>, note: TurnNote) {
    if note.files_changed.is_empty() {
        return;
    }
    notes.push(note);
    let excess = notes.len().saturating_sub(MAX_NOTES);
    notes.drain(..excess);
}

/// How a distillation went.
#[derive(Debug, Clone, PartialEq)]
pub enum Distillation {
    /// Not made: [`AgentConfig::distill_memory`] is off, or the provider declines
    /// ([`Provider::distills_memory`](crate::Provider::distills_memory)).
    Off,
    /// Not made: no turn since the last distillation changed files.
    NothingChanged,
    /// Made: memory was updated as the event says (its `entries` may be empty).
    Updated(RunMemoryUpdate),
    /// Made, and failed (already reported as a `system.log` warning): why.
    Failed(String),
}

/// What a distillation uses of the session.
pub(crate) struct Distiller<'a> {
    pub(crate) config: &'a mut AgentConfig,
    pub(crate) emitter: &'a Emitter,
    pub(crate) model: &'a mut ModelCaller,
    pub(crate) context: &'a mut ModelContext,
    pub(crate) cancel: &'a CancellationToken,
}

impl Distiller<'_> {
    /// Distils `notes` (the turns since the last distillation) into the project's memory.
    pub(crate) async fn run(mut self, notes: Vec<TurnNote>) -> Distillation {
        if !self.config.distill_memory || !self.model.provider().distills_memory() {
            return Distillation::Off;
        }
        if notes.is_empty() {
            return Distillation::NothingChanged;
        }
        match self.distil(&notes).await {
            Ok(update) => Distillation::Updated(update),
            Err(reason) => {
                tracing::warn!(%reason, "memory not distilled");
                self.emitter.emit(SystemLog {
                    level: LogLevel::Warn,
                    message: format!("memory not distilled: {reason}"),
                    metadata: None,
                });
                Distillation::Failed(reason)
            }
        }
    }

    /// The call, the answer into memory, and `run.memory.update`.
    async fn distil(&mut self, notes: &[TurnNote]) -> Result<RunMemoryUpdate, String> {
        let store = MemoryStore::for_project(&self.config.root);
        let memory = store.read().map_err(|e| e.to_string())?;
        let config = &mut *self.config;
        let request = ChatRequest::new(config.models.current(), prompt(notes, &memory))
            .with_sampling(config.sampling);
        let provider = self.model.shared_provider();
        let (response, model) = config
            .models
            .complete(
                provider.as_ref(),
                &request,
                &config.retry,
                self.emitter,
                self.cancel,
                &mut (),
            )
            .await
            .map_err(|e| format!("the model call failed: {e}"))?;
        if let Some(usage) = response.usage {
            // A session-level call: it belongs to no turn, and says so.
            self.model.report_usage(
                self.emitter,
                &config.pricing,
                &model,
                &usage,
                Some(CallPurpose::MemoryDistill),
            );
        }
        let entries = new_entries(
            parse_reply(&response.text)?,
            self.emitter.sequencer().session_id(),
        );
        let (memory, outcome) = tokio::task::spawn_blocking(move || store.record(entries))
            .await
            .map_err(|e| format!("the memory file could not be written: {e}"))?
            .map_err(|e| e.to_string())?;
        let update = RunMemoryUpdate {
            source: MemorySource::Distill,
            entries: outcome.recorded,
            dropped: u32::try_from(outcome.dropped.len()).unwrap_or(u32::MAX),
            total: u32::try_from(memory.len()).unwrap_or(u32::MAX),
        };
        self.emitter.emit(update.clone());
        self.context.memory = (!memory.is_empty()).then_some(memory);
        Ok(update)
    }
}

/// The request's messages: the instructions, then the memory so far and the turns.
pub(crate) fn prompt(notes: &[TurnNote], memory: &Memory) -> Vec<ChatMessage> {
    let mut text = String::from("## Memory so far\n");
    match memory.render() {
        Some(rendered) => text.push_str(&clip(&rendered, MAX_MEMORY_CHARS)),
        None => text.push_str("(empty)"),
    }
    text.push_str("\n\n## The session\n");
    let skip = notes.len().saturating_sub(MAX_NOTES);
    for (n, note) in notes.iter().skip(skip).enumerate() {
        text.push_str(&format!(
            "\n### Turn {} ({})\nTask: {}\nFiles changed: ",
            n + 1,
            status_name(note.status),
            clip(&note.task, MAX_TEXT_CHARS)
        ));
        let shown: Vec<&str> = note
            .files_changed
            .iter()
            .take(MAX_FILES)
            .map(String::as_str)
            .collect();
        text.push_str(&shown.join(", "));
        if note.files_changed.len() > MAX_FILES {
            text.push_str(&format!(
                " and {} more",
                note.files_changed.len() - MAX_FILES
            ));
        }
        text.push_str("\nFinal answer: ");
        text.push_str(&clip(&note.result, MAX_TEXT_CHARS));
        text.push('\n');
    }
    vec![ChatMessage::system(INSTRUCTIONS), ChatMessage::user(text)]
}

fn status_name(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Completed => "completed",
        AgentStatus::Failed => "failed",
        AgentStatus::Cancelled => "cancelled",
        AgentStatus::MaxIterations => "stopped at the iteration limit",
    }
}

/// `text` on as few lines as it has, cut to `max` characters with an ellipsis.
fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// The answer as the prompt asks for it.
#[derive(Deserialize)]
struct Reply {
    entries: Vec<ReplyEntry>,
}

#[derive(Deserialize)]
struct ReplyEntry {
    kind: String,
    text: String,
}

/// The entries of the model's answer: a JSON object `{"entries": [...]}` (or the bare list),
/// possibly inside a fenced block or after a sentence. Entries of an unknown kind or without
/// text are left out; at most [`MAX_DISTILLED`] are taken.
pub(crate) fn parse_reply(answer: &str) -> Result<Vec<(MemoryKind, String)>, String> {
    let entries = json_in(answer)
        .and_then(|json| {
            serde_json::from_str::<Reply>(json)
                .map(|r| r.entries)
                .or_else(|_| serde_json::from_str::<Vec<ReplyEntry>>(json))
                .ok()
        })
        .ok_or_else(|| {
            format!(
                "the model's answer is not the JSON asked for: {}",
                clip(&answer.replace('\n', " "), 120)
            )
        })?;
    Ok(entries
        .into_iter()
        .filter_map(|e| {
            let kind = e.kind.parse::<MemoryKind>().ok()?;
            let text = e.text.trim();
            (!text.is_empty()).then(|| (kind, text.to_owned()))
        })
        .take(MAX_DISTILLED)
        .collect())
}

/// The JSON object or array in `answer`: from its first `{` or `[` to the matching last
/// closing bracket.
fn json_in(answer: &str) -> Option<&str> {
    let start = answer.find(['{', '['])?;
    let close = if answer[start..].starts_with('{') {
        '}'
    } else {
        ']'
    };
    let end = answer.rfind(close)?;
    (end > start).then(|| &answer[start..=end])
}

/// The new entries for `kinds_and_texts`, recorded by session `session_id`.
pub(crate) fn new_entries(
    kinds_and_texts: Vec<(MemoryKind, String)>,
    session_id: &str,
) -> Vec<NewEntry> {
    kinds_and_texts
        .into_iter()
        .map(|(kind, text)| {
            let entry = NewEntry::new(kind, text);
            if session_id.is_empty() {
                entry
            } else {
                entry.in_session(session_id)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use keel_context::MemoryLimits;
    use proptest::prelude::*;

    use super::*;

    fn note(n: usize, chars: usize, files: usize) -> TurnNote {
        TurnNote {
            task: format!("task {n} {}", "t".repeat(chars)),
            status: AgentStatus::Completed,
            files_changed: (0..files).map(|f| format!("src/file_{f}.rs")).collect(),
            result: "r".repeat(chars),
        }
    }

    #[test]
    fn only_turns_that_changed_files_are_kept_and_only_the_latest() {
        let mut notes = Vec::new();
        keep_note(&mut notes, note(0, 1, 0));
        assert!(notes.is_empty());
        for n in 0..MAX_NOTES + 3 {
            keep_note(&mut notes, note(n, 1, 1));
        }
        assert_eq!(notes.len(), MAX_NOTES);
        assert!(notes[0].task.starts_with("task 3 "));
    }

    #[test]
    fn the_prompt_is_bounded_whatever_the_session() {
        let mut memory = Memory::new();
        memory.record(
            (0..100).map(|i| NewEntry::new(MemoryKind::Fact, format!("{i} {}", "m".repeat(490)))),
            &MemoryLimits::default(),
        );
        let notes: Vec<TurnNote> = (0..MAX_NOTES).map(|n| note(n, 50_000, 500)).collect();
        let messages = prompt(&notes, &memory);
        let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        assert!(chars < 24_000, "{chars}");
        let user = &messages[1].content;
        assert!(user.contains("and 480 more"), "{user}");
        assert!(user.contains("### Turn 5 (completed)"));

        let small = prompt(&[note(0, 3, 1)], &Memory::new());
        assert!(small[1].content.starts_with("## Memory so far\n(empty)\n"));
        assert!(small[1].content.contains("Files changed: src/file_0.rs\n"));
    }

    #[test]
    fn replies_are_read_in_the_shapes_models_write() {
        let plain = r#"{"entries": [{"kind": "decision", "text": " Use ruff "}]}"#;
        assert_eq!(
            parse_reply(plain).unwrap(),
            [(MemoryKind::Decision, "Use ruff".to_owned())]
        );
        let fenced = format!("Here you go:\n```json\n{plain}\n```\n");
        assert_eq!(parse_reply(&fenced).unwrap(), parse_reply(plain).unwrap());
        let bare = r#"[{"kind": "Fact", "text": "x"}, {"kind": "mood", "text": "y"}, {"kind": "fact", "text": ""}]"#;
        assert_eq!(
            parse_reply(bare).unwrap(),
            [(MemoryKind::Fact, "x".to_owned())]
        );
        assert_eq!(parse_reply(r#"{"entries": []}"#).unwrap(), []);
        let many = serde_json::json!({"entries": (0..9).map(|i| serde_json::json!({"kind": "fact", "text": i.to_string()})).collect::<Vec<_>>()});
        assert_eq!(parse_reply(&many.to_string()).unwrap().len(), MAX_DISTILLED);
        for bad in [
            "",
            "nothing to add",
            "{\"entries\": [",
            "{\"items\": []}",
            "} {",
        ] {
            let error = parse_reply(bad).unwrap_err();
            assert!(error.contains("not the JSON asked for"), "{bad}: {error}");
        }
    }

    fn kind() -> impl Strategy<Value = MemoryKind> {
        prop_oneof![
            Just(MemoryKind::Fact),
            Just(MemoryKind::Convention),
            Just(MemoryKind::Decision)
        ]
    }

    proptest! {
        /// Any text is either entries or a clear error, never a panic.
        #[test]
        fn any_answer_parses_or_fails_cleanly(answer in "\\PC{0,200}") {
            match parse_reply(&answer) {
                Ok(entries) => prop_assert!(entries.len() <= MAX_DISTILLED),
                Err(e) => prop_assert!(e.starts_with("the model's answer is not the JSON asked for")),
            }
        }

        /// Entries written as asked, with prose or a fence around them, come back as written.
        #[test]
        fn well_formed_answers_round_trip(
            entries in prop::collection::vec((kind(), "[a-zA-Z0-9 .,{}\\[\\]]{1,40}"), 0..5),
            before in "[a-zA-Z :\n`]{0,20}",
            after in "[a-zA-Z .\n`]{0,20}",
        ) {
            let json = serde_json::json!({"entries": entries
                .iter()
                .map(|(k, t)| serde_json::json!({"kind": k.as_str(), "text": t}))
                .collect::<Vec<_>>()});
            let parsed = parse_reply(&format!("{before}{json}{after}")).unwrap();
            let expected: Vec<(MemoryKind, String)> = entries
                .into_iter()
                .filter(|(_, t)| !t.trim().is_empty())
                .map(|(k, t)| (k, t.trim().to_owned()))
                .collect();
            prop_assert_eq!(parsed, expected);
        }
    }
}
