//! Approval rules: `.keel/rules.toml` (project) and `$KEEL_CONFIG_DIR/rules.toml` (user) say
//! which commands and tool calls are allowed, asked about or denied, before the approval
//! policy is consulted.
//!
//! ```toml
//! [[rule]]  # argv prefix, checked against every command of a chain, pipeline, subshell, `sh -c`
//! match = ["git", "push"]
//! decision = "ask"        # allow | ask | deny
//! [[rule]]
//! tool = "write_file"
//! paths = ["migrations/**"]
//! decision = "deny"
//! [[rule]]  # web hosts `fetch_url` may reach (a glob; a private address needs a rule naming it)
//! host = "*.python.org"
//! decision = "allow"
//! ```
//!
//! A command line is split into every simple command it runs ([`keel_safety::commands`]).
//! Deny beats ask beats allow: the line is denied when any command matches a deny rule, asked
//! about when any matches an ask rule, and allowed only when *every* command matches an allow
//! rule. A rule cannot allow what the dangerous-command check flags unless it says
//! `override_safety = true`; such a line falls back to the approval policy.

mod always;
mod edit;
mod file;

use std::path::PathBuf;

use globset::{Glob, GlobSetBuilder};
use serde::{Deserialize, Serialize};

pub use always::{always_rules, append_always_rules, describe_written, subject_tool};
pub use edit::{append_rule, remove_rule};
pub use file::{RulesError, project_rules_path, user_rules_path};

use keel_safety::{classify, commands};

/// The last path component of a command name (`/usr/bin/git` → `git`).
fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    /// Run without asking.
    Allow,
    /// Ask a person first.
    Ask,
    /// Refuse.
    Deny,
}

impl RuleDecision {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl std::fmt::Display for RuleDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RuleDecision {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "allow" => Ok(Self::Allow),
            "ask" => Ok(Self::Ask),
            "deny" => Ok(Self::Deny),
            other => Err(format!(
                "unknown decision `{other}` (expected allow, ask or deny)"
            )),
        }
    }
}

/// Which rules file a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleScope {
    /// The project's `.keel/rules.toml`.
    Project,
    /// The user's `$KEEL_CONFIG_DIR/rules.toml`.
    User,
}

impl RuleScope {
    /// `project` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
        }
    }
}

/// What a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RuleTarget {
    /// Commands starting with these words (`match = ["git", "push"]`).
    Command {
        /// The argv prefix.
        #[serde(rename = "match")]
        prefix: Vec<String>,
    },
    /// Web pages fetched from a host matching this glob (`docs.rs`, `*.github.com`).
    Host {
        /// The host glob, matched case-insensitively.
        host: String,
    },
    /// Calls of a tool, optionally only on paths matching these globs.
    Tool {
        /// The tool's name.
        tool: String,
        /// Globs relative to the workspace root; empty: every call.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        paths: Vec<String>,
    },
}

/// One rule as written in a rules file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSpec {
    /// What it applies to.
    #[serde(flatten)]
    pub target: RuleTarget,
    /// What it decides.
    pub decision: RuleDecision,
    /// Whether it may allow what the dangerous-command check flags.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub override_safety: bool,
}

/// A loaded rule and where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// The rule.
    #[serde(flatten)]
    pub spec: RuleSpec,
    /// Project or user.
    pub scope: RuleScope,
    /// The file it is in.
    pub file: PathBuf,
    /// Its position among the file's `[[rule]]` tables, from 1 (what `keel rules remove` takes).
    pub index: usize,
    /// The line its `[[rule]]` header is on, from 1.
    pub line: usize,
}

impl Rule {
    /// `FILE:LINE` for messages.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }

    /// A one-line description: `deny write_file migrations/**`, `ask git push`.
    pub fn describe(&self) -> String {
        let what = match &self.spec.target {
            RuleTarget::Command { prefix } => prefix.join(" "),
            RuleTarget::Host { host } => format!("host {host}"),
            RuleTarget::Tool { tool, paths } if paths.is_empty() => format!("tool {tool}"),
            RuleTarget::Tool { tool, paths } => format!("tool {tool} {}", paths.join(" ")),
        };
        let over = if self.spec.override_safety {
            " (override_safety)"
        } else {
            ""
        };
        format!("{} {what}{over}", self.spec.decision)
    }

    fn matches_command(&self, written: &[String], unwrapped: &[String]) -> bool {
        let RuleTarget::Command { prefix } = &self.spec.target else {
            return false;
        };
        let starts = |argv: &[String]| {
            !prefix.is_empty()
                && argv.len() >= prefix.len()
                && prefix.iter().zip(argv).enumerate().all(|(i, (want, got))| {
                    if i == 0 && !want.contains('/') {
                        base_name(got) == want
                    } else {
                        want == got
                    }
                })
        };
        starts(written) || starts(unwrapped)
    }
}

/// What the rules say about a command line or tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleVerdict {
    /// The decision.
    pub decision: RuleDecision,
    /// The rule that decided it (for allow: the one covering the first command).
    pub rule: Rule,
    /// A sentence naming the rule and where it is written.
    pub reason: String,
}

/// The rules in force: the project's, then the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    rules: Vec<Rule>,
}

impl RuleSet {
    /// A set holding `rules`.
    pub fn new(rules: Vec<Rule>) -> Self {
        Self { rules }
    }

    /// Every rule, project rules first.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules' verdict on a command line; `None` when they do not decide it (the approval
    /// policy does).
    pub fn check_command(&self, line: &str) -> Option<RuleVerdict> {
        if !self
            .rules
            .iter()
            .any(|r| matches!(r.spec.target, RuleTarget::Command { .. }))
        {
            return None;
        }
        let found = commands(line);
        let strictest = |decision: RuleDecision| {
            found.iter().find_map(|(written, unwrapped)| {
                self.rules
                    .iter()
                    .find(|r| r.spec.decision == decision && r.matches_command(written, unwrapped))
            })
        };
        for decision in [RuleDecision::Deny, RuleDecision::Ask] {
            if let Some(rule) = strictest(decision) {
                return Some(verdict(rule, line));
            }
        }
        if found.is_empty() {
            return None;
        }
        let dangerous = classify(line).dangerous;
        let mut first = None;
        for (written, unwrapped) in &found {
            let allow = self.rules.iter().find(|r| {
                r.spec.decision == RuleDecision::Allow
                    && (r.spec.override_safety || !dangerous)
                    && r.matches_command(written, unwrapped)
            })?;
            first.get_or_insert(allow);
        }
        first.map(|rule| verdict(rule, line))
    }

    /// The rules' verdict on fetching a page from `host`; `None` when they do not decide it.
    pub fn check_host(&self, host: &str) -> Option<RuleVerdict> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let applies = |rule: &Rule| match &rule.spec.target {
            RuleTarget::Host { host: pattern } => Glob::new(&pattern.to_ascii_lowercase())
                .map(|glob| glob.compile_matcher().is_match(&host))
                .unwrap_or(false),
            _ => false,
        };
        [RuleDecision::Deny, RuleDecision::Ask, RuleDecision::Allow]
            .into_iter()
            .find_map(|decision| {
                self.rules
                    .iter()
                    .find(|r| r.spec.decision == decision && applies(r))
            })
            .map(|rule| verdict(rule, &format!("fetch_url {host}")))
    }

    /// The rules' verdict on a call of `tool` touching `paths` (relative to the workspace
    /// root); `None` when they do not decide it.
    pub fn check_tool(&self, tool: &str, paths: &[String]) -> Option<RuleVerdict> {
        let applies = |rule: &Rule| match &rule.spec.target {
            RuleTarget::Tool {
                tool: t,
                paths: globs,
            } if t == tool => {
                if globs.is_empty() {
                    return true;
                }
                let mut builder = GlobSetBuilder::new();
                for glob in globs {
                    if let Ok(glob) = Glob::new(glob) {
                        builder.add(glob);
                    }
                }
                let Ok(set) = builder.build() else {
                    return false;
                };
                paths
                    .iter()
                    .any(|p| set.is_match(p.trim_start_matches("./")))
            }
            _ => false,
        };
        [RuleDecision::Deny, RuleDecision::Ask, RuleDecision::Allow]
            .into_iter()
            .find_map(|decision| {
                self.rules
                    .iter()
                    .find(|r| r.spec.decision == decision && applies(r))
            })
            .map(|rule| verdict(rule, &format!("{tool} {}", paths.join(" "))))
    }
}

fn verdict(rule: &Rule, subject: &str) -> RuleVerdict {
    let verb = match rule.spec.decision {
        RuleDecision::Allow => "allowed",
        RuleDecision::Ask => "needs approval",
        RuleDecision::Deny => "denied",
    };
    RuleVerdict {
        decision: rule.spec.decision,
        reason: format!(
            "`{}` {verb} by the rule `{}` ({})",
            subject.trim(),
            rule.describe(),
            rule.location()
        ),
        rule: rule.clone(),
    }
}
