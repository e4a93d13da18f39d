//! The XML tool-call convention (seed 004 §2.2) for models without native tool calling
//! ([`ToolFormat::Xml`](super::ToolFormat::Xml)).
//!
//! - The request carries no `tools`: [`tool_catalogue`] describes every tool (name,
//!   description, parameters from its JSON schema) and how to call it, for the system prompt.
//! - The model's text is parsed as it streams ([`XmlProvider`], on [`crate::xml`]): text outside
//!   tags stays text, `<thinking>` becomes reasoning, each complete tool block a tool call whose
//!   string parameters are converted to the types its schema asks for ([`coerce_arguments`]).
//! - History goes back in the same convention ([`to_xml_messages`]): an assistant message shows
//!   its calls as XML blocks after its text, and the results of one round come back as one user
//!   message of `<tool_result>` blocks.

use std::collections::HashMap;

use futures::StreamExt;
use keel_context::{ChatMessage, Role};
use serde_json::{Map, Value};

use crate::error::ProviderError;
use crate::provider::{ChatRequest, ItemStream, Provider, StreamItem};
use crate::xml::parse_tool_stream;

/// The system-prompt section describing the convention and every tool of `functions` (OpenAI
/// function definitions).
pub(crate) fn tool_catalogue(functions: &[Value]) -> String {
    let mut text = String::from(
        "## Tool use\n\n\
You call tools by writing XML in your answer; there is no other way to call them. The tool's \
name is the outer tag and each parameter is a child tag:\n\n\
<tool_name>\n<parameter_name>value</parameter_name>\n<other_parameter>value</other_parameter>\n</tool_name>\n\n\
For example:\n\n\
<read_file>\n<path>src/main.py</path>\n</read_file>\n\n\
Rules:\n\
- Write parameter values as they are, neither escaped nor quoted: file contents and SEARCH/REPLACE blocks go in verbatim.\n\
- Write numbers and booleans as plain text (`42`, `true`), and array or object parameters as JSON.\n\
- Leave out optional parameters you do not need.\n\
- You may call several tools in one answer; they run in order once your answer is complete, and their results come back in the next user message as <tool_result> blocks.\n\
- Think inside <thinking>…</thinking> when it helps; that text is shown as your reasoning.\n\
- Only the tool names listed below are tools; any other tag is plain text.\n\n\
### Tools",
    );
    for function in functions {
        let f = &function["function"];
        let Some(name) = f["name"].as_str() else {
            continue;
        };
        text.push_str("\n\n#### ");
        text.push_str(name);
        if let Some(description) = f["description"].as_str().filter(|d| !d.trim().is_empty()) {
            text.push('\n');
            text.push_str(description.trim());
        }
        let parameters = &f["parameters"];
        let required: Vec<&str> = parameters["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut usage = format!("<{name}>\n");
        if let Some(properties) = parameters["properties"].as_object()
            && !properties.is_empty()
        {
            text.push_str("\nParameters:");
            for (param, schema) in properties {
                let needed = if required.contains(&param.as_str()) {
                    "required"
                } else {
                    "optional"
                };
                text.push_str(&format!(
                    "\n- {param} ({}, {needed})",
                    type_name(schema, parameters)
                ));
                if let Some(description) = schema["description"]
                    .as_str()
                    .filter(|d| !d.trim().is_empty())
                {
                    text.push_str(": ");
                    text.push_str(&description.trim().replace('\n', " "));
                }
                if needed == "required" {
                    usage.push_str(&format!("<{param}>…</{param}>\n"));
                }
            }
        }
        usage.push_str(&format!("</{name}>"));
        text.push_str("\nUsage:\n");
        text.push_str(&usage);
    }
    text
}

/// A short type name for a parameter's schema (`string`, `integer or null`, `array`, …).
fn type_name(schema: &Value, root: &Value) -> String {
    let types = schema_types(schema, root);
    if types.is_empty() {
        "any".to_owned()
    } else {
        types.join(" or ")
    }
}

/// The JSON types a schema admits (empty when it does not say).
fn schema_types(schema: &Value, root: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    collect_types(schema, root, &mut out, 0);
    out
}

fn collect_types(schema: &Value, root: &Value, out: &mut Vec<String>, depth: usize) {
    // References may be recursive: a few levels are enough to find a type.
    if depth > 8 {
        return;
    }
    let mut push = |t: &str| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    };
    match &schema["type"] {
        Value::String(t) => push(t),
        Value::Array(list) => list.iter().filter_map(Value::as_str).for_each(&mut push),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema[key].as_array() {
            for option in options {
                collect_types(option, root, out, depth + 1);
            }
        }
    }
    if let Some(reference) = schema["$ref"].as_str()
        && let Some(target) = resolve_ref(reference, root)
    {
        collect_types(target, root, out, depth + 1);
    }
    if out.is_empty() && schema.get("enum").is_some() {
        out.push("string".to_owned());
    }
}

/// A local `#/$defs/Name` (or `#/definitions/Name`) reference.
fn resolve_ref<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let path = reference.strip_prefix("#/")?;
    let mut node = root;
    for part in path.split('/') {
        node = node.get(part)?;
    }
    Some(node)
}

/// Converts the string parameters of an XML call to the types `parameters` (the tool's JSON
/// schema) asks for: numbers, booleans, arrays and objects are parsed; anything that does not
/// parse stays a string, so the tool reports a precise argument error.
pub(crate) fn coerce_arguments(
    arguments: Map<String, Value>,
    parameters: &Value,
) -> Map<String, Value> {
    arguments
        .into_iter()
        .map(|(key, value)| {
            let value = match (&value, parameters["properties"].get(&key)) {
                (Value::String(text), Some(schema)) => coerce(text, schema, parameters),
                _ => value,
            };
            (key, value)
        })
        .collect()
}

fn coerce(text: &str, schema: &Value, root: &Value) -> Value {
    let types = schema_types(schema, root);
    let trimmed = text.trim();
    let admits = |t: &str| types.iter().any(|x| x == t);
    if types.is_empty() {
        // Unknown shape: structured values written as JSON are taken as such.
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            return serde_json::from_str(trimmed)
                .unwrap_or_else(|_| Value::String(text.to_owned()));
        }
        return Value::String(text.to_owned());
    }
    if admits("string") {
        return Value::String(text.to_owned());
    }
    if admits("null") && (trimmed.is_empty() || trimmed == "null") {
        return Value::Null;
    }
    if admits("boolean") {
        match trimmed.to_ascii_lowercase().as_str() {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ => {}
        }
    }
    if (admits("integer") || admits("number") || admits("array") || admits("object"))
        && let Ok(parsed) = serde_json::from_str::<Value>(trimmed)
    {
        let fits = match &parsed {
            Value::Number(n) => admits("number") || (admits("integer") && !n.is_f64()),
            Value::Array(_) => admits("array"),
            Value::Object(_) => admits("object"),
            _ => false,
        };
        if fits {
            return parsed;
        }
    }
    Value::String(text.to_owned())
}

/// One call as an XML block: `<name>`, one child tag per argument (strings verbatim, other
/// values as JSON), `</name>` — the rendering seed 004's `tool_xml` uses too
/// ([`keel_events::projection::tool_xml`]). Arguments that are not a JSON object are written as
/// they are.
pub(crate) fn call_block(name: &str, arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => keel_events::projection::tool_xml(name, &value),
        _ if arguments.trim().is_empty() || arguments.trim() == "{}" => {
            format!("<{name}>\n</{name}>")
        }
        _ => format!("<{name}>\n{arguments}\n</{name}>"),
    }
}

/// One tool result as a `<tool_result>` block.
fn result_block(name: &str, content: &str) -> String {
    let newline = if content.ends_with('\n') { "" } else { "\n" };
    format!("<tool_result tool_name=\"{name}\">\n{content}{newline}</tool_result>")
}

/// The prompt's messages in the XML convention: no tool calls and no tool messages. An
/// assistant message's calls follow its text as XML blocks; each run of tool results becomes
/// one user message of `<tool_result>` blocks.
pub(crate) fn to_xml_messages(messages: Vec<ChatMessage>) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(messages.len());
    let mut results: Vec<String> = Vec::new();
    let flush = |out: &mut Vec<ChatMessage>, results: &mut Vec<String>| {
        if !results.is_empty() {
            out.push(ChatMessage::user(results.join("\n\n")));
            results.clear();
        }
    };
    for message in messages {
        match message.role {
            Role::Tool => {
                let name = message.name.as_deref().unwrap_or("tool");
                results.push(result_block(name, &message.content));
            }
            Role::Assistant => {
                flush(&mut out, &mut results);
                let mut parts: Vec<String> = Vec::new();
                if !message.content.trim().is_empty() {
                    parts.push(message.content.trim_end().to_owned());
                }
                parts.extend(
                    message
                        .tool_calls
                        .iter()
                        .map(|call| call_block(&call.name, &call.arguments)),
                );
                out.push(ChatMessage::assistant(parts.join("\n\n"), Vec::new()));
            }
            Role::System | Role::User => {
                flush(&mut out, &mut results);
                out.push(message);
            }
        }
    }
    flush(&mut out, &mut results);
    out
}

/// A provider wrapper for models without native tool calling: the inner provider's text is
/// parsed for XML tool calls as it streams, and each call's arguments are converted to the
/// types of its tool's schema.
pub(crate) struct XmlProvider<'a> {
    /// The model's provider.
    pub(crate) inner: &'a dyn Provider,
    /// Parameter schemas by tool name (the tools the parser recognises).
    pub(crate) schemas: HashMap<String, Value>,
}

impl<'a> XmlProvider<'a> {
    /// A wrapper recognising the tools of `functions` (OpenAI function definitions).
    pub(crate) fn new(inner: &'a dyn Provider, functions: &[Value]) -> Self {
        let schemas = functions
            .iter()
            .filter_map(|f| {
                let name = f["function"]["name"].as_str()?;
                Some((name.to_owned(), f["function"]["parameters"].clone()))
            })
            .collect();
        Self { inner, schemas }
    }
}

#[async_trait::async_trait]
impl Provider for XmlProvider<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn stream(&self, request: &ChatRequest) -> Result<ItemStream, ProviderError> {
        let inner = self.inner.stream(request).await?;
        let parsed = parse_tool_stream(inner, self.schemas.keys().cloned().collect::<Vec<_>>());
        let schemas = self.schemas.clone();
        Ok(Box::pin(parsed.map(move |item| match item {
            Ok(StreamItem::ToolCall(mut delta)) => {
                if let (Some(name), Ok(Value::Object(args))) = (
                    delta.name.as_deref(),
                    serde_json::from_str::<Value>(&delta.arguments),
                ) && let Some(schema) = schemas.get(name)
                {
                    delta.arguments = Value::Object(coerce_arguments(args, schema)).to_string();
                }
                Ok(StreamItem::ToolCall(delta))
            }
            other => other,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_context::ToolCallRequest;
    use serde_json::json;

    fn read_file() -> Value {
        json!({"type": "function", "function": {
            "name": "read_file",
            "description": "Reads a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Relative path."},
                    "start_line": {"type": ["integer", "null"], "description": "First line."},
                    "verbose": {"type": "boolean"},
                    "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                    "mode": {"$ref": "#/$defs/Mode"}
                },
                "required": ["path"],
                "$defs": {"Step": {"type": "object"}, "Mode": {"type": "string", "enum": ["a", "b"]}}
            }
        }})
    }

    #[test]
    fn catalogue_lists_tools_parameters_and_the_convention() {
        let text = tool_catalogue(&[read_file()]);
        assert!(text.contains("<read_file>\n<path>src/main.py</path>\n</read_file>"));
        assert!(text.contains("#### read_file\nReads a file."));
        assert!(text.contains("- path (string, required): Relative path."));
        assert!(text.contains("- start_line (integer or null, optional): First line."));
        assert!(text.contains("- mode (string, optional)"));
        assert!(text.contains("Usage:\n<read_file>\n<path>…</path>\n</read_file>"));
    }

    #[test]
    fn arguments_take_their_schema_types() {
        let schema = read_file()["function"]["parameters"].clone();
        let args = json!({"path": "42", "start_line": "7", "verbose": "TRUE",
                          "steps": "[{\"title\": \"x\"}]", "mode": "a", "other": "1"});
        let Value::Object(args) = args else { panic!() };
        let coerced = coerce_arguments(args, &schema);
        assert_eq!(
            Value::Object(coerced),
            json!({"path": "42", "start_line": 7, "verbose": true,
                   "steps": [{"title": "x"}], "mode": "a", "other": "1"})
        );
        let Value::Object(bad) = json!({"start_line": "seven", "verbose": "maybe"}) else {
            panic!()
        };
        assert_eq!(
            Value::Object(coerce_arguments(bad, &schema)),
            json!({"start_line": "seven", "verbose": "maybe"})
        );
    }

    #[test]
    fn history_is_rewritten_in_the_convention() {
        let messages = vec![
            ChatMessage::system("sys"),
            ChatMessage::user("task"),
            ChatMessage::assistant(
                "Reading.",
                vec![
                    ToolCallRequest::new("a", "read_file", r#"{"path":"x.py","start_line":3}"#),
                    ToolCallRequest::new("b", "list_files", "{}"),
                ],
            ),
            ChatMessage::tool("a", "read_file", "print(1)\n"),
            ChatMessage::tool("b", "list_files", "x.py"),
            ChatMessage::assistant("Done.", Vec::new()),
        ];
        let out = to_xml_messages(messages);
        assert_eq!(out.len(), 5);
        assert!(
            out.iter()
                .all(|m| m.tool_calls.is_empty() && m.role != Role::Tool)
        );
        assert_eq!(
            out[2].content,
            "Reading.\n\n<read_file>\n<path>x.py</path>\n<start_line>3</start_line>\n</read_file>\n\n<list_files>\n</list_files>"
        );
        assert_eq!(out[3].role, Role::User);
        assert_eq!(
            out[3].content,
            "<tool_result tool_name=\"read_file\">\nprint(1)\n</tool_result>\n\n<tool_result tool_name=\"list_files\">\nx.py\n</tool_result>"
        );
        assert_eq!(out[4].content, "Done.");
    }
}
