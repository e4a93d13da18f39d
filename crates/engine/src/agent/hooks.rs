//! The session's hooks (keel-extensions' [`Hooks`], run by keel-tools' [`HookRunner`]): found
//! once when the session is built — the ones configured in `keel.toml` and those of Claude
//! Code's and Codex's files — the project's kept only in a trusted folder, and fired at their
//! points of a turn:
//!
//! | event | where | what its answer does |
//! |---|---|---|
//! | `SessionStart` | the session's first turn, before the model is asked | `additionalContext` (or plain output) joins the turn's notes |
//! | `UserPromptSubmit` | every turn, before the model is asked | block: the turn ends failed with the reason, the model is not asked; context joins the turn's notes |
//! | `PreToolUse` | a workspace or MCP tool call, after `run.tool.start` | deny/block: the call is refused with the reason as its result; ask: the person is asked; `updatedInput` replaces those fields of the arguments |
//! | `PostToolUse` | after such a call ran (success or error) | block: the reason is added to the result the model reads; so is `additionalContext` |
//! | `PreCompact` | before the model summarises older history | nothing (it is told) |
//! | `Notification` | when Keel waits for an approval or an answer | nothing |
//! | `Stop` | an answer that would end the turn | block: the reason is given to the model as a user note and the turn goes on, at most [`MAX_STOP_CONTINUATIONS`] times a turn |
//! | `SubagentStop` | an answer that would end a subagent (`TurnState::stop_event`, `turn.rs`) | block: the child is sent back to work, as `Stop` does a turn |
//!
//! A hook that fails decides nothing (keel-tools logs it): every event goes on as if it had
//! said nothing. Control tools (`attempt_completion`, questions, plans) run no tool hooks.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use keel_events::{Emitter, LogLevel, SystemLog};
use keel_extensions::{Decision, Hook, HookEvent, HookOutcome, Hooks, Scope, Sources};
use keel_protocol::{ApprovalReply, ApprovalRequest, Approver};
use keel_tools::hooks::{HookCall, HookRunner};
use keel_tools::process::CommandSandbox;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// Most times `Stop` hooks may send the model back to work in one turn.
pub(crate) const MAX_STOP_CONTINUATIONS: u32 = 3;

/// The session's hooks: `configured` (from `keel.toml`, user's and project's) and those of the
/// hook files of `root` and `user_dir`, the project's dropped unless `trusted`; with the logs
/// to show at the first turn (files skipped, untrusted hooks not run).
pub(crate) fn discover(
    root: &Path,
    user_dir: Option<&Path>,
    configured: &[Hook],
    trusted: bool,
) -> (Arc<Hooks>, Vec<SystemLog>) {
    let sources = Sources::new(root, user_dir.map(Path::to_path_buf));
    let (found, warnings) = keel_extensions::hook::files::discover(&sources);
    let mut logs: Vec<SystemLog> = warnings
        .into_iter()
        .map(|w| {
            let mut metadata = Map::new();
            metadata.insert("path".into(), w.path.display().to_string().into());
            metadata.insert("line".into(), w.line.into());
            SystemLog {
                level: LogLevel::Warn,
                message: format!("hook skipped: {w}"),
                metadata: Some(metadata),
            }
        })
        .collect();
    let all: Hooks = configured.iter().cloned().chain(found).collect();
    let (hooks, skipped) = all.trusted(trusted);
    if !skipped.is_empty() {
        let names: Vec<String> = skipped
            .iter()
            .map(|h| format!("{} `{}` ({})", h.event, h.command, h.origin))
            .collect();
        let mut metadata = Map::new();
        metadata.insert(
            "skipped".into(),
            skipped
                .iter()
                .map(|h| Value::from(h.origin.to_string()))
                .collect::<Vec<_>>()
                .into(),
        );
        logs.push(SystemLog {
            level: LogLevel::Warn,
            message: format!(
                "the project's hooks are not run: {} is not a trusted folder (`keel trust`, or \
                 `--trust` for one run, runs them): {}",
                root.display(),
                names.join("; ")
            ),
            metadata: Some(metadata),
        });
    }
    debug_assert!(
        hooks
            .all()
            .iter()
            .all(|h| trusted || h.origin.scope == Scope::User)
    );
    (Arc::new(hooks), logs)
}

/// Each log, once.
pub(crate) fn report(logs: Vec<SystemLog>, emitter: &Emitter) {
    for log in logs {
        tracing::warn!(message = %log.message, "hooks");
        emitter.emit(log);
    }
}

/// The arguments a hook sees as `tool_input`: the call's, plus `file_path` (absolute, as
/// Claude Code's tools name it) beside a `path`, so hooks written for Claude Code read them.
pub(crate) fn tool_input(root: &Path, arguments: &Value) -> Value {
    let mut input = arguments.clone();
    if let Some(object) = input.as_object_mut()
        && !object.contains_key("file_path")
        && let Some(path) = object.get("path").and_then(Value::as_str)
    {
        let absolute = root.join(path);
        object.insert("file_path".into(), absolute.display().to_string().into());
    }
    input
}

/// `arguments` with the fields of `updated` put in; a `file_path` the hook wrote (Claude Code's
/// name) goes to `path`, relative to `root` when inside it.
pub(crate) fn apply_updated_input(
    root: &Path,
    arguments: &Value,
    updated: &Map<String, Value>,
) -> Value {
    let mut out = arguments.as_object().cloned().unwrap_or_default();
    let takes_path = out.contains_key("path") && !out.contains_key("file_path");
    for (key, value) in updated {
        if key == "file_path" && takes_path {
            let path = value.as_str().map_or_else(
                || value.clone(),
                |p| {
                    let p = PathBuf::from(p);
                    p.strip_prefix(root)
                        .map_or_else(|_| p.clone(), Path::to_path_buf)
                        .display()
                        .to_string()
                        .into()
                },
            );
            out.insert("path".into(), path);
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    Value::Object(out)
}

/// The input fields of a tool event.
pub(crate) fn tool_call(
    root: &Path,
    call_id: &str,
    tool: &str,
    arguments: &Value,
    response: Option<Value>,
) -> HookCall {
    let mut fields = Map::new();
    fields.insert("tool_name".into(), tool.into());
    fields.insert("tool_input".into(), tool_input(root, arguments));
    fields.insert("tool_use_id".into(), call_id.into());
    if let Some(response) = response {
        fields.insert("tool_response".into(), response);
    }
    HookCall {
        subject: Some(tool.to_owned()),
        call_id: Some(call_id.to_owned()),
        fields,
    }
}

/// An event's input with one field.
pub(crate) fn call_with(subject: Option<&str>, fields: &[(&str, Value)]) -> HookCall {
    HookCall {
        subject: subject.map(str::to_owned),
        call_id: None,
        fields: fields
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    }
}

/// The text a blocking hook gives the model.
pub(crate) fn block_reason(event: HookEvent, outcome: &HookOutcome) -> String {
    match &outcome.reason {
        Some(reason) => reason.clone(),
        None => format!("a {event} hook blocked this"),
    }
}

/// Whether the outcome blocks.
pub(crate) fn blocks(outcome: &HookOutcome) -> bool {
    outcome.decision == Decision::Block
}

/// An approver that first runs the `Notification` hooks (`message`: what is asked), then asks
/// the front end's approver.
pub(crate) struct NotifyingApprover {
    pub(crate) inner: Arc<dyn Approver>,
    pub(crate) hooks: Arc<Hooks>,
    pub(crate) root: PathBuf,
    pub(crate) sandbox: CommandSandbox,
    pub(crate) emitter: Emitter,
    pub(crate) cancel: CancellationToken,
    pub(crate) permission_mode: &'static str,
}

impl std::fmt::Debug for NotifyingApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotifyingApprover")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Approver for NotifyingApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply {
        let runner = HookRunner {
            hooks: &self.hooks,
            root: &self.root,
            sandbox: &self.sandbox,
            emitter: &self.emitter,
            cancel: &self.cancel,
            permission_mode: self.permission_mode,
        };
        let message = format!("Keel needs your permission: {}", request.subject);
        runner
            .run(
                HookEvent::Notification,
                call_with(None, &[("message", message.into())]),
            )
            .await;
        self.inner.approve(request).await
    }
}

/// A summariser that first runs the `PreCompact` hooks (trigger `auto`: Keel compacts when
/// the prompt outgrows the window), then summarises as `inner` does.
pub(crate) struct PreCompact<'a> {
    pub(crate) inner: &'a dyn keel_context::Summarizer,
    pub(crate) runner: HookRunner<'a>,
}

#[async_trait]
impl keel_context::Summarizer for PreCompact<'_> {
    async fn summarize(
        &self,
        request: &keel_context::SummaryRequest,
    ) -> Result<keel_context::Summary, keel_context::SummarizeError> {
        self.runner
            .run(
                HookEvent::PreCompact,
                call_with(
                    Some("auto"),
                    &[
                        ("trigger", "auto".into()),
                        ("custom_instructions", "".into()),
                    ],
                ),
            )
            .await;
        self.inner.summarize(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_code_file_paths_are_given_and_taken_back() {
        let root = Path::new("/work/p");
        let input = tool_input(root, &json!({"path": "src/a.rs", "content": "x"}));
        assert_eq!(input["file_path"], "/work/p/src/a.rs");
        assert_eq!(input["path"], "src/a.rs");
        let updated = json!({"file_path": "/work/p/src/b.rs"});
        let args = apply_updated_input(
            root,
            &json!({"path": "src/a.rs", "content": "x"}),
            updated.as_object().unwrap(),
        );
        assert_eq!(args, json!({"path": "src/b.rs", "content": "x"}));
        let updated = json!({"command": "ls"});
        let args = apply_updated_input(
            root,
            &json!({"command": "rm -rf /"}),
            updated.as_object().unwrap(),
        );
        assert_eq!(args, json!({"command": "ls"}));
    }
}
