//! Tool definitions for small prompts (the compact tool profile): a tool's one-line
//! [`brief`](crate::Tool::brief) and its parameters reduced to names, types and which are
//! required. A small model reads a third of the tokens of the full definitions and is shown
//! nothing it can misread as part of a call.

use serde_json::{Map, Value, json};

use crate::tool::Tool;

/// `tool` as a compact OpenAI function definition, when it has a brief description.
pub fn compact_function(tool: &dyn Tool) -> Option<Value> {
    let brief = tool.brief()?;
    Some(json!({
        "type": "function",
        "function": {
            "name": tool.name(),
            "description": brief,
            "parameters": compact_parameters(&tool.parameters()),
        }
    }))
}

/// A parameters schema reduced to `type: object`, each property's type, and `required`.
pub fn compact_parameters(schema: &Value) -> Value {
    let mut properties = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in props {
            let mut compact = Map::new();
            if let Some(kind) = base_type(property) {
                compact.insert("type".to_owned(), Value::String(kind.to_owned()));
            }
            if let Some(items) = property.get("items").and_then(base_type) {
                compact.insert("items".to_owned(), json!({"type": items}));
            }
            properties.insert(name.clone(), Value::Object(compact));
        }
    }
    let mut out = json!({"type": "object", "properties": properties});
    if let Some(required) = schema.get("required").filter(|r| r.is_array()) {
        out["required"] = required.clone();
    }
    out
}

/// The one type a property takes, `null` aside (`["integer", "null"]` is `integer`).
fn base_type(property: &Value) -> Option<&str> {
    match property.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin;

    #[test]
    fn parameters_keep_names_types_and_required() {
        let full = json!({
            "type": "object",
            "description": "Arguments of `read_file`.",
            "additionalProperties": false,
            "required": ["path"],
            "properties": {
                "path": {"type": "string", "description": "Path of the file."},
                "start_line": {"type": ["integer", "null"], "format": "uint", "minimum": 1, "default": null},
                "tags": {"type": "array", "items": {"type": "string", "description": "x"}}
            }
        });
        assert_eq!(
            compact_parameters(&full),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "start_line": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["path"]
            })
        );
    }

    #[test]
    fn only_tools_with_a_brief_have_a_compact_form() {
        let read = compact_function(&builtin::ReadFile).unwrap();
        assert_eq!(read["function"]["name"], "read_file");
        assert!(read.to_string().len() < 300, "{read}");
        assert!(compact_function(&builtin::ListPackageInfo).is_none());
        // execute_command needs only the command.
        let run = compact_function(&builtin::ExecuteCommand::default()).unwrap();
        assert_eq!(
            run["function"]["parameters"]["required"],
            json!(["command"])
        );
    }
}
