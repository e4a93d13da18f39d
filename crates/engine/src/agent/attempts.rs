//! Starting a turn over: when a turn's work failed — the project's tests still fail after the
//! rounds given back, or nothing changed where changes were asked for — and attempts are left
//! ([`AgentConfig::attempts`]), the turn begins again from its first message with a fresh
//! conversation: the files its edits touched put back as they were when the turn began (a
//! small model's failed attempt often breaks what worked, and the next one then starts from
//! the wreck), focused again,
//! the tests run again, the task told that an earlier attempt did not succeed, and answers
//! sampled at [`RETRY_TEMPERATURE`] so the model does not write the same answer again. Small
//! models solve more tasks in several short attempts than in one long conversation about a
//! failure. Each new attempt is a `system.log`; the turn still ends with one `agent.end`.
//!
//! [`AgentConfig::attempts`]: super::AgentConfig::attempts

use keel_events::{LogLevel, SystemLog};

use super::answer_review::log;
use super::auto_test::{TESTS_HEADING, TestState};
use super::tool_loop::TurnRun;
use super::turn_state::{Corrections, LoopEnd};
use crate::provider::Sampling;

/// The temperature of every attempt after the first.
pub(crate) const RETRY_TEMPERATURE: f32 = 0.7;

/// The built-in tools that change files (by `path`, or `fromPath` and `toPath`).
const EDIT_TOOLS: &[&str] = &["write_file", "replace_in_file", "move_file", "delete_file"];

/// Attempts when the settings say nothing, with the compact profile and a test command.
const COMPACT_ATTEMPTS: u32 = 3;

impl TurnRun<'_> {
    /// How many attempts this turn may make.
    fn attempts(&self) -> u32 {
        self.config.attempts.unwrap_or(
            if self.state.compact && self.config.test_command.is_some() && self.config.auto_test {
                COMPACT_ATTEMPTS
            } else {
                1
            },
        )
    }

    /// Whether the turn may start over once more.
    pub(crate) fn attempts_left(&self) -> bool {
        self.state.attempt < self.attempts()
    }

    /// Whether the turn starts over after `end` (and has, when true).
    pub(crate) async fn start_over(&mut self, end: &LoopEnd) -> bool {
        let failed = match end {
            LoopEnd::Answered(_) | LoopEnd::Completed(_) => {
                self.state.tests == TestState::Failed
                    || (self.state.asks_for_change && !self.changed_files())
            }
            LoopEnd::Stopped(_) => true,
            _ => false,
        };
        if !failed
            || self.state.attempt >= self.attempts()
            || self.state.cancel.is_cancelled()
            || self.state.iterations >= self.config.max_iterations
        {
            return false;
        }
        self.state.attempt += 1;
        let why = if self.state.examples_failed {
            "the docstrings' examples still fail"
        } else if self.state.tests == TestState::Failed {
            "the tests still fail"
        } else if matches!(end, LoopEnd::Stopped(_)) {
            "it was stuck"
        } else {
            "no file was changed"
        };
        self.emitter.emit(SystemLog {
            level: LogLevel::Info,
            message: format!(
                "attempt {} of {}: the previous attempt failed ({why}); the turn starts over with a fresh conversation",
                self.state.attempt,
                self.attempts()
            ),
            metadata: None,
        });
        self.begin_again(why).await;
        true
    }

    /// Before an edit call runs: notes the files it may change as they are, unless the turn
    /// noted them already.
    pub(crate) fn remember_originals(&mut self, call: &crate::assemble::AssembledToolCall) {
        if !EDIT_TOOLS.contains(&call.name.as_str()) {
            return;
        }
        let Ok(arguments) = serde_json::from_str::<serde_json::Value>(&call.arguments) else {
            return;
        };
        let Ok(ws) = keel_tools::Workspace::new(&self.config.root) else {
            return;
        };
        for key in ["path", "fromPath", "toPath"] {
            let Some(path) = arguments.get(key).and_then(serde_json::Value::as_str) else {
                continue;
            };
            let Ok(full) = ws.resolve_for_write(path) else {
                continue;
            };
            self.state
                .originals
                .entry(ws.relative(&full))
                .or_insert_with(|| std::fs::read_to_string(&full).ok());
        }
    }

    /// Writes `content` to `path` as Keel's own `write_file` call (`call_id`) for work it does
    /// for the task itself, and makes it the turn's baseline — a failed attempt starts over
    /// from it, not from before — and focus; true when it was written.
    pub(crate) async fn write_baseline(
        &mut self,
        call_id: &str,
        path: &str,
        content: &str,
    ) -> bool {
        let before = std::fs::read_to_string(self.config.root.join(path)).ok();
        let arguments = serde_json::json!({"path": path, "content": content});
        if !self
            .run_own_tool(call_id, "write_file", arguments)
            .await
            .success
        {
            return false;
        }
        self.state
            .before_keel
            .entry(path.to_owned())
            .or_insert(before);
        self.state
            .originals
            .insert(path.to_owned(), Some(content.to_owned()));
        self.context
            .turn_focus
            .upsert(path, content.to_owned(), true);
        self.context.focused.upsert(path, content.to_owned(), true);
        true
    }

    /// Puts `paths` back as `before` holds them, through the file tools (so checkpoints and
    /// events record it); the paths it wrote or deleted, and those `before` does not know
    /// (left as they are).
    pub(crate) async fn put_back(
        &mut self,
        before: &std::collections::BTreeMap<String, Option<String>>,
        paths: &[String],
    ) -> (Vec<String>, Vec<String>) {
        let mut restored = Vec::new();
        let mut unknown = Vec::new();
        for (n, path) in paths.iter().enumerate() {
            let call_id = format!("keel_undo_{}_{n}", self.state.iterations);
            let now = std::fs::read_to_string(self.config.root.join(path)).ok();
            match before.get(path) {
                Some(old) if *old == now => {}
                Some(Some(content)) => {
                    let arguments = serde_json::json!({"path": path, "content": content});
                    self.run_own_tool(&call_id, "write_file", arguments).await;
                    restored.push(path.clone());
                }
                Some(None) => {
                    let arguments = serde_json::json!({"path": path});
                    self.run_own_tool(&call_id, "delete_file", arguments).await;
                    restored.push(path.clone());
                }
                None => unknown.push(path.clone()),
            }
        }
        (restored, unknown)
    }

    /// The turn's conversation back to its first message, told why, with the files its edits
    /// touched as they were when it began, and the tests run again.
    async fn begin_again(&mut self, why: &str) {
        let originals = self.state.originals.clone();
        let touched: Vec<String> = originals.keys().cloned().collect();
        let (restored, _) = self.put_back(&originals, &touched).await;
        if !restored.is_empty() {
            log(
                self.emitter,
                format!("{} put back as the turn found them", restored.join(", ")),
            );
        }
        self.state.edit_errors.clear();
        let context = &mut *self.context;
        // The task's images go with it into the fresh start.
        let images = context
            .conversation
            .messages()
            .get(self.state.turn_start)
            .map(|m| m.images().to_vec())
            .unwrap_or_default();
        context.conversation.truncate(self.state.turn_start);
        context.conversation.push_user_with_images(
            format!(
                "{}\n\n(An earlier attempt at this task failed: {why}. Its changes were undone: the files are as they were before it, see above. Look again at what the task asks and do it another way.)",
                self.state.task
            ),
            images,
        );
        let paths: Vec<String> = context
            .focused
            .iter()
            .map(|f| f.path().to_owned())
            .collect();
        for path in paths {
            match std::fs::read_to_string(self.config.root.join(&path)) {
                Ok(content) => {
                    context.focused.upsert(path, content, false);
                }
                Err(_) => {
                    context.focused.remove(&path);
                }
            }
        }
        context.turn_focus = context.focused.clone();
        context
            .turn_notes
            .retain(|note| !note.starts_with(TESTS_HEADING));
        self.state.corrected = Corrections::default();
        self.state.test_rounds = 0;
        self.state.tests = TestState::NotRun;
        self.state.examples_failed = false;
        self.state.failed_on = None;
        self.state.made_up_result = false;
        self.state.hints.clear();
        self.state.detector = super::anomaly::AnomalyDetector::new(self.config.anomalies);
        self.state.sampling = Some(Sampling {
            temperature: Some(RETRY_TEMPERATURE),
            ..self.config.sampling
        });
        self.test_before_start().await;
    }
}
