//! What the model sees: the conversation, the focused files, the project memory, the rendered
//! repo map and the turn's environment and project instructions, with what keeps them in step
//! with the tool calls (results, focus, nested instruction files).

use std::path::Path;
use std::sync::Arc;

use keel_context::{
    Conversation, ExtractiveSummarizer, FocusedFiles, Memory, MemoryStore, PromptCache,
    RetentionPolicy, Summarizer,
};
use keel_events::Emitter;
use keel_tools::Workspace;
use keel_tools::builtin::Preloaded;

use super::turn_prompt::{TurnPrompt, touched_paths};

/// Files over this many lines are not focused after a whole read (the model reads ranges).
const MAX_FOCUS_LINES: usize = 2_000;

/// The session's context: everything a prompt is built from, and the cache of its renderings.
pub(crate) struct ModelContext {
    pub(crate) conversation: Conversation,
    /// The focused files, kept current by every call.
    pub(crate) focused: FocusedFiles,
    /// The focused files as the running turn began: what its prompts show, so each request of
    /// the turn repeats the previous one (see keel-context's message builder).
    pub(crate) turn_focus: FocusedFiles,
    /// More of the running turn's context: markdown sections (the code the task names, the
    /// tests as they stood before the turn).
    pub(crate) turn_notes: Vec<String>,
    pub(crate) memory: Option<Memory>,
    /// The rendered repo map shown in the system prompt.
    pub(crate) repo_map: Option<String>,
    /// The preloaded library docs shown in the system prompt (`[context] libraries`).
    pub(crate) libraries: Option<Preloaded>,
    /// The turn's environment and project instructions.
    pub(crate) turn_prompt: TurnPrompt,
    /// The session's skills as the system prompt lists them (empty when there are none).
    pub(crate) skills: String,
    /// Writes summaries when the model does not (or cannot).
    pub(crate) summarizer: Arc<dyn Summarizer>,
    pub(crate) retention: RetentionPolicy,
    /// History renderings kept between requests.
    pub(crate) prompt_cache: PromptCache,
    /// Images tool results attached (`read_file` on an image), sent as one note after the
    /// round's results when the next request is built ([`Self::attach_images`]).
    pub(crate) images_to_attach: Vec<keel_protocol::Image>,
}

impl std::fmt::Debug for ModelContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelContext")
            .field("messages", &self.conversation.len())
            .field("focused", &self.focused.len())
            .field("repo_map", &self.repo_map.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for ModelContext {
    fn default() -> Self {
        Self {
            conversation: Conversation::new(),
            focused: FocusedFiles::new(),
            turn_focus: FocusedFiles::new(),
            turn_notes: Vec::new(),
            memory: None,
            repo_map: None,
            libraries: None,
            turn_prompt: TurnPrompt::default(),
            skills: String::new(),
            summarizer: Arc::new(ExtractiveSummarizer),
            retention: RetentionPolicy::default(),
            prompt_cache: PromptCache::new(),
            images_to_attach: Vec::new(),
        }
    }
}

impl ModelContext {
    /// The images the last round's tool results attached, as a note after those results
    /// (tool messages cannot hold images in the chat-completions format); nothing when there
    /// are none.
    pub(crate) fn attach_images(&mut self) {
        if self.images_to_attach.is_empty() {
            return;
        }
        let images = std::mem::take(&mut self.images_to_attach);
        let names: Vec<String> = images.iter().map(|i| format!("`{}`", i.name)).collect();
        let text = format!("The image read_file attached: {}.", names.join(", "));
        self.conversation.push_note_with_images(text, images);
    }

    /// Records `text` as the result of call `call_id`. A call that is not pending (already
    /// answered or unknown) keeps its first result.
    pub(crate) fn add_result(&mut self, call_id: &str, text: String, success: bool) {
        if let Err(error) =
            self.conversation
                .add_tool_result(call_id, text, success, &self.retention)
        {
            tracing::debug!(call_id, %error, "tool result not recorded");
        }
    }

    /// The text a tool result is recorded with: a `read_library_docs` overview (no topic) of
    /// a preloaded library refers to the system prompt's section instead of repeating it, as
    /// reads of focused files do.
    pub(crate) fn result_for_history(
        &self,
        tool: &str,
        arguments: &serde_json::Value,
        success: bool,
        text: String,
    ) -> String {
        let Some(preloaded) = self.libraries.as_ref().filter(|_| success) else {
            return text;
        };
        let field = |key: &str| arguments.get(key).and_then(|v| v.as_str()).map(str::trim);
        let overview = field("topic").is_none_or(str::is_empty);
        match field("library") {
            Some(library)
                if tool == "read_library_docs" && overview && preloaded.contains(library) =>
            {
                format!(
                    "[The docs of `{library}` are preloaded in the system prompt under \"Library documentation\"; call read_library_docs with a topic for more.]"
                )
            }
            _ => text,
        }
    }

    /// Gives every pending call of the latest response but `keep` a "not run" result saying
    /// `reason`.
    pub(crate) fn close_unrun(&mut self, reason: &str, keep: Option<&str>) {
        let unrun: Vec<String> = self
            .conversation
            .pending_calls()
            .into_iter()
            .filter(|c| Some(c.id.as_str()) != keep)
            .map(|c| c.id.clone())
            .collect();
        for id in unrun {
            self.add_result(&id, format!("[not run: {reason}]"), false);
        }
    }

    /// Keeps the context in step with a successful call: the focused files (see
    /// [`Self::follow_focus`]), and the instruction files of the folders the call touched.
    pub(crate) fn follow_call(
        &mut self,
        root: &Path,
        tool: &str,
        arguments: &serde_json::Value,
        emitter: &Emitter,
    ) {
        self.follow_focus(root, tool, arguments);
        for path in touched_paths(tool, arguments) {
            self.turn_prompt.touched(path, emitter);
        }
    }

    /// Keeps the focused files in step with a successful call: whole reads and writes focus
    /// the file's current content (writes pin it while the turn edits it), deletes and moves
    /// follow the file. After `remember`, the project memory is read again.
    fn follow_focus(&mut self, root: &Path, tool: &str, arguments: &serde_json::Value) {
        let text = |key: &str| {
            arguments
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        match tool {
            "read_file" => {
                let ranged = arguments.get("start_line").is_some_and(|v| !v.is_null())
                    || arguments.get("end_line").is_some_and(|v| !v.is_null());
                if let (false, Some(path)) = (ranged, text("path"))
                    && let Some(content) = current_content(root, &path)
                    && content.lines().count() <= MAX_FOCUS_LINES
                {
                    self.focused.upsert(path, content, false);
                }
            }
            "write_file" | "write_to_file" | "replace_in_file" => {
                if let Some(path) = text("path")
                    && let Some(content) = current_content(root, &path)
                {
                    self.focused.upsert(path, content, true);
                }
            }
            "delete_file" => {
                if let Some(path) = text("path") {
                    self.focused.remove(&path);
                }
            }
            "move_file" => {
                if let (Some(from), Some(to)) = (text("fromPath"), text("toPath")) {
                    self.focused.rename(&from, &to);
                }
            }
            // The model sees what it remembered from its next request on.
            super::remember::REMEMBER => match MemoryStore::for_project(root).read() {
                Ok(memory) => self.memory = (!memory.is_empty()).then_some(memory),
                Err(error) => tracing::warn!(%error, "project memory not reloaded"),
            },
            _ => {}
        }
    }
}

/// The current text of a workspace file, if it is inside `root` and readable as UTF-8.
fn current_content(root: &Path, path: &str) -> Option<String> {
    let workspace = Workspace::new(root).ok()?;
    let resolved = workspace.resolve(path).ok()?;
    std::fs::read_to_string(resolved).ok()
}
