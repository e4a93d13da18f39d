//! The turn's part of the system prompt, after the agent's own instructions: the environment
//! and the project's instruction files. Built at the start of each turn and rebuilt only when
//! a file the turn touches brings a nested instructions file into view, so model calls in
//! between send the same system prompt (and a provider's prompt cache can reuse it).
//!
//! The loaded set is reported as `prepare.instructions.load` whenever it changes; files that
//! cannot be used are a `system.log` warning, once per session each.

use std::collections::HashSet;
use std::path::Path;

use keel_context::{InstructionSources, InstructionsWarning, ProjectInstructions, TokenCounter};
use keel_events::{Emitter, LogLevel, PrepareInstructionsLoad, SystemLog};

use super::environment::Environment;

/// The environment and project instructions of the running turn.
#[derive(Debug, Default)]
pub(crate) struct TurnPrompt {
    /// The rendered environment section.
    environment: String,
    instructions: ProjectInstructions,
    /// Counts the instructions' tokens (the turn's model).
    counter: Option<TokenCounter>,
    /// Environment and instructions, joined: what the system prompt carries.
    text: String,
    /// The set last reported, to report only changes.
    reported: Option<PrepareInstructionsLoad>,
    /// Warnings already logged in this session.
    warned: HashSet<String>,
}

impl TurnPrompt {
    /// Starts a turn on `root` (whose tests run with `tests`): gathers the environment and
    /// loads the user-wide and root instruction files.
    pub(crate) fn start_turn(
        &mut self,
        root: &Path,
        tests: Option<&str>,
        sources: &InstructionSources,
        counter: TokenCounter,
        emitter: &Emitter,
    ) {
        self.environment = Environment::gather(root, tests).render();
        let (instructions, warnings) = ProjectInstructions::load(root, sources);
        self.instructions = instructions;
        self.counter = Some(counter);
        self.warn(&warnings, emitter);
        self.refresh(emitter);
    }

    /// Takes note of a file the turn read, wrote or edited: instruction files in the folders on
    /// its way from the root join the prompt.
    pub(crate) fn touched(&mut self, path: &str, emitter: &Emitter) {
        let (added, warnings) = self.instructions.discover(path);
        self.warn(&warnings, emitter);
        if added {
            self.refresh(emitter);
        }
    }

    /// The environment and instruction sections, for the system prompt.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Renders the sections again and reports the set when it changed.
    fn refresh(&mut self, emitter: &Emitter) {
        let rendered = self.instructions.render(self.counter.unwrap_or_default());
        self.text = if rendered.text.is_empty() {
            self.environment.clone()
        } else {
            format!("{}\n\n{}", self.environment, rendered.text)
        };
        // Nothing loaded and nothing reported before is no change.
        let changed = match &self.reported {
            Some(reported) => *reported != rendered.event,
            None => !rendered.event.files.is_empty(),
        };
        if changed {
            emitter.emit(rendered.event.clone());
            self.reported = Some(rendered.event);
        }
    }

    fn warn(&mut self, warnings: &[InstructionsWarning], emitter: &Emitter) {
        for warning in warnings {
            let message = warning.to_string();
            if !self.warned.insert(message.clone()) {
                continue;
            }
            tracing::warn!(%message, "project instructions");
            let mut metadata = serde_json::Map::new();
            metadata.insert("path".to_owned(), warning.path.display().to_string().into());
            emitter.emit(SystemLog {
                level: LogLevel::Warn,
                message,
                metadata: Some(metadata),
            });
        }
    }
}

/// The workspace paths a successful call read, wrote or edited.
pub(crate) fn touched_paths<'a>(tool: &str, arguments: &'a serde_json::Value) -> Vec<&'a str> {
    let text = |key: &str| arguments.get(key).and_then(|v| v.as_str());
    let keys: &[&str] = match tool {
        "read_file" | "write_file" | "write_to_file" | "replace_in_file" | "delete_file" => {
            &["path"]
        }
        "move_file" => &["fromPath", "toPath"],
        _ => &[],
    };
    keys.iter().filter_map(|key| text(key)).collect()
}
