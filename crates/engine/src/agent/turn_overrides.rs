//! A turn run with other settings than the session's: the `model` and `allowed-tools` of a
//! custom command's front matter. Tool names are Keel's, or Claude Code's (`Read`, `Bash`,
//! `Edit`, …) mapped to Keel's; a `Tool(pattern)` entry allows the tool (the pattern is not
//! applied).

/// What the next turn runs with instead of the session's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnOverrides {
    /// The model for the turn (no fallback chain).
    pub model: Option<String>,
    /// The only tools offered in the turn, besides the control tools, `remember` and `skill`.
    pub tools: Option<Vec<String>>,
}

/// Keel's name for a tool named as Claude Code names it (`Read` → `read_file`); other names
/// as given.
pub fn keel_tool_name(name: &str) -> &str {
    let name = name.split('(').next().unwrap_or(name).trim();
    match name {
        "Read" => "read_file",
        "Write" => "write_file",
        "Edit" | "MultiEdit" => "replace_in_file",
        "Bash" => "execute_command",
        "Grep" => "search_files",
        "Glob" | "LS" => "list_files",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::keel_tool_name;

    #[test]
    fn claude_code_names_map_to_keel_names() {
        assert_eq!(keel_tool_name("Bash(git add:*)"), "execute_command");
        assert_eq!(keel_tool_name("Read"), "read_file");
        assert_eq!(keel_tool_name("search_files"), "search_files");
    }
}
