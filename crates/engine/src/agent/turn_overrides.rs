//! A turn run with other settings than the session's: the `model` and `allowed-tools` of a
//! custom command's front matter. Tool names are Keel's, or Claude Code's (`Read`, `Bash`,
//! `Edit`, …) mapped to Keel's by keel-extensions' `allowed_keel_tools` (`Edit` allows
//! `write_file` too). `Bash(pattern)` entries
//! also limit the commands `execute_command` runs in the turn (keel-extensions'
//! `command_matches`: `Bash(git add:*)`, `Bash(npm test)`); another tool's pattern allows the
//! tool (its pattern is not applied).

/// What the next turn runs with instead of the session's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnOverrides {
    /// The model for the turn (no fallback chain).
    pub model: Option<String>,
    /// The only tools offered in the turn, besides the control tools, `remember` and `skill`
    /// (as written: `Read`, `Bash(git add:*)`, `read_file`).
    pub tools: Option<Vec<String>>,
}

impl TurnOverrides {
    /// The `model` and `allowed-tools` of a custom command's front matter.
    pub fn of_command(command: &keel_extensions::Command) -> Self {
        Self {
            model: command.model.clone(),
            tools: command.allowed_tools.clone(),
        }
    }
}
