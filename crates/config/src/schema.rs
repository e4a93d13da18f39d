//! The JSON Schema of `keel.toml` for editors (`schemas/keel.toml.schema.json`), generated from
//! [`crate::FileConfig`] by `cargo xtask codegen` and drift-checked with the other generated
//! files.

use serde_json::Value;

/// Where the schema is committed, from the repository root.
pub const PATH: &str = "schemas/keel.toml.schema.json";

/// The schema: every key of [`crate::FileConfig`], and `[profiles.NAME]` tables holding the
/// same keys.
pub fn generate() -> Value {
    let mut schema = crate::parse::schema_root().clone();
    if let Some(object) = schema.as_object_mut() {
        object.insert(
            "$id".to_owned(),
            Value::String("https://keel.invalid/schemas/keel.toml.schema.json".to_owned()),
        );
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.insert(
                crate::PROFILES.to_owned(),
                serde_json::json!({
                    "description": "`[profiles.NAME]`: keys layered over this file's top level when `--profile NAME` is given.",
                    "type": "object",
                    "additionalProperties": { "$ref": "#/$defs/Profile" }
                }),
            );
        }
        let mut profile = crate::parse::schema_root().clone();
        if let Some(profile) = profile.as_object_mut() {
            profile.remove("$schema");
            profile.remove("$defs");
            profile.insert(
                "title".to_owned(),
                Value::String("a profile: the keys of keel.toml".to_owned()),
            );
        }
        if let Some(Value::Object(defs)) = object.get_mut("$defs") {
            defs.insert("Profile".to_owned(), profile);
        }
    }
    schema
}

/// The schema as committed: pretty JSON with a final newline.
pub fn contents() -> String {
    let mut text = serde_json::to_string_pretty(&generate()).unwrap_or_default();
    text.push('\n');
    text
}
