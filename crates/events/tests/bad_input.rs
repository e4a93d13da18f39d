//! Bad input: every malformed line yields a `ParseError` naming the line and the field, and a
//! bad line never stops `read_jsonl`.

// Test code: helpers outside #[test] functions unwrap too.

use keel_events::{ParseError, read_jsonl};
use keel_events::{RunLlmDelta, Sequencer, parse_line};

const ENVELOPE: &str = r#""id":"0190b2c4-5d6e-7f00-8000-000000000001","seq":1,"ts":"2026-11-22T10:00:00.123Z","session_id":"s","project_id":"p""#;

fn line(rest: &str) -> String {
    format!("{{{ENVELOPE},{rest}}}")
}

#[test]
fn a_good_line_parses() {
    let e = parse_line(
        1,
        &line(r#""type":"run.llm.delta","payload":{"text":"hi"}"#),
    )
    .unwrap();
    assert_eq!(e.seq, 1);
    assert_eq!(e.type_name(), "run.llm.delta");
}

#[test]
fn malformed_json() {
    let err = parse_line(3, r#"{"id": "#).unwrap_err();
    assert!(
        matches!(err, ParseError::Envelope { line: 3, .. }),
        "{err:?}"
    );
    assert_eq!(err.line(), 3);
    assert!(
        err.to_string()
            .starts_with("line 3: malformed event envelope"),
        "{err}"
    );

    let err = parse_line(4, "not json at all").unwrap_err();
    assert!(
        matches!(err, ParseError::Envelope { line: 4, .. }),
        "{err:?}"
    );
}

#[test]
fn missing_envelope_field() {
    let text = r#"{"id":"0190b2c4-5d6e-7f00-8000-000000000001","ts":"2026-11-22T10:00:00.123Z","session_id":"s","project_id":"p","type":"run.llm.delta","payload":{"text":"hi"}}"#;
    let err = parse_line(5, text).unwrap_err();
    match &err {
        ParseError::Envelope { line, message, .. } => {
            assert_eq!(*line, 5);
            assert!(message.contains("missing field `seq`"), "{message}");
        }
        other => panic!("expected Envelope, got {other:?}"),
    }
}

#[test]
fn mistyped_envelope_field_names_its_path() {
    let text = line(r#""type":"run.llm.delta","payload":{"text":"hi"}"#)
        .replace(r#""seq":1"#, r#""seq":"one""#);
    let err = parse_line(6, &text).unwrap_err();
    match &err {
        ParseError::Envelope { line, path, .. } => {
            assert_eq!(*line, 6);
            assert_eq!(path, "seq");
        }
        other => panic!("expected Envelope, got {other:?}"),
    }
    assert!(err.to_string().contains("`seq`"), "{err}");
}

#[test]
fn unknown_type() {
    let err = parse_line(7, &line(r#""type":"run.llm.teleport","payload":{}"#)).unwrap_err();
    match &err {
        ParseError::UnknownType { line, event_type } => {
            assert_eq!(*line, 7);
            assert_eq!(event_type, "run.llm.teleport");
        }
        other => panic!("expected UnknownType, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "line 7: unknown event type `run.llm.teleport`"
    );
}

#[test]
fn wrong_payload_field_type_names_the_field_path() {
    let err = parse_line(
        8,
        &line(r#""type":"run.step.start","payload":{"step_id":1,"title":"t","description":"d","progress":{"current":"one","total":2}}"#),
    )
    .unwrap_err();
    match &err {
        ParseError::Payload {
            line,
            event_type,
            path,
            ..
        } => {
            assert_eq!(*line, 8);
            assert_eq!(*event_type, "run.step.start");
            assert_eq!(path, "progress.current");
        }
        other => panic!("expected Payload, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("line 8: invalid `run.step.start` payload at `payload.progress.current`"),
        "{err}"
    );
}

#[test]
fn wrong_enum_value_in_payload() {
    let err = parse_line(
        9,
        &line(r#""type":"run.tool.end","payload":{"call_id":"c","tool_name":"x","status":"weird","result":"","duration_ms":1,"args_summary":"","result_summary":""}"#),
    )
    .unwrap_err();
    match &err {
        ParseError::Payload {
            path, event_type, ..
        } => {
            assert_eq!(*event_type, "run.tool.end");
            assert_eq!(path, "status");
        }
        other => panic!("expected Payload, got {other:?}"),
    }
}

#[test]
fn missing_payload_field() {
    let err = parse_line(10, &line(r#""type":"run.llm.delta","payload":{}"#)).unwrap_err();
    match &err {
        ParseError::Payload { message, .. } => {
            assert!(message.contains("missing field `text`"), "{message}")
        }
        other => panic!("expected Payload, got {other:?}"),
    }
}

#[test]
fn read_jsonl_goes_on_after_bad_lines() {
    let good = |text: &str| {
        Sequencer::new("s", "p")
            .stamp(None, RunLlmDelta { text: text.into() })
            .to_json()
    };
    let stream = [
        good("one"),
        "{broken".to_owned(),
        String::new(),
        line(r#""type":"nope.nope.nope","payload":{}"#),
        "   ".to_owned(),
        good("two"),
    ]
    .join("\n");
    let results: Vec<_> = read_jsonl(stream.as_bytes()).collect();
    assert_eq!(results.len(), 4, "blank lines are skipped");
    assert_eq!(results[0].as_ref().unwrap().seq, 1);
    assert_eq!(results[1].as_ref().unwrap_err().line(), 2);
    assert!(matches!(
        results[2],
        Err(ParseError::UnknownType { line: 4, .. })
    ));
    assert!(
        results[3].is_ok(),
        "the line after the bad ones still parses"
    );
}
