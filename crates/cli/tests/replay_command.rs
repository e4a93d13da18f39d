//! `keel replay` run as the real binary: malformed lines, usage errors, standard input, timed
//! replay, and the committed sample stream.

use crate::common::run_keel;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use keel_events::*;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// JSON lines of a short turn: a task, two answer pieces, a status line, the end.
fn short_turn() -> Vec<String> {
    let sequencer = Sequencer::new("s", "p");
    let kinds: Vec<EventKind> = vec![
        AgentStart {
            agent_name: "keel".into(),
            task_input: "Say hello".into(),
            mode_hint: None,
            images: None,
        }
        .into(),
        RunLlmDelta {
            text: "Hello, ".into(),
        }
        .into(),
        RunLlmDelta {
            text: "world.".into(),
        }
        .into(),
        SystemStatus::line("saved").into(),
        AgentEnd {
            status: AgentStatus::Completed,
            result: "Hello, world.".into(),
            files_changed: vec![],
            usage: Usage::default(),
            warning: None,
        }
        .into(),
    ];
    kinds
        .into_iter()
        .map(|k| sequencer.stamp(None, k).to_json())
        .collect()
}

fn write_lines(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("events.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn a_clean_log_replays_with_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_lines(dir.path(), &short_turn());
    let out = run_keel(&["replay", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "› Say hello\nHello, world.\n· saved\n✓ completed\n"
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn malformed_lines_are_reported_by_number_and_the_rest_still_renders() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = short_turn();
    // Lines 3 and 4 are broken; the events after them must still be shown.
    lines.insert(2, "{not json".to_owned());
    let unknown = lines[1].replace("run.llm.delta", "run.llm.telepathy");
    lines.insert(3, unknown);
    let path = write_lines(dir.path(), &lines);

    let out = run_keel(
        &["replay", "--color", "never", path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 3: malformed event envelope"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 4: unknown event type `run.llm.telepathy`"),
        "{stderr}"
    );
    assert!(stderr.contains("2 malformed lines skipped"), "{stderr}");
    assert_eq!(
        text(&out.stdout),
        "› Say hello\nHello, world.\n· saved\n✓ completed\n"
    );
}

#[test]
fn an_invalid_payload_names_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = short_turn();
    lines[3] = lines[3].replace(r#""message":"saved""#, r#""message":42"#);
    let path = write_lines(dir.path(), &lines);
    let out = run_keel(&["replay", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 4: invalid `system.status` payload at `payload.message`"),
        "{stderr}"
    );
    assert!(text(&out.stdout).ends_with("✓ completed\n"));
}

#[test]
fn a_missing_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.jsonl");
    let out = run_keel(&["replay", missing.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot open"));
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_flags_are_usage_errors() {
    for args in [
        &["replay"][..],
        &["replay", "--speed", "0", "x.jsonl"],
        &["replay", "--speed", "fast", "x.jsonl"],
        &["replay", "--speed", "2", "--no-delay", "x.jsonl"],
        &["replay", "--color", "sometimes", "x.jsonl"],
    ] {
        let out = run_keel(args, None);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_dash_reads_standard_input() {
    let input = short_turn().join("\n");
    let out = run_keel(&["replay", "-"], Some(&input));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Hello, world."));
}

#[test]
fn speed_replays_the_recorded_gaps_scaled() {
    let sequencer = Sequencer::new("s", "p");
    let lines: Vec<String> = (0..4u64)
        .map(|i| {
            let event = sequencer.stamp(None, SystemStatus::line(format!("tick {i}")));
            // Recorded 300 ms apart.
            let mut json: serde_json::Value = serde_json::from_str(&event.to_json()).unwrap();
            let ms = 300 * i;
            json["ts"] = format!("2026-11-22T10:00:{:02}.{:03}Z", ms / 1000, ms % 1000).into();
            json.to_string()
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = write_lines(dir.path(), &lines);

    let began = Instant::now();
    let out = run_keel(&["replay", "--speed", "2", path.to_str().unwrap()], None);
    let took = began.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Three gaps of 300 ms at double speed: at least 450 ms.
    assert!(took >= Duration::from_millis(450), "{took:?}");
    assert_eq!(
        text(&out.stdout),
        "· tick 0\n· tick 1\n· tick 2\n· tick 3\n"
    );
}

#[test]
fn the_committed_sample_stream_replays_cleanly() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/samples/events.jsonl");
    let out = run_keel(&["replay", "--verbose", samples.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    assert!(!out.stdout.is_empty());
}
