//! Tool names as Claude Code writes them (`Bash`, `Edit`, `Write`, `Read`, …) and as Keel names
//! its tools (`execute_command`, `replace_in_file`, `write_file`, `read_file`, …): one table,
//! read both ways, for custom commands' `allowed-tools` and hooks' matchers.

/// Claude Code's names and the Keel tool each stands for.
const TABLE: [(&str, &str); 10] = [
    ("Read", "read_file"),
    ("Write", "write_file"),
    ("Edit", "replace_in_file"),
    ("MultiEdit", "replace_in_file"),
    ("Bash", "execute_command"),
    ("Grep", "search_files"),
    ("Glob", "list_files"),
    ("LS", "list_files"),
    ("WebFetch", "fetch_url"),
    ("Task", "task"),
];

/// Keel's name for a tool named as Claude Code names it (`Read` → `read_file`; a
/// `Tool(pattern)` entry is the tool); other names as given.
pub fn keel_tool_name(name: &str) -> &str {
    let name = name.split('(').next().unwrap_or(name).trim();
    TABLE
        .iter()
        .find(|(claude, _)| *claude == name)
        .map_or(name, |(_, keel)| keel)
}

/// The Keel tools an `allowed-tools` entry allows: its tool ([`keel_tool_name`]), and for
/// Claude Code's `Edit` and `MultiEdit` also `write_file` — Claude Code's Edit permission
/// covers every tool that edits a file, so a command allowed to `Edit` may give a file whole.
pub fn allowed_keel_tools(entry: &str) -> Vec<&str> {
    let keel = keel_tool_name(entry);
    let name = entry.split('(').next().unwrap_or(entry).trim();
    if matches!(name, "Edit" | "MultiEdit") {
        vec![keel, "write_file"]
    } else {
        vec![keel]
    }
}

/// Claude Code's names for Keel's tool `keel` (`execute_command` → `Bash`; none for a tool
/// Claude Code does not have).
pub fn claude_tool_names(keel: &str) -> impl Iterator<Item = &'static str> + '_ {
    TABLE
        .iter()
        .filter(move |(_, k)| *k == keel)
        .map(|(claude, _)| *claude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_edit_allows_every_file_edit() {
        assert_eq!(
            allowed_keel_tools("Edit"),
            ["replace_in_file", "write_file"]
        );
        assert_eq!(
            allowed_keel_tools("MultiEdit(src/**)"),
            ["replace_in_file", "write_file"]
        );
        assert_eq!(allowed_keel_tools("replace_in_file"), ["replace_in_file"]);
        assert_eq!(allowed_keel_tools("Read"), ["read_file"]);
    }

    #[test]
    fn names_map_both_ways() {
        assert_eq!(keel_tool_name("Bash(git add:*)"), "execute_command");
        assert_eq!(keel_tool_name("Read"), "read_file");
        assert_eq!(keel_tool_name("search_files"), "search_files");
        assert_eq!(
            claude_tool_names("replace_in_file").collect::<Vec<_>>(),
            ["Edit", "MultiEdit"]
        );
        assert_eq!(claude_tool_names("remember").count(), 0);
    }
}
