//! The language servers' diagnostics an edit left (issue 27 §1), carried by `run.tool.end`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What the project's language servers said after a successful edit: the edited files' errors
/// and warnings, and how the count in other files changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct EditDiagnostics {
    /// The edited files' errors and warnings, most severe first, at most a few.
    pub items: Vec<Diagnostic>,
    /// How many more of the edited files' errors and warnings were left out of `items`.
    #[serde(default)]
    pub omitted: u32,
    /// Errors and warnings in the other files the servers report on, when the edit changed
    /// how many there are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub elsewhere: Option<CountChange>,
    /// The servers that answered (`pyright`, `rust-analyzer`, …).
    pub servers: Vec<String>,
    /// Whether a server did not answer within the wait: what it says later is missing here.
    #[serde(default)]
    pub timed_out: bool,
}

/// A count before and after an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CountChange {
    /// Before the edit.
    pub before: u32,
    /// After it.
    pub after: u32,
}

/// One diagnostic of a language server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Diagnostic {
    /// The file, relative to the workspace root.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in UTF-16 code units, as the server counts).
    pub column: u32,
    /// How bad it is.
    pub severity: DiagnosticSeverity,
    /// What the server says.
    pub message: String,
    /// The server's code for it (`reportAttributeAccessIssue`, `E0308`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub code: Option<String>,
    /// Who said it (`Pyright`, `rustc`, `rust-analyzer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source: Option<String>,
}

/// A diagnostic's severity (LSP's four).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, TS,
)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticSeverity {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information.
    Information,
    /// A hint.
    Hint,
}

impl DiagnosticSeverity {
    /// The word shown in a diagnostic's line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Information => "info",
            Self::Hint => "hint",
        }
    }

    /// Errors and warnings: what an edit's result shows.
    pub fn is_problem(self) -> bool {
        matches!(self, Self::Error | Self::Warning)
    }
}

impl Diagnostic {
    /// One line: `path:line:col severity message`.
    pub fn line(&self) -> String {
        let message = self.message.lines().next().unwrap_or_default().trim();
        format!(
            "{}:{}:{} {} {}",
            self.path,
            self.line,
            self.column,
            self.severity.as_str(),
            message
        )
    }
}
