//! Golden snapshots of every projection over one scripted session (`tests/common/script.rs`).
//!
//! Ids and timestamps in the script are fixed, so the snapshots are stable without redactions.

// Test code: helpers outside #[test] functions unwrap too.

use crate::common;

use common::script::scripted_run;
use keel_events::projection::{
    TimelineWindow, event_path, to_legacy, to_timeline, to_timeline_all,
};
use serde_json::{Value, json};

#[test]
fn events_json() {
    let events: Vec<Value> = scripted_run()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    insta::assert_json_snapshot!("events", events);
}

#[test]
fn legacy_projection() {
    let projected: Vec<Value> = scripted_run()
        .iter()
        .map(|e| json!({"seq": e.seq, "from": e.type_name(), "legacy": to_legacy(e)}))
        .collect();
    insta::assert_json_snapshot!("legacy", projected);
}

#[test]
fn timeline_projection() {
    let projected: Vec<Value> = scripted_run()
        .iter()
        .map(|e| json!({"seq": e.seq, "from": e.type_name(), "timeline": to_timeline(e)}))
        .collect();
    insta::assert_json_snapshot!("timeline", projected);
}

#[test]
fn timeline_all_records_in_a_window() {
    let mut window = TimelineWindow::new();
    window.extend(scripted_run().iter().flat_map(to_timeline_all));
    insta::assert_json_snapshot!("timeline_window", window.to_vec());
}

#[test]
fn event_paths() {
    let lines: Vec<String> = scripted_run()
        .iter()
        .map(|e| {
            format!(
                "{:>2} {:<26} {}",
                e.seq,
                e.type_name(),
                event_path(e).unwrap_or("-")
            )
        })
        .collect();
    insta::assert_snapshot!("paths", lines.join("\n"));
}
