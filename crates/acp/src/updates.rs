//! Keel's events as ACP `session/update`s: answer and reasoning text as message chunks, tool
//! calls with their kind, locations and status, file changes as diffs on the tool call that
//! made them, results as the call's content, a plan and its steps' progress as ACP plans.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionUpdate, TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use keel_events::{Event, EventKind, FileOp, ToolStatus};

use crate::diff::old_text;

/// The tool call running now (the one an approval is for), shared with the approver.
#[derive(Debug, Clone, Default)]
pub struct CurrentToolCall(Arc<Mutex<Option<String>>>);

impl CurrentToolCall {
    /// The running call's id.
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, id: Option<String>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = id;
    }
}

/// Turns one session's events into updates; holds what a tool call has shown so far.
#[derive(Debug)]
pub struct UpdateMapper {
    root: PathBuf,
    current: CurrentToolCall,
    /// Content shown on each open tool call (an update replaces the whole list).
    content: HashMap<String, Vec<ToolCallContent>>,
    /// The current plan's steps (their index and entry); an update sends them all.
    plan: Vec<(u32, PlanEntry)>,
}

impl UpdateMapper {
    /// A mapper for a session working in `root`, keeping `current` up to date.
    pub fn new(root: impl Into<PathBuf>, current: CurrentToolCall) -> Self {
        Self {
            root: root.into(),
            current,
            content: HashMap::new(),
            plan: Vec::new(),
        }
    }

    /// The plan as it stands, after `change` to the entry of step `step`.
    fn plan_update(
        &mut self,
        step: u32,
        change: impl FnOnce(&mut PlanEntry),
    ) -> Vec<SessionUpdate> {
        let Some((_, entry)) = self.plan.iter_mut().find(|(index, _)| *index == step) else {
            return Vec::new();
        };
        change(entry);
        vec![self.plan_now()]
    }

    fn plan_now(&self) -> SessionUpdate {
        SessionUpdate::Plan(Plan::new(
            self.plan.iter().map(|(_, entry)| entry.clone()).collect(),
        ))
    }

    /// The updates for `event`. `replay`: the event is from a stored turn being shown again
    /// (`session/load`), so the user's prompts are shown too and files are not read.
    pub fn map(&mut self, event: &Event, replay: bool) -> Vec<SessionUpdate> {
        match &event.kind {
            EventKind::AgentStart(start) if replay => {
                vec![SessionUpdate::UserMessageChunk(chunk(&start.task_input))]
            }
            EventKind::RunLlmDelta(delta) => {
                vec![SessionUpdate::AgentMessageChunk(chunk(&delta.text))]
            }
            EventKind::RunThinkingDelta(delta) => {
                vec![SessionUpdate::AgentThoughtChunk(chunk(&delta.text))]
            }
            EventKind::RunToolStart(start) => {
                self.current.set(Some(start.call_id.clone()));
                self.content.insert(start.call_id.clone(), Vec::new());
                let mut call = ToolCall::new(
                    start.call_id.clone(),
                    title(&start.tool_name, &start.arguments),
                )
                .kind(kind(&start.tool_name))
                .status(ToolCallStatus::InProgress)
                .raw_input(start.arguments.clone());
                if let Some(path) = start.arguments.get("path").and_then(|p| p.as_str()) {
                    call = call.locations(vec![ToolCallLocation::new(self.root.join(path))]);
                }
                vec![SessionUpdate::ToolCall(call)]
            }
            EventKind::RunFileChange(change) => {
                let Some(call_id) = self.current.get() else {
                    return Vec::new();
                };
                let path = self.root.join(&change.path);
                let item = if replay {
                    change.diff.as_deref().map(text_content)
                } else {
                    file_diff(&path, change.op, change.diff.as_deref())
                };
                let Some(item) = item else {
                    return Vec::new();
                };
                let content = self.content.entry(call_id.clone()).or_default();
                content.push(item);
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    call_id,
                    ToolCallUpdateFields::new()
                        .content(content.clone())
                        .locations(vec![ToolCallLocation::new(path)]),
                ))]
            }
            EventKind::RunToolEnd(end) => {
                if self.current.get().as_deref() == Some(end.call_id.as_str()) {
                    self.current.set(None);
                }
                let mut content = self.content.remove(&end.call_id).unwrap_or_default();
                if !end.result.is_empty() {
                    content.push(text_content(&end.result));
                }
                let status = match end.status {
                    ToolStatus::Success => ToolCallStatus::Completed,
                    ToolStatus::Error | ToolStatus::Denied | ToolStatus::Cancelled => {
                        ToolCallStatus::Failed
                    }
                };
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    end.call_id.clone(),
                    ToolCallUpdateFields::new()
                        .status(status)
                        .content(content)
                        .raw_output(serde_json::Value::String(end.result.clone())),
                ))]
            }
            EventKind::RunPlanCreate(created) => self.new_plan(&created.plan),
            EventKind::RunPlanModify(modified) => self.new_plan(&modified.plan),
            EventKind::RunStepStart(step) => self.plan_update(step.step_id, |entry| {
                entry.status = PlanEntryStatus::InProgress;
            }),
            EventKind::RunStepEnd(step) => self.plan_update(step.step_id, |entry| {
                entry.status = PlanEntryStatus::Completed;
            }),
            EventKind::RunStepFail(step) => {
                let error = step.error.clone();
                self.plan_update(step.step_id, |entry| {
                    // ACP v1 has no failed state: the step is over, and says how.
                    entry.status = PlanEntryStatus::Completed;
                    entry.content = format!("{} (failed: {error})", entry.content);
                })
            }
            _ => Vec::new(),
        }
    }

    /// A new (or modified) plan: every step pending, in order.
    fn new_plan(&mut self, plan: &keel_events::Plan) -> Vec<SessionUpdate> {
        self.plan = plan
            .steps
            .iter()
            .map(|step| {
                (
                    step.index,
                    PlanEntry::new(
                        step.title.clone(),
                        PlanEntryPriority::Medium,
                        PlanEntryStatus::Pending,
                    ),
                )
            })
            .collect();
        vec![self.plan_now()]
    }
}

fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::Text(TextContent::new(text)))
}

fn text_content(text: &str) -> ToolCallContent {
    ToolCallContent::from(ContentBlock::Text(TextContent::new(text)))
}

/// The change to `path` as old and new text, or as the unified diff when the old text cannot
/// be rebuilt.
fn file_diff(path: &Path, op: FileOp, diff: Option<&str>) -> Option<ToolCallContent> {
    let new = match op {
        FileOp::Delete => String::new(),
        _ => std::fs::read_to_string(path).ok()?,
    };
    let old = match op {
        FileOp::Create => None,
        FileOp::Update | FileOp::Delete | FileOp::Move => match diff {
            Some(diff) => match old_text(&new, diff) {
                Some(old) => Some(old),
                None => return Some(text_content(diff)),
            },
            None if op == FileOp::Move => Some(new.clone()),
            None => return None,
        },
    };
    Some(ToolCallContent::Diff(
        Diff::new(path.to_path_buf(), new).old_text(old),
    ))
}

/// What kind of tool ACP clients should show.
fn kind(tool: &str) -> ToolKind {
    match tool {
        "read_file" => ToolKind::Read,
        "write_file" | "replace_in_file" => ToolKind::Edit,
        "delete_file" => ToolKind::Delete,
        "move_file" => ToolKind::Move,
        "list_files" | "search_files" | "list_code_definition_names" | "get_project_structure" => {
            ToolKind::Search
        }
        "execute_command" => ToolKind::Execute,
        "create_plan" | "attempt_completion" | "remember" => ToolKind::Think,
        _ => ToolKind::Other,
    }
}

/// `tool_name target`: the command or path the call is about, when it names one.
fn title(tool: &str, arguments: &serde_json::Value) -> String {
    let target = ["command", "path", "regex", "query"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(|v| v.as_str()));
    match target {
        Some(target) => format!("{tool} {target}"),
        None => tool.to_owned(),
    }
}
