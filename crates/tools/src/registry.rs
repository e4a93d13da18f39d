//! The tool registry: every tool by name and alias, its listing, and its OpenAI function
//! definitions.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument as _;

use keel_events::{ApprovalDecision, ApprovalKind};

use crate::approval_rules::RuleDecision;
use crate::builtin;
use crate::tool::{Tool, ToolContext, ToolResult};

/// Tools by name.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    /// Name or alias → index in `tools`.
    index: BTreeMap<&'static str, usize>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry holding every built-in tool; `generate_image` is unconfigured (it says which
    /// keys to set) until [`ToolRegistry::with_images`].
    pub fn builtin() -> Self {
        let mut registry = Self::new();
        registry
            .register(builtin::ReadFile)
            .register(builtin::WriteFile)
            .register(builtin::ReplaceInFile)
            .register(builtin::DeleteFile)
            .register(builtin::MoveFile)
            .register(builtin::ListFiles)
            .register(builtin::SearchFiles)
            .register(builtin::ListCodeDefinitionNames)
            .register(builtin::GetProjectStructure)
            .register(builtin::ListPackageInfo)
            .register(builtin::ReadLibraryDocs)
            .register(builtin::GenerateImage::default())
            .register(builtin::UseRagTool::default())
            .register(builtin::FetchUrl::default())
            .register(builtin::ExecuteCommand::default());
        registry
    }

    /// The same registry with `fetch_url` offered only when `network` (the sandbox's
    /// `network` setting, or no sandbox).
    pub fn with_network(mut self, network: bool) -> Self {
        self.register(builtin::FetchUrl::new(network));
        self
    }

    /// The same registry with `generate_image` calling the image server in `settings`.
    pub fn with_images(mut self, settings: builtin::ImageSettings) -> Self {
        self.register(builtin::GenerateImage::new(settings));
        self
    }

    /// Adds `tool`; a tool already registered under the same name or alias is replaced there.
    pub fn register(&mut self, tool: impl Tool + 'static) -> &mut Self {
        self.register_arc(Arc::new(tool))
    }

    /// Adds a shared tool (see [`ToolRegistry::register`]).
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> &mut Self {
        let slot = match self.index.get(tool.name()) {
            Some(&i) => {
                self.tools[i] = tool.clone();
                i
            }
            None => {
                self.tools.push(tool.clone());
                self.tools.len() - 1
            }
        };
        self.index.insert(tool.name(), slot);
        for alias in tool.aliases() {
            self.index.insert(alias, slot);
        }
        self
    }

    /// The tool called `name` (or with that alias).
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter()
    }

    /// Every tool's name, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Every tool's name and the first sentence of its description.
    pub fn summaries(&self) -> Vec<(&'static str, String)> {
        self.tools
            .iter()
            .map(|t| (t.name(), one_line(t.description())))
            .collect()
    }

    /// Every tool as an OpenAI function definition:
    /// `{"type":"function","function":{"name","description","parameters"}}`.
    pub fn openai_functions(&self) -> Vec<serde_json::Value> {
        self.tools
            .iter()
            .map(|t| {
                serde_json::json!({
                    "type": "function",
                    "function": {
                        "name": t.name(),
                        "description": t.description(),
                        "parameters": t.parameters(),
                    }
                })
            })
            .collect()
    }

    /// The tools that have a compact form ([`crate::compact`]), as compact OpenAI function
    /// definitions, in registration order.
    pub fn compact_functions(&self) -> Vec<serde_json::Value> {
        self.tools
            .iter()
            .filter_map(|t| crate::compact::compact_function(t.as_ref()))
            .collect()
    }

    /// Calls the tool `name`, inside a `tool` span (name and call id); an unknown name gives a
    /// failed result listing the tools.
    pub async fn call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: serde_json::Value,
    ) -> ToolResult {
        let span = tracing::info_span!("tool", name, call_id = %ctx.call_id);
        async {
            let started = Instant::now();
            let result = match self.get(name) {
                Some(tool) => match check_tool_rules(ctx, tool.name(), &arguments).await {
                    Some(refusal) => refusal,
                    None => tool.call(ctx, arguments).await,
                },
                None => ToolResult::error(format!(
                    "Unknown tool `{name}`. Available tools: {}.",
                    self.names().join(", ")
                )),
            };
            let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            tracing::debug!(success = result.success, elapsed_ms, "tool call done");
            result
        }
        .instrument(span)
        .await
    }
}

/// The path arguments of a tool call (`path`, `paths`, `source`, `destination`, …), as given.
fn call_paths(arguments: &serde_json::Value) -> Vec<String> {
    const KEYS: &[&str] = &[
        "path",
        "paths",
        "file",
        "files",
        "source",
        "destination",
        "from",
        "to",
        "fromPath",
        "toPath",
    ];
    let mut out = Vec::new();
    for key in KEYS {
        match arguments.get(key) {
            Some(serde_json::Value::String(s)) => out.push(s.clone()),
            Some(serde_json::Value::Array(items)) => {
                out.extend(items.iter().filter_map(|v| v.as_str().map(str::to_owned)))
            }
            _ => {}
        }
    }
    out
}

/// Applies the approval rules about tool `name` to a call: `Some(error)` when a rule denies
/// it or the person asked rejects it.
async fn check_tool_rules(
    ctx: &ToolContext,
    name: &str,
    arguments: &serde_json::Value,
) -> Option<ToolResult> {
    let paths = call_paths(arguments);
    let verdict = ctx.rules.check_tool(name, &paths)?;
    match verdict.decision {
        RuleDecision::Allow => None,
        RuleDecision::Deny => Some(ToolResult::error(format!(
            "Refused: {}. Nothing was changed; do not retry it. Ask the user to change the \
             rule (`keel rules list`) if it is needed.",
            verdict.reason
        ))),
        RuleDecision::Ask => {
            let subject = format!("{name}({})", paths.join(", "));
            let reply = ctx
                .request_approval(ApprovalKind::Tool, subject, verdict.reason)
                .await;
            match reply.decision {
                ApprovalDecision::Reject => Some(ToolResult::error(format!(
                    "The user denied the `{name}` call{}. Nothing was changed.",
                    reply
                        .reason
                        .filter(|r| !r.trim().is_empty())
                        .map_or_else(String::new, |r| format!(": {r}"))
                ))),
                _ => None,
            }
        }
    }
}

/// The first sentence (or line) of a description.
fn one_line(description: &str) -> String {
    let line = description.lines().next().unwrap_or("");
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_takes_first_sentence() {
        assert_eq!(one_line("Read a file. More."), "Read a file.");
        assert_eq!(one_line("Edit:\nmore"), "Edit:");
    }
}
