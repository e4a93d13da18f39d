//! A turn run with other settings than the session's: the `model` and `allowed-tools` of a
//! custom command's front matter. Tool names are Keel's, or Claude Code's (`Read`, `Bash`,
//! `Edit`, …) mapped to Keel's by keel-extensions' `keel_tool_name`; a `Tool(pattern)` entry allows the tool (the pattern is not
//! applied).

/// What the next turn runs with instead of the session's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnOverrides {
    /// The model for the turn (no fallback chain).
    pub model: Option<String>,
    /// The only tools offered in the turn, besides the control tools, `remember` and `skill`.
    pub tools: Option<Vec<String>>,
}
