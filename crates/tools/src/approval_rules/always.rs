//! What answering "always" to an approval writes: allow rules for the same subject, shared by
//! every front end that asks (the terminal, the server).

use std::path::Path;

use keel_events::ApprovalKind;

use super::edit::append_rule;
use super::file::RulesError;
use super::{Rule, RuleDecision, RuleScope, RuleSpec, RuleTarget};

/// The tool an approval subject names: its first word, up to `(`, `:` or a space
/// (`write_file(a.txt)`, `write_file notes.txt` and an edit's `write_file a.txt` + diff all
/// name `write_file`).
pub fn subject_tool(subject: &str) -> &str {
    let subject = subject.trim();
    subject
        .split(|c: char| c == '(' || c == ':' || c.is_whitespace())
        .next()
        .unwrap_or(subject)
}

/// The allow rules an "always" to an approval of `kind` about `subject` stands for: one per
/// command of a command line (its words as a prefix, so wrappers such as `sudo` are left
/// out), one for the host of a page fetch (`fetch_url URL`), or one for the tool a tool call or
/// an edit names; none for a plan. Never
/// `override_safety`: a command the safety check flags is still asked about next time.
pub fn always_rules(kind: ApprovalKind, subject: &str) -> Vec<RuleSpec> {
    let targets: Vec<RuleTarget> = match kind {
        ApprovalKind::Plan => Vec::new(),
        ApprovalKind::Command => keel_safety::commands(subject)
            .into_iter()
            .map(|(_, words)| RuleTarget::Command { prefix: words })
            .collect(),
        ApprovalKind::Tool => match subject_tool(subject) {
            "" => Vec::new(),
            // A page fetch: its host.
            "fetch_url" => subject
                .split_whitespace()
                .nth(1)
                .and_then(|url| reqwest::Url::parse(url).ok())
                .and_then(|url| url.host_str().map(str::to_owned))
                .map(|host| RuleTarget::Host { host })
                .into_iter()
                .collect(),
            tool => vec![RuleTarget::Tool {
                tool: tool.to_owned(),
                paths: Vec::new(),
            }],
        },
    };
    targets
        .into_iter()
        .map(|target| RuleSpec {
            target,
            decision: RuleDecision::Allow,
            override_safety: false,
        })
        .collect()
}

/// Appends the [`always_rules`] of an approval to the project rules `file` and returns them
/// as written (index and line), in order; stops at the first that cannot be written.
pub fn append_always_rules(
    file: &Path,
    kind: ApprovalKind,
    subject: &str,
) -> Result<Vec<Rule>, RulesError> {
    always_rules(kind, subject)
        .iter()
        .map(|spec| append_rule(file, RuleScope::Project, spec))
        .collect()
}

/// One line saying what was written where: ``wrote rule 2 `allow git push` to FILE``.
pub fn describe_written(file: &Path, rules: &[Rule]) -> String {
    let rules: Vec<String> = rules
        .iter()
        .map(|rule| format!("rule {} `{}`", rule.index, rule.describe()))
        .collect();
    format!("wrote {} to {}", rules.join(", "), file.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_name_their_tool() {
        assert_eq!(subject_tool("write_file(a.txt)"), "write_file");
        assert_eq!(subject_tool(" write_file a.txt\n@@ -1 +1 @@"), "write_file");
        assert_eq!(subject_tool("mcp__git__push: origin"), "mcp__git__push");
        assert_eq!(subject_tool(""), "");
    }

    #[test]
    fn always_stands_for_one_rule_per_command_or_tool() {
        let rules = always_rules(ApprovalKind::Command, "cargo build && sudo git push");
        let prefixes: Vec<_> = rules
            .iter()
            .map(|r| match &r.target {
                RuleTarget::Command { prefix } => prefix.join(" "),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(prefixes, ["cargo build", "git push"]);
        assert!(
            rules
                .iter()
                .all(|r| r.decision == RuleDecision::Allow && !r.override_safety)
        );
        assert_eq!(
            always_rules(ApprovalKind::Tool, "write_file a.txt").len(),
            1
        );
        assert!(always_rules(ApprovalKind::Plan, "ship it").is_empty());
        assert!(always_rules(ApprovalKind::Tool, "   ").is_empty());
    }

    #[test]
    fn written_rules_are_numbered_and_located() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".keel/rules.toml");
        let rules = append_always_rules(&file, ApprovalKind::Command, "ls && git status").unwrap();
        let text = describe_written(&file, &rules);
        assert!(
            text.starts_with("wrote rule 1 `allow ls`, rule 2 `allow git status` to "),
            "{text}"
        );
        assert!(text.ends_with("rules.toml"), "{text}");
    }
}
