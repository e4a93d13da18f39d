//! Hooks: commands run at points of a session (`PreToolUse`, `Stop`, …), given the event as
//! JSON on standard input, whose exit code and JSON output decide what happens next — the
//! semantics of Claude Code's hooks. This module holds what a hook is and which hooks an event
//! runs; [`files`] reads Claude Code's and Codex's hook files, [`outcome`] reads what a hook
//! answered. Running them is keel-tools' (`keel_tools::hooks`).

pub mod files;
pub mod outcome;

use std::path::PathBuf;
use std::time::Duration;

use regex::Regex;

use crate::sources::Scope;
use crate::tool_names::claude_tool_names;

/// How long a hook may run when its entry does not say (Claude Code's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The points of a session a hook can run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookEvent {
    /// A session's first turn begins (or a resumed session's first turn here).
    SessionStart,
    /// The person's prompt, before the model sees it.
    UserPromptSubmit,
    /// A tool call, before it runs.
    PreToolUse,
    /// A tool call, after it ran.
    PostToolUse,
    /// Before older history is summarised to make room.
    PreCompact,
    /// Keel waits for the person (an approval or an answer).
    Notification,
    /// The model answered and the turn is about to end.
    Stop,
    /// A subagent finished (defined for Claude Code's files; Keel has no subagents yet, so it
    /// never fires).
    SubagentStop,
}

impl HookEvent {
    /// Every event, in the order of a session.
    pub const ALL: [HookEvent; 8] = [
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::PreToolUse,
        Self::PostToolUse,
        Self::PreCompact,
        Self::Notification,
        Self::Stop,
        Self::SubagentStop,
    ];

    /// The name as Claude Code spells it (`PreToolUse`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::PreCompact => "PreCompact",
            Self::Notification => "Notification",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
        }
    }

    /// The event named `name` (exactly as [`HookEvent::as_str`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// Whether a matcher picks among this event's runs: the tool name for `PreToolUse` and
    /// `PostToolUse`, the source (`startup`, `resume`) for `SessionStart`, the trigger
    /// (`auto`) for `PreCompact`; other events run every hook.
    pub fn uses_matcher(self) -> bool {
        matches!(
            self,
            Self::PreToolUse | Self::PostToolUse | Self::SessionStart | Self::PreCompact
        )
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a hook was configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookOrigin {
    /// The file (`keel.toml`, `.claude/settings.json`, `.codex/hooks.json`, …).
    pub path: PathBuf,
    /// The 1-based line of its entry (1 when it cannot be told).
    pub line: usize,
    /// The project's file or the user's: a project's hooks run only in a trusted folder.
    pub scope: Scope,
}

impl std::fmt::Display for HookOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)
    }
}

/// One hook: a command run at `event` when `matcher` matches.
#[derive(Debug, Clone)]
pub struct Hook {
    /// When it runs.
    pub event: HookEvent,
    /// The matcher as written (`None`, `""` and `*`: every run of the event).
    pub matcher: Option<String>,
    /// The command line, run by the shell in the project root.
    pub command: String,
    /// How long it may run before it is killed.
    pub timeout: Duration,
    /// Where it was configured.
    pub origin: HookOrigin,
    pattern: Option<Regex>,
}

impl PartialEq for Hook {
    /// Hooks are equal when configured alike (the compiled matcher follows from `matcher`).
    fn eq(&self, other: &Self) -> bool {
        self.event == other.event
            && self.matcher == other.matcher
            && self.command == other.command
            && self.timeout == other.timeout
            && self.origin == other.origin
    }
}

/// A matcher that is not a regular expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("matcher `{matcher}` is not a regular expression: {message}")]
pub struct MatcherError {
    /// The matcher.
    pub matcher: String,
    /// Why.
    pub message: String,
}

impl Hook {
    /// A hook running `command` at `event` for runs `matcher` matches (a regular expression
    /// matched against the whole name: `Bash` is only `Bash`, `Edit|Write` either).
    pub fn new(
        event: HookEvent,
        matcher: Option<String>,
        command: impl Into<String>,
        timeout: Option<Duration>,
        origin: HookOrigin,
    ) -> Result<Self, MatcherError> {
        let matcher = matcher.filter(|m| !m.trim().is_empty());
        let pattern = match matcher.as_deref().map(str::trim) {
            None | Some("*") => None,
            Some(m) => Some(Regex::new(&format!("^(?:{m})$")).map_err(|e| MatcherError {
                matcher: m.to_owned(),
                message: e.to_string(),
            })?),
        };
        Ok(Self {
            event,
            matcher,
            command: command.into(),
            timeout: timeout.unwrap_or(DEFAULT_TIMEOUT),
            origin,
            pattern,
        })
    }

    /// Whether the hook runs for `subject` (a tool's Keel name — its Claude Code names match
    /// too — a session's source, a compaction's trigger; `None` for events without one).
    pub fn matches(&self, subject: Option<&str>) -> bool {
        let (Some(pattern), Some(subject)) = (&self.pattern, subject) else {
            return true;
        };
        if !self.event.uses_matcher() {
            return true;
        }
        pattern.is_match(subject) || claude_tool_names(subject).any(|name| pattern.is_match(name))
    }
}

/// A session's hooks, in the order they were configured.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    hooks: Vec<Hook>,
}

impl Hooks {
    /// These hooks.
    pub fn new(hooks: Vec<Hook>) -> Self {
        Self { hooks }
    }

    /// No hooks at all.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Every hook.
    pub fn all(&self) -> &[Hook] {
        &self.hooks
    }

    /// Whether any hook runs at `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|h| h.event == event)
    }

    /// The hooks `event` runs for `subject` (see [`Hook::matches`]).
    pub fn matching(&self, event: HookEvent, subject: Option<&str>) -> Vec<&Hook> {
        self.hooks
            .iter()
            .filter(|h| h.event == event && h.matches(subject))
            .collect()
    }

    /// These hooks split by trust: with `trusted`, all of them; without, the user's kept and
    /// the project's returned as the second list (to be named in a log).
    pub fn trusted(self, trusted: bool) -> (Hooks, Vec<Hook>) {
        if trusted {
            return (self, Vec::new());
        }
        let (user, project) = self
            .hooks
            .into_iter()
            .partition(|h| h.origin.scope == Scope::User);
        (Hooks { hooks: user }, project)
    }
}

impl FromIterator<Hook> for Hooks {
    fn from_iter<I: IntoIterator<Item = Hook>>(iter: I) -> Self {
        Self {
            hooks: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(event: HookEvent, matcher: Option<&str>) -> Hook {
        let origin = HookOrigin {
            path: "keel.toml".into(),
            line: 1,
            scope: Scope::Project,
        };
        Hook::new(event, matcher.map(str::to_owned), "true", None, origin).unwrap()
    }

    #[test]
    fn matchers_take_keel_and_claude_code_names_whole() {
        let bash = hook(HookEvent::PreToolUse, Some("Bash"));
        assert!(bash.matches(Some("execute_command")));
        assert!(!bash.matches(Some("read_file")));
        let keel = hook(HookEvent::PreToolUse, Some("execute_command"));
        assert!(keel.matches(Some("execute_command")));
        let either = hook(HookEvent::PostToolUse, Some("Edit|Write"));
        assert!(either.matches(Some("write_file")));
        assert!(either.matches(Some("replace_in_file")));
        assert!(!either.matches(Some("write")));
        assert!(hook(HookEvent::PreToolUse, Some("*")).matches(Some("anything")));
        assert!(hook(HookEvent::PreToolUse, Some("")).matches(Some("anything")));
        // Events without a subject ignore the matcher.
        assert!(hook(HookEvent::Stop, Some("Bash")).matches(None));
        assert_eq!(hook(HookEvent::Stop, None).timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn a_bad_matcher_is_an_error() {
        let origin = HookOrigin {
            path: "x".into(),
            line: 3,
            scope: Scope::User,
        };
        let err = Hook::new(
            HookEvent::PreToolUse,
            Some("(".into()),
            "true",
            None,
            origin,
        )
        .unwrap_err();
        assert!(err.to_string().contains("matcher `(`"), "{err}");
    }

    #[test]
    fn untrusted_keeps_only_the_users_hooks() {
        let mut user = hook(HookEvent::Stop, None);
        user.origin.scope = Scope::User;
        let hooks = Hooks::new(vec![hook(HookEvent::Stop, None), user]);
        let (kept, skipped) = hooks.clone().trusted(false);
        assert_eq!(kept.all().len(), 1);
        assert_eq!(skipped.len(), 1);
        assert_eq!(hooks.trusted(true).0.all().len(), 2);
    }
}
