//! Tool calls in an answer that the streaming reader ([`super::stream`]) took for text: what
//! small models write when they mean to call a tool but do not follow their template.
//!
//! Read after the answer is complete, when it holds no call, so nothing about streaming
//! changes for models that write their calls properly. Recognised:
//!
//! - `<tool_call>…</tool_call>` with almost-JSON inside (see [`super::repair`]);
//! - the prompt's tool list echoed back: `<tools>` holding call objects, one per line or a
//!   JSON list;
//! - fenced blocks (```` ```json ````, ```` ``` ````) holding one call, several, or a list,
//!   after prose but ending the answer (a block followed by more prose quotes a call, it does
//!   not make one);
//! - the whole answer a call object or a list of them, almost-JSON allowed.
//!
//! A call object is `{"name": …, "arguments" | "parameters": {…}}` (or the OpenAI shape). Its
//! name may be one the request did not offer: the call is then answered "unknown tool" like a
//! native one, instead of its text passing for the final answer. A call whose arguments cannot
//! be read even after repair is kept with the reason, so it is answered "not run, send it
//! again". A `<tool_response>` (or `<tool_result>`) the model wrote itself is never a result:
//! the answer is read up to it, and that it was there is reported.

use serde_json::{Map, Value};

use super::repair::parse_values;

/// One call read from an answer's text.
#[derive(Debug, Clone, PartialEq)]
pub struct RecoveredCall {
    /// The tool's name as written.
    pub name: String,
    /// The arguments, or why they cannot be used.
    pub arguments: Result<Map<String, Value>, String>,
    /// Whether the arguments were only readable after [`super::repair`].
    pub repaired: bool,
}

/// What an answer without calls turned out to hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Recovered {
    /// Calls, after `prose` (the answer's text before them).
    Calls {
        /// The text before the first call.
        prose: String,
        /// The calls, in order.
        calls: Vec<RecoveredCall>,
        /// The model also wrote a tool result itself (it was cut off).
        made_up_result: bool,
    },
    /// A tool result the model wrote itself, with no call: it pretended a tool ran.
    MadeUpResult,
}

/// Tags that open a result only a tool may write.
const RESULT_TAGS: [&str; 3] = ["<tool_response>", "<tool_result", "<function_results>"];

/// Tags that wrap call objects.
const CALL_TAGS: [(&str, &str); 3] = [
    ("<tool_call>", "</tool_call>"),
    ("<tools>", "</tools>"),
    ("<function_call>", "</function_call>"),
];

/// The calls or made-up result in `text`, an answer to a request that offered `tools`.
pub fn recover<S: AsRef<str>>(text: &str, tools: &[S]) -> Option<Recovered> {
    let tools: Vec<&str> = tools.iter().map(AsRef::as_ref).collect();
    if tools.is_empty() {
        return None;
    }
    let (text, made_up_result) = cut_at_result(text);
    let sections = sections(text);
    let mut calls = Vec::new();
    let mut prose_end = None;
    for section in &sections {
        // Outside a call tag, only what ends the answer is a call.
        if !section.wrapped && !text[section.end..].trim().is_empty() {
            continue;
        }
        let found = calls_in(section, &tools);
        if !found.is_empty() {
            prose_end.get_or_insert(section.start);
            calls.extend(found);
        }
    }
    match prose_end {
        Some(end) => Some(Recovered::Calls {
            prose: text[..end].trim_end().to_owned(),
            calls,
            made_up_result,
        }),
        None if made_up_result => Some(Recovered::MadeUpResult),
        None => None,
    }
}

/// `text` up to the first result tag, and whether there was one.
fn cut_at_result(text: &str) -> (&str, bool) {
    match RESULT_TAGS.iter().filter_map(|tag| text.find(tag)).min() {
        Some(at) => (&text[..at], true),
        None => (text, false),
    }
}

/// A stretch of the answer that may hold calls.
#[derive(Debug)]
struct Section<'a> {
    /// Where it starts in the answer (its tag or fence included).
    start: usize,
    /// Where it ends in the answer (its closing tag or fence included).
    end: usize,
    /// What is inside.
    body: &'a str,
    /// Inside a call tag: any call-shaped object counts, whatever its keys' order.
    wrapped: bool,
    /// Delimited (a tag or a fence): JSON broken inside it can still be a call the model
    /// is asked to send again. The bare answer has no such edge.
    delimited: bool,
}

/// The call tags, fenced blocks and (when the answer is nothing else) the bare JSON of `text`.
fn sections(text: &str) -> Vec<Section<'_>> {
    let mut found = Vec::new();
    for (open, close) in CALL_TAGS {
        let mut from = 0;
        while let Some(at) = text[from..].find(open).map(|i| i + from) {
            let inner = at + open.len();
            let end = text[inner..].find(close).map_or(text.len(), |i| i + inner);
            found.push(Section {
                start: at,
                end: (end + close.len()).min(text.len()),
                body: &text[inner..end],
                wrapped: true,
                delimited: true,
            });
            from = (end + close.len()).min(text.len());
        }
    }
    let mut from = 0;
    while let Some(at) = text[from..].find("```").map(|i| i + from) {
        let Some(newline) = text[at..].find('\n').map(|i| i + at) else {
            break;
        };
        let info = text[at + 3..newline].trim().to_ascii_lowercase();
        let inner = newline + 1;
        let end = text[inner..].find("```").map_or(text.len(), |i| i + inner);
        if matches!(
            info.as_str(),
            "" | "json" | "tool_call" | "tool_code" | "xml"
        ) {
            found.push(Section {
                start: at,
                end: (end + 3).min(text.len()),
                body: &text[inner..end],
                wrapped: false,
                delimited: true,
            });
        }
        from = (end + 3).min(text.len());
    }
    let trimmed = text.trim_start();
    if found.is_empty() && (trimmed.starts_with('{') || trimmed.starts_with('[')) {
        found.push(Section {
            start: text.len() - trimmed.len(),
            end: text.len(),
            body: trimmed,
            wrapped: false,
            delimited: false,
        });
    }
    found.sort_by_key(|s| s.start);
    // A fence inside a call tag (or the reverse) is one section: keep the outer one.
    let mut kept: Vec<Section<'_>> = Vec::new();
    for section in found {
        let inside = kept.iter().any(|k| {
            let k_end = k.body.as_ptr() as usize + k.body.len();
            let s_at = section.body.as_ptr() as usize;
            s_at >= k.body.as_ptr() as usize && s_at <= k_end
        });
        if !inside {
            kept.push(section);
        }
    }
    kept
}

/// The calls in one section.
fn calls_in(section: &Section<'_>, tools: &[&str]) -> Vec<RecoveredCall> {
    let wrapped = section.wrapped;
    let body = section.body.trim();
    // A fence inside a tag, or a tag inside a fence, is unwrapped once.
    let body = body
        .strip_prefix("```json")
        .or_else(|| body.strip_prefix("```"))
        .map_or(body, |b| b.trim_end().trim_end_matches("```"))
        .trim();
    if !(body.starts_with('{') || body.starts_with('[')) {
        return Vec::new();
    }
    match parse_values(body) {
        Ok((values, repaired)) => {
            let mut calls = Vec::new();
            for value in flatten(values) {
                match call_of(value, wrapped, tools) {
                    Some(mut call) => {
                        call.repaired |= repaired;
                        calls.push(call);
                    }
                    // One object that is not a call makes the block something else (an
                    // example, a config file): none of it is taken as calls.
                    None => return Vec::new(),
                }
            }
            calls
        }
        Err(error) if section.delimited => broken_call(body, &error, tools).into_iter().collect(),
        Err(_) => Vec::new(),
    }
}

/// Arrays of calls are their calls.
fn flatten(values: Vec<Value>) -> Vec<Value> {
    values
        .into_iter()
        .flat_map(|v| match v {
            Value::Array(items) => items,
            other => vec![other],
        })
        .collect()
}

/// The call a value describes. Outside a call tag the name must be an offered tool's, or the
/// object must have `arguments`/`parameters` beside its `name`.
fn call_of(value: Value, wrapped: bool, tools: &[&str]) -> Option<RecoveredCall> {
    let Value::Object(mut map) = value else {
        return None;
    };
    if let Some(Value::Object(function)) = map.remove("function") {
        return call_of(Value::Object(function), wrapped, tools);
    }
    if map.keys().any(|k| {
        !matches!(
            k.as_str(),
            "name" | "arguments" | "parameters" | "id" | "type"
        )
    }) {
        return None;
    }
    let name = match map.remove("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        _ => return None,
    };
    let has_arguments = map.contains_key("arguments") || map.contains_key("parameters");
    if !wrapped && !has_arguments && !tools.contains(&name.as_str()) {
        return None;
    }
    let arguments = match (map.remove("arguments"), map.remove("parameters")) {
        (Some(a), _) | (None, Some(a)) => arguments_of(a),
        (None, None) => Ok(Map::new()),
    };
    Some(RecoveredCall {
        name,
        arguments,
        repaired: false,
    })
}

/// Arguments as an object: an object, a string holding one (repaired if need be), or null.
fn arguments_of(value: Value) -> Result<Map<String, Value>, String> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        Value::String(text) if text.trim().is_empty() => Ok(Map::new()),
        Value::String(text) => match parse_values(&text) {
            Ok((values, _)) => match values.into_iter().next() {
                Some(Value::Object(map)) => Ok(map),
                _ => Err("the arguments are not a JSON object".to_owned()),
            },
            Err(error) => Err(format!("the arguments are not valid JSON ({error})")),
        },
        other => Err(format!("the arguments are {other}, not a JSON object")),
    }
}

/// A call whose JSON cannot be read even after repair, when it clearly names an offered tool
/// (`{"name": "read_file", …`): kept so the model is told to send it again.
fn broken_call(body: &str, error: &str, tools: &[&str]) -> Option<RecoveredCall> {
    let after = body.trim_start_matches(['{', '[', ' ', '\n', '\t']);
    let after = after.strip_prefix("\"name\"")?.trim_start();
    let after = after.strip_prefix(':')?.trim_start();
    let after = after.strip_prefix('"')?;
    let name = &after[..after.find('"')?];
    tools.contains(&name).then(|| RecoveredCall {
        name: name.to_owned(),
        arguments: Err(format!("its JSON could not be read ({error})")),
        repaired: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TOOLS: [&str; 3] = ["read_file", "execute_command", "replace_in_file"];

    fn read(text: &str) -> (String, Vec<RecoveredCall>, bool) {
        match recover(text, &TOOLS) {
            Some(Recovered::Calls {
                prose,
                calls,
                made_up_result,
            }) => (prose, calls, made_up_result),
            other => panic!("no calls in {text:?}: {other:?}"),
        }
    }

    fn args(call: &RecoveredCall) -> Value {
        Value::Object(call.arguments.clone().unwrap())
    }

    #[test]
    fn the_echoed_tools_block_with_several_calls() {
        // Seen from Qwen2.5-Coder-1.5B: the prompt's <tools> block echoed, an invented name.
        let (prose, calls, _) = read(
            "<tools>\n  {\"name\": \"read_file\", \"arguments\": {\"path\": \"tests/test_stats.py\"}}\n  {\"name\": \"run_command\", \"arguments\": {\"command\": \"pytest tests\", \"requires_approval\": true}}\n</tools>",
        );
        assert_eq!(prose, "");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(args(&calls[0]), json!({"path": "tests/test_stats.py"}));
        assert_eq!(calls[1].name, "run_command");
    }

    #[test]
    fn a_list_under_tools_and_a_list_as_the_answer() {
        let (_, calls, _) = read(
            "<tools>[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}]</tools>",
        );
        assert_eq!(calls.len(), 2);
        let (_, calls, _) = read("[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}]");
        assert_eq!(calls.len(), 1);
    }

    #[test]
    fn a_fenced_call_after_prose_with_a_python_string() {
        let (prose, calls, _) = read(
            "The bug is in the divisor.\n```json\n{\"name\": \"replace_in_file\", \"arguments\": {\"path\": \"calc/stats.py\", \"diff\": \"\"\"<<<<<<< SEARCH\n    return sum(values) / (len(values) - 1)\n=======\n    return sum(values) / len(values)\n>>>>>>> REPLACE\"\"\"}}\n```",
        );
        assert_eq!(prose, "The bug is in the divisor.");
        assert!(calls[0].repaired);
        assert_eq!(
            args(&calls[0])["diff"],
            "<<<<<<< SEARCH\n    return sum(values) / (len(values) - 1)\n=======\n    return sum(values) / len(values)\n>>>>>>> REPLACE"
        );
    }

    #[test]
    fn a_made_up_result_is_cut_off_and_reported() {
        let (_, calls, made_up) = read(
            "{\"name\": \"execute_command\", \"arguments\": {\"command\": \"pytest\"}}\n<tool_response>\nAll tests passed.\n</tool_response>\nThe tests pass.",
        );
        assert_eq!(calls.len(), 1);
        assert!(made_up);
        assert_eq!(
            recover("<tool_response>Test passed.</tool_response>", &TOOLS),
            Some(Recovered::MadeUpResult)
        );
    }

    #[test]
    fn unreadable_arguments_are_kept_to_be_answered() {
        let (_, calls, _) = read(
            "<tool_call>\n{\"name\": \"replace_in_file\", \"arguments\": {\"path\": \"a.py\", \"diff\": \"x\" + \"y\"}}\n</tool_call>",
        );
        assert_eq!(calls[0].name, "replace_in_file");
        assert!(calls[0].arguments.is_err());
        let (_, calls, _) =
            read("```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"\n```");
        assert!(
            calls[0]
                .arguments
                .as_ref()
                .unwrap_err()
                .contains("could not be read")
        );
    }

    #[test]
    fn the_openai_shape_and_string_arguments() {
        let (_, calls, _) = read(
            "{\"type\": \"function\", \"function\": {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"a\\\"}\"}}",
        );
        assert_eq!(args(&calls[0]), json!({"path": "a"}));
    }

    #[test]
    fn prose_code_and_examples_are_not_calls() {
        for text in [
            "The fix:\n```python\ndef mean(values):\n    return sum(values) / len(values)\n```",
            "Here is the config:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```",
            "```json\n{\"name\": \"read_file\", \"description\": \"Reads\"}\n```",
            "I changed `mean` to divide by len(values).",
            "{\"name\": \"something\"}",
            "{\"name\": \"read_file\", \"parameters\": {\"path\": \"a\"}} is the call the task describes.",
            "You would call it like this:\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```\n\nNo call is needed here.",
            "",
        ] {
            assert_eq!(recover(text, &TOOLS), None, "{text}");
        }
        assert_eq!(
            recover(
                "<tool_call>{\"name\": \"read_file\"}</tool_call>",
                &[] as &[&str]
            ),
            None
        );
    }
}
