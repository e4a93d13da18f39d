//! Property tests of the wire format: every catalogue variant survives Event → JSON → Event →
//! JSON unchanged, and the line parser never panics.

// Test code: helpers outside #[test] functions unwrap too.

use crate::common;

use std::collections::BTreeSet;

use common::strategies::{any_event, kind_strategies};
use keel_events::{Event, EventKind, parse_line};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

/// The strategy list names every catalogue type exactly once, in catalogue order, and each
/// strategy produces the type it is named for.
#[test]
fn strategies_cover_every_variant() {
    let strategies = kind_strategies();
    let names: Vec<&str> = strategies.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, EventKind::TYPES);
    assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), 58);
    let mut runner = TestRunner::deterministic();
    for (name, strategy) in &strategies {
        for _ in 0..8 {
            let kind = strategy.new_tree(&mut runner).unwrap().current();
            assert_eq!(kind.type_name(), *name);
        }
    }
}

fn assert_round_trip(event: &Event) -> Result<(), TestCaseError> {
    let json = event.to_json();
    let back = parse_line(1, &json).map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
    prop_assert_eq!(&back, event);
    prop_assert_eq!(back.to_json(), json);
    let via_serde: Event =
        serde_json::from_str(&event.to_json()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&via_serde, event);
    Ok(())
}

/// Each variant, on its own, with many cases (so no variant relies on luck to be drawn).
#[test]
fn every_variant_round_trips() {
    for (name, strategy) in kind_strategies() {
        let mut runner = TestRunner::new(ProptestConfig {
            cases: 64,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        let result = runner.run(&strategy, |kind| {
            let event = keel_events::Sequencer::new("s", "p").stamp(Some("t"), kind);
            assert_round_trip(&event)
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whole events with arbitrary envelopes round-trip too.
    #[test]
    fn events_round_trip(event in any_event()) {
        assert_round_trip(&event)?;
    }

    /// Any string: an error or an event, never a panic.
    #[test]
    fn parse_line_never_panics(line in any::<String>()) {
        let _ = parse_line(7, &line);
    }

    /// Valid lines cut short or with a byte-range spliced out: an error, never a panic.
    #[test]
    fn parse_line_survives_damaged_lines(event in any_event(), cut in any::<prop::sample::Index>(), len in 0usize..8) {
        let json = event.to_json();
        let mut at = cut.index(json.len() + 1);
        while !json.is_char_boundary(at) { at -= 1; }
        let mut end = (at + len).min(json.len());
        while !json.is_char_boundary(end) { end -= 1; }
        let damaged = format!("{}{}", &json[..at], &json[end.max(at)..]);
        let _ = parse_line(1, &damaged);
        let _ = parse_line(1, &json[..at]);
    }
}
