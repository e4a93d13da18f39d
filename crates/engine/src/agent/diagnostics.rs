//! Diagnostics after an edit (issue 27 §1): the files a successful edit call changed are told
//! to the session's language servers (keel-lsp), and what they say about them is appended to
//! the call's result and carried by its `run.tool.end`.

use keel_events::EditDiagnostics;
use keel_lsp::{Edit, LspManager};
use keel_protocol::ToolResult;

/// What an edit tool's `arguments` changed, relative to `root` (empty for other tools).
pub(crate) fn edits_of(
    root: &std::path::Path,
    tool: &str,
    arguments: &serde_json::Value,
) -> Vec<Edit> {
    let Ok(ws) = keel_tools::Workspace::new(root) else {
        return Vec::new();
    };
    let rel = |key: &str| {
        let path = arguments.get(key)?.as_str()?;
        ws.resolve_for_write(path).ok().map(|p| ws.relative(&p))
    };
    match tool {
        "write_file" | "write_to_file" | "replace_in_file" => {
            rel("path").map(Edit::Changed).into_iter().collect()
        }
        "move_file" => [
            rel("fromPath").map(Edit::Removed),
            rel("toPath").map(Edit::Changed),
        ]
        .into_iter()
        .flatten()
        .collect(),
        _ => Vec::new(),
    }
}

/// Asks `lsp` about the files `tool` changed and appends its answer to `result`: the
/// structured diagnostics for `run.tool.end`, `None` when no server covers them.
pub(crate) async fn after_edit(
    lsp: &LspManager,
    root: &std::path::Path,
    tool: &str,
    arguments: &serde_json::Value,
    result: &mut ToolResult,
) -> Option<EditDiagnostics> {
    let edits = edits_of(root, tool, arguments);
    if edits.is_empty() {
        return None;
    }
    let diagnostics = lsp.after_edit(&edits).await?;
    let edited: Vec<String> = edits
        .iter()
        .filter_map(|e| match e {
            Edit::Changed(rel) => Some(rel.clone()),
            Edit::Removed(_) => None,
        })
        .collect();
    let text = keel_lsp::convert::result_text(&diagnostics, &edited);
    match &mut result.content {
        Some(content) if !content.is_empty() => {
            content.push_str("\n\n");
            content.push_str(&text);
        }
        _ => {
            result.message.push_str("\n\n");
            result.message.push_str(&text);
        }
    }
    Some(diagnostics)
}
