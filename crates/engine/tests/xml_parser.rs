//! The XML tool-call parser: any split of the same text gives the same result, and nothing
//! panics on arbitrary input.

// Test code: helpers outside #[test] functions unwrap too.

use keel_engine::xml::{XmlEvent, XmlToolParser, coalesce};
use proptest::prelude::*;

const TOOLS: [&str; 3] = ["read_file", "write_to_file", "attempt_completion"];

/// Feeds `text` cut at `cuts` (byte offsets, moved to char boundaries).
fn parse_split(text: &str, cuts: &[usize]) -> Vec<XmlEvent> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|c| {
            let mut c = c % (text.len() + 1);
            while !text.is_char_boundary(c) {
                c -= 1;
            }
            c
        })
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut parser = XmlToolParser::new(TOOLS);
    let mut events = Vec::new();
    let mut start = 0;
    for p in points.into_iter().chain([text.len()]) {
        events.extend(parser.feed(&text[start..p]));
        start = p;
    }
    events.extend(parser.finish());
    coalesce(events)
}

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<read_file>".to_owned()),
        Just("</read_file>".to_owned()),
        Just("<write_to_file>".to_owned()),
        Just("</write_to_file>".to_owned()),
        Just("<path>".to_owned()),
        Just("</path>".to_owned()),
        Just("<content>".to_owned()),
        Just("</content>".to_owned()),
        Just("<thinking>".to_owned()),
        Just("</thinking>".to_owned()),
        Just("<unknown>".to_owned()),
        Just("</".to_owned()),
        Just("<".to_owned()),
        Just(">".to_owned()),
        Just("\n".to_owned()),
        Just("<<<<<<< SEARCH".to_owned()),
        "[a-z _é]{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_split_gives_the_same_result(
        tokens in proptest::collection::vec(token(), 0..40),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let text: String = tokens.concat();
        let whole = XmlToolParser::parse_all(TOOLS, &text);
        prop_assert_eq!(parse_split(&text, &cuts), whole);
    }

    #[test]
    fn every_character_at_a_time_gives_the_same_result(tokens in proptest::collection::vec(token(), 0..30)) {
        let text: String = tokens.concat();
        let cuts: Vec<usize> = (0..=text.len()).collect();
        prop_assert_eq!(parse_split(&text, &cuts), XmlToolParser::parse_all(TOOLS, &text));
    }

    #[test]
    fn never_panics_and_loses_no_plain_text(text in "\\PC{0,200}", cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        let events = parse_split(&text, &cuts);
        // Without any known opening tag, the whole input comes back as text.
        if !text.contains("<read_file>") && !text.contains("<write_to_file>")
            && !text.contains("<attempt_completion>") && !text.contains("<thinking>")
        {
            let expected = if text.is_empty() { vec![] } else { vec![XmlEvent::Text(text.clone())] };
            prop_assert_eq!(events, expected);
        }
    }
}

#[test]
fn text_tool_calls_and_thinking_interleave() {
    let text = "<thinking>plan: read</thinking>Let me read.\n<read_file><path>a.rs</path></read_file>\nThen done.<attempt_completion><result>\nAll done.\n</result></attempt_completion>";
    let events = parse_split(text, &[3, 17, 40, 41, 70, 99]);
    assert_eq!(events.len(), 5, "{events:?}");
    assert_eq!(events[0], XmlEvent::Thinking("plan: read".into()));
    assert_eq!(events[1], XmlEvent::Text("Let me read.\n".into()));
    assert!(matches!(&events[2], XmlEvent::ToolCall(c) if c.name == "read_file"));
    assert_eq!(events[3], XmlEvent::Text("\nThen done.".into()));
    match &events[4] {
        XmlEvent::ToolCall(c) => {
            assert_eq!(c.arguments(), serde_json::json!({"result": "All done."}));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_text_only_model_stream_becomes_tool_calls() {
    use keel_engine::{ArgumentsStatus, ChatRequest, Provider, Script, ScriptedProvider, assemble};
    use keel_events::FinishReason;

    let script = serde_json::json!({
        "chunk_chars": 5,
        "turns": [
            {"text": "<thinking>need the file</thinking>Reading.<read_file><path>src/lib.rs</path></read_file>"},
            {"text": "Writing.<write_to_file><path>a</path><content>hal"}
        ]
    });
    let p = ScriptedProvider::new(Script::from_json(&script.to_string()).unwrap());
    let req = ChatRequest::new("m", vec![]);

    let stream = keel_engine::xml::parse_tool_stream(p.stream(&req).await.unwrap(), TOOLS);
    let r = assemble(stream, |_| {}).await.unwrap();
    assert_eq!(r.thinking, "need the file");
    assert_eq!(r.text, "Reading.");
    assert_eq!(r.finish(), FinishReason::ToolCalls);
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].name, "read_file");
    assert!(r.tool_calls[0].id.starts_with("xml_"));
    assert_eq!(
        r.tool_calls[0].parsed_arguments().unwrap(),
        serde_json::json!({"path": "src/lib.rs"})
    );

    let stream = keel_engine::xml::parse_tool_stream(p.stream(&req).await.unwrap(), TOOLS);
    let r = assemble(stream, |_| {}).await.unwrap();
    assert_eq!(r.text, "Writing.");
    assert_eq!(r.finish(), FinishReason::Stop);
    assert_eq!(r.tool_calls[0].name, "write_to_file");
    assert_eq!(r.tool_calls[0].status, ArgumentsStatus::Truncated);
    assert_eq!(r.warnings.len(), 1);
}
