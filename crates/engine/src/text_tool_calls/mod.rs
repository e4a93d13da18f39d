//! Tool calls a model wrote in its answer text, in the formats of the common chat templates.
//!
//! Local servers (Ollama, llama.cpp, vLLM, LM Studio) often return a model's tool call as
//! plain content when their tool-call parser is off or does not know the model's template. The
//! text is then one of:
//!
//! | format | text |
//! |---|---|
//! | [`hermes`] (Hermes, Qwen) | `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one or several |
//! | [`llama`] (Llama 3.x) | `<\|python_tag\|>{"name": …, "parameters": {…}}`, or the bare `{"name": …, "parameters": {…}}` |
//! | [`mistral`] | `[TOOL_CALLS][{"name": …, "arguments": {…}}]`, or `[TOOL_CALLS]name[ARGS]{…}` |
//! | [`deepseek`] | `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` + a fenced JSON block + `<｜tool▁call▁end｜><｜tool▁calls▁end｜>` (V3), or `…NAME<｜tool▁sep｜>{…}…` (V3.1) |
//! | [`fenced`] | a fenced ```` ```json ```` block holding one call object |
//!
//! # When text is a call
//!
//! - Only when the request offered tools, and only for those tools' names: a call naming
//!   anything else leaves the whole text as it was.
//! - The calls must be all that is left of the text: whitespace, a leading
//!   `<think>…</think>` block and the template's end tokens (`<|eom_id|>`, `</s>`, …) aside.
//!   The formats that open with a special token (Hermes, `<|python_tag|>`, Mistral, DeepSeek)
//!   may follow prose, as their servers' own parsers allow: the prose stays answer text and the
//!   calls must run to the end. The bare-JSON and fenced forms have no such token, so they
//!   count only when they are the whole answer: prose that quotes JSON stays prose.
//! - A call object has a string `name` and its arguments under `arguments` or `parameters`
//!   (an object, or a string holding one; absent means `{}`), and nothing else but `id` and
//!   `type`; the OpenAI shape `{"type": "function", "function": {…}}` is read too.
//!
//! [`TextCallSplitter`] applies these rules to a streamed answer (holding back only what may
//! still become a call, see [`stream`]), and [`parse_text_calls`] to a whole one. An answer
//! that holds no call by these rules is read once more, leniently, by [`recover`]: the calls
//! small models write off-template, in almost-JSON ([`repair`]), or beside a tool result they
//! made up.

pub mod deepseek;
pub mod fenced;
pub mod hermes;
pub mod llama;
pub mod mistral;
mod provider;
pub mod recover;
pub mod repair;
pub mod stream;

use serde_json::{Map, Value};

pub(crate) use provider::TextCallProvider;
pub use stream::{SplitEnd, SplitPiece, TextCallSplitter, parse_text_tool_stream};

/// The chat-template format a text tool call was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextCallFormat {
    /// `<tool_call>{…}</tool_call>` (Hermes, Qwen).
    Hermes,
    /// `<|python_tag|>{…}` (Llama 3.1+).
    LlamaPythonTag,
    /// A bare `{"name": …, "parameters": …}` (Llama 3.x).
    LlamaJson,
    /// `[TOOL_CALLS]…` (Mistral).
    Mistral,
    /// `<｜tool▁calls▁begin｜>…` (DeepSeek V3, V3.1, R1).
    DeepSeek,
    /// A fenced ```` ```json ```` block holding one call.
    FencedJson,
}

impl TextCallFormat {
    /// The format's name (`hermes`, `llama_python_tag`, `llama_json`, `mistral`, `deepseek`,
    /// `fenced_json`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hermes => "hermes",
            Self::LlamaPythonTag => "llama_python_tag",
            Self::LlamaJson => "llama_json",
            Self::Mistral => "mistral",
            Self::DeepSeek => "deepseek",
            Self::FencedJson => "fenced_json",
        }
    }

    /// The format named `name` (as [`TextCallFormat::as_str`] writes it).
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Hermes,
            Self::LlamaPythonTag,
            Self::LlamaJson,
            Self::Mistral,
            Self::DeepSeek,
            Self::FencedJson,
        ]
        .into_iter()
        .find(|f| f.as_str() == name)
    }

    /// What the format looks like, for people (`<tool_call>{…}</tool_call>`).
    pub fn shape(self) -> &'static str {
        match self {
            Self::Hermes => "<tool_call>{…}</tool_call>",
            Self::LlamaPythonTag => "<|python_tag|>{…}",
            Self::LlamaJson => "{\"name\": …, \"parameters\": …}",
            Self::Mistral => "[TOOL_CALLS][…]",
            Self::DeepSeek => "<｜tool▁calls▁begin｜>…",
            Self::FencedJson => "```json {…} ```",
        }
    }
}

impl std::fmt::Display for TextCallFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool call read from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextToolCall {
    /// The tool's name (one of the offered tools).
    pub name: String,
    /// The arguments.
    pub arguments: Map<String, Value>,
}

/// What a whole answer held: the prose before the calls, and the calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCalls {
    /// The format the calls were written in.
    pub format: TextCallFormat,
    /// Answer text before the calls (empty for a text that is only calls).
    pub prose: String,
    /// Reasoning from a leading `<think>…</think>` block (empty when there was none).
    pub thinking: String,
    /// The calls, in the order written (at least one).
    pub calls: Vec<TextToolCall>,
}

/// The special tokens that open a call section, and their formats.
pub(crate) const MARKERS: [(&str, TextCallFormat); 4] = [
    (hermes::OPEN, TextCallFormat::Hermes),
    (llama::PYTHON_TAG, TextCallFormat::LlamaPythonTag),
    (mistral::TOOL_CALLS, TextCallFormat::Mistral),
    (deepseek::CALLS_BEGIN, TextCallFormat::DeepSeek),
];

/// Reads the tool calls of a whole answer `text` (see the module rules), `None` when it is not
/// calls to `tools`.
pub fn parse_text_calls<S: AsRef<str>>(text: &str, tools: &[S]) -> Option<TextCalls> {
    let names: Vec<String> = tools.iter().map(|t| t.as_ref().to_owned()).collect();
    let mut splitter = TextCallSplitter::new(names);
    let mut pieces = splitter.feed(text);
    let end = splitter.finish(false);
    pieces.extend(end.pieces);
    let (format, calls) = end.calls?;
    let mut prose = String::new();
    let mut thinking = String::new();
    for piece in pieces {
        match piece {
            SplitPiece::Text(t) => prose.push_str(&t),
            SplitPiece::Thinking(t) => thinking.push_str(&t),
        }
    }
    Some(TextCalls {
        format,
        prose,
        thinking,
        calls,
    })
}

/// Reads the call section `text` that starts with one of the [`MARKERS`], or with `{` or a
/// fence when `whole` (the section is the whole answer). It must run to the end of `text`.
pub(crate) fn parse_section(
    text: &str,
    tools: &[String],
    whole: bool,
) -> Option<(TextCallFormat, Vec<TextToolCall>)> {
    let text = text.trim_start();
    let (format, calls) = if text.starts_with(hermes::OPEN) {
        (TextCallFormat::Hermes, hermes::parse(text, tools)?)
    } else if text.starts_with(llama::PYTHON_TAG) {
        (
            TextCallFormat::LlamaPythonTag,
            llama::parse_tagged(text, tools)?,
        )
    } else if text.starts_with(mistral::TOOL_CALLS) {
        (TextCallFormat::Mistral, mistral::parse(text, tools)?)
    } else if text.starts_with(deepseek::CALLS_BEGIN) {
        (TextCallFormat::DeepSeek, deepseek::parse(text, tools)?)
    } else if whole && text.starts_with('{') {
        (TextCallFormat::LlamaJson, llama::parse_bare(text, tools)?)
    } else if whole && text.starts_with(fenced::FENCE) {
        (
            TextCallFormat::FencedJson,
            vec![fenced::parse(text, tools)?],
        )
    } else {
        return None;
    };
    (!calls.is_empty()).then_some((format, calls))
}

/// Keys a call object may have besides its name and arguments.
const OTHER_CALL_KEYS: [&str; 2] = ["id", "type"];

/// The call a JSON value describes (see the module rules), when it names one of `tools`.
pub(crate) fn call_from_json(value: Value, tools: &[String]) -> Option<TextToolCall> {
    let Value::Object(mut map) = value else {
        return None;
    };
    if let Some(Value::Object(function)) = map.remove("function") {
        // The OpenAI shape: {"id": …, "type": "function", "function": {"name", "arguments"}}.
        if map.keys().any(|k| !OTHER_CALL_KEYS.contains(&k.as_str())) {
            return None;
        }
        return call_from_json(Value::Object(function), tools);
    }
    if map.keys().any(|k| {
        !matches!(
            k.as_str(),
            "name" | "arguments" | "parameters" | "id" | "type"
        )
    }) {
        return None;
    }
    let Some(Value::String(name)) = map.remove("name") else {
        return None;
    };
    let name = name.trim().to_owned();
    if !tools.contains(&name) {
        return None;
    }
    let arguments = match (map.remove("arguments"), map.remove("parameters")) {
        (Some(_), Some(_)) => return None,
        (Some(a), None) | (None, Some(a)) => arguments_object(a)?,
        (None, None) => Map::new(),
    };
    Some(TextToolCall { name, arguments })
}

/// Arguments as an object: an object, a string holding one, or `null` for none.
pub(crate) fn arguments_object(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        Value::Null => Some(Map::new()),
        Value::String(text) if text.trim().is_empty() => Some(Map::new()),
        Value::String(text) => match serde_json::from_str(&text) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the text after a marker that opens one JSON call object (Hermes `<tool_call>`,
/// Llama `<|python_tag|>`) can still be a call: it is empty or starts with `{`.
pub(crate) fn may_open_object(after_marker: &str) -> bool {
    let t = after_marker.trim_start();
    t.is_empty() || t.starts_with('{')
}

/// Whether `after_brace`, the text after a call object's `{`, can still be one: its first key
/// is (or may still become) one a call object has.
pub(crate) fn may_open_call(after_brace: &str) -> bool {
    let t = after_brace.trim_start();
    let Some(key) = t.strip_prefix('"') else {
        return t.is_empty();
    };
    const KEYS: [&str; 6] = ["name", "arguments", "parameters", "id", "type", "function"];
    match key.find('"') {
        Some(end) => KEYS.contains(&&key[..end]),
        None => KEYS.iter().any(|k| k.starts_with(key)),
    }
}

/// The first JSON value of `text` (after whitespace) and the text after it.
pub(crate) fn json_prefix(text: &str) -> Option<(Value, &str)> {
    let text = text.trim_start();
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = values.next()?.ok()?;
    let end = values.byte_offset();
    Some((value, &text[end..]))
}

/// Whether `text` could still become a JSON value: it is one or its beginning.
pub(crate) fn json_may_continue(text: &str) -> bool {
    let mut values = serde_json::Deserializer::from_str(text.trim_start()).into_iter::<Value>();
    match values.next() {
        None => true,
        Some(Ok(_)) => true,
        Some(Err(e)) => e.is_eof(),
    }
}

/// `text` without the template end tokens and whitespace at its end.
pub(crate) fn trim_end_tokens(mut text: &str) -> &str {
    const END_TOKENS: [&str; 6] = [
        "<|eom_id|>",
        "<|eot_id|>",
        "<|im_end|>",
        "</s>",
        "<｜end▁of▁sentence｜>",
        "<|end|>",
    ];
    loop {
        let trimmed = text.trim_end();
        match END_TOKENS.iter().find_map(|t| trimmed.strip_suffix(t)) {
            Some(shorter) => text = shorter,
            None => return trimmed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<String> {
        vec!["read_file".to_owned(), "list_files".to_owned()]
    }

    #[test]
    fn call_objects_in_every_accepted_shape() {
        let t = tools();
        let read = |args: Value| TextToolCall {
            name: "read_file".into(),
            arguments: args.as_object().cloned().unwrap_or_default(),
        };
        assert_eq!(
            call_from_json(json!({"name": "read_file", "arguments": {"path": "a"}}), &t),
            Some(read(json!({"path": "a"})))
        );
        assert_eq!(
            call_from_json(
                json!({"name": "read_file", "parameters": {"path": "a"}}),
                &t
            ),
            Some(read(json!({"path": "a"})))
        );
        assert_eq!(
            call_from_json(
                json!({"name": "read_file", "arguments": "{\"path\": \"a\"}", "id": "x1"}),
                &t
            ),
            Some(read(json!({"path": "a"})))
        );
        assert_eq!(
            call_from_json(
                json!({"type": "function", "function": {"name": "read_file", "arguments": {"path": "a"}}}),
                &t
            ),
            Some(read(json!({"path": "a"})))
        );
        assert_eq!(
            call_from_json(json!({"name": "list_files"}), &t).map(|c| c.arguments),
            Some(Map::new())
        );
    }

    #[test]
    fn not_calls() {
        let t = tools();
        for value in [
            json!({"name": "delete_everything", "arguments": {}}),
            json!({"name": "read_file", "description": "Reads a file.", "parameters": {}}),
            json!({"name": "read_file", "arguments": [1, 2]}),
            json!({"name": "read_file", "arguments": {}, "parameters": {}}),
            json!({"name": 3, "arguments": {}}),
            json!(["read_file"]),
            json!({"type": "function", "function": {"name": "read_file"}, "extra": 1}),
        ] {
            assert_eq!(call_from_json(value.clone(), &t), None, "{value}");
        }
    }

    #[test]
    fn end_tokens_are_trimmed() {
        assert_eq!(trim_end_tokens("{}<|eom_id|>\n"), "{}");
        assert_eq!(trim_end_tokens("x </s> <|eot_id|>"), "x");
        assert_eq!(trim_end_tokens("x"), "x");
    }

    #[test]
    fn whole_answers() {
        let t = ["read_file"];
        let calls = parse_text_calls(
            "<think>The file first.</think>\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>",
            &t,
        )
        .unwrap();
        assert_eq!(calls.format, TextCallFormat::Hermes);
        assert_eq!(calls.thinking, "The file first.");
        assert_eq!(calls.prose, "");
        assert_eq!(calls.calls.len(), 1);
        let calls = parse_text_calls(
            "I will read it.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {}}</tool_call>",
            &t,
        )
        .unwrap();
        assert_eq!(calls.prose, "I will read it.\n");
        assert_eq!(
            parse_text_calls(
                "Call it like {\"name\": \"read_file\", \"arguments\": {}}",
                &t
            ),
            None
        );
        assert_eq!(
            parse_text_calls(
                "{\"name\": \"read_file\", \"arguments\": {}}",
                &[] as &[&str]
            ),
            None
        );
    }
}
