//! Reading rules files: where they are, parsing with line numbers, loading both scopes.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Rule, RuleScope, RuleSet, RuleSpec, RuleTarget};

/// The project's rules file: `ROOT/.keel/rules.toml`.
pub fn project_rules_path(root: &Path) -> PathBuf {
    root.join(".keel").join("rules.toml")
}

/// The user's rules file: `CONFIG_DIR/rules.toml` (`$KEEL_CONFIG_DIR`).
pub fn user_rules_path(config_dir: &Path) -> PathBuf {
    config_dir.join("rules.toml")
}

/// A rules file that cannot be read or used. Always names the file (and the line when known).
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The file exists but could not be read or written.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a rule is malformed.
    #[error("{}:{line}: {message}", file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// `keel rules remove N` with no rule N.
    #[error("{}: there is no rule {index} (the file has {count})", file.display())]
    NoSuchRule {
        /// The file.
        file: PathBuf,
        /// The index asked for, from 1.
        index: usize,
        /// How many rules the file has.
        count: usize,
    },
}

/// One `[[rule]]` as read, before validation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    #[serde(rename = "match")]
    prefix: Option<Vec<String>>,
    tool: Option<String>,
    paths: Option<Vec<String>>,
    host: Option<String>,
    decision: super::RuleDecision,
    #[serde(default)]
    override_safety: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    rule: Vec<toml::Spanned<RawRule>>,
}

/// The line (from 1) of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()
        .iter()
        .take(offset.min(text.len()))
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Parses a rules file's text. `file` is only used to name it.
pub(crate) fn parse(text: &str, file: &Path, scope: RuleScope) -> Result<Vec<Rule>, RulesError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| RulesError::Invalid {
        file: file.to_owned(),
        line: e.span().map_or(1, |span| line_of(text, span.start)),
        message: e.message().trim().to_owned(),
    })?;
    let mut rules = Vec::with_capacity(raw.rule.len());
    for (i, spanned) in raw.rule.into_iter().enumerate() {
        let line = line_of(text, spanned.span().start);
        let invalid = |message: &str| RulesError::Invalid {
            file: file.to_owned(),
            line,
            message: format!("rule {}: {message}", i + 1),
        };
        let raw = spanned.into_inner();
        let target = match (raw.prefix, raw.tool) {
            (None, None) if raw.host.is_some() => {
                let host = raw.host.unwrap_or_default();
                if raw.paths.is_some() {
                    return Err(invalid("`paths` goes with `tool`, not with `host`"));
                }
                if host.trim().is_empty() {
                    return Err(invalid("`host` is empty"));
                }
                globset::Glob::new(&host)
                    .map_err(|e| invalid(&format!("bad host glob `{host}`: {e}")))?;
                RuleTarget::Host { host }
            }
            _ if raw.host.is_some() => {
                return Err(invalid("give one of `match`, `tool` or `host`"));
            }
            (Some(prefix), None) => {
                if raw.paths.is_some() {
                    return Err(invalid("`paths` goes with `tool`, not with `match`"));
                }
                if prefix.is_empty() || prefix.iter().any(|w| w.is_empty()) {
                    return Err(invalid("`match` needs at least one non-empty word"));
                }
                RuleTarget::Command { prefix }
            }
            (None, Some(tool)) => {
                if tool.trim().is_empty() {
                    return Err(invalid("`tool` is empty"));
                }
                let paths = raw.paths.unwrap_or_default();
                for glob in &paths {
                    globset::Glob::new(glob)
                        .map_err(|e| invalid(&format!("bad glob `{glob}`: {e}")))?;
                }
                RuleTarget::Tool { tool, paths }
            }
            (Some(_), Some(_)) => return Err(invalid("give `match` or `tool`, not both")),
            (None, None) => {
                return Err(invalid(
                    "give `match = [\"cmd\", …]` (a command prefix), `tool = \"name\"` or `host = \"example.com\"`",
                ));
            }
        };
        rules.push(Rule {
            spec: RuleSpec {
                target,
                decision: raw.decision,
                override_safety: raw.override_safety,
            },
            scope,
            file: file.to_owned(),
            index: i + 1,
            line,
        });
    }
    Ok(rules)
}

/// Reads one rules file; a missing file has no rules.
pub(crate) fn read(file: &Path, scope: RuleScope) -> Result<Vec<Rule>, RulesError> {
    match std::fs::read_to_string(file) {
        Ok(text) => parse(&text, file, scope),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(RulesError::Io {
            file: file.to_owned(),
            source,
        }),
    }
}

impl RuleSet {
    /// Loads the project's rules (`ROOT/.keel/rules.toml`) and the user's
    /// (`CONFIG_DIR/rules.toml`); either may be absent. A file that does not parse is an error
    /// naming it and the line.
    pub fn load(root: Option<&Path>, config_dir: Option<&Path>) -> Result<Self, RulesError> {
        let mut rules = Vec::new();
        if let Some(root) = root {
            rules.extend(read(&project_rules_path(root), RuleScope::Project)?);
        }
        if let Some(dir) = config_dir {
            rules.extend(read(&user_rules_path(dir), RuleScope::User)?);
        }
        Ok(Self::new(rules))
    }

    /// Parses one file's text (for tests and previews).
    pub fn parse(text: &str, file: &Path, scope: RuleScope) -> Result<Self, RulesError> {
        parse(text, file, scope).map(Self::new)
    }
}
