//! A scripted session for tests: plays the engine's part (tool calls, a virtual project on
//! disk, focused-file updates) and records every prompt the model would be sent.

#![allow(dead_code)]

use std::collections::BTreeMap;

use keel_context::{
    ChatMessage, Conversation, FocusedFiles, Memory, Message, PromptBuilder, PromptSources,
    RetentionPolicy, ToolCallRequest,
};

/// Instructions used by the scripted sessions.
pub const INSTRUCTIONS: &str = "You are Keel, a coding agent. Use the tools to read, change and run things in the project. Keep answers short.";

/// A scripted session.
pub struct Session {
    pub conversation: Conversation,
    /// The focused files, kept current by every call.
    pub focused: FocusedFiles,
    /// The focused files as the running turn began: what its prompts show (as in the engine).
    pub turn_focus: FocusedFiles,
    pub memory: Memory,
    pub repo_map: Option<String>,
    pub policy: RetentionPolicy,
    pub disk: BTreeMap<String, String>,
    /// Tokens of each request the model was sent: (with de-duplication, naive).
    pub sent: Vec<(usize, usize)>,
    pub builder: PromptBuilder,
    next_id: usize,
}

/// One tool call of a round, with what it returns.
pub enum Call<'a> {
    Read(&'a str),
    Write(&'a str, String),
    Replace(&'a str, &'a str, &'a str),
    Shell(&'a str, String),
    Search(&'a str, String),
}

impl Session {
    pub fn new(disk: BTreeMap<String, String>) -> Self {
        Self {
            conversation: Conversation::new(),
            focused: FocusedFiles::new(),
            turn_focus: FocusedFiles::new(),
            memory: Memory::new(),
            repo_map: None,
            policy: RetentionPolicy::default(),
            disk,
            sent: Vec::new(),
            builder: PromptBuilder::for_model("gpt-4o"),
            next_id: 0,
        }
    }

    pub fn sources(&self) -> PromptSources<'_> {
        PromptSources {
            instructions: INSTRUCTIONS,
            memory: Some(&self.memory),
            repo_map: self.repo_map.as_deref(),
            libraries: None,
            focused: &self.turn_focus,
            turn_notes: None,
        }
    }

    pub fn user(&mut self, text: &str) {
        self.turn_focus = self.focused.clone();
        self.conversation.push_user(text);
    }

    pub fn answer(&mut self, text: &str) {
        self.record();
        self.conversation.push_assistant(text, Vec::new()).unwrap();
    }

    /// The assistant makes `calls` (after saying `text`); each runs and its result is added.
    pub fn round(&mut self, text: &str, calls: Vec<Call<'_>>) {
        self.record();
        let mut requests = Vec::new();
        for call in &calls {
            self.next_id += 1;
            let id = format!("call_{}", self.next_id);
            let (name, args) = match call {
                Call::Read(path) => ("read_file", serde_json::json!({ "path": path })),
                Call::Write(path, content) => (
                    "write_file",
                    serde_json::json!({ "path": path, "content": content }),
                ),
                Call::Replace(path, search, replace) => (
                    "replace_in_file",
                    serde_json::json!({
                        "path": path,
                        "diff": format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE"),
                    }),
                ),
                Call::Shell(command, _) => (
                    "execute_command",
                    serde_json::json!({ "command": command, "requires_approval": false }),
                ),
                Call::Search(regex, _) => (
                    "search_files",
                    serde_json::json!({ "path": ".", "regex": regex }),
                ),
            };
            requests.push(ToolCallRequest::new(id, name, args.to_string()));
        }
        self.conversation
            .push_assistant(text, requests.clone())
            .unwrap();
        for (call, request) in calls.into_iter().zip(requests) {
            let result = match call {
                Call::Read(path) => {
                    let content = self.disk.get(path).cloned().unwrap_or_default();
                    self.focused.upsert(path, content.clone(), false);
                    content
                }
                Call::Write(path, content) => {
                    let lines = content.lines().count();
                    self.disk.insert(path.to_owned(), content.clone());
                    self.focused.upsert(path, content, true);
                    format!("Wrote {lines} lines to {path}.")
                }
                Call::Replace(path, search, replace) => {
                    let old = self.disk.get(path).cloned().unwrap_or_default();
                    assert!(
                        old.contains(search),
                        "script error: {search:?} not in {path}"
                    );
                    let new = old.replacen(search, replace, 1);
                    self.disk.insert(path.to_owned(), new.clone());
                    self.focused.upsert(path, new, true);
                    format!(
                        "Applied 1 SEARCH/REPLACE block to {path}.\n--- {path}\n+++ {path}\n-{}\n+{}",
                        search.replace('\n', "\n-"),
                        replace.replace('\n', "\n+")
                    )
                }
                Call::Shell(_, output) | Call::Search(_, output) => output,
            };
            self.conversation
                .add_tool_result(&request.id, result, true, &self.policy)
                .unwrap();
        }
    }

    /// Records the tokens of the request the model is sent now (it answers with the next
    /// assistant message).
    fn record(&mut self) {
        let counter = self.builder.counter();
        let dedup = counter.count_messages(&self.prompt(&self.builder));
        let naive = counter.count_messages(&self.naive_prompt());
        self.sent.push((dedup, naive));
    }

    /// What a naive builder sends: the instructions, then every message exactly as it happened
    /// (full tool results, full call arguments), no focused-files section.
    pub fn naive_prompt(&self) -> Vec<ChatMessage> {
        let mut messages = vec![ChatMessage::system(INSTRUCTIONS)];
        for message in self.conversation.messages() {
            messages.push(match message {
                Message::User { content, .. } => ChatMessage::user(content.clone()),
                Message::Assistant {
                    content,
                    tool_calls,
                    ..
                } => ChatMessage::assistant(content.clone(), tool_calls.clone()),
                Message::Tool(tool) => {
                    ChatMessage::tool(&tool.tool_call_id, &tool.tool_name, tool.content.clone())
                }
            });
        }
        messages
    }

    /// The prompt the model would be sent now, with no fitting.
    pub fn prompt(&self, builder: &PromptBuilder) -> Vec<ChatMessage> {
        builder.render(self.sources(), &self.conversation)
    }
}

/// Deterministic Python-like source of `lines` lines.
pub fn python_source(module: &str, lines: usize) -> String {
    let mut out =
        format!("\"\"\"{module}: generated for tests.\"\"\"\nimport os\nimport logging\n\n");
    let mut n = 0;
    while out.lines().count() < lines {
        n += 1;
        out.push_str(&format!(
            "\ndef {module}_function_{n}(value, retries=3):\n    \"\"\"Handle case {n} of the {module} logic.\"\"\"\n    logger = logging.getLogger(__name__)\n    for attempt in range(retries):\n        result = value * {n} + attempt\n        if result % 7 == {m}:\n            logger.debug(\"case {n}: attempt %d gave %d\", attempt, result)\n            return result\n    return os.environ.get(\"{upper}_DEFAULT_{n}\", value)\n",
            m = n % 7,
            upper = module.to_uppercase()
        ));
    }
    out
}

/// Long command output: a pytest run with `failures` failures.
pub fn pytest_output(tests: usize, failures: usize) -> String {
    let mut out = String::from(
        "============================= test session starts ==============================\nplatform linux -- Python 3.12.3, pytest-8.2.0\ncollected tests\n\n",
    );
    for i in 0..tests {
        out.push_str(&format!(
            "tests/test_api.py::test_case_{i} PASSED{}\n",
            " ".repeat(20)
        ));
    }
    for i in 0..failures {
        out.push_str(&format!(
            "\n____________________ test_failure_{i} ____________________\n\n    def test_failure_{i}():\n>       assert handler({i}) == {}\nE       AssertionError: assert None == {}\n\ntests/test_api.py:{}: AssertionError\n",
            i * 2,
            i * 2,
            40 + i
        ));
    }
    out.push_str(&format!(
        "\n========================= {} passed, {failures} failed in 1.23s =========================\n",
        tests
    ));
    out
}
