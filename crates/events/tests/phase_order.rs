//! The timeline's phases keep their order over every golden run: the scripted session, the
//! committed sample streams (`schemas/samples/*.jsonl`), and (through the engine tests' shared
//! `describe`) every engine scenario snapshot.

use crate::common;

use std::path::PathBuf;

use keel_events::projection::{
    AgentPhase, PhaseAction, TimelineEvent, TimelinePayload, phase_order_violations,
    to_timeline_all,
};
use keel_events::{Event, read_jsonl};

fn records(events: &[Event]) -> Vec<TimelineEvent> {
    events.iter().flat_map(to_timeline_all).collect()
}

fn phases(records: &[TimelineEvent]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.payload {
            TimelinePayload::AgentPhase(p) => Some(format!("{:?}:{:?}", p.phase, p.action)),
            _ => None,
        })
        .collect()
}

#[test]
fn scripted_session_keeps_phase_order() {
    let records = records(&common::script::scripted_run());
    assert_eq!(phase_order_violations(&records), Vec::<String>::new());
}

#[test]
fn every_sample_stream_keeps_phase_order() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/samples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".jsonl") || name.starts_with("invalid") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let events: Vec<Event> = read_jsonl(text.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let records = records(&events);
        assert!(!phases(&records).is_empty(), "{name} has no phases");
        assert_eq!(
            phase_order_violations(&records),
            Vec::<String>::new(),
            "{name}"
        );
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} sample stream(s) found");
}

/// The two reported breaks: a direct turn's coder exits before the reviewer enters, and a plan's
/// coder is entered and exited once however many steps it has.
#[test]
fn direct_and_plan_turns_read_in_order() {
    let events = common::script::scripted_run();
    let all = records(&events);
    let phases = phases(&all);
    let coder_exits = phases.iter().filter(|p| *p == "Coder:Exit").count();
    let coder_enters = phases.iter().filter(|p| *p == "Coder:Enter").count();
    assert_eq!(coder_exits, coder_enters, "{phases:?}");
    for (i, p) in phases.iter().enumerate() {
        if p == "Reviewer:Enter" {
            assert_ne!(
                phases.get(i.wrapping_sub(1)).map(String::as_str),
                Some("Coder:Enter")
            );
        }
    }
    assert!(
        all.iter().any(|r| matches!(
            &r.payload,
            TimelinePayload::AgentPhase(p)
                if p.phase == AgentPhase::Reviewer && p.action == PhaseAction::Exit
        )),
        "the reviewer exits: {phases:?}"
    );
}

#[test]
fn a_break_is_reported() {
    let events = common::script::scripted_run();
    let mut records = records(&events);
    let first_enter = records
        .iter()
        .position(|r| matches!(&r.payload, TimelinePayload::AgentPhase(p) if p.action == PhaseAction::Enter))
        .unwrap();
    let duplicate = records[first_enter].clone();
    records.insert(first_enter + 1, duplicate);
    let violations = phase_order_violations(&records);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(violations[0].contains("entered twice"), "{violations:?}");
}
