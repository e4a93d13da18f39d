//! Adding and removing rules in a rules file with `toml_edit`, keeping its comments and layout.

use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, value};

use super::file::{RulesError, parse};
use super::{Rule, RuleScope, RuleSpec, RuleTarget};

fn load_doc(file: &Path, scope: RuleScope) -> Result<(String, DocumentMut), RulesError> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(RulesError::Io {
                file: file.to_owned(),
                source,
            });
        }
    };
    // Validate first, so a broken file is reported (with its line) and left as it is.
    parse(&text, file, scope)?;
    let doc = text
        .parse::<DocumentMut>()
        .map_err(|e| RulesError::Invalid {
            file: file.to_owned(),
            line: e
                .span()
                .map_or(1, |span| super::file::line_of(&text, span.start)),
            message: e.message().trim().to_owned(),
        })?;
    Ok((text, doc))
}

fn save(file: &Path, doc: &DocumentMut) -> Result<(), RulesError> {
    let io = |source| RulesError::Io {
        file: file.to_owned(),
        source,
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    // Write beside and rename, so a crash never leaves half a file.
    let tmp = file.with_extension("toml.tmp");
    std::fs::write(&tmp, doc.to_string()).map_err(io)?;
    std::fs::rename(&tmp, file).map_err(io)
}

/// Appends `spec` as a new `[[rule]]` at the end of `file` (created with its folder if
/// missing) and returns the rule as loaded back, with its index and line.
pub fn append_rule(file: &Path, scope: RuleScope, spec: &RuleSpec) -> Result<Rule, RulesError> {
    let (_, mut doc) = load_doc(file, scope)?;
    let mut table = Table::new();
    match &spec.target {
        RuleTarget::Command { prefix } => {
            table.insert("match", value(prefix.iter().collect::<Array>()));
        }
        RuleTarget::Host { host } => {
            table.insert("host", value(host.as_str()));
        }
        RuleTarget::Tool { tool, paths } => {
            table.insert("tool", value(tool.as_str()));
            if !paths.is_empty() {
                table.insert("paths", value(paths.iter().collect::<Array>()));
            }
        }
    }
    table.insert("decision", value(spec.decision.as_str()));
    if spec.override_safety {
        table.insert("override_safety", value(true));
    }
    match doc.get_mut("rule") {
        Some(Item::ArrayOfTables(array)) => array.push(table),
        Some(_) => {
            return Err(RulesError::Invalid {
                file: file.to_owned(),
                line: 1,
                message: "`rule` must be an array of tables (`[[rule]]`)".to_owned(),
            });
        }
        None => {
            let mut array = ArrayOfTables::new();
            array.push(table);
            doc.insert("rule", Item::ArrayOfTables(array));
        }
    }
    save(file, &doc)?;
    let text = doc.to_string();
    let rules = parse(&text, file, scope)?;
    rules.into_iter().last().ok_or_else(|| RulesError::Invalid {
        file: file.to_owned(),
        line: 1,
        message: "the rule written could not be read back".to_owned(),
    })
}

/// Removes rule `index` (from 1, as `keel rules list` numbers them) from `file`, keeping the
/// other rules and the comments; returns the rule removed.
pub fn remove_rule(file: &Path, scope: RuleScope, index: usize) -> Result<Rule, RulesError> {
    let (text, mut doc) = load_doc(file, scope)?;
    let rules = parse(&text, file, scope)?;
    let count = rules.len();
    let Some(removed) = index.checked_sub(1).and_then(|i| rules.into_iter().nth(i)) else {
        return Err(RulesError::NoSuchRule {
            file: file.to_owned(),
            index,
            count,
        });
    };
    if let Some(Item::ArrayOfTables(array)) = doc.get_mut("rule") {
        array.remove(index - 1);
        if array.is_empty() {
            doc.remove("rule");
        }
    }
    save(file, &doc)?;
    Ok(removed)
}
