//! Custom subagents: `NAME.md` files in `.keel/agents/`, Claude Code's `.claude/agents/` and the
//! user's `agents/`, read unchanged — YAML front matter `name`, `description`, `tools` (a comma
//! list or a YAML list, Claude Code's tool names mapped to Keel's), `model` (`inherit` or
//! absent: the parent's), then the body: the subagent's instructions.
//!
//! A file without front matter or without a `description`, a bad name and a second agent of a
//! name already found are [`Warning`]s, and the file is skipped. Which tools exist is the
//! engine's to check: it drops a name no tool has, with a warning at [`Agent::tools_line`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::front_matter;
use crate::sources::{Scope, Sources, sorted_entries};
use crate::tool_names::keel_tool_name;
use crate::warning::Warning;

/// The project folders that may hold agent files, in order of precedence.
pub const AGENT_FOLDERS: [&str; 2] = [".keel/agents", ".claude/agents"];
/// The user config folder's subfolder of agent files.
pub const USER_AGENTS: &str = "agents";

/// One custom subagent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// `name`, else the file's name without `.md`.
    pub name: String,
    /// When to use it, as the `task` tool lists it.
    pub description: String,
    /// The tools it may use (Keel's names), or `None` for the parent's tools.
    pub tools: Option<Vec<String>>,
    /// The line of `tools:` in the file (for warnings about its names).
    pub tools_line: usize,
    /// Its model, or `None` for the parent's.
    pub model: Option<String>,
    /// Its instructions (the body).
    pub instructions: String,
    /// The file.
    pub path: PathBuf,
    /// The project's or the user's.
    pub scope: Scope,
}

/// The custom subagents found, in name order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agents {
    agents: Vec<Agent>,
}

#[derive(Debug, Default, Deserialize)]
struct AgentMeta {
    name: Option<String>,
    description: Option<String>,
    tools: Option<ToolList>,
    model: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    Text(String),
    List(Vec<String>),
}

impl Agents {
    /// The agents of `sources`: the project's folders (only when `trusted`; otherwise each
    /// project file is a warning saying it was not loaded), then the user's. The first file
    /// of a name wins.
    pub fn discover(sources: &Sources, trusted: bool) -> (Self, Vec<Warning>) {
        let mut agents: Vec<Agent> = Vec::new();
        let mut warnings = Vec::new();
        for (folder, scope) in sources.folders(&AGENT_FOLDERS, USER_AGENTS) {
            for path in sorted_entries(&folder) {
                if !path.is_file() || path.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let warn = |line: usize, message: String| Warning {
                    path: path.clone(),
                    line,
                    message,
                };
                if scope == Scope::Project && !trusted {
                    warnings.push(warn(
                        1,
                        "this folder is not trusted (`keel trust` or `--trust`), so its agents \
                         are not loaded"
                            .to_owned(),
                    ));
                    continue;
                }
                let agent = match load(&path, scope) {
                    Ok(agent) => agent,
                    Err(warning) => {
                        warnings.push(warning);
                        continue;
                    }
                };
                if let Some(first) = agents.iter().find(|a| a.name == agent.name) {
                    warnings.push(warn(
                        1,
                        format!(
                            "the agent `{}` is already defined by {}",
                            agent.name,
                            first.path.display()
                        ),
                    ));
                    continue;
                }
                agents.push(agent);
            }
        }
        agents.sort_by(|a, b| a.name.cmp(&b.name));
        (Self { agents }, warnings)
    }

    /// The agents, sorted by name.
    pub fn all(&self) -> &[Agent] {
        &self.agents
    }

    /// The agent called `name`.
    pub fn get(&self, name: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// No agent was found.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }
}

/// `path` read as an agent, or the warning that skips it.
fn load(path: &Path, scope: Scope) -> Result<Agent, Warning> {
    let warn = |line: usize, message: String| Warning {
        path: path.to_path_buf(),
        line,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| warn(1, e.to_string()))?;
    let (meta, split) =
        front_matter::parse::<AgentMeta>(&text).map_err(|e| warn(e.line(), e.to_string()))?;
    let file_name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned();
    let name = meta.name.unwrap_or(file_name).trim().to_owned();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    if !valid {
        return Err(warn(
            1,
            format!("the agent name `{name}` is not letters, digits, `-` and `_`"),
        ));
    }
    let Some(description) = meta.description.filter(|d| !d.trim().is_empty()) else {
        return Err(warn(
            1,
            "the agent's front matter has no `description`".to_owned(),
        ));
    };
    let tools_line = text
        .lines()
        .position(|line| line.starts_with("tools:"))
        .map_or(1, |i| i + 1);
    let tools = meta.tools.map(|list| {
        let names = match list {
            ToolList::Text(text) => text.split(',').map(str::to_owned).collect(),
            ToolList::List(names) => names,
        };
        let mut keel: Vec<String> = Vec::new();
        for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
            let name = keel_tool_name(name).to_owned();
            if !keel.contains(&name) {
                keel.push(name);
            }
        }
        keel
    });
    let model = meta
        .model
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty() && m != "inherit");
    Ok(Agent {
        name,
        description: description.trim().to_owned(),
        tools,
        tools_line,
        model,
        instructions: split.body.trim().to_owned(),
        path: path.to_path_buf(),
        scope,
    })
}
