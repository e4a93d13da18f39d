//! What a hook answered, read as Claude Code reads it, and the answers of one event's hooks
//! merged into one.
//!
//! - Exit 0: go on. Standard output that is a JSON object is read (`continue`/`stopReason`,
//!   `decision`/`reason`, `hookSpecificOutput` with `permissionDecision`,
//!   `permissionDecisionReason`, `updatedInput`, `additionalContext`); other output is added
//!   as context for `UserPromptSubmit` and `SessionStart`, and ignored otherwise. Output that
//!   starts like JSON but does not parse is an error.
//! - Exit 2: block, standard error as the reason.
//! - Any other exit, a time-out, a signal, a command that could not start: an error, shown as a
//!   log; the session goes on as if the hook had said nothing.
//!
//! Merging ([`HookOutcome::merge`]): any block wins (the reasons joined), then any `ask`, then
//! any `allow`; inputs rewritten by hooks that did not block are applied in order; every
//! additional context is kept.

use serde_json::Value;

use super::HookEvent;

/// How one hook's run ended, as the runner saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookRun {
    /// The exit code (`None`: killed by a signal, timed out, or never started).
    pub exit_code: Option<i32>,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// Why it did not finish by itself (`timed out after 60 s`, `cannot start …`).
    pub failure: Option<String>,
}

/// What a hook (or an event's hooks together) decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Decision {
    /// Go on as usual.
    #[default]
    Continue,
    /// `PreToolUse`: `permissionDecision: allow` (Keel's own approval rules still apply).
    Allow,
    /// `PreToolUse`: ask the person before the call runs.
    Ask,
    /// Block: the call, the prompt or the stop, with a reason.
    Block,
}

impl Decision {
    /// `continue`, `allow`, `ask` or `block` (as `run.hook.end` carries it).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Block => "block",
        }
    }
}

/// A hook's answer, or an event's hooks' answers merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// What to do.
    pub decision: Decision,
    /// Why (the model sees it when a call or a stop is blocked).
    pub reason: Option<String>,
    /// `PreToolUse`'s `updatedInput`: fields of the call's arguments to replace.
    pub updated_input: Option<serde_json::Map<String, Value>>,
    /// `additionalContext` (or plain output of `UserPromptSubmit` and `SessionStart`).
    pub additional_context: Option<String>,
    /// `systemMessage`: a line for the person.
    pub system_message: Option<String>,
    /// What went wrong running the hook (it then decides nothing).
    pub error: Option<String>,
}

impl HookOutcome {
    /// What `run` of a hook at `event` says.
    pub fn read(event: HookEvent, run: &HookRun) -> Self {
        if let Some(failure) = &run.failure {
            return Self::failed(failure.clone());
        }
        match run.exit_code {
            Some(0) => Self::from_stdout(event, &run.stdout),
            Some(2) => Self {
                decision: Decision::Block,
                reason: Some(non_empty(&run.stderr).unwrap_or_else(|| {
                    format!("blocked by a {event} hook (exit code 2, nothing on standard error)")
                })),
                ..Self::default()
            },
            Some(code) => Self::failed(match non_empty(&run.stderr) {
                Some(stderr) => format!("exit code {code}: {stderr}"),
                None => format!("exit code {code}"),
            }),
            None => Self::failed("ended without an exit code".to_owned()),
        }
    }

    fn failed(error: String) -> Self {
        Self {
            error: Some(error),
            ..Self::default()
        }
    }

    /// Exit 0: the JSON answer, or plain output as context where it is context.
    fn from_stdout(event: HookEvent, stdout: &str) -> Self {
        let text = stdout.trim();
        if text.is_empty() {
            return Self::default();
        }
        if !text.starts_with('{') {
            let context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
            return Self {
                additional_context: context.then(|| text.to_owned()),
                ..Self::default()
            };
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(json)) => Self::from_json(&json),
            Ok(_) => Self::failed("its output is not a JSON object".to_owned()),
            Err(e) => Self::failed(format!("its output is not valid JSON ({e})")),
        }
    }

    fn from_json(json: &serde_json::Map<String, Value>) -> Self {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).and_then(non_empty);
        let specific = json.get("hookSpecificOutput").and_then(Value::as_object);
        let mut outcome = Self {
            system_message: text(json.get("systemMessage")),
            additional_context: specific.and_then(|s| text(s.get("additionalContext"))),
            updated_input: specific
                .and_then(|s| s.get("updatedInput"))
                .and_then(Value::as_object)
                .cloned(),
            ..Self::default()
        };
        // The older top-level `decision` (`approve`/`block`), then the newer
        // `permissionDecision`, then `continue: false`: the strongest wins.
        match json.get("decision").and_then(Value::as_str) {
            Some("block") => {
                outcome.decision = Decision::Block;
                outcome.reason = text(json.get("reason"));
            }
            Some("approve") => {
                outcome.decision = Decision::Allow;
                outcome.reason = text(json.get("reason"));
            }
            _ => {}
        }
        if let Some(specific) = specific {
            let reason = text(specific.get("permissionDecisionReason"));
            let decision = match specific.get("permissionDecision").and_then(Value::as_str) {
                Some("deny") => Some(Decision::Block),
                Some("ask") => Some(Decision::Ask),
                Some("allow") => Some(Decision::Allow),
                _ => None,
            };
            if let Some(decision) = decision
                && decision >= outcome.decision
            {
                outcome.decision = decision;
                outcome.reason = reason.or(outcome.reason);
            }
        }
        if json.get("continue").and_then(Value::as_bool) == Some(false) {
            outcome.decision = Decision::Block;
            outcome.reason = text(json.get("stopReason"))
                .or(outcome.reason)
                .or_else(|| Some("a hook said not to continue".to_owned()));
        }
        outcome
    }

    /// The answers of one event's hooks as one: any block wins, then ask, then allow; the
    /// reasons of the winning decision joined; inputs rewritten by hooks that did not block
    /// applied in order; every context kept. Errors are not merged: each is its own log.
    pub fn merge(outcomes: impl IntoIterator<Item = HookOutcome>) -> Self {
        let outcomes: Vec<HookOutcome> = outcomes.into_iter().collect();
        let decision = outcomes
            .iter()
            .map(|o| o.decision)
            .max()
            .unwrap_or_default();
        let join = |items: Vec<String>| (!items.is_empty()).then(|| items.join("\n"));
        let reason = join(
            outcomes
                .iter()
                .filter(|o| o.decision == decision)
                .filter_map(|o| o.reason.clone())
                .collect(),
        );
        let mut updated: Option<serde_json::Map<String, Value>> = None;
        for input in outcomes
            .iter()
            .filter(|o| o.decision != Decision::Block)
            .filter_map(|o| o.updated_input.as_ref())
        {
            updated.get_or_insert_default().extend(input.clone());
        }
        Self {
            decision,
            reason,
            updated_input: updated,
            additional_context: join(
                outcomes
                    .iter()
                    .filter_map(|o| o.additional_context.clone())
                    .collect(),
            ),
            system_message: join(
                outcomes
                    .iter()
                    .filter_map(|o| o.system_message.clone())
                    .collect(),
            ),
            error: None,
        }
    }
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: i32, stdout: &str, stderr: &str) -> HookRun {
        HookRun {
            exit_code: Some(code),
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            failure: None,
        }
    }

    #[test]
    fn exit_codes_decide_as_in_claude_code() {
        let pre = HookEvent::PreToolUse;
        assert_eq!(
            HookOutcome::read(pre, &ran(0, "", "")),
            HookOutcome::default()
        );
        let blocked = HookOutcome::read(pre, &ran(2, "", "no rm here\n"));
        assert_eq!(blocked.decision, Decision::Block);
        assert_eq!(blocked.reason.as_deref(), Some("no rm here"));
        let failed = HookOutcome::read(pre, &ran(1, "", "boom"));
        assert_eq!(failed.decision, Decision::Continue);
        assert_eq!(failed.error.as_deref(), Some("exit code 1: boom"));
        let timed_out = HookRun {
            failure: Some("timed out after 1 s".into()),
            ..HookRun::default()
        };
        assert_eq!(
            HookOutcome::read(pre, &timed_out).error.as_deref(),
            Some("timed out after 1 s")
        );
    }

    #[test]
    fn json_output_is_read() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "not there"}}"#;
        let o = HookOutcome::read(HookEvent::PreToolUse, &ran(0, out, ""));
        assert_eq!(
            (o.decision, o.reason.as_deref()),
            (Decision::Block, Some("not there"))
        );
        let out = r#"{"hookSpecificOutput": {"permissionDecision": "allow",
            "updatedInput": {"path": "b.txt"}}}"#;
        let o = HookOutcome::read(HookEvent::PreToolUse, &ran(0, out, ""));
        assert_eq!(o.decision, Decision::Allow);
        assert_eq!(o.updated_input.unwrap()["path"], "b.txt");
        let o = HookOutcome::read(
            HookEvent::Stop,
            &ran(0, r#"{"decision": "block", "reason": "tests fail"}"#, ""),
        );
        assert_eq!(
            (o.decision, o.reason.as_deref()),
            (Decision::Block, Some("tests fail"))
        );
        let o = HookOutcome::read(
            HookEvent::Stop,
            &ran(0, r#"{"continue": false, "stopReason": "halt"}"#, ""),
        );
        assert_eq!(
            (o.decision, o.reason.as_deref()),
            (Decision::Block, Some("halt"))
        );
        let o = HookOutcome::read(
            HookEvent::UserPromptSubmit,
            &ran(
                0,
                r#"{"hookSpecificOutput": {"additionalContext": "ctx"}}"#,
                "",
            ),
        );
        assert_eq!(o.additional_context.as_deref(), Some("ctx"));
    }

    #[test]
    fn plain_output_is_context_only_where_claude_code_reads_it_so() {
        let o = HookOutcome::read(HookEvent::SessionStart, &ran(0, "branch: main\n", ""));
        assert_eq!(o.additional_context.as_deref(), Some("branch: main"));
        let o = HookOutcome::read(HookEvent::PostToolUse, &ran(0, "formatted\n", ""));
        assert_eq!(o, HookOutcome::default());
    }

    #[test]
    fn invalid_json_is_an_error_not_a_decision() {
        let o = HookOutcome::read(HookEvent::PreToolUse, &ran(0, "{not json", ""));
        assert_eq!(o.decision, Decision::Continue);
        assert!(o.error.unwrap().contains("not valid JSON"));
    }

    #[test]
    fn any_block_wins_the_merge() {
        let allow = HookOutcome {
            decision: Decision::Allow,
            updated_input: serde_json::json!({"path": "x"}).as_object().cloned(),
            additional_context: Some("a".into()),
            ..HookOutcome::default()
        };
        let block = HookOutcome {
            decision: Decision::Block,
            reason: Some("no".into()),
            updated_input: serde_json::json!({"path": "y"}).as_object().cloned(),
            ..HookOutcome::default()
        };
        let merged = HookOutcome::merge([allow.clone(), block]);
        assert_eq!(merged.decision, Decision::Block);
        assert_eq!(merged.reason.as_deref(), Some("no"));
        assert_eq!(merged.updated_input.unwrap()["path"], "x");
        let merged = HookOutcome::merge([allow, HookOutcome::default()]);
        assert_eq!(merged.decision, Decision::Allow);
        assert_eq!(merged.additional_context.as_deref(), Some("a"));
        assert_eq!(HookOutcome::merge([]), HookOutcome::default());
    }
}
