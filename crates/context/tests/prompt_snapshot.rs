//! Snapshot of a built prompt (system prompt + history) for a small scripted session.

use crate::support;

use std::collections::BTreeMap;

use keel_context::{ChatMessage, MemoryKind, MemoryLimits, NewEntry, PromptBuilder};
use support::{Call, Session};

/// The prompt as readable text: each message under a header with its role and ids.
fn transcript(messages: &[ChatMessage]) -> String {
    let mut out = String::new();
    for message in messages {
        out.push_str(&format!("===== {}", message.role.as_str()));
        if let Some(id) = &message.tool_call_id {
            out.push_str(&format!(" ({id})"));
        }
        out.push_str(" =====\n");
        out.push_str(&message.content);
        out.push('\n');
        for call in &message.tool_calls {
            out.push_str(&format!(
                "-> {} {}: {}\n",
                call.id, call.name, call.arguments
            ));
        }
    }
    out
}

fn session() -> Session {
    let disk: BTreeMap<String, String> = [
        (
            "src/config.py",
            "DATABASE_URL = \"sqlite:///app.db\"\nPOOL_SIZE = 5\n",
        ),
        (
            "src/db.py",
            "import config\n\ndef connect():\n    return config.DATABASE_URL\n",
        ),
    ]
    .into_iter()
    .map(|(p, c)| (p.to_owned(), c.to_owned()))
    .collect();
    let mut s = Session::new(disk);
    s.memory.record(
        [
            NewEntry::new(MemoryKind::Convention, "tests use pytest"),
            NewEntry::new(
                MemoryKind::Decision,
                "keep configuration in src/config.py — one place to look",
            ),
        ],
        &MemoryLimits::default(),
    );
    s.repo_map =
        Some("src/config.py:\n  DATABASE_URL\n  POOL_SIZE\nsrc/db.py:\n  def connect()".into());

    s.user("Read src/config.py and tell me the database settings.");
    s.round("Let me read it.", vec![Call::Read("src/config.py")]);
    s.answer("The database is SQLite at app.db with a pool of 5.");

    s.user("Make the pool size 10 and check db.py uses config.");
    s.round(
        "",
        vec![
            Call::Replace("src/config.py", "POOL_SIZE = 5", "POOL_SIZE = 10"),
            Call::Read("src/db.py"),
        ],
    );
    s.round(
        "",
        vec![Call::Shell(
            "python -c 'import src.config as c; print(c.POOL_SIZE)'",
            "10\n".into(),
        )],
    );
    s.answer("Pool size is 10; db.py reads DATABASE_URL from config.");
    s.user("Thanks. Now add a timeout setting.");
    s.round(
        "",
        vec![Call::Replace(
            "src/config.py",
            "POOL_SIZE = 10",
            "POOL_SIZE = 10\nTIMEOUT_SECONDS = 30",
        )],
    );
    s
}

#[test]
fn built_prompt_for_a_scripted_session() {
    let s = session();
    let builder = PromptBuilder::for_model("gpt-4o");
    let built = builder.build_without_summary(s.sources(), &s.conversation);
    assert!(built.fits);
    assert!(built.steps.is_empty());
    assert_eq!(
        built.tokens,
        builder.counter().count_messages(&built.messages)
    );
    insta::assert_snapshot!(transcript(&built.messages));
}

#[test]
fn the_system_prompt_stays_the_same_through_a_turn() {
    let mut s = session();
    s.answer("Added TIMEOUT_SECONDS.");
    s.user("Show me db.py again.");
    let builder = PromptBuilder::for_model("gpt-4o");
    let before = builder.render(s.sources(), &s.conversation);
    s.round("", vec![Call::Read("src/db.py")]);
    let messages = builder.render(s.sources(), &s.conversation);
    insta::assert_snapshot!(messages[0].content);
    // Each request of the turn repeats the previous one and adds to it.
    assert_eq!(messages[..before.len()], before[..]);
    let last = messages.last().unwrap();
    assert_eq!(last.content, s.disk["src/db.py"]);
}
