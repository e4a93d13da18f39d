//! The message catalogues, embedded at compile time, and looking messages up in them.

use std::borrow::Cow;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use serde_json::Value;

use keel_events::Lang;

/// The catalogues of one language: the CLI's own words, then the tool action text.
fn sources(lang: Lang) -> [&'static str; 2] {
    match lang {
        Lang::En => [
            include_str!("../../i18n/en/cli.ftl"),
            include_str!("../../i18n/en/tools.ftl"),
        ],
        Lang::ZhCn => [
            include_str!("../../i18n/zh-CN/cli.ftl"),
            include_str!("../../i18n/zh-CN/tools.ftl"),
        ],
    }
}

/// A value put into a message: text as it is, or a number (which also picks plural forms).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg<'a> {
    /// Text.
    Text(Cow<'a, str>),
    /// A count.
    Number(u64),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Self {
        Arg::Text(Cow::Borrowed(s))
    }
}

impl From<String> for Arg<'_> {
    fn from(s: String) -> Self {
        Arg::Text(Cow::Owned(s))
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(s: &'a String) -> Self {
        Arg::Text(Cow::Borrowed(s.as_str()))
    }
}

impl From<u64> for Arg<'_> {
    fn from(n: u64) -> Self {
        Arg::Number(n)
    }
}

impl From<u32> for Arg<'_> {
    fn from(n: u32) -> Self {
        Arg::Number(u64::from(n))
    }
}

impl From<usize> for Arg<'_> {
    fn from(n: usize) -> Self {
        Arg::Number(n as u64)
    }
}

fn bundle(lang: Lang) -> FluentBundle<FluentResource> {
    let id = lang.tag().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // No Unicode isolation marks around values: a terminal shows them as stray characters.
    bundle.set_use_isolating(false);
    for source in sources(lang) {
        // A catalogue that does not parse keeps the messages that did (the test over the
        // catalogues fails on any error, so this is only a safety net).
        let resource =
            FluentResource::try_new(source.to_owned()).unwrap_or_else(|(partial, _)| partial);
        // Duplicate ids keep the first definition.
        let _ = bundle.add_resource(resource);
    }
    bundle
}

/// The messages of one language, with English for any message it lacks.
pub struct Messages {
    lang: Lang,
    bundle: FluentBundle<FluentResource>,
    english: Option<FluentBundle<FluentResource>>,
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Messages")
            .field("lang", &self.lang)
            .finish()
    }
}

impl Default for Messages {
    fn default() -> Self {
        Self::new(Lang::En)
    }
}

impl Messages {
    /// The messages of `lang`.
    pub fn new(lang: Lang) -> Self {
        Self {
            lang,
            bundle: bundle(lang),
            english: (lang != Lang::En).then(|| bundle(Lang::En)),
        }
    }

    /// True when message `id` exists (in this language or in English).
    pub fn has(&self, id: &str) -> bool {
        self.bundle.has_message(id) || self.english.as_ref().is_some_and(|e| e.has_message(id))
    }

    /// Message `id` with `args` put in; the English message when this language lacks it, and
    /// the id itself when no catalogue has it.
    pub fn text(&self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        self.format(id, args)
            .map(|(text, _)| text)
            .unwrap_or_else(|| id.to_owned())
    }

    /// Message `id` with `args` put in, and whether every variable it names was given;
    /// `None` when no catalogue has it.
    fn format(&self, id: &str, args: &[(&str, Arg<'_>)]) -> Option<(String, bool)> {
        let mut fluent_args = FluentArgs::new();
        for (name, arg) in args {
            let value = match arg {
                Arg::Text(text) => FluentValue::from(text.as_ref()),
                Arg::Number(n) => FluentValue::from(*n),
            };
            fluent_args.set(*name, value);
        }
        for bundle in std::iter::once(&self.bundle).chain(self.english.as_ref()) {
            if let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) {
                let mut errors = Vec::new();
                let text = bundle
                    .format_pattern(pattern, Some(&fluent_args), &mut errors)
                    .into_owned();
                return Some((text, errors.is_empty()));
            }
        }
        None
    }

    /// What a call of tool `name` with `arguments` does, in words (`tool-<name>` from
    /// `tools.ftl`, its variables the call's arguments cut to one short line; `tool-other`
    /// for a tool without a message of its own; the name and the most telling argument when
    /// the arguments lack what the message names).
    pub fn tool_action(&self, name: &str, arguments: &Value) -> String {
        let id = format!("tool-{name}");
        if !self.has(&id) {
            if let Some((server, tool)) = mcp_tool(name) {
                return self.text(
                    "tool-mcp",
                    &[("server", Arg::from(server)), ("tool", Arg::from(tool))],
                );
            }
            return self.text("tool-other", &[("name", Arg::from(name))]);
        }
        let mut args: Vec<(&str, Arg<'_>)> = Vec::new();
        if let Value::Object(map) = arguments {
            for (key, value) in map {
                let text = match value {
                    Value::String(s) => crate::one_line(s, 60),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => continue,
                };
                args.push((key.as_str(), Arg::from(text)));
            }
        }
        match self.format(&id, &args) {
            Some((text, true)) => text,
            // Arguments that lack what the message names (a malformed call): the tool's name
            // and its most telling argument instead.
            _ => format!("{name} {}", crate::brief_arguments(arguments))
                .trim_end()
                .to_owned(),
        }
    }
}

/// The server and tool of an MCP server's tool as offered to the model (`mcp__SERVER__TOOL`).
fn mcp_tool(name: &str) -> Option<(&str, &str)> {
    let (server, tool) = name
        .strip_prefix(keel_protocol::MCP_TOOL_PREFIX)?
        .split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_come_in_the_chosen_language() {
        let en = Messages::new(Lang::En);
        let zh = Messages::new(Lang::ZhCn);
        let args = [("path", Arg::from("src/main.rs"))];
        assert_eq!(
            en.tool_action("read_file", &json!({"path": "src/main.rs"})),
            "Reading src/main.rs"
        );
        assert_ne!(
            zh.tool_action("read_file", &json!({"path": "src/main.rs"})),
            en.tool_action("read_file", &json!({"path": "src/main.rs"}))
        );
        assert!(zh.text("tool-read_file", &args).contains("src/main.rs"));
    }

    #[test]
    fn unknown_tools_and_ids_fall_back() {
        let zh = Messages::new(Lang::ZhCn);
        assert_eq!(
            zh.tool_action("mcp__git__status", &json!({})),
            "正在调用 git 上的 status"
        );
        assert_eq!(
            Messages::new(Lang::En).tool_action("mcp__git__status", &json!({})),
            "Calling status on git"
        );
        assert_eq!(
            zh.tool_action("mcp____x", &json!({})),
            "正在调用 mcp____x",
            "no server: the name as it is"
        );
        assert!(
            zh.tool_action("custom_tool", &json!({}))
                .contains("custom_tool")
        );
        assert_eq!(zh.text("no-such-message", &[]), "no-such-message");
        assert_eq!(
            zh.tool_action("execute_command", &json!("ls -la")),
            "execute_command ls -la"
        );
    }

    #[test]
    fn no_isolation_marks_reach_the_terminal() {
        let text = Messages::new(Lang::En)
            .tool_action("move_file", &json!({"fromPath": "a", "toPath": "b"}));
        assert_eq!(text, "Moving a to b");
    }
}
