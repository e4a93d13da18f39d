//! `diagnostics` (`{path?}`): the current errors and warnings of a file, or of every file the
//! session's servers have opened so far. Offered with the full tool set only: the compact
//! profile's prompt does not grow (it has no `brief`).

use async_trait::async_trait;
use keel_protocol::ToolResult;
use keel_tools::{ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::manager::{LspManager, Report};

/// Arguments of `diagnostics`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsArgs {
    /// A file, relative to the workspace root; without it, every file checked so far.
    #[serde(default)]
    pub path: Option<String>,
}

/// `diagnostics`: the language servers' view of a file.
#[derive(Debug, Clone)]
pub struct DiagnosticsTool {
    manager: LspManager,
}

impl DiagnosticsTool {
    /// The tool over the session's servers.
    pub fn new(manager: LspManager) -> Self {
        Self { manager }
    }
}

#[async_trait]
impl TypedTool for DiagnosticsTool {
    type Args = DiagnosticsArgs;

    fn name(&self) -> &'static str {
        "diagnostics"
    }

    fn description(&self) -> &'static str {
        "The language server's current errors and warnings (type errors, unknown names, syntax) of a file, or of every file checked so far when no path is given; one line each: path:line:col severity message."
    }

    async fn run(&self, ctx: &ToolContext, args: DiagnosticsArgs) -> ToolResult {
        let paths = match args.path {
            Some(path) => {
                let ws = keel_tools::Workspace::new(&ctx.root);
                let resolved = match ws.and_then(|ws| ws.resolve(&path).map(|p| ws.relative(&p))) {
                    Ok(rel) => rel,
                    Err(e) => return ToolResult::error(format!("Cannot check `{path}`: {e}")),
                };
                vec![resolved]
            }
            None => Vec::new(),
        };
        let report = self.manager.check(&paths).await;
        ToolResult::ok(report_text(&report, paths.is_empty()))
    }
}

/// A report as text: one line per error and warning (information and hints counted), files no
/// server covers named.
pub fn report_text(report: &Report, everything: bool) -> String {
    let mut lines: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity.is_problem())
        .map(keel_events::Diagnostic::line)
        .collect();
    if lines.is_empty() {
        lines.push(if everything && report.servers.is_empty() {
            "No language server has checked a file yet in this session.".to_owned()
        } else if report.servers.is_empty() {
            "No language server covers this file.".to_owned()
        } else {
            "No errors or warnings.".to_owned()
        });
    }
    let quiet = report.diagnostics.len()
        - report
            .diagnostics
            .iter()
            .filter(|d| d.severity.is_problem())
            .count();
    if quiet > 0 {
        lines.push(format!("({quiet} hints and notes not shown)"));
    }
    for rel in &report.uncovered {
        lines.push(format!("`{rel}`: no language server covers it"));
    }
    if report.timed_out {
        lines.push("(a server did not answer in time: this may be incomplete)".to_owned());
    }
    lines.join("\n")
}
