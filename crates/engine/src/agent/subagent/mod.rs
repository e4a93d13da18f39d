//! Subagents (issue 26 §4): the `task` tool hands a self-contained job to a child agent with a
//! fresh conversation, its own instructions and a restricted tool set; only its final report
//! comes back as the call's result, so a search through a large tree does not fill the
//! parent's window.
//!
//! Kinds: the built-in `explorer` (tools that only look) and `worker` (the parent's tools), and
//! custom agents from keel-extensions ([`keel_extensions::Agents`]: `.keel/agents/`,
//! `.claude/agents/`, the user's `agents/`), listed in the tool's description. A child shares
//! the session's sandbox, approver, checkpoints and hooks; its cancel token is a child of the
//! parent's; its events go through [`keel_events::Emitter::child`], so each carries the `task`
//! call's id as `parent_call_id`, between `run.subagent.start` and `run.subagent.end`. Several
//! `task` calls of one response run at once, at most [`SubagentSettings::max_parallel`]; a
//! child at [`SubagentSettings::max_depth`] is not offered `task`, and a call to it there is
//! refused. `task` has no compact form: the compact tool profile never offers it.

mod child;
mod round;

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use keel_extensions::{Agents, Sources, Warning};
use keel_protocol::ToolResult;
use keel_tools::{Tool, ToolContext};
use schemars::JsonSchema;
use serde::Deserialize;

pub(crate) use child::Spawner;

/// The `task` tool's name.
pub const TASK: &str = "task";

/// `[subagents]` of `keel.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubagentSettings {
    /// How many `task` calls of one response run at once (at least 1).
    pub max_parallel: usize,
    /// How deep subagents may nest: 1 lets the top agent start children only, 2 lets them
    /// start their own, …; 0 turns `task` off.
    pub max_depth: u32,
}

impl Default for SubagentSettings {
    fn default() -> Self {
        Self {
            max_parallel: 3,
            max_depth: 2,
        }
    }
}

/// The tools the built-in `explorer` may use: those that only look.
pub const EXPLORER_TOOLS: [&str; 8] = [
    "read_file",
    "list_files",
    "search_files",
    "list_code_definition_names",
    "get_project_structure",
    "list_package_info",
    "read_library_docs",
    "use_rag_tool",
];

const EXPLORER: &str = "You are an explorer: a read-only subagent. Find what the task asks for \
with the tools that look (read, list and search files), change nothing, and end with a short, \
complete report for the agent that sent you: the files, lines and names that answer the task, \
and what you could not find. The report is all that agent sees of your work.";

const WORKER: &str = "You are a worker: a subagent given one self-contained job by another \
agent. Do the job with the tools, then end with a short report for the agent that sent you: \
what you did, the files you changed and anything left undone. The report is all that agent \
sees of your work.";

/// One kind of subagent a `task` call may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kind {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) instructions: String,
    /// The only tools it is offered (Keel's names), or the parent's.
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) model: Option<String>,
    /// Where it was defined (`FILE:LINE` of its `tools`), for warnings about its tools.
    pub(crate) origin: Option<(std::path::PathBuf, usize)>,
}

/// The kinds a session's `task` calls may name: the built-in ones, then the custom agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Roster {
    pub(crate) kinds: Vec<Kind>,
    pub(crate) settings: SubagentSettings,
}

impl Roster {
    /// The built-in kinds and `agents`, under `settings`.
    pub(crate) fn new(agents: &Agents, settings: SubagentSettings) -> Self {
        let mut kinds = vec![
            Kind {
                name: "explorer".to_owned(),
                description: "read-only: finds and reads what a question needs in the project \
                              (files, definitions, uses) and reports it"
                    .to_owned(),
                instructions: EXPLORER.to_owned(),
                tools: Some(EXPLORER_TOOLS.iter().map(|t| (*t).to_owned()).collect()),
                model: None,
                origin: None,
            },
            Kind {
                name: "worker".to_owned(),
                description: "a general agent with the same tools as you, for a self-contained \
                              job (a change, a fix, a check)"
                    .to_owned(),
                instructions: WORKER.to_owned(),
                tools: None,
                model: None,
                origin: None,
            },
        ];
        for agent in agents.all() {
            if kinds.iter().any(|k| k.name == agent.name) {
                continue;
            }
            kinds.push(Kind {
                name: agent.name.clone(),
                description: agent.description.clone(),
                instructions: if agent.instructions.is_empty() {
                    WORKER.to_owned()
                } else {
                    agent.instructions.clone()
                },
                tools: agent.tools.clone(),
                model: agent.model.clone(),
                origin: Some((agent.path.clone(), agent.tools_line)),
            });
        }
        Self { kinds, settings }
    }

    /// The kind called `name` (case aside).
    pub(crate) fn get(&self, name: &str) -> Option<&Kind> {
        self.kinds
            .iter()
            .find(|k| k.name.eq_ignore_ascii_case(name.trim()))
    }

    /// A warning for each tool a custom kind names that `registry` (the session's tools, the
    /// control tools among them) does not have, or `task`: the name is dropped.
    pub(crate) fn unknown_tools(&self, registry: &keel_tools::ToolRegistry) -> Vec<Warning> {
        let mut warnings = Vec::new();
        for kind in &self.kinds {
            let (Some(tools), Some((path, line))) = (&kind.tools, &kind.origin) else {
                continue;
            };
            for name in tools {
                if name != TASK && registry.get(name).is_none() {
                    warnings.push(Warning {
                        path: path.clone(),
                        line: *line,
                        message: format!(
                            "the agent `{}` names the tool `{name}`, which Keel does not have",
                            kind.name
                        ),
                    });
                }
            }
        }
        warnings
    }

    /// The kinds' names, joined.
    pub(crate) fn names(&self) -> String {
        self.kinds
            .iter()
            .map(|k| format!("`{}`", k.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The custom agents of the project at `root` (only when `trusted`) and of the user's config
/// folder `user_dir`, with the warnings for the files skipped.
pub(crate) fn discover(
    root: &Path,
    user_dir: Option<&Path>,
    trusted: bool,
) -> (Agents, Vec<Warning>) {
    Agents::discover(
        &Sources::new(root, user_dir.map(Path::to_path_buf)),
        trusted,
    )
}

/// Arguments of `task`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    /// The job in 3 to 5 words (shown to the user).
    pub description: String,
    /// The whole job for the subagent: it sees nothing of this conversation, so say everything
    /// it needs (what to find or do, where, what to report).
    pub prompt: String,
    /// Which kind of subagent runs it (see the list in the tool's description).
    pub subagent_type: String,
}

/// The `task` tool as the model is offered it. The session runs its calls (see
/// [`Spawner`]); this only describes it.
#[derive(Debug, Clone)]
pub(crate) struct TaskTool {
    description: &'static str,
}

impl TaskTool {
    /// The tool, its description listing `roster`'s kinds.
    pub(crate) fn new(roster: &Roster) -> Self {
        let mut text = String::from(
            "Hand a self-contained job to a subagent: a fresh agent that does it with its own \
             context and tools and returns only its final report, so your context stays \
             small. Use it for searches through many files and for independent jobs; several \
             task calls in one response run in parallel. Give the whole job in `prompt` (the \
             subagent sees nothing of this conversation). Subagent types:",
        );
        for kind in &roster.kinds {
            text.push_str(&format!("\n- {}: {}", kind.name, kind.description));
        }
        Self {
            description: intern(text),
        }
    }
}

#[async_trait]
impl Tool for TaskTool {
    fn name(&self) -> &'static str {
        TASK
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn parameters(&self) -> serde_json::Value {
        // As keel-tools' typed tools describe theirs.
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator()
            .into_root_schema_for::<TaskArgs>();
        let mut value = serde_json::to_value(schema).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.remove("$schema");
            map.remove("title");
        }
        value
    }

    async fn call(&self, _ctx: &ToolContext, _arguments: serde_json::Value) -> ToolResult {
        // The agent loop runs `task` calls itself (they need the model); a call reaching the
        // registry came from elsewhere (`keel tool call`).
        ToolResult::error("`task` runs only inside an agent's turn: it starts a subagent.")
    }
}

/// `text` as a `&'static str`, kept once however often it is asked for (a tool's description
/// is `&'static str`; a process sees few rosters).
fn intern(text: String) -> &'static str {
    static TABLE: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| Mutex::new(Vec::new()));
    let mut table = table.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = table.iter().find(|t| **t == text) {
        return found;
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    table.push(leaked);
    leaked
}

/// A roster shared by a session and its children.
pub(crate) type SharedRoster = Arc<Roster>;
