//! The committed sample streams under `schemas/samples/`.
//!
//! `events.jsonl` is the scripted session (`tests/common/script.rs`) as the JSONL handler writes
//! it; `invalid-event.jsonl` is one deliberately wrong line (a `run.tool.end` whose `status` is
//! `"weird"`). CI validates both against `schemas/events.schema.json` with ajv (the first must
//! pass, the second must fail).
//!
//! Run with `KEEL_WRITE_SAMPLES=1` to (re)write them; otherwise this checks that the committed
//! files are exactly what would be written, and that they read back as they should.

// Test code: helpers outside #[test] functions unwrap too.

use crate::common;

use std::path::PathBuf;

use keel_events::{EventHandler, JsonlHandler, ParseError, read_jsonl};

fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/samples")
}

fn valid_stream() -> String {
    let mut handler = JsonlHandler::new(Vec::new());
    for event in common::script::scripted_run() {
        handler.handle(&event);
    }
    String::from_utf8(handler.into_inner()).unwrap()
}

fn invalid_stream() -> String {
    let mut line: serde_json::Value = common::script::scripted_run()
        .into_iter()
        .find(|e| e.type_name() == "run.tool.end")
        .map(|e| serde_json::to_value(e).unwrap())
        .unwrap();
    line["payload"]["status"] = "weird".into();
    format!("{line}\n")
}

/// One test, so writing (with `KEEL_WRITE_SAMPLES=1`) happens before the files are read.
#[test]
fn samples_are_current_and_read_back() {
    let dir = samples_dir();
    let files = [
        ("events.jsonl", valid_stream()),
        ("invalid-event.jsonl", invalid_stream()),
    ];
    if std::env::var_os("KEEL_WRITE_SAMPLES").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    for (name, text) in &files {
        let committed = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| {
            panic!(
                "{name}: {e}; run `KEEL_WRITE_SAMPLES=1 cargo test -p keel-events --test integration samples`"
            )
        });
        assert!(
            committed == *text,
            "schemas/samples/{name} is stale; run `KEEL_WRITE_SAMPLES=1 cargo test -p keel-events --test integration samples`"
        );
    }
    valid_sample_reads_back();
    invalid_sample_fails_at_status();
}

fn valid_sample_reads_back() {
    let text = std::fs::read_to_string(samples_dir().join("events.jsonl")).unwrap();
    let events: Vec<_> = read_jsonl(text.as_bytes())
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert_eq!(events.len(), text.lines().count());
    let types: std::collections::BTreeSet<_> = events.iter().map(|e| e.type_name()).collect();
    // Every catalogue type but the display-only one.
    assert_eq!(types.len(), keel_events::EventKind::TYPES.len() - 1);
    assert!(!types.contains("system.cli_display"));
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
}

fn invalid_sample_fails_at_status() {
    let text = std::fs::read_to_string(samples_dir().join("invalid-event.jsonl")).unwrap();
    let results: Vec<_> = read_jsonl(text.as_bytes()).collect();
    assert_eq!(results.len(), 1);
    match &results[0] {
        Err(ParseError::Payload {
            line,
            event_type,
            path,
            ..
        }) => {
            assert_eq!(
                (*line, *event_type, path.as_str()),
                (1, "run.tool.end", "status")
            );
        }
        other => panic!("expected a payload error, got {other:?}"),
    }
}
