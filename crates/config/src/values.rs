//! How values are checked as they are read: names parsed by the types' own `FromStr` (the names
//! the flags accept), numbers in range, model chains, file and library names, prices; and the
//! JSON Schema of the values read by name.

use std::fmt;
use std::path::{Component, Path};
use std::str::FromStr;

use schemars::{Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

/// Splits a comma-separated model chain (`"a, b"`) into its names.
pub fn split_models(chain: &str) -> Vec<String> {
    keel_host::split_models(chain)
}

/// Parses a value by its name with `FromStr`.
pub(crate) fn from_name<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let name = String::deserialize(deserializer)?;
    name.parse::<T>().map(Some).map_err(de::Error::custom)
}

pub(crate) fn temperature<'de, D>(deserializer: D) -> Result<Option<f32>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = f32::deserialize(deserializer)?;
    keel_engine::Sampling::temperature(value)
        .map(Some)
        .map_err(de::Error::custom)
}

pub(crate) fn top_p<'de, D>(deserializer: D) -> Result<Option<f32>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = f32::deserialize(deserializer)?;
    keel_engine::Sampling::top_p(value)
        .map(Some)
        .map_err(de::Error::custom)
}

pub(crate) fn at_least_one<'de, D>(deserializer: D) -> Result<Option<u32>, D::Error>
where
    D: Deserializer<'de>,
{
    match u32::deserialize(deserializer)? {
        0 => Err(de::Error::custom("must be at least 1")),
        n => Ok(Some(n)),
    }
}

pub(crate) fn at_least_one_u64<'de, D>(deserializer: D) -> Result<Option<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    match u64::deserialize(deserializer)? {
        0 => Err(de::Error::custom("must be at least 1")),
        n => Ok(Some(n)),
    }
}

/// `model = "a"`, `model = "a,b"` or `model = ["a", "b"]`.
pub(crate) fn model_list<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    struct Models;

    impl<'de> Visitor<'de> for Models {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a model name or a list of model names")
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
            Ok(split_models(value))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut models = Vec::new();
            while let Some(model) = seq.next_element::<String>()? {
                models.extend(split_models(&model));
            }
            Ok(models)
        }
    }

    let models = deserializer.deserialize_any(Models)?;
    if models.is_empty() {
        return Err(de::Error::custom("names no model"));
    }
    Ok(Some(models))
}

/// `instructions_files = ["CLAUDE.md", "docs/RULES.md"]`: relative paths without `..`.
pub(crate) fn instruction_files<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let names = Vec::<String>::deserialize(deserializer)?;
    for name in &names {
        let path = Path::new(name.trim());
        let escapes = path
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if name.trim().is_empty() || escapes {
            return Err(de::Error::custom(format!(
                "`{name}` is not a file name: give a path relative to the folder it is looked up in, without `..`"
            )));
        }
    }
    Ok(Some(names))
}

/// `libraries = ["tokio"]`: dependency names, no paths or blanks.
pub(crate) fn library_names<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let names = Vec::<String>::deserialize(deserializer)?;
    for name in &names {
        let bad = name.trim().is_empty()
            || name.contains("..")
            || name.chars().any(|c| c.is_whitespace() || c.is_control());
        if bad {
            return Err(de::Error::custom(format!(
                "`{name}` is not a library name: give a dependency's name as the project declares it, e.g. \"tokio\""
            )));
        }
    }
    Ok(Some(names))
}

/// A price: a finite number, not negative.
pub(crate) fn dollars<'de, D>(deserializer: D) -> Result<f64, D::Error>
where
    D: Deserializer<'de>,
{
    let value = f64::deserialize(deserializer)?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(de::Error::custom(
            "must be a price in US dollars per million tokens (0 or more)",
        ))
    }
}

pub(crate) fn some_dollars<'de, D>(deserializer: D) -> Result<Option<f64>, D::Error>
where
    D: Deserializer<'de>,
{
    dollars(deserializer).map(Some)
}

/// A string that is one of `names`.
fn names(names: &[&str]) -> Schema {
    json_schema!({ "type": "string", "enum": names })
}

pub(crate) fn approval_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["never", "on-dangerous", "always", "deny-dangerous"])
}

pub(crate) fn commit_when_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["turn", "off"])
}

pub(crate) fn mode_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["auto", "direct", "plan"])
}

pub(crate) fn approval_edits_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["ask", "never"])
}

pub(crate) fn tool_format_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["native", "xml"])
}

pub(crate) fn tool_profile_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["auto", "full", "compact"])
}

pub(crate) fn color_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["auto", "always", "never"])
}

pub(crate) fn sandbox_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["read-only", "workspace-write", "off"])
}

pub(crate) fn fallback_schema(_: &mut SchemaGenerator) -> Schema {
    names(&["refuse", "warn"])
}

pub(crate) fn model_list_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "string", "minLength": 1 },
            { "type": "array", "items": { "type": "string" }, "minItems": 1 }
        ]
    })
}
