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
    let edited = changed_paths(root, tool, arguments);
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

/// Pyright's rule codes (`report…`) that are surely the code's mistake and not the checker's
/// taste or the machine (an untyped library, a package installed elsewhere): a name used and
/// never defined, as a forgotten `import re`. Its other rules' errors are not counted, since a
/// project's existing code has many of them; syntax errors carry no code and are.
const PYRIGHT_MISTAKES: &[&str] = &["reportUndefinedVariable"];

/// Whether a diagnostic is an error the turn is to fix before it ends.
fn is_mistake(d: &keel_events::Diagnostic) -> bool {
    d.severity == keel_events::DiagnosticSeverity::Error
        && d.code
            .as_deref()
            .is_none_or(|code| !code.starts_with("report") || PYRIGHT_MISTAKES.contains(&code))
}

/// The mistakes ([`is_mistake`]) `diagnostics` holds for each file an edit changed (`edited`), as lines the
/// model reads (`path:line: message`); a file with none maps to an empty list.
pub(crate) fn errors_by_file(
    edited: &[String],
    diagnostics: &EditDiagnostics,
) -> Vec<(String, Vec<String>)> {
    edited
        .iter()
        .map(|path| {
            let errors = diagnostics
                .items
                .iter()
                .filter(|d| &d.path == path && is_mistake(d))
                .map(|d| format!("{}:{}: {}", d.path, d.line, d.message))
                .collect();
            (path.clone(), errors)
        })
        .collect()
}

/// The workspace-relative files `tool` changed, per [`edits_of`].
pub(crate) fn changed_paths(
    root: &std::path::Path,
    tool: &str,
    arguments: &serde_json::Value,
) -> Vec<String> {
    edits_of(root, tool, arguments)
        .into_iter()
        .filter_map(|e| match e {
            Edit::Changed(rel) => Some(rel),
            Edit::Removed(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use keel_events::{Diagnostic, DiagnosticSeverity, EditDiagnostics};

    use super::errors_by_file;

    fn diagnostic(path: &str, severity: DiagnosticSeverity, code: Option<&str>) -> Diagnostic {
        Diagnostic {
            path: path.to_owned(),
            line: 3,
            column: 5,
            severity,
            message: format!("{code:?}"),
            code: code.map(str::to_owned),
            source: None,
        }
    }

    #[test]
    fn only_sure_mistakes_of_the_edited_files_count() {
        let diagnostics = EditDiagnostics {
            items: vec![
                diagnostic(
                    "a.py",
                    DiagnosticSeverity::Error,
                    Some("reportUndefinedVariable"),
                ),
                diagnostic(
                    "a.py",
                    DiagnosticSeverity::Error,
                    Some("reportAttributeAccessIssue"),
                ),
                diagnostic("a.py", DiagnosticSeverity::Error, None),
                diagnostic(
                    "a.py",
                    DiagnosticSeverity::Warning,
                    Some("reportUndefinedVariable"),
                ),
                diagnostic("b.rs", DiagnosticSeverity::Error, Some("E0425")),
                diagnostic("c.py", DiagnosticSeverity::Error, None),
            ],
            omitted: 0,
            elsewhere: None,
            servers: vec!["pyright".to_owned()],
            timed_out: false,
        };
        let by_file = errors_by_file(
            &["a.py".to_owned(), "b.rs".to_owned(), "d.py".to_owned()],
            &diagnostics,
        );
        assert_eq!(
            by_file,
            vec![
                (
                    "a.py".to_owned(),
                    vec![
                        "a.py:3: Some(\"reportUndefinedVariable\")".to_owned(),
                        "a.py:3: None".to_owned()
                    ]
                ),
                (
                    "b.rs".to_owned(),
                    vec!["b.rs:3: Some(\"E0425\")".to_owned()]
                ),
                ("d.py".to_owned(), Vec::new()),
            ]
        );
    }
}
