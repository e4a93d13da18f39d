//! The conversation as a model offered no tools reads it: the edits Keel made from its answers
//! (files and definitions it gave whole in code blocks, [`super::whole_file`] and
//! [`super::definition_edit`]) are shown as such code blocks again, and what came of them as
//! Keel's words. Recorded as tool calls, they reach the model as JSON (`{"content": "use
//! std::fmt;\n…"}`) through its chat template; a small model that reads its own edits that way
//! writes its next file with `\"` and `\n` in the code.

use std::collections::HashSet;

use keel_context::prompt::language_of;
use keel_context::{ChatMessage, Role, ToolCallRequest};
use serde_json::Value;

/// The edit tools whose calls are shown as code blocks.
const EDIT_TOOLS: &[&str] = &["write_file", "replace_in_file"];

/// `messages` with each assistant message whose calls are all edits of [`EDIT_TOOLS`] shown
/// as the code blocks they write, and those calls' results as one user message after it.
/// Other messages are left as they are.
pub(crate) fn edits_as_text(messages: Vec<ChatMessage>) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(messages.len());
    let mut shown: HashSet<String> = HashSet::new();
    let mut results: Vec<String> = Vec::new();
    let flush = |out: &mut Vec<ChatMessage>, results: &mut Vec<String>| {
        if !results.is_empty() {
            out.push(ChatMessage::user(results.join("\n\n")));
            results.clear();
        }
    };
    for message in messages {
        let answers_shown = message.role == Role::Tool
            && message
                .tool_call_id
                .as_ref()
                .is_some_and(|id| shown.contains(id));
        if answers_shown {
            results.push(message.content);
            continue;
        }
        flush(&mut out, &mut results);
        let blocks: Option<Vec<String>> = (message.role == Role::Assistant
            && !message.tool_calls.is_empty())
        .then(|| message.tool_calls.iter().map(edit_block).collect())
        .flatten();
        match blocks {
            Some(blocks) => {
                shown.extend(message.tool_calls.iter().map(|call| call.id.clone()));
                let mut parts: Vec<String> = Vec::new();
                let prose = without_path_line(&message.content, &message.tool_calls);
                if !prose.trim().is_empty() {
                    parts.push(prose.trim_end().to_owned());
                }
                parts.extend(blocks);
                out.push(ChatMessage::assistant(parts.join("\n\n"), Vec::new()));
            }
            None => out.push(message),
        }
    }
    flush(&mut out, &mut results);
    out
}

/// `prose` without its last line when that line names the file of the first of `calls` (the
/// line the model wrote above the code block, which the block shows again).
fn without_path_line<'p>(prose: &'p str, calls: &[ToolCallRequest]) -> &'p str {
    let trimmed = prose.trim_end();
    let (before, last) = trimmed.rsplit_once('\n').unwrap_or(("", trimmed));
    let path = calls
        .first()
        .and_then(|call| serde_json::from_str::<Value>(&call.arguments).ok())
        .and_then(|arguments| arguments["path"].as_str().map(str::to_owned));
    let names_it = path.is_some_and(|path| {
        last.trim()
            .trim_matches(|c: char| matches!(c, '`' | '*' | ':' | '#' | ' '))
            == path
    });
    if names_it { before } else { prose }
}

/// An edit call as the code block that gives what it writes: a whole file's content, or
/// the lines a SEARCH/REPLACE diff puts in; `None` for any other call.
fn edit_block(call: &ToolCallRequest) -> Option<String> {
    if !EDIT_TOOLS.contains(&call.name.as_str()) {
        return None;
    }
    let arguments: Value = serde_json::from_str(&call.arguments).ok()?;
    let path = arguments["path"].as_str()?;
    let code = match call.name.as_str() {
        "write_file" => arguments["content"].as_str()?.trim_end().to_owned(),
        _ => {
            let blocks = keel_tools::search_replace::parse(arguments["diff"].as_str()?).ok()?;
            let pieces: Vec<String> = blocks.iter().map(|b| b.replace.join("\n")).collect();
            pieces.join("\n\n")
        }
    };
    Some(format!("`{path}`\n```{}\n{code}\n```", language_of(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, arguments: Value) -> ToolCallRequest {
        ToolCallRequest::new(id, name, arguments.to_string())
    }

    fn result(id: &str, name: &str, content: &str) -> ChatMessage {
        ChatMessage::tool(id, name, content)
    }

    #[test]
    fn a_written_file_reads_as_the_code_block_the_model_wrote() {
        let code = "fn main() {\n    println!(\"hi\\n\");\n}\n";
        let messages = vec![
            ChatMessage::user("Make it greet."),
            ChatMessage::assistant(
                "Here it is:",
                vec![call(
                    "c1",
                    "write_file",
                    serde_json::json!({"path": "src/main.rs", "content": code}),
                )],
            ),
            result("c1", "write_file", "Updated `src/main.rs`."),
            ChatMessage::user("The tests fail."),
        ];
        let shown = edits_as_text(messages);
        assert_eq!(shown.len(), 4);
        assert_eq!(
            shown[1].content,
            format!(
                "Here it is:\n\n`src/main.rs`\n```rust\n{}\n```",
                code.trim_end()
            )
        );
        assert!(shown[1].tool_calls.is_empty());
        assert_eq!(shown[2].role, Role::User);
        assert_eq!(shown[2].content, "Updated `src/main.rs`.");
        assert_eq!(shown[3].content, "The tests fail.");
    }

    #[test]
    fn the_path_line_above_the_block_is_not_repeated() {
        let messages = vec![ChatMessage::assistant(
            "Fixed it.\n\n`a.py`\n",
            vec![call(
                "c1",
                "write_file",
                serde_json::json!({"path": "a.py", "content": "x = 1\n"}),
            )],
        )];
        let shown = edits_as_text(messages);
        assert_eq!(
            shown[0].content,
            "Fixed it.\n\n`a.py`\n```python\nx = 1\n```"
        );
    }

    #[test]
    fn a_replaced_definition_reads_as_the_new_definition() {
        let diff =
            "<<<<<<< SEARCH\ndef f():\n    pass\n=======\ndef f():\n    return 1\n>>>>>>> REPLACE";
        let messages = vec![
            ChatMessage::assistant(
                "",
                vec![call(
                    "c1",
                    "replace_in_file",
                    serde_json::json!({"path": "m.py", "diff": diff}),
                )],
            ),
            result("c1", "replace_in_file", "Applied 1 block."),
        ];
        let shown = edits_as_text(messages);
        assert_eq!(
            shown[0].content,
            "`m.py`\n```python\ndef f():\n    return 1\n```"
        );
        assert_eq!(shown[1].content, "Applied 1 block.");
    }

    #[test]
    fn other_calls_stay_calls() {
        let messages = vec![
            ChatMessage::assistant(
                "",
                vec![
                    call(
                        "c1",
                        "write_file",
                        serde_json::json!({"path": "a.py", "content": "x"}),
                    ),
                    call("c2", "read_file", serde_json::json!({"path": "b.py"})),
                ],
            ),
            result("c1", "write_file", "Updated."),
            result("c2", "read_file", "y"),
        ];
        let shown = edits_as_text(messages.clone());
        assert_eq!(shown, messages);
    }
}
