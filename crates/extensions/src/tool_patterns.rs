//! Claude Code's tool patterns in `allowed-tools` (a command's or an agent's front matter):
//! `Bash(git add:*)` lets `execute_command` run only commands starting with `git add`,
//! `Bash(npm test)` only that command, `Bash(git * main)` commands matching the wildcard. A
//! bare `Bash` (or `execute_command`) allows every command.

use crate::keel_tool_name;

/// The command patterns `allowed` (names as written, Claude Code's or Keel's) holds for
/// `execute_command`; `None` when a bare `Bash` allows any command, or no entry names it.
pub fn command_patterns(allowed: &[String]) -> Option<Vec<String>> {
    let mut patterns = Vec::new();
    for entry in allowed {
        let entry = entry.trim();
        if keel_tool_name(entry) != "execute_command" {
            continue;
        }
        match entry
            .split_once('(')
            .and_then(|(_, rest)| rest.strip_suffix(')'))
        {
            Some(pattern) if !pattern.trim().is_empty() => patterns.push(pattern.trim().to_owned()),
            _ => return None,
        }
    }
    (!patterns.is_empty()).then_some(patterns)
}

/// Whether `command` is one `pattern` allows: `PREFIX:*` the command `PREFIX` or `PREFIX …`,
/// a pattern with `*` by wildcard (each `*` any run of characters), else the command itself.
/// A command that chains or redirects (`&&`, `||`, `;`, `|`, `>`, `<`, `` ` ``, `$(`, a
/// newline) matches only a pattern naming it whole, so `git add:*` never allows
/// `git add . && rm -rf /`.
pub fn command_matches(pattern: &str, command: &str) -> bool {
    let command = command.trim();
    let pattern = pattern.trim();
    let chained = ["&&", "||", ";", "|", ">", "<", "`", "$(", "\n"]
        .iter()
        .any(|op| command.contains(op));
    if chained {
        return command == pattern;
    }
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix = prefix.trim_end();
        return command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace));
    }
    if pattern.contains('*') {
        return wildcard(pattern, command);
    }
    command == pattern
}

/// `text` against `pattern` whose `*`s match any run of characters.
fn wildcard(pattern: &str, text: &str) -> bool {
    let mut pieces = pattern.split('*');
    let Some(first) = pieces.next() else {
        return true;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    for (i, piece) in pieces.iter().enumerate() {
        if i + 1 == pieces.len() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn patterns_come_from_bash_entries_only() {
        assert_eq!(
            command_patterns(&strings(&["Read", "Bash(git add:*)", "Bash(git status)"])),
            Some(strings(&["git add:*", "git status"]))
        );
        assert_eq!(
            command_patterns(&strings(&["Bash(git add:*)", "Bash"])),
            None
        );
        assert_eq!(command_patterns(&strings(&["Read", "Edit"])), None);
        assert_eq!(command_patterns(&strings(&["Bash()"])), None);
    }

    #[test]
    fn prefixes_exact_commands_and_wildcards() {
        assert!(command_matches("git add:*", "git add"));
        assert!(command_matches("git add:*", "git add src/a.rs"));
        assert!(!command_matches("git add:*", "git addendum"));
        assert!(!command_matches("git add:*", "git commit -m x"));
        assert!(command_matches("npm test", " npm test "));
        assert!(!command_matches("npm test", "npm test -- --watch"));
        assert!(command_matches("git * main", "git push origin main"));
        assert!(!command_matches("git * main", "git push origin dev"));
        assert!(command_matches("*", "anything at all"));
    }

    #[test]
    fn chained_commands_need_a_pattern_naming_them_whole() {
        assert!(!command_matches("git add:*", "git add . && rm -rf /"));
        assert!(!command_matches("git add:*", "git add $(rm -rf /)"));
        assert!(!command_matches("*", "ls; rm -rf /"));
        assert!(command_matches("ls | wc -l", "ls | wc -l"));
    }
}
