//! Reading one file: TOML with spans, unknown keys named with file, line and the nearest known
//! key, old spellings moved to their new keys with a warning, `[profiles.NAME]` set apart, and
//! the keys deserialised with errors that keep their line.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value as Json;
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use crate::error::{ConfigError, Warning};
use crate::keys::FileConfig;

/// The table of named profiles in `keel.toml`.
pub const PROFILES: &str = "profiles";

/// Keys that moved: (table, key) as once written → (table, key) now. Both spellings are read
/// for one release; the old one with a [`Warning`].
const RENAMED: &[(KeyPath, KeyPath)] = &[(("provider", "memory_distill"), ("memory", "distill"))];

/// A key in a table: (table, key).
type KeyPath = (&'static str, &'static str);

/// One file read: its keys, its profiles and the warnings it earned.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The top-level keys.
    pub config: FileConfig,
    /// `[profiles.NAME]`: keys layered over the top level when `--profile NAME` is given.
    pub profiles: BTreeMap<String, FileConfig>,
    /// Old spellings met.
    pub warnings: Vec<Warning>,
}

/// How a file is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shape<'a> {
    /// Keys the file holds besides keel.toml's (the server's own), returned apart.
    pub extra_keys: &'a [&'a str],
    /// Whether the keel.toml keys may also be written in a `[provider]` table (the server's
    /// file, as it always took them).
    pub provider_table: bool,
    /// Whether `[profiles.NAME]` tables are read.
    pub profiles: bool,
}

impl Shape<'static> {
    /// A `keel.toml`.
    pub const KEEL_TOML: Self = Shape {
        extra_keys: &[],
        provider_table: false,
        profiles: true,
    };
}

/// Parses the text of the `keel.toml` at `path`.
pub fn parse(path: &Path, text: &str) -> Result<Parsed, ConfigError> {
    parse_shaped(path, text, Shape::KEEL_TOML).map(|(parsed, _)| parsed)
}

/// Parses the text of a file of `shape` at `path`: the keel.toml keys, and the table of the
/// shape's extra keys for the caller to deserialise (its errors through [`invalid`]).
pub fn parse_shaped<'i>(
    path: &Path,
    text: &'i str,
    shape: Shape<'_>,
) -> Result<(Parsed, Spanned<DeTable<'i>>), ConfigError> {
    let document = DeTable::parse(text).map_err(|e| invalid(path, text, &e))?;
    let span = document.span();
    let mut root = document.into_inner();
    let mut warnings = Vec::new();
    if shape.provider_table {
        rename_old_keys(path, text, &mut root, &mut warnings)?;
        hoist_provider_table(path, text, &mut root)?;
    }
    let mut extra = DeTable::new();
    for key in shape.extra_keys {
        if let Some((k, v)) = root.remove_entry(*key) {
            extra.insert(k, v);
        }
    }
    let profile_tables = if shape.profiles {
        match root.remove_entry(PROFILES) {
            Some((key, value)) => profile_tables(path, text, key, value)?,
            None => Vec::new(),
        }
    } else {
        Vec::new()
    };
    check_keys(path, text, &root, schema_root(), "", shape.extra_keys)?;
    let mut config = deserialize(path, text, span.clone(), root)?;
    check_hooks(path, text, &mut config)?;
    let mut profiles = BTreeMap::new();
    for (name, span, table) in profile_tables {
        let prefix = format!("{PROFILES}.{name}.");
        check_keys(path, text, &table, schema_root(), &prefix, &[])?;
        let mut profile = deserialize(path, text, span, table)?;
        check_hooks(path, text, &mut profile)?;
        profiles.insert(name, profile);
    }
    Ok((
        Parsed {
            config,
            profiles,
            warnings,
        },
        Spanned::new(span, extra),
    ))
}

/// Notes each hook entry's line, and refuses a matcher that is not a regular expression or
/// an empty command, naming the line.
fn check_hooks(path: &Path, text: &str, config: &mut FileConfig) -> Result<(), ConfigError> {
    let Some(hooks) = &mut config.hooks else {
        return Ok(());
    };
    for entry in hooks.entries_mut() {
        entry.line = line_of(text, entry.command.span().start);
    }
    for (event, entries) in hooks.events() {
        for entry in entries {
            let error = |message: String| ConfigError::Invalid {
                path: path.to_owned(),
                line: Some(entry.line),
                text: text
                    .lines()
                    .nth(entry.line - 1)
                    .map(|l| l.trim().to_owned())
                    .filter(|t| !t.is_empty()),
                message,
            };
            if entry.command.get_ref().trim().is_empty() {
                return Err(error(format!("a `{event}` hook needs a `command`")));
            }
            entry
                .hook(event, path, keel_extensions::Scope::Project)
                .map_err(|e| error(e.to_string()))?;
        }
    }
    Ok(())
}

/// A TOML error as a [`ConfigError::Invalid`] naming `path` and the line of its span.
pub fn invalid(path: &Path, text: &str, error: &toml::de::Error) -> ConfigError {
    let (line, line_text) = match error.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let line_text = text.lines().nth(line - 1).map(|l| l.trim().to_owned());
            (Some(line), line_text)
        }
        None => (None, None),
    };
    ConfigError::Invalid {
        path: path.to_owned(),
        line,
        text: line_text.filter(|t| !t.is_empty()),
        message: error.message().trim().to_owned(),
    }
}

/// The 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

fn deserialize<'i>(
    path: &Path,
    text: &'i str,
    span: Range<usize>,
    table: DeTable<'i>,
) -> Result<FileConfig, ConfigError> {
    FileConfig::deserialize(toml::de::Deserializer::from(Spanned::new(span, table)))
        .map_err(|e| invalid(path, text, &e))
}

/// `[profiles.NAME]` tables, each with its span.
fn profile_tables<'i>(
    path: &Path,
    text: &str,
    key: Spanned<DeString<'i>>,
    value: Spanned<DeValue<'i>>,
) -> Result<Vec<(String, Range<usize>, DeTable<'i>)>, ConfigError> {
    let not_tables = |span: Range<usize>| ConfigError::Invalid {
        path: path.to_owned(),
        line: Some(line_of(text, span.start)),
        text: None,
        message: "`profiles` holds one table per profile: `[profiles.NAME]`".to_owned(),
    };
    let span = value.span();
    let DeValue::Table(table) = value.into_inner() else {
        return Err(not_tables(key.span()));
    };
    let _ = span;
    let mut profiles = Vec::new();
    for (name, profile) in table {
        let span = profile.span();
        match profile.into_inner() {
            DeValue::Table(table) => profiles.push((name.get_ref().to_string(), span, table)),
            _ => return Err(not_tables(name.span())),
        }
    }
    Ok(profiles)
}

/// Moves the keys of [`RENAMED`] to their new place, warning about each.
fn rename_old_keys<'i>(
    path: &Path,
    text: &str,
    root: &mut DeTable<'i>,
    warnings: &mut Vec<Warning>,
) -> Result<(), ConfigError> {
    for ((old_table, old_key), (new_table, new_key)) in RENAMED {
        let Some(table) = root.get_mut(*old_table).map(Spanned::get_mut) else {
            continue;
        };
        let DeValue::Table(table) = table else {
            continue;
        };
        let Some((key, value)) = table.remove_entry(*old_key) else {
            continue;
        };
        let line = line_of(text, key.span().start);
        warnings.push(Warning {
            path: path.to_owned(),
            line,
            old: format!("[{old_table}] {old_key}"),
            new: format!("[{new_table}] {new_key}"),
        });
        let span = key.span();
        let target = root
            .entry(Spanned::new(span.clone(), DeString::Borrowed(new_table)))
            .or_insert_with(|| Spanned::new(span.clone(), DeValue::Table(DeTable::new())));
        let DeValue::Table(target) = target.get_mut() else {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                line: Some(line),
                text: None,
                message: format!("`{new_table}` must be a table"),
            });
        };
        if target.contains_key(*new_key) {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                line: Some(line),
                text: None,
                message: format!(
                    "`[{old_table}] {old_key}` and `[{new_table}] {new_key}` are the same key: keep only `[{new_table}] {new_key}`"
                ),
            });
        }
        target.insert(Spanned::new(span, DeString::Borrowed(new_key)), value);
    }
    Ok(())
}

/// The server file's `[provider]` table: its keys are keel.toml's top-level keys.
fn hoist_provider_table(
    path: &Path,
    text: &str,
    root: &mut DeTable<'_>,
) -> Result<(), ConfigError> {
    let is_table = matches!(
        root.get("provider").map(Spanned::get_ref),
        Some(DeValue::Table(_))
    );
    if !is_table {
        return Ok(());
    }
    let Some(value) = root.remove("provider") else {
        return Ok(());
    };
    let DeValue::Table(table) = value.into_inner() else {
        return Ok(());
    };
    for (key, value) in table {
        if root.contains_key(key.get_ref().as_ref()) {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                line: Some(line_of(text, key.span().start)),
                text: None,
                message: format!(
                    "`{}` is set both at the top level and in `[provider]`: keep one",
                    key.get_ref()
                ),
            });
        }
        root.insert(key, value);
    }
    Ok(())
}

/// The JSON Schema of [`FileConfig`] (what unknown keys are checked against).
pub(crate) fn schema_root() -> &'static Json {
    static SCHEMA: LazyLock<Json> =
        LazyLock::new(|| schemars::schema_for!(FileConfig).as_value().clone());
    &SCHEMA
}

/// Follows `$ref` to `#/$defs/…`, and an `anyOf`/`oneOf` to its branch that is a table.
fn resolve(node: &Json) -> &Json {
    let root = schema_root();
    let mut node = node;
    for _ in 0..8 {
        if let Some(reference) = node.get("$ref").and_then(Json::as_str) {
            let name = reference.trim_start_matches("#/$defs/");
            match root.get("$defs").and_then(|d| d.get(name)) {
                Some(found) => {
                    node = found;
                    continue;
                }
                None => return node,
            }
        }
        let branches = node
            .get("anyOf")
            .or_else(|| node.get("oneOf"))
            .and_then(Json::as_array);
        if let Some(branches) = branches {
            let table = branches
                .iter()
                .map(resolve)
                .find(|b| b.get("properties").is_some() || b.get("additionalProperties").is_some());
            if let Some(table) = table {
                return table;
            }
        }
        return node;
    }
    node
}

/// Checks every key of `table` (and of the tables in it) against `node`'s schema.
fn check_keys(
    path: &Path,
    text: &str,
    table: &DeTable<'_>,
    node: &Json,
    prefix: &str,
    also_known: &[&str],
) -> Result<(), ConfigError> {
    let node = resolve(node);
    let properties = node.get("properties").and_then(Json::as_object);
    let additional = node.get("additionalProperties");
    for (key, value) in table {
        let name: &str = key.get_ref();
        let child = match properties.and_then(|p| p.get(name)) {
            Some(child) => Some(child),
            None => match additional {
                Some(Json::Bool(false)) if !also_known.contains(&name) => {
                    let mut known: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    known.extend(also_known);
                    return Err(ConfigError::UnknownKey {
                        path: path.to_owned(),
                        line: line_of(text, key.span().start),
                        key: format!("{prefix}{name}"),
                        suggestion: nearest(name, &known).map(|s| format!("{prefix}{s}")),
                    });
                }
                Some(schema @ Json::Object(_)) => Some(schema),
                _ => None,
            },
        };
        if let (Some(child), DeValue::Table(inner)) = (child, value.get_ref()) {
            check_keys(path, text, inner, child, &format!("{prefix}{name}."), &[])?;
        }
    }
    Ok(())
}

/// The known key most like `key`, when one is close enough to be a slip: the fewest edits
/// (a swap of two letters counting as one), then the nearest length, then the most alike
/// (Jaro-Winkler).
pub(crate) fn nearest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let most = (key.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| {
            let edits = strsim::damerau_levenshtein(key, k);
            let length = key.len().abs_diff(k.len());
            (edits, length, strsim::jaro_winkler(key, k), *k)
        })
        .filter(|(edits, _, similar, _)| *edits <= most || *similar >= 0.9)
        .min_by(|a, b| {
            (a.0, a.1)
                .cmp(&(b.0, b.1))
                .then_with(|| b.2.total_cmp(&a.2))
        })
        .map(|(_, _, _, k)| k)
}
