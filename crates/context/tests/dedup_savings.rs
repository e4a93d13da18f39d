//! Quantifies de-duplication: a scripted 10-turn session that reads and edits a few files,
//! comparing the prompt tokens sent with de-duplication against a naive builder that keeps
//! full tool results (and full call arguments) in history. Prints the figures
//! (`cargo test -p keel-context --test integration dedup_savings -- --nocapture`).

use crate::support;

use std::collections::BTreeMap;

use support::{Call, Session, pytest_output, python_source};

fn project() -> BTreeMap<String, String> {
    [
        ("app/config.py", python_source("config", 320)),
        ("app/db.py", python_source("db", 220)),
        ("app/api.py", python_source("api", 420)),
        ("tests/test_api.py", python_source("test_api", 160)),
        ("README.md", "# app\n\nA small service.\n".repeat(20)),
    ]
    .into_iter()
    .map(|(p, c)| (p.to_owned(), c))
    .collect()
}

fn search_output(pattern: &str, hits: usize) -> String {
    (0..hits)
        .map(|i| {
            format!(
                "app/db.py:{}:    {pattern} = create_pool(size={i})\n",
                10 + i * 7
            )
        })
        .collect()
}

/// The scripted session: 10 user turns, 31 model requests.
pub fn ten_turn_session() -> Session {
    let mut s = Session::new(project());
    let f1 = "def config_function_1(value, retries=3):";
    let f2 = "def db_function_2(value, retries=3):";
    let f3 = "def api_function_3(value, retries=3):";
    let f4 = "def api_function_4(value, retries=3):";
    let f5 = "def db_function_5(value, retries=3):";

    s.user("How is configuration loaded?");
    s.round(
        "Let me read the config module.",
        vec![Call::Read("app/config.py")],
    );
    s.answer("Configuration comes from environment variables with defaults per case.");

    s.user("Add an environment override for retries in config_function_1.");
    s.round(
        "",
        vec![Call::Replace(
            "app/config.py",
            f1,
            "def config_function_1(value, retries=int(os.environ.get('RETRIES', 3))):",
        )],
    );
    s.round("", vec![Call::Shell("pytest -q", pytest_output(60, 0))]);
    s.answer("Done: RETRIES now overrides the default; tests pass.");

    s.user("Look at connection pooling in db.py.");
    s.round(
        "",
        vec![
            Call::Read("app/db.py"),
            Call::Search("pool", search_output("pool", 12)),
        ],
    );
    s.answer("The pool is created per call; it should be shared.");

    s.user("Make the pool size configurable.");
    s.round(
        "",
        vec![
            Call::Replace(
                "app/db.py",
                f2,
                "def db_function_2(value, retries=3, pool_size=5):",
            ),
            Call::Replace(
                "app/config.py",
                "import logging",
                "import logging\nPOOL_SIZE = int(os.environ.get('POOL_SIZE', 5))",
            ),
        ],
    );
    s.round("", vec![Call::Shell("pytest -q", pytest_output(60, 0))]);
    s.answer("Pool size now comes from POOL_SIZE.");

    s.user("Add a health endpoint to api.py.");
    s.round("", vec![Call::Read("app/api.py")]);
    s.round(
        "",
        vec![Call::Replace(
            "app/api.py",
            f3,
            "def health():\n    return {'ok': True}\n\n\ndef api_function_3(value, retries=3):",
        )],
    );
    s.round("", vec![Call::Shell("pytest -q", pytest_output(60, 3))]);
    s.round(
        "The failures are in the handler; fixing.",
        vec![Call::Replace(
            "app/api.py",
            f4,
            "def api_function_4(value, retries=3, strict=False):",
        )],
    );
    s.round("", vec![Call::Shell("pytest -q", pytest_output(63, 0))]);
    s.answer("Added /health; all tests pass.");

    s.user("Write tests for the health endpoint.");
    s.round("", vec![Call::Read("tests/test_api.py")]);
    let mut tests = s.disk["tests/test_api.py"].clone();
    tests.push_str("\n\ndef test_health():\n    assert health() == {'ok': True}\n");
    s.round("", vec![Call::Write("tests/test_api.py", tests)]);
    s.round("", vec![Call::Shell("pytest -q", pytest_output(64, 0))]);
    s.answer("Added test_health.");

    s.user("Rename health to healthcheck everywhere.");
    s.round("", vec![Call::Search("health", search_output("health", 4))]);
    s.round(
        "",
        vec![
            Call::Replace("app/api.py", "def health():", "def healthcheck():"),
            Call::Replace(
                "tests/test_api.py",
                "assert health()",
                "assert healthcheck()",
            ),
        ],
    );
    s.round("", vec![Call::Shell("pytest -q", pytest_output(64, 0))]);
    s.answer("Renamed.");

    s.user("How are errors handled in api.py?");
    s.round("", vec![Call::Read("app/api.py")]);
    s.answer("Errors fall through to environment defaults; nothing is raised.");

    s.user("Add logging of pool creation.");
    s.round(
        "",
        vec![Call::Replace(
            "app/db.py",
            f5,
            "def db_function_5(value, retries=3):\n    logging.getLogger(__name__).info('pool created')",
        )],
    );
    s.round("", vec![Call::Shell("pytest -q", pytest_output(64, 0))]);
    s.answer("Pool creation is logged at INFO.");

    s.user("Summarise what changed.");
    s.round(
        "",
        vec![Call::Shell(
            "git diff --stat",
            " app/api.py        | 6 +++++-\n app/config.py     | 3 ++-\n app/db.py         | 3 ++-\n tests/test_api.py | 4 ++++\n 4 files changed, 12 insertions(+), 4 deletions(-)\n".to_owned(),
        )],
    );
    s.answer("Four files changed: config override, pool size, health check, logging.");
    s
}

/// A second shape of session, as agents that rewrite whole files work (Cline's
/// `write_to_file`): each of 10 turns reads a file, rewrites it whole, reads it back to check,
/// and runs the tests.
pub fn rewrite_session() -> Session {
    let mut s = Session::new(project());
    let paths = [
        "app/config.py",
        "app/db.py",
        "app/api.py",
        "tests/test_api.py",
    ];
    for turn in 0..10 {
        let path = paths[turn % paths.len()];
        s.user(&format!("Tidy up {path} (pass {turn})."));
        s.round("", vec![Call::Read(path)]);
        let mut content = s.disk[path].clone();
        content.push_str(&format!(
            "\n\ndef added_in_turn_{turn}():\n    return {turn}\n"
        ));
        s.round("", vec![Call::Write(path, content)]);
        s.round("Checking the result.", vec![Call::Read(path)]);
        s.round("", vec![Call::Shell("pytest -q", pytest_output(60, 0))]);
        s.answer(&format!("Tidied {path}."));
    }
    s
}

fn report(name: &str, s: &Session) -> f64 {
    let requests = s.sent.len();
    let dedup: usize = s.sent.iter().map(|(d, _)| d).sum();
    let naive: usize = s.sent.iter().map(|(_, n)| n).sum();
    let saving = 100.0 * (1.0 - dedup as f64 / naive as f64);
    println!(
        "de-dup [{name}]: {requests} requests, {dedup} prompt tokens with de-duplication vs {naive} naive: {saving:.1}% fewer"
    );
    for (i, (d, n)) in s.sent.iter().enumerate() {
        println!("  request {:>2}: {d:>6} vs {n:>6}", i + 1);
    }
    saving
}

#[test]
fn de_duplication_saves_tokens_on_a_mixed_session() {
    let s = ten_turn_session();
    assert_eq!(s.sent.len(), 31);
    let saving = report("mixed: reads, SEARCH/REPLACE edits, commands", &s);
    // Measured 17.5% (o200k): the edits are small diffs, so naive history repeats little
    // besides re-reads; the current turn is sent as first sent (19.4% when only the latest
    // round was complete), the price of every request of a turn reusing the previous one's
    // prefix. Guard against regressions.
    assert!(saving >= 16.0, "saving {saving:.1}%");
}

#[test]
fn de_duplication_saves_tokens_on_a_rewrite_session() {
    let s = rewrite_session();
    assert_eq!(s.sent.len(), 50);
    let saving = report("rewrites: read, write_to_file, re-read, test", &s);
    assert!(saving >= 40.0, "saving {saving:.1}%");
}

#[test]
fn the_last_prompt_holds_each_file_once() {
    let s = ten_turn_session();
    let prompt = s.prompt(&s.builder);
    let everything: String = prompt
        .iter()
        .map(|m| {
            let args: String = m.tool_calls.iter().map(|c| c.arguments.clone()).collect();
            format!("{}{args}", m.content)
        })
        .collect();
    for (path, module) in [
        ("app/config.py", "config"),
        ("app/db.py", "db"),
        ("app/api.py", "api"),
        ("tests/test_api.py", "test_api"),
    ] {
        // A line found only in this file appears exactly once in the whole prompt.
        let line = format!("Handle case 6 of the {module} logic.");
        assert!(s.disk[path].contains(&line));
        let line = line.as_str();
        let occurrences = everything.matches(line).count();
        assert_eq!(
            occurrences, 1,
            "{path}: {line:?} appears {occurrences} times"
        );
    }
}
