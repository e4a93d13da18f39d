//! De-duplication, measured through the engine: a scripted 10-turn session on a small Python
//! project (the model lists files, reads the same files several times, edits them with
//! SEARCH/REPLACE blocks, rewrites one whole, re-reads to check, searches, runs the tests)
//! runs through a real [`AgentSession`] with the real tools. Every model request is recorded
//! and counted with the real tokenizer (o200k), against what a naive agent would have sent for
//! the same request: the same instructions without the focused-files section, and the whole
//! history with every tool result and every call's arguments complete.
//!
//! Run: `cargo bench -p keel-engine --bench dedup`. The repo map is off so that only
//! de-duplication differs; tool definitions are the same in both and are reported apart.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout
)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use keel_context::prompt::FOCUSED_HEADING;
use keel_context::{ChatMessage, Message, Role, TokenCounter};
use keel_engine::agent::{AgentConfig, RepoMapConfig};
use keel_engine::{
    AgentSession, ChatRequest, ItemStream, ModelChain, Provider, ProviderError, Script,
    ScriptedProvider,
};
use keel_events::{Bus, Emitter, Event, EventHandler, EventKind, Sequencer, ToolStatus};
use keel_protocol::Mode;
use keel_test_support::ScriptBuilder;
use serde_json::{Value, json};

const MODEL: &str = "gpt-4o";

/// A Python module of `functions` small functions.
fn module(name: &str, functions: usize) -> String {
    let mut text = format!("\"\"\"The {name} module.\"\"\"\n\nimport logging\nimport os\n");
    for i in 1..=functions {
        text.push_str(&format!(
            "\n\ndef {name}_function_{i}(value, retries=3):\n    \"\"\"Handle case {i} of the {name} logic.\"\"\"\n    if value is None:\n        raise ValueError(\"{name}_function_{i} needs a value\")\n    total = 0\n    for attempt in range(retries):\n        total += attempt * {i}\n    logging.getLogger(__name__).debug(\"{name} %s\", total)\n    return value + total\n"
        ));
    }
    text
}

fn test_module(functions: usize) -> String {
    let mut text =
        "import unittest\n\nfrom app import api\n\n\nclass ApiTest(unittest.TestCase):\n"
            .to_owned();
    for i in 1..=functions {
        text.push_str(&format!(
            "    def test_function_{i}(self):\n        self.assertEqual(api.api_function_{i}(1, retries=2), 1 + {i})\n\n"
        ));
    }
    text
}

fn project(root: &Path) {
    for dir in ["app", "tests"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(root.join(dir).join("__init__.py"), "").unwrap();
    }
    std::fs::write(root.join("app/config.py"), module("config", 28)).unwrap();
    std::fs::write(root.join("app/db.py"), module("db", 22)).unwrap();
    std::fs::write(root.join("app/api.py"), module("api", 34)).unwrap();
    std::fs::write(root.join("tests/test_api.py"), test_module(12)).unwrap();
    std::fs::write(
        root.join("README.md"),
        "# app\n\nA small service: configuration, a database pool and an HTTP API.\n",
    )
    .unwrap();
}

fn diff(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE")
}

const TESTS: &str = "python3 -m unittest discover -s tests -t . -q";

fn read(path: &str) -> Value {
    json!({"name": "read_file", "arguments": {"path": path}})
}
fn replace(path: &str, search: &str, with: &str) -> Value {
    json!({"name": "replace_in_file", "arguments": {"path": path, "diff": diff(search, with)}})
}
fn run_tests() -> Value {
    json!({"name": "execute_command", "arguments": {"command": TESTS, "requires_approval": false}})
}
fn calls(text: &str, calls: Vec<Value>) -> Value {
    json!({"text": text, "tool_calls": calls})
}
fn answer(text: &str) -> Value {
    json!({"text": text})
}
fn done(result: &str) -> Value {
    json!({"tool_calls": [{"name": "attempt_completion", "arguments": {"result": result}}]})
}

/// The ten user turns and the model's responses to them.
fn session() -> (Vec<&'static str>, Vec<Value>) {
    let mut tests = test_module(12);
    tests.push_str(
        "    def test_health(self):\n        self.assertEqual(api.health(), {\"ok\": True})\n",
    );
    let users = vec![
        "How is configuration loaded in this project?",
        "Let RETRIES override the retries of config_function_1.",
        "Look at connection pooling in db.py.",
        "Make the pool size configurable.",
        "Add a health endpoint to api.py.",
        "Write a test for the health endpoint.",
        "Rename health to healthcheck everywhere.",
        "How are errors handled in api.py?",
        "Log pool creation in db_function_5.",
        "Summarise what changed.",
    ];
    let responses = vec![
        // 1
        calls(
            "Let me look around.",
            vec![json!({"name": "list_files", "arguments": {"path": ".", "recursive": true}})],
        ),
        calls("", vec![read("app/config.py")]),
        answer("Configuration comes from environment variables with per-case defaults."),
        // 2
        calls("", vec![read("app/config.py")]),
        calls(
            "",
            vec![replace(
                "app/config.py",
                "def config_function_1(value, retries=3):",
                "def config_function_1(value, retries=int(os.environ.get(\"RETRIES\", 3))):",
            )],
        ),
        calls("", vec![run_tests()]),
        done("RETRIES now overrides the default; the tests pass."),
        // 3
        calls(
            "",
            vec![
                read("app/db.py"),
                json!({"name": "search_files", "arguments": {"path": "app/db.py", "regex": "retries"}}),
            ],
        ),
        answer("Each call opens its own connection; a shared pool would help."),
        // 4
        calls("", vec![read("app/db.py")]),
        calls(
            "",
            vec![
                replace(
                    "app/db.py",
                    "def db_function_2(value, retries=3):",
                    "def db_function_2(value, retries=3, pool_size=5):",
                ),
                replace(
                    "app/config.py",
                    "import logging",
                    "import logging\nPOOL_SIZE = int(os.environ.get(\"POOL_SIZE\", 5))",
                ),
            ],
        ),
        calls("Checking the config module.", vec![read("app/config.py")]),
        calls("", vec![run_tests()]),
        done("The pool size comes from POOL_SIZE."),
        // 5
        calls("", vec![read("app/api.py")]),
        calls(
            "",
            vec![replace(
                "app/api.py",
                "def api_function_3(value, retries=3):",
                "def health():\n    return {\"ok\": True}\n\n\ndef api_function_3(value, retries=3):",
            )],
        ),
        calls("", vec![run_tests()]),
        done("Added health()."),
        // 6
        calls("", vec![read("tests/test_api.py")]),
        calls(
            "",
            vec![
                json!({"name": "write_file", "arguments": {"path": "tests/test_api.py", "content": tests}}),
            ],
        ),
        calls("", vec![run_tests()]),
        done("Added test_health."),
        // 7
        calls(
            "",
            vec![json!({"name": "search_files", "arguments": {"path": ".", "regex": "health"}})],
        ),
        calls(
            "",
            vec![
                replace("app/api.py", "def health():", "def healthcheck():"),
                replace(
                    "tests/test_api.py",
                    "        self.assertEqual(api.health(), {\"ok\": True})",
                    "        self.assertEqual(api.healthcheck(), {\"ok\": True})",
                ),
            ],
        ),
        calls(
            "Verifying.",
            vec![read("app/api.py"), read("tests/test_api.py")],
        ),
        calls("", vec![run_tests()]),
        done("Renamed health to healthcheck."),
        // 8
        calls("", vec![read("app/api.py")]),
        answer("Errors surface as ValueError when a value is missing; nothing else is raised."),
        // 9
        calls("", vec![read("app/db.py")]),
        calls(
            "",
            vec![replace(
                "app/db.py",
                "    \"\"\"Handle case 5 of the db logic.\"\"\"",
                "    \"\"\"Handle case 5 of the db logic.\"\"\"\n    logging.getLogger(__name__).info(\"pool created\")",
            )],
        ),
        calls("", vec![run_tests()]),
        done("Pool creation is logged at INFO."),
        // 10
        calls(
            "",
            vec![json!({"name": "list_files", "arguments": {"path": ".", "recursive": true}})],
        ),
        calls(
            "",
            vec![read("app/config.py"), read("app/db.py"), read("app/api.py")],
        ),
        answer(
            "config.py: RETRIES and POOL_SIZE; db.py: pool_size and logging; api.py: healthcheck(); tests: test_health.",
        ),
    ];
    (users, responses)
}

/// Forwards to the scripted model, recording every request's messages.
struct Recording {
    inner: ScriptedProvider,
    requests: Mutex<Vec<(Vec<ChatMessage>, Vec<Value>)>>,
}

#[async_trait::async_trait]
impl Provider for Recording {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn stream(&self, request: &ChatRequest) -> Result<ItemStream, ProviderError> {
        self.requests
            .lock()
            .unwrap()
            .push((request.messages.clone(), request.tools.clone()));
        self.inner.stream(request).await
    }
}

#[derive(Clone, Default)]
struct Failures(Arc<Mutex<Vec<String>>>);

impl EventHandler for Failures {
    fn handle(&mut self, event: &Event) {
        if let EventKind::RunToolEnd(end) = &event.kind
            && end.status != ToolStatus::Success
        {
            self.0.lock().unwrap().push(format!(
                "{} {}: {}",
                end.tool_name, end.args_summary, end.result
            ));
        }
    }
}

/// A stored message as a naive agent sends it: complete.
fn naive(message: &Message) -> ChatMessage {
    match message {
        Message::User { content, .. } => ChatMessage::user(content.clone()),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => ChatMessage::assistant(content.clone(), tool_calls.clone()),
        Message::Tool(tool) => {
            ChatMessage::tool(&tool.tool_call_id, &tool.tool_name, &tool.content)
        }
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let (users, responses) = session();
    let script = Script::from_json(&ScriptBuilder::new().turns(responses).to_string()).unwrap();
    let provider = Arc::new(Recording {
        inner: ScriptedProvider::new(script),
        requests: Mutex::new(Vec::new()),
    });
    let mut config = AgentConfig::new(dir.path(), ModelChain::new([MODEL]).unwrap());
    config.mode = Mode::Direct;
    config.repo_map = RepoMapConfig::disabled();
    let emitter = Emitter::new(Sequencer::new("dedup", "bench"), Bus::default());
    let failures = Failures::default();
    emitter.bus().add_handler(failures.clone());
    let mut session = AgentSession::new(config, provider.clone(), emitter).unwrap();
    runtime.block_on(async {
        for user in &users {
            let outcome = session.run_turn(*user).await;
            assert_eq!(
                outcome.status,
                keel_events::AgentStatus::Completed,
                "{user}: {}",
                outcome.result
            );
        }
    });
    let failures = failures.0.lock().unwrap().clone();
    assert!(failures.is_empty(), "tool calls failed: {failures:#?}");

    let counter = TokenCounter::for_model(MODEL);
    let stored = session.conversation().messages();
    let requests = provider.requests.lock().unwrap();
    let (mut dedup_total, mut naive_total, mut tools_total) = (0usize, 0usize, 0usize);
    println!("request  de-dup   naive  (message tokens, o200k)");
    for (i, (messages, tools)) in requests.iter().enumerate() {
        let dedup = counter.count_messages(messages);
        // The same request from a naive agent: no focused-files section, complete history.
        let system = messages
            .first()
            .filter(|m| m.role == Role::System)
            .map(|m| {
                m.content
                    .split(&format!("\n\n{FOCUSED_HEADING}"))
                    .next()
                    .unwrap_or("")
                    .to_owned()
            })
            .unwrap_or_default();
        let history = messages.len() - 1;
        let mut naive_messages = vec![ChatMessage::system(system)];
        naive_messages.extend(stored[..history].iter().map(naive));
        // Both requests carry the same history, message for message.
        for (sent, full) in messages[1..].iter().zip(&naive_messages[1..]) {
            assert_eq!(sent.role, full.role, "request {}", i + 1);
            assert_eq!(sent.tool_call_id, full.tool_call_id, "request {}", i + 1);
        }
        let naive = counter.count_messages(&naive_messages);
        let tool_tokens = counter.count(&Value::Array(tools.clone()).to_string());
        println!("{:>7} {dedup:>7} {naive:>7}", i + 1);
        dedup_total += dedup;
        naive_total += naive;
        tools_total += tool_tokens;
    }
    let saving = |a: usize, b: usize| 100.0 * (1.0 - a as f64 / b as f64);
    println!(
        "\n{} user turns, {} model requests",
        users.len(),
        requests.len()
    );
    println!(
        "prompt tokens (messages): {dedup_total} with de-duplication vs {naive_total} naive: {:.1}% fewer",
        saving(dedup_total, naive_total)
    );
    println!(
        "prompt tokens (messages + {tools_total} of tool definitions): {} vs {}: {:.1}% fewer",
        dedup_total + tools_total,
        naive_total + tools_total,
        saving(dedup_total + tools_total, naive_total + tools_total)
    );
}
