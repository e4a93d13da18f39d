//! Property tests of the timeline side: the 100-record window's move invariants, the legacy log
//! parser, and that no projection panics on any event.

// Test code: helpers outside #[test] functions unwrap too.

use crate::common;

use std::collections::{BTreeSet, HashMap};

use common::strategies::any_event;
use keel_events::projection::*;
use keel_events::{FileOp, LogLevel};
use proptest::prelude::*;
use serde_json::json;

fn rec(id: usize, task: &str, payload: TimelinePayload) -> TimelineEvent {
    TimelineEvent {
        id: id.to_string(),
        timestamp: String::new(),
        task_id: task.into(),
        project_id: "p".into(),
        parent_call_id: None,
        payload,
    }
}

fn log_payload() -> TimelinePayload {
    TimelinePayload::Log(LogPayload {
        level: LogLevel::Info,
        message: "m".into(),
        metadata: None,
    })
}

fn call_payload(from: &str, to: &str, success: bool) -> TimelinePayload {
    TimelinePayload::ToolCall(ToolCallPayload {
        tool_name: "move_file".into(),
        args_summary: Some(format!("{from} → {to}")),
        result_summary: None,
        success,
        duration: Some(1),
        from_path: Some(from.into()),
        to_path: Some(to.into()),
        mcp_server: None,
    })
}

fn update_payload(from: &str, to: &str) -> TimelinePayload {
    TimelinePayload::FileUpdate(FileUpdatePayload {
        path: to.into(),
        op: FileOp::Move,
        summary: None,
        from_path: Some(from.into()),
        to_path: Some(to.into()),
        file_size: None,
        mime_type: None,
    })
}

/// One step of a generated stream.
#[derive(Debug, Clone)]
enum Op {
    /// An ordinary record.
    Log,
    /// A failed `move_file` call (not a move half).
    FailedMove,
    /// A complete move: its two halves, `gap` ordinary records between them, update first or
    /// not. `paths` picks from a small set, so the same paths repeat.
    Move {
        paths: u8,
        gap: u8,
        update_first: bool,
        task: bool,
    },
    /// A half whose partner never comes (unique paths).
    LoneHalf { call: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => Just(Op::Log),
        1 => Just(Op::FailedMove),
        3 => (0u8..4, 0u8..4, any::<bool>(), any::<bool>()).prop_map(|(paths, gap, update_first, task)| Op::Move { paths, gap, update_first, task }),
        1 => any::<bool>().prop_map(|call| Op::LoneHalf { call }),
    ]
}

/// Expands ops into records, and returns the index pairs of the complete moves.
fn expand(ops: &[Op]) -> (Vec<TimelineEvent>, Vec<(usize, usize)>) {
    let mut records = Vec::new();
    let mut pairs = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        let next = |records: &Vec<TimelineEvent>| records.len();
        match op {
            Op::Log => records.push(rec(next(&records), "t1", log_payload())),
            Op::FailedMove => {
                records.push(rec(next(&records), "t1", call_payload("x", "y", false)))
            }
            Op::LoneHalf { call } => {
                let (from, to) = (format!("lone{n}"), format!("gone{n}"));
                let payload = if *call {
                    call_payload(&from, &to, true)
                } else {
                    update_payload(&from, &to)
                };
                records.push(rec(next(&records), "t1", payload));
            }
            Op::Move {
                paths,
                gap,
                update_first,
                task,
            } => {
                let (from, to) = (format!("src/{paths}.ts"), format!("lib/{paths}.ts"));
                let task = if *task { "t1" } else { "t2" };
                let (first, second) = if *update_first {
                    (update_payload(&from, &to), call_payload(&from, &to, true))
                } else {
                    (call_payload(&from, &to, true), update_payload(&from, &to))
                };
                let a = next(&records);
                records.push(rec(a, task, first));
                for _ in 0..*gap {
                    records.push(rec(next(&records), task, log_payload()));
                }
                let b = next(&records);
                records.push(rec(b, task, second));
                pairs.push((a, b));
            }
        }
    }
    (records, pairs)
}

fn check(
    window: &TimelineWindow,
    pushed: usize,
    pairs: &[(usize, usize)],
) -> Result<(), TestCaseError> {
    let held: Vec<usize> = window.iter().map(|r| r.id.parse().unwrap()).collect();
    prop_assert!(held.len() <= window.capacity());
    prop_assert!(held.windows(2).all(|w| w[0] < w[1]), "order: {:?}", held);
    let held_set: BTreeSet<usize> = held.iter().copied().collect();
    let complete: Vec<&(usize, usize)> = pairs.iter().filter(|(_, b)| *b < pushed).collect();
    let position: HashMap<usize, usize> = held.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    for (a, b) in &complete {
        prop_assert_eq!(
            held_set.contains(a),
            held_set.contains(b),
            "orphaned half of move ({}, {}) in {:?}",
            a,
            b,
            held
        );
        if let Some(i) = position.get(a) {
            prop_assert!(window.is_paired(*i) && window.is_paired(position[b]));
        }
    }
    if let Some((a, b)) = complete.last() {
        prop_assert!(
            held_set.contains(a) && held_set.contains(b),
            "latest move ({}, {}) dropped",
            a,
            b
        );
        let (x, y) = window.latest_move().unwrap();
        prop_assert_eq!(
            (
                x.id.parse::<usize>().unwrap(),
                y.id.parse::<usize>().unwrap()
            ),
            (*a, *b)
        );
    }
    // Apart from the protected latest move, the window is the newest records.
    let newest = window.capacity().saturating_sub(10);
    for id in pushed.saturating_sub(newest)..pushed {
        prop_assert!(
            held_set.contains(&id),
            "record {} of the newest {} missing",
            id,
            newest
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn window_never_exceeds_100_nor_orphans_a_move(ops in prop::collection::vec(op(), 0..260)) {
        let (records, pairs) = expand(&ops);
        let mut window = TimelineWindow::new();
        prop_assert_eq!(window.capacity(), 100);
        for (pushed, record) in records.into_iter().enumerate() {
            window.push(record);
            check(&window, pushed + 1, &pairs)?;
        }
    }

    #[test]
    fn small_windows_keep_the_invariants(cap in 3usize..12, ops in prop::collection::vec(op(), 0..80)) {
        let (records, pairs) = expand(&ops);
        let mut window = TimelineWindow::with_capacity(cap);
        for (pushed, record) in records.into_iter().enumerate() {
            window.push(record);
            let held: Vec<usize> = window.iter().map(|r| r.id.parse().unwrap()).collect();
            prop_assert!(held.len() <= cap);
            prop_assert!(held.windows(2).all(|w| w[0] < w[1]));
            let complete: Vec<_> = pairs.iter().filter(|(_, b)| *b <= pushed).collect();
            for (a, b) in &complete {
                prop_assert_eq!(held.contains(a), held.contains(b));
            }
            if let Some((a, b)) = complete.last() {
                prop_assert!(held.contains(a) && held.contains(b));
            }
        }
    }

    /// Any string, including unicode and control characters: a payload, never a panic; an
    /// unrecognised line is kept verbatim.
    #[test]
    fn parse_log_line_never_panics(line in any::<String>()) {
        match parse_log_line(&line) {
            TimelinePayload::Log(log) => {
                prop_assert_eq!(log.message, line);
                prop_assert_eq!(log.level, LogLevel::Info);
                prop_assert_eq!(serde_json::Value::Object(log.metadata.unwrap()), json!({"raw": true}));
            }
            TimelinePayload::SelfRepair(_) | TimelinePayload::FileUpdate(_) => {}
            other => prop_assert!(false, "unexpected {:?}", other),
        }
    }

    #[test]
    fn tagged_lines_parse(
        n in 0u32..10_000,
        m in 0u32..10_000,
        text in "[^:\\n]{0,20}",
        from in "[a-zA-Z0-9_./\\p{Han}-]{1,20}",
        to in "[a-zA-Z0-9_./\\p{Han}-]{1,20}",
        sep in prop_oneof![Just("→"), Just("->")],
        rename in any::<bool>(),
    ) {
        match parse_log_line(&format!("[SelfRepairLoop] Attempt {n}/{m}: {text}")) {
            TimelinePayload::SelfRepair(p) => {
                prop_assert_eq!((p.attempt_number, p.max_attempts), (n, m));
                let trimmed = text.trim();
                let expected = if trimmed.is_empty() { "SelfRepairLoop" } else { trimmed };
                prop_assert_eq!(p.trigger, expected);
            }
            other => prop_assert!(false, "not self_repair: {:?}", other),
        }
        let line = if rename { format!("[rename] {from} to {to}") } else { format!("[move] {from} {sep} {to}") };
        match parse_log_line(&line) {
            TimelinePayload::FileUpdate(p) => {
                prop_assert_eq!(p.op, FileOp::Move);
                prop_assert_eq!(p.from_path.as_deref(), Some(from.as_str()));
                prop_assert_eq!(p.to_path.as_deref(), Some(to.as_str()));
                prop_assert_eq!(p.path, to);
            }
            other => prop_assert!(false, "not file_update: {:?}", other),
        }
    }

    /// Every projection takes any event without panicking, and the timeline records it makes
    /// survive the `agent_events` row conversion (all but the parent call).
    #[test]
    fn projections_take_any_event(event in any_event()) {
        let _ = to_legacy(&event);
        let _ = event_path(&event);
        for record in to_timeline_all(&event) {
            let row = AgentEventRow::from(&record);
            // Seed 003's row has no column for a subagent's parent call: it reads back unnested.
            let unnested = TimelineEvent { parent_call_id: None, ..record };
            prop_assert_eq!(TimelineEvent::try_from(&row).unwrap(), unnested);
        }
    }
}
