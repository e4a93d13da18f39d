//! A recorded turn (`schemas/samples/run-direct.jsonl`) exported over real OTLP/HTTP to a
//! collector on loopback, decoded with the OpenTelemetry protobuf definitions.

use std::io::BufReader;
use std::net::TcpListener;
use std::time::Duration;

use keel_events::EventHandler as _;
use keel_telemetry::{Telemetry, TelemetryConfig};
use keel_test_support::http_sink::HttpSink;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

fn sample_turn() -> Vec<keel_events::Event> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../schemas/samples/run-direct.jsonl"
    );
    let file = std::fs::File::open(path).unwrap();
    keel_events::read_jsonl(BufReader::new(file))
        .map(Result::unwrap)
        .collect()
}

/// Every span the collector received, and the paths they were posted to.
fn exported(sink: &HttpSink) -> (Vec<String>, Vec<Span>) {
    let mut paths = Vec::new();
    let mut spans = Vec::new();
    for received in sink.drain(Duration::from_secs(2)) {
        paths.push(received.path);
        let request = ExportTraceServiceRequest::decode(received.body.as_slice()).unwrap();
        for resource in request.resource_spans {
            for scope in resource.scope_spans {
                spans.extend(scope.spans);
            }
        }
    }
    (paths, spans)
}

fn attr<'a>(span: &'a Span, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn text(span: &Span, key: &str) -> Option<String> {
    match attr(span, key)? {
        Value::StringValue(s) => Some(s.clone()),
        other => Some(format!("{other:?}")),
    }
}

fn int(span: &Span, key: &str) -> Option<i64> {
    match attr(span, key)? {
        Value::IntValue(n) => Some(*n),
        _ => None,
    }
}

fn export(capture_content: bool) -> (Vec<String>, Vec<Span>) {
    let sink = HttpSink::start();
    let config = TelemetryConfig::with_env(Some(sink.base.clone()), capture_content, |_| None);
    let telemetry = Telemetry::start(&config)
        .unwrap()
        .expect("an endpoint turns it on");
    let mut spans = telemetry.spans();
    for event in sample_turn() {
        spans.handle(&event);
    }
    telemetry.shutdown().unwrap();
    exported(&sink)
}

#[test]
fn a_turn_is_an_agent_span_over_its_model_calls_and_tools() {
    let (paths, spans) = export(false);
    assert!(paths.iter().all(|p| p == "/v1/traces"), "{paths:?}");
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    let agent = spans
        .iter()
        .find(|s| s.name == "invoke_agent keel")
        .unwrap();
    assert_eq!(
        names.iter().filter(|n| n.starts_with("chat ")).count(),
        4,
        "{names:?}"
    );
    for tool in ["execute_tool read_file", "execute_tool replace_in_file"] {
        assert!(names.contains(&tool), "{names:?}");
    }
    // One trace: every call's parent is the turn.
    for span in spans.iter().filter(|s| s.name != "invoke_agent keel") {
        assert_eq!(span.trace_id, agent.trace_id, "{}", span.name);
        assert_eq!(span.parent_span_id, agent.span_id, "{}", span.name);
        assert!(span.start_time_unix_nano >= agent.start_time_unix_nano);
        assert!(span.end_time_unix_nano <= agent.end_time_unix_nano);
    }
    assert_eq!(
        text(agent, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(
        text(agent, "gen_ai.request.model").as_deref(),
        Some("scripted")
    );
    assert!(
        text(agent, "gen_ai.conversation.id")
            .unwrap()
            .starts_with("conv_")
    );
    assert_eq!(
        text(agent, "keel.agent.status").as_deref(),
        Some("completed")
    );

    let chat = spans.iter().find(|s| s.name == "chat scripted").unwrap();
    assert_eq!(text(chat, "gen_ai.operation.name").as_deref(), Some("chat"));
    // The usage that follows `run.llm.end` is on its span.
    assert_eq!(int(chat, "gen_ai.usage.input_tokens"), Some(900));
    assert_eq!(int(chat, "gen_ai.usage.output_tokens"), Some(30));
    let read = spans
        .iter()
        .find(|s| s.name == "execute_tool read_file")
        .unwrap();
    assert_eq!(
        text(read, "gen_ai.tool.call.id").as_deref(),
        Some("call_read")
    );
    assert_eq!(text(read, "keel.tool.status").as_deref(), Some("success"));
    // No content unless asked for.
    for span in &spans {
        for key in [
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
        ] {
            assert!(attr(span, key).is_none(), "{} has {key}", span.name);
        }
    }
}

#[test]
fn content_is_recorded_only_when_asked_for() {
    let (_, spans) = export(true);
    let agent = spans
        .iter()
        .find(|s| s.name == "invoke_agent keel")
        .unwrap();
    assert!(
        text(agent, "gen_ai.input.messages")
            .unwrap()
            .contains("Fix the failing test")
    );
    let read = spans
        .iter()
        .find(|s| s.name == "execute_tool read_file")
        .unwrap();
    assert_eq!(
        text(read, "gen_ai.tool.call.arguments").as_deref(),
        Some(r#"{"path":"calc/stats.py"}"#)
    );
}

#[test]
fn off_without_an_endpoint_and_a_bad_endpoint_is_an_error() {
    assert!(Telemetry::start(&TelemetryConfig::off()).unwrap().is_none());
    let bad = TelemetryConfig::with_env(Some("not a url at all".into()), false, |_| None);
    let err = Telemetry::start(&bad).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the OTLP exporter cannot be set up"),
        "{err}"
    );
}

#[test]
fn a_collector_that_is_down_does_not_hold_up_the_events() {
    // Nothing listens on this port: export fails in the background, events go on at once.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config =
        TelemetryConfig::with_env(Some(format!("http://127.0.0.1:{port}")), false, |_| None);
    let telemetry = Telemetry::start(&config).unwrap().unwrap();
    let mut spans = telemetry.spans();
    let started = std::time::Instant::now();
    for event in sample_turn() {
        spans.handle(&event);
    }
    assert!(started.elapsed() < Duration::from_millis(500));
    // Stopping gives up on the unreachable collector within its bound instead of hanging.
    let stopping = std::time::Instant::now();
    let _ = telemetry.shutdown();
    assert!(stopping.elapsed() < Duration::from_secs(15));
}
