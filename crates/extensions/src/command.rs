//! Custom commands: `NAME.md` prompt templates in `.keel/commands/`, `.claude/commands/` or the
//! user's `commands/`, typed as `/NAME ARGS`. Optional front matter as Claude Code has it
//! (`description`, `argument-hint`, `model`, `allowed-tools`); the body is the prompt, with
//! `$ARGUMENTS` and `$1`…`$9` replaced by what was typed. Lines starting with `!` (Claude
//! Code's shell lines) are left as text.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::front_matter;
use crate::sources::{COMMAND_FOLDERS, Scope, Sources, USER_COMMANDS, sorted_entries};
use crate::warning::Warning;

/// One command template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its name: the file's name without `.md`.
    pub name: String,
    /// `description`, else the body's first line.
    pub description: String,
    /// `argument-hint`: what to type after the name (e.g. `[issue-number]`).
    pub argument_hint: Option<String>,
    /// `model`: the model for the turn it starts.
    pub model: Option<String>,
    /// `allowed-tools`: the only tools the turn it starts may use (as written: a tool name, or
    /// Claude Code's `Tool(pattern)`, whose pattern is not applied).
    pub allowed_tools: Option<Vec<String>>,
    /// The template.
    pub body: String,
    /// The line of the file the body starts on.
    pub body_line: usize,
    /// The file.
    pub path: PathBuf,
    /// Whose folder it came from.
    pub scope: Scope,
}

/// The front matter of a command template; other keys are allowed and ignored.
#[derive(Debug, Default, Deserialize)]
struct CommandMeta {
    description: Option<String>,
    #[serde(rename = "argument-hint")]
    argument_hint: Option<String>,
    model: Option<String>,
    #[serde(rename = "allowed-tools")]
    allowed_tools: Option<ToolList>,
}

/// `allowed-tools` as a comma-separated string or a YAML list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    Text(String),
    List(Vec<String>),
}

impl ToolList {
    fn names(self) -> Vec<String> {
        let items = match self {
            Self::Text(text) => split_tool_list(&text),
            Self::List(list) => list,
        };
        items
            .into_iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect()
    }
}

/// `Read, Bash(git add:*), Write` split at the commas outside parentheses.
fn split_tool_list(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                if !current.trim().is_empty() {
                    items.push(std::mem::take(&mut current));
                }
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        items.push(current);
    }
    items
}

impl Command {
    /// The tool name of each `allowed-tools` entry (`Bash(git add:*)` → `Bash`).
    pub fn allowed_tool_names(&self) -> Option<Vec<String>> {
        self.allowed_tools.as_ref().map(|tools| {
            tools
                .iter()
                .map(|t| t.split('(').next().unwrap_or(t).trim().to_owned())
                .collect()
        })
    }

    /// The prompt for `/NAME arguments`: `$ARGUMENTS` is `arguments` as typed (trimmed), `$N`
    /// its Nth word (quotes group words; a missing one is empty). Any other `$` followed by
    /// an upper-case name or a digit is an error naming it and its line, and nothing is sent.
    pub fn expand(&self, arguments: &str) -> Result<String, ExpandError> {
        expand(&self.body, arguments).map_err(|e| match e {
            ExpandError::UnknownPlaceholder {
                placeholder, line, ..
            } => ExpandError::UnknownPlaceholder {
                placeholder,
                path: self.path.clone(),
                line: line + self.body_line - 1,
            },
        })
    }
}

/// Why a template could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    /// A `$NAME` the template language does not have.
    #[error(
        "{}:{line}: unknown placeholder `{placeholder}` (a template has $ARGUMENTS and $1 to $9)",
        path.display()
    )]
    UnknownPlaceholder {
        /// The placeholder as written (`$FOO`).
        placeholder: String,
        /// The template.
        path: PathBuf,
        /// The 1-based line of the file it is on.
        line: usize,
    },
}

/// `template` with its placeholders replaced (lines counted from 1 in `template`; the error's
/// path is empty).
pub fn expand(template: &str, arguments: &str) -> Result<String, ExpandError> {
    let arguments = arguments.trim();
    let words = split_arguments(arguments);
    let mut out = String::with_capacity(template.len() + arguments.len());
    let mut line = 1;
    let mut rest = template;
    while let Some(at) = rest.find(['$', '\n']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(next) = tail.strip_prefix('\n') {
            out.push('\n');
            line += 1;
            rest = next;
            continue;
        }
        let after = &tail[1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let first = name.chars().next();
        if first.is_some_and(|c| c.is_ascii_digit()) {
            // `$1`…`$9`: one digit, what follows it is text.
            let digit = &name[..1];
            let index: usize = digit.parse().unwrap_or(0);
            if index == 0 {
                return Err(unknown("$0", line));
            }
            out.push_str(words.get(index - 1).map_or("", String::as_str));
            rest = &after[1..];
        } else if name.is_empty() || first == Some('_') {
            // `$` before anything else (`$x`, `$(`, `$ `, `$$`) is text.
            out.push('$');
            rest = after;
        } else if name == "ARGUMENTS" {
            out.push_str(arguments);
            rest = &after[name_len..];
        } else {
            return Err(unknown(&format!("${name}"), line));
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn unknown(placeholder: &str, line: usize) -> ExpandError {
    ExpandError::UnknownPlaceholder {
        placeholder: placeholder.to_owned(),
        path: PathBuf::new(),
        line,
    }
}

/// The words of `arguments`: split at whitespace, `"…"` and `'…'` keeping spaces inside.
pub fn split_arguments(arguments: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in arguments.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// The command templates a project and its user have, found once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    commands: Vec<Command>,
}

impl Commands {
    /// The templates under `sources`' folders ([`COMMAND_FOLDERS`] of the project, then
    /// `commands/` of the user's folder), sorted by name, with a warning for each file skipped
    /// (bad front matter, a name taken by an earlier folder or by one of `reserved`, the
    /// front end's own commands).
    pub fn discover(sources: &Sources, reserved: &[&str]) -> (Self, Vec<Warning>) {
        let mut commands: Vec<Command> = Vec::new();
        let mut warnings = Vec::new();
        for (folder, scope) in sources.folders(&COMMAND_FOLDERS, USER_COMMANDS) {
            for path in sorted_entries(&folder) {
                let Some(name) = command_name(&path) else {
                    continue;
                };
                let warn = |message: String| Warning {
                    path: path.clone(),
                    line: 1,
                    message,
                };
                if reserved.contains(&name.as_str()) {
                    warnings.push(warn(format!("`/{name}` is a built-in command")));
                    continue;
                }
                if let Some(first) = commands.iter().find(|c| c.name == name) {
                    warnings.push(warn(format!(
                        "the command `/{name}` is already defined by {}",
                        first.path.display()
                    )));
                    continue;
                }
                match load(&path, name, scope) {
                    Ok(command) => commands.push(command),
                    Err(warning) => warnings.push(warning),
                }
            }
        }
        commands.sort_by(|a, b| a.name.cmp(&b.name));
        (Self { commands }, warnings)
    }

    /// The commands, sorted by name.
    pub fn all(&self) -> &[Command] {
        &self.commands
    }

    /// The command called `name`.
    pub fn get(&self, name: &str) -> Option<&Command> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// The command a prompt `/NAME ARGS` names, with the prompt it expands to (or why it
    /// cannot be expanded); `None` for any other prompt, a `/…` naming no command included —
    /// it is sent as written.
    pub fn expand_prompt(&self, text: &str) -> Option<(&Command, Result<String, ExpandError>)> {
        let rest = text.trim_start().strip_prefix('/')?;
        let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let command = self.get(name)?;
        Some((command, command.expand(arguments)))
    }

    /// No command was found.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }
}

/// The command name of a template file: `NAME.md` whose `NAME` is letters, digits, `-`, `_`,
/// `.` or `:`.
fn command_name(path: &Path) -> Option<String> {
    if !path.is_file() {
        return None;
    }
    let name = path.file_name()?.to_str()?.strip_suffix(".md")?;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    valid.then(|| name.to_owned())
}

/// `text` with an `argument-hint` written as Claude Code's documentation writes it
/// (`argument-hint: [pr-number] [priority]`, not YAML as it stands) quoted, line for line.
fn quote_argument_hint(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let Some(value) = line.strip_prefix("argument-hint:") else {
                return line.to_owned();
            };
            let value = value.trim();
            if !value.starts_with('[') {
                return line.to_owned();
            }
            let end = if line.ends_with('\n') { "\n" } else { "" };
            format!("argument-hint: '{}'{end}", value.replace('\'', "''"))
        })
        .collect()
}

/// `path` read as command `name`, or the warning that skips it.
fn load(path: &Path, name: String, scope: Scope) -> Result<Command, Warning> {
    let warn = |line: usize, message: String| Warning {
        path: path.to_path_buf(),
        line,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| warn(1, e.to_string()))?;
    let text = quote_argument_hint(&text);
    let (meta, split) = front_matter::parse_optional::<CommandMeta>(&text)
        .map_err(|e| warn(e.line(), e.to_string()))?;
    let body = split.body.to_owned();
    let description = meta
        .description
        .map(|d| d.trim().to_owned())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| {
            body.lines()
                .map(|l| l.trim().trim_start_matches('#').trim())
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .to_owned()
        });
    Ok(Command {
        name,
        description,
        argument_hint: meta.argument_hint.filter(|h| !h.trim().is_empty()),
        model: meta
            .model
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty()),
        allowed_tools: meta.allowed_tools.map(ToolList::names),
        body,
        body_line: split.body_line,
        path: path.to_path_buf(),
        scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_positions() {
        let text = expand("Fix #$1 in $2 ($ARGUMENTS), not $3.", "12 'src/a b.rs'").unwrap();
        assert_eq!(text, "Fix #12 in src/a b.rs (12 'src/a b.rs'), not .");
    }

    #[test]
    fn dollar_before_other_text_stays() {
        let text = expand("cost: $x, $(pwd), $ 5, $$, $_", "").unwrap();
        assert_eq!(text, "cost: $x, $(pwd), $ 5, $$, $_");
    }

    #[test]
    fn a_digit_placeholder_is_one_digit() {
        assert_eq!(expand("$10", "a").unwrap(), "a0");
    }

    #[test]
    fn unknown_placeholders_name_their_line() {
        let error = expand("line one\nuse $FOO here", "").unwrap_err();
        assert_eq!(
            error,
            ExpandError::UnknownPlaceholder {
                placeholder: "$FOO".into(),
                path: PathBuf::new(),
                line: 2
            }
        );
        assert!(expand("$0", "").is_err());
    }

    #[test]
    fn allowed_tools_as_text_or_list() {
        assert_eq!(
            split_tool_list("Read, Bash(git add:*, git status), Write"),
            ["Read", "Bash(git add:*, git status)", "Write"]
        );
        assert_eq!(
            split_tool_list("read_file search_files"),
            ["read_file", "search_files"]
        );
    }
}
