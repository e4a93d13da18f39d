//! A server's diagnostics as Keel's: paths relative to the workspace, 1-based positions, and
//! the text an edit's result carries.

use std::path::Path;

use keel_events::{CountChange, Diagnostic, DiagnosticSeverity, EditDiagnostics};
use lsp_types::{NumberOrString, Url};

/// Most diagnostics of the edited files an edit's result lists.
pub const MAX_SHOWN: usize = 10;

/// `diagnostic` of the file at `uri`, its path relative to `root` when it is under it.
pub fn diagnostic(root: &Path, uri: &Url, diagnostic: &lsp_types::Diagnostic) -> Diagnostic {
    let path = match uri.to_file_path() {
        Ok(path) => path
            .strip_prefix(root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| path.to_string_lossy().into_owned()),
        Err(()) => uri.to_string(),
    };
    let severity = match diagnostic.severity {
        Some(lsp_types::DiagnosticSeverity::WARNING) => DiagnosticSeverity::Warning,
        Some(lsp_types::DiagnosticSeverity::INFORMATION) => DiagnosticSeverity::Information,
        Some(lsp_types::DiagnosticSeverity::HINT) => DiagnosticSeverity::Hint,
        // LSP leaves a missing severity to the client: an error, as editors show it.
        _ => DiagnosticSeverity::Error,
    };
    Diagnostic {
        path,
        line: diagnostic.range.start.line.saturating_add(1),
        column: diagnostic.range.start.character.saturating_add(1),
        severity,
        message: diagnostic.message.clone(),
        code: diagnostic.code.as_ref().map(|code| match code {
            NumberOrString::Number(n) => n.to_string(),
            NumberOrString::String(s) => s.clone(),
        }),
        source: diagnostic.source.clone(),
    }
}

/// Most severe first, then by place.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.severity, &a.path, a.line, a.column).cmp(&(b.severity, &b.path, b.line, b.column))
    });
}

/// The text an edit's result carries: one line per diagnostic, what was left out, the change
/// elsewhere.
pub fn result_text(diagnostics: &EditDiagnostics, edited: &[String]) -> String {
    let servers = diagnostics.servers.join(", ");
    let mut text = if diagnostics.items.is_empty() {
        let files = edited
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if diagnostics.timed_out {
            format!(
                "Diagnostics ({servers}): none yet for {files}: the server did not answer in time."
            )
        } else {
            format!("Diagnostics ({servers}): no errors or warnings in {files}.")
        }
    } else {
        let mut text = format!("Diagnostics ({servers}) after this edit:");
        for item in &diagnostics.items {
            text.push('\n');
            text.push_str(&item.line());
        }
        if diagnostics.omitted > 0 {
            text.push_str(&format!("\n… and {} more", diagnostics.omitted));
        }
        text
    };
    if let Some(CountChange { before, after }) = diagnostics.elsewhere {
        text.push_str(&format!(
            "\nOther files: {after} errors and warnings now ({before} before this edit)."
        ));
    }
    text
}
