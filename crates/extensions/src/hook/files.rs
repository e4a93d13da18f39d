//! Hook files in Claude Code's shape, read unchanged: `.claude/settings.json` and
//! `.claude/settings.local.json` (their `hooks` block), Codex's `.codex/hooks.json` (the same
//! shape: event → matcher groups → command handlers), and the user's config folder's
//! `hooks.json`:
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash",
//!   "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}
//! ```
//!
//! What cannot be used — an event Keel does not run, a handler that is not a command, a
//! missing command, a bad matcher, JSON that does not parse — is a [`Warning`] naming the file
//! and line; the rest of the file is still used.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Hook, HookEvent, HookOrigin};
use crate::sources::{HOOK_FILES, Scope, Sources, USER_HOOKS};
use crate::warning::Warning;

/// The hooks of every hook file of `sources`: the project's ([`HOOK_FILES`]) in order, then
/// the user's `hooks.json`, with a warning for each part skipped.
pub fn discover(sources: &Sources) -> (Vec<Hook>, Vec<Warning>) {
    let mut hooks = Vec::new();
    let mut warnings = Vec::new();
    let mut files: Vec<(std::path::PathBuf, Scope)> = HOOK_FILES
        .iter()
        .map(|file| (sources.root.join(file), Scope::Project))
        .collect();
    if let Some(dir) = &sources.user_dir {
        files.push((dir.join(USER_HOOKS), Scope::User));
    }
    for (path, scope) in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let (found, problems) = parse(&path, &text, scope);
        hooks.extend(found);
        warnings.extend(problems);
    }
    (hooks, warnings)
}

/// The hooks of one file's text (a settings file whose other keys are ignored).
pub fn parse(path: &Path, text: &str, scope: Scope) -> (Vec<Hook>, Vec<Warning>) {
    let mut hooks = Vec::new();
    let mut warnings = Vec::new();
    let warn = |line: usize, message: String| Warning {
        path: path.to_path_buf(),
        line,
        message,
    };
    let root: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            warnings.push(warn(e.line().max(1), format!("not valid JSON: {e}")));
            return (hooks, warnings);
        }
    };
    let Some(block) = root.get("hooks") else {
        return (hooks, warnings);
    };
    let Some(events) = block.as_object() else {
        warnings.push(warn(
            line_of(text, "\"hooks\""),
            "`hooks` must be an object of events".to_owned(),
        ));
        return (hooks, warnings);
    };
    for (name, groups) in events {
        let line = line_of(text, &format!("\"{name}\""));
        let Some(event) = HookEvent::from_name(name) else {
            warnings.push(warn(
                line,
                format!(
                    "Keel does not run `{name}` hooks (it runs {})",
                    HookEvent::ALL.map(HookEvent::as_str).join(", ")
                ),
            ));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            warnings.push(warn(
                line,
                format!("`{name}` must be a list of matcher groups"),
            ));
            continue;
        };
        for group in groups {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                warnings.push(warn(line, format!("a `{name}` group has no `hooks` list")));
                continue;
            };
            for handler in handlers {
                match handler_hook(handler) {
                    Ok((command, timeout)) => {
                        let line =
                            line_of(text, &serde_json::to_string(&command).unwrap_or_default());
                        let origin = HookOrigin {
                            path: path.to_path_buf(),
                            line: if line > 1 {
                                line
                            } else {
                                line_of(text, &format!("\"{name}\""))
                            },
                            scope,
                        };
                        match Hook::new(event, matcher.clone(), command, timeout, origin) {
                            Ok(hook) => hooks.push(hook),
                            Err(e) => warnings.push(warn(line, e.to_string())),
                        }
                    }
                    Err(message) => warnings.push(warn(line, format!("a `{name}` hook {message}"))),
                }
            }
        }
    }
    (hooks, warnings)
}

/// A handler's command and time-out, or what is wrong with it.
fn handler_hook(handler: &Value) -> Result<(String, Option<Duration>), String> {
    let kind = handler
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    if kind != "command" {
        return Err(format!(
            "of type `{kind}` is not run (Keel runs `command` hooks)"
        ));
    }
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .ok_or_else(|| "has no `command`".to_owned())?;
    let timeout = match handler.get("timeout") {
        None | Some(Value::Null) => None,
        Some(value) => match value.as_f64() {
            Some(secs) if secs > 0.0 && secs.is_finite() => Some(Duration::from_secs_f64(secs)),
            _ => return Err(format!("has a bad `timeout` ({value}): seconds above 0")),
        },
    };
    Ok((command.to_owned(), timeout))
}

/// The 1-based line where `needle` first occurs in `text` (1 when it does not).
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map_or(1, |at| text[..at].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_settings_are_read_with_their_lines() {
        let text = r#"{
  "permissions": {"allow": []},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "./more.sh"}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "x"}]}],
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "prompt", "prompt": "p"}, {"type": "command"}]}]
  }
}"#;
        let (hooks, warnings) = parse(Path::new(".claude/settings.json"), text, Scope::Project);
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[0].event, HookEvent::PreToolUse);
        assert_eq!(hooks[0].matcher.as_deref(), Some("Bash"));
        assert_eq!(hooks[0].timeout, Duration::from_secs(30));
        assert_eq!(hooks[0].origin.line, 5);
        assert_eq!(hooks[1].event, HookEvent::Stop);
        assert_eq!(hooks[1].origin.line, 7);
        let messages: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 3, "{messages:?}");
        assert!(
            messages[0].contains(":8: Keel does not run `SessionEnd` hooks"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("of type `prompt` is not run"),
            "{messages:?}"
        );
        assert!(messages[2].contains("has no `command`"), "{messages:?}");
    }

    #[test]
    fn broken_json_is_one_warning_with_its_line() {
        let (hooks, warnings) = parse(Path::new("h.json"), "{\n  \"hooks\": {,\n}", Scope::User);
        assert!(hooks.is_empty());
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, 2);
    }
}
