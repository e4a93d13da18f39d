//! De-duplication (seed 002 §3.2.1): how a tool result is repeated in later requests.
//!
//! The first time the model sees a result it is complete. In later requests (history):
//!
//! | tool | history keeps |
//! |---|---|
//! | `read_file` | a short reference, the full content being in the focused-files section |
//! | `write_file` / `write_to_file` / `replace_in_file` | a short reference; the call's `content`/`diff` argument is shortened too |
//! | `execute_command` | the output capped at 2,000 characters (head and tail) |
//! | `search_files` and anything else | the whole result |
//!
//! A reference is used only while the file is focused; otherwise (evicted, too large, read by
//! range) the result is capped like command output. Failed results are kept, capped.
//!
//! Under the Chinese locale the references and the cap's note are seed 002's own words:
//! `[已读取 {path}，完整内容见 focused_files]`, `[已写入 {path}，操作成功]` and
//! `... [截断，完整输出 {N} 字符]`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use keel_events::Lang;
use serde::{Deserialize, Serialize};

use crate::conversation::ToolMessage;
use crate::focused_files::FocusedFiles;
use crate::message::ToolCallRequest;

/// Characters of command output (and of other capped results) kept in history.
pub const HISTORY_CAP_CHARS: usize = 2_000;

/// Argument strings of file-writing calls longer than this are shortened in history.
const LONG_ARGUMENT_CHARS: usize = 200;

/// How a tool's result is repeated in history.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Retention {
    /// The whole result, every time (search results, short answers).
    #[default]
    Whole,
    /// A reference to the focused file the result read.
    FileRead,
    /// A reference to the focused file the call wrote.
    FileWrite,
    /// The result capped at `max_chars` characters, keeping its head and tail.
    Capped {
        /// Characters kept.
        max_chars: usize,
    },
}

/// Which retention each tool gets, and where a call names its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionPolicy {
    rules: BTreeMap<String, Retention>,
    default: Retention,
    path_keys: Vec<String>,
    lang: Lang,
}

impl Default for RetentionPolicy {
    fn default() -> Self {
        let rules = [
            ("read_file", Retention::FileRead),
            ("write_file", Retention::FileWrite),
            ("write_to_file", Retention::FileWrite),
            ("replace_in_file", Retention::FileWrite),
            (
                "execute_command",
                Retention::Capped {
                    max_chars: HISTORY_CAP_CHARS,
                },
            ),
            ("search_files", Retention::Whole),
        ]
        .into_iter()
        .map(|(name, retention)| (name.to_owned(), retention))
        .collect();
        Self {
            rules,
            default: Retention::Whole,
            path_keys: vec!["path".into(), "file_path".into(), "filePath".into()],
            lang: Lang::default(),
        }
    }
}

impl RetentionPolicy {
    /// The policy of the table above.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same policy with `retention` for tool `name` (e.g. an MCP tool, or an alias).
    pub fn with(mut self, name: impl Into<String>, retention: Retention) -> Self {
        self.rules.insert(name.into(), retention);
        self
    }

    /// The same policy with `retention` for tools it has no rule for.
    pub fn with_default(mut self, retention: Retention) -> Self {
        self.default = retention;
        self
    }

    /// The same policy with history's references written in `lang`.
    pub fn with_lang(mut self, lang: Lang) -> Self {
        self.lang = lang;
        self
    }

    /// The language history's references are written in.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The retention for tool `name`.
    pub fn retention_for(&self, name: &str) -> Retention {
        self.rules.get(name).copied().unwrap_or(self.default)
    }

    /// The file a call is about: the first of `path`, `file_path`, `filePath` in its arguments.
    pub fn path_of(&self, call: &ToolCallRequest) -> Option<String> {
        let args = call.arguments_json()?;
        self.path_keys.iter().find_map(|key| {
            args.get(key)
                .and_then(|v| v.as_str())
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
        })
    }
}

/// The text of `tool` as history repeats it, given what is focused now.
pub fn history_content<'a>(tool: &'a ToolMessage, focused: &FocusedFiles) -> Cow<'a, str> {
    let focused_path = tool.path.as_deref().filter(|p| focused.contains(p));
    if !tool.success {
        return cap_in(&tool.content, HISTORY_CAP_CHARS, tool.lang);
    }
    match (tool.retention, focused_path) {
        (Retention::Whole, _) => Cow::Borrowed(&tool.content),
        (Retention::Capped { max_chars }, _) => cap_in(&tool.content, max_chars, tool.lang),
        (Retention::FileRead, Some(path)) => Cow::Owned(read_reference(tool, path)),
        (Retention::FileWrite, Some(path)) => Cow::Owned(write_reference(tool, path)),
        (Retention::FileRead | Retention::FileWrite, None) => {
            cap_in(&tool.content, HISTORY_CAP_CHARS, tool.lang)
        }
    }
}

/// What history shows for a read of focused file `path`.
fn read_reference(tool: &ToolMessage, path: &str) -> String {
    match tool.lang {
        Lang::ZhCn => format!("[已读取 {path}，完整内容见 focused_files]"),
        Lang::En => format!(
            "[{} {path}: {} lines returned earlier. The file's content is under \"Focused files\" with the current task.]",
            tool.tool_name,
            tool.content.lines().count()
        ),
    }
}

/// What history shows for a successful write of focused file `path`.
fn write_reference(tool: &ToolMessage, path: &str) -> String {
    if tool.lang == Lang::ZhCn {
        return format!("[已写入 {path}，操作成功]");
    }
    let first = tool.content.lines().next().unwrap_or("").trim();
    let mut said = truncate_chars(first, 200).into_owned();
    if said.is_empty() {
        said.push_str("Succeeded");
    }
    if !said.ends_with(['.', '!', '…']) {
        said.push('.');
    }
    format!(
        "[{} {path}: {said} The file's content is under \"Focused files\" with the current task.]",
        tool.tool_name
    )
}

/// The arguments of `call` as history repeats them. A successful file-writing call whose file
/// is focused has its long string arguments (`content`, `diff`, …) replaced by a note; others
/// are unchanged.
pub fn history_arguments<'a>(
    call: &'a ToolCallRequest,
    answer: Option<&ToolMessage>,
    focused: &FocusedFiles,
) -> Cow<'a, str> {
    let Some(answer) = answer else {
        return Cow::Borrowed(&call.arguments);
    };
    let writes_focused = answer.success
        && answer.retention == Retention::FileWrite
        && answer.path.as_deref().is_some_and(|p| focused.contains(p));
    if !writes_focused {
        return Cow::Borrowed(&call.arguments);
    }
    let Some(mut args) = call.arguments_json() else {
        return Cow::Borrowed(&call.arguments);
    };
    let mut changed = false;
    for value in args.values_mut() {
        if let serde_json::Value::String(text) = value {
            let chars = text.chars().count();
            if chars > LONG_ARGUMENT_CHARS {
                *text = format!(
                    "[{chars} characters, applied; the file's content is under \"Focused files\" with the current task]"
                );
                changed = true;
            }
        }
    }
    if !changed {
        return Cow::Borrowed(&call.arguments);
    }
    match serde_json::to_string(&args) {
        Ok(text) => Cow::Owned(text),
        Err(_) => Cow::Borrowed(&call.arguments),
    }
}

/// `text` capped at `max_chars` characters: its head and tail with a note of what was cut.
pub fn cap(text: &str, max_chars: usize) -> Cow<'_, str> {
    cap_in(text, max_chars, Lang::En)
}

/// [`cap`] with the note in `lang` (seed 002's `... [截断，完整输出 N 字符]` in Chinese).
pub fn cap_in(text: &str, max_chars: usize, lang: Lang) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= max_chars {
        return Cow::Borrowed(text);
    }
    let head_chars = max_chars / 2;
    let tail_chars = max_chars - head_chars;
    let head_end = text
        .char_indices()
        .nth(head_chars)
        .map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - tail_chars)
        .map_or(text.len(), |(i, _)| i);
    let note = match lang {
        Lang::ZhCn => format!("... [截断，完整输出 {total} 字符] ..."),
        Lang::En => format!(
            "… [{} of {total} characters omitted] …",
            total - head_chars - tail_chars
        ),
    };
    Cow::Owned(format!(
        "{}\n{note}\n{}",
        &text[..head_end],
        &text[tail_start..]
    ))
}

fn truncate_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => Cow::Owned(format!("{}…", &text[..i])),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, content: &str, path: Option<&str>) -> ToolMessage {
        ToolMessage {
            tool_call_id: "c".into(),
            tool_name: name.into(),
            content: content.into(),
            success: true,
            retention: RetentionPolicy::default().retention_for(name),
            path: path.map(str::to_owned),
            at: None,
            lang: Lang::En,
        }
    }

    #[test]
    fn the_chinese_cap_note_is_seed_002s() {
        let text = "输出".repeat(2_000);
        let capped = cap_in(&text, 100, Lang::ZhCn);
        assert!(
            capped.contains("\n... [截断，完整输出 4000 字符] ...\n"),
            "{capped}"
        );
        assert!(capped.starts_with(&"输出".repeat(25)));
        let failed = ToolMessage {
            success: false,
            lang: Lang::ZhCn,
            ..tool("execute_command", &text, None)
        };
        let shown = history_content(&failed, &FocusedFiles::new());
        assert!(shown.contains("[截断，完整输出 4000 字符]"), "{shown}");
    }

    #[test]
    fn reads_become_references_while_focused() {
        let mut focused = FocusedFiles::new();
        let read = tool("read_file", "a\nb\nc", Some("src/a.rs"));
        assert_eq!(history_content(&read, &focused), "a\nb\nc");
        focused.upsert("src/a.rs", "a\nb\nc", false);
        let text = history_content(&read, &focused);
        assert!(text.starts_with("[read_file src/a.rs: 3 lines"), "{text}");
    }

    #[test]
    fn writes_become_references_and_their_content_argument_shrinks() {
        let mut focused = FocusedFiles::new();
        focused.upsert("a.rs", "x", true);
        let write = tool("write_file", "Wrote 3 lines to a.rs\nmore", Some("a.rs"));
        assert_eq!(
            history_content(&write, &focused),
            "[write_file a.rs: Wrote 3 lines to a.rs. The file's content is under \"Focused files\" with the current task.]"
        );
        let body = "x".repeat(500);
        let call = ToolCallRequest::new(
            "c",
            "write_file",
            serde_json::json!({"path": "a.rs", "content": body}).to_string(),
        );
        let args = history_arguments(&call, Some(&write), &focused);
        assert!(args.len() < 200, "{args}");
        assert!(args.contains("\"path\":\"a.rs\""));
        let mut failed = write.clone();
        failed.success = false;
        assert_eq!(
            history_arguments(&call, Some(&failed), &focused),
            call.arguments
        );
    }

    #[test]
    fn command_output_is_capped_and_search_kept() {
        let focused = FocusedFiles::new();
        let long = format!("{}{}", "h".repeat(3_000), "TAIL");
        let shell = tool("execute_command", &long, None);
        let text = history_content(&shell, &focused);
        assert!(text.starts_with("hhh"));
        assert!(text.ends_with("TAIL"));
        assert!(text.contains("[1004 of 3004 characters omitted]"));
        let search = tool("search_files", &long, None);
        assert_eq!(history_content(&search, &focused), long);
    }

    #[test]
    fn cap_respects_character_boundaries() {
        let text = "中".repeat(10);
        let capped = cap(&text, 4);
        assert!(capped.starts_with("中中\n"));
        assert!(capped.ends_with("\n中中"));
        assert_eq!(cap("short", 10), "short");
    }

    #[test]
    fn policy_can_be_extended() {
        let policy = RetentionPolicy::new()
            .with("mcp_fetch", Retention::Capped { max_chars: 10 })
            .with_default(Retention::Capped { max_chars: 100 });
        assert_eq!(
            policy.retention_for("mcp_fetch"),
            Retention::Capped { max_chars: 10 }
        );
        assert_eq!(
            policy.retention_for("other"),
            Retention::Capped { max_chars: 100 }
        );
        assert_eq!(policy.retention_for("search_files"), Retention::Whole);
        let call = ToolCallRequest::new("1", "read_file", r#"{"file_path":"x.py"}"#);
        assert_eq!(policy.path_of(&call).as_deref(), Some("x.py"));
        let bad = ToolCallRequest::new("1", "read_file", "not json");
        assert_eq!(policy.path_of(&bad), None);
    }
}
