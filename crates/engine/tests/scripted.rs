//! The scripted provider: the shipped example scripts, streaming in pieces, conditional turns,
//! scripted failures through the retry and fallback drivers.

// Test code: helpers outside #[test] functions unwrap too.

use std::time::Duration;

use keel_engine::{
    ArgumentsStatus, AssembledResponse, ChatMessage, ChatRequest, ModelChain, Provider,
    ProviderError, RetryPolicy, Script, ScriptedProvider, StreamItem, assemble,
    complete_with_retry,
};
use keel_events::{Bus, Emitter, FinishReason, Sequencer};
use tokio_util::sync::CancellationToken;

fn example(name: &str) -> ScriptedProvider {
    ScriptedProvider::from_file(format!(
        "{}/examples/scripts/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

async fn call(
    p: &ScriptedProvider,
    messages: &[ChatMessage],
) -> (AssembledResponse, Vec<StreamItem>) {
    let stream = p
        .stream(&ChatRequest::new("scripted", messages.to_vec()))
        .await
        .unwrap();
    let mut items = Vec::new();
    let response = assemble(stream, |i| items.push(i.clone())).await.unwrap();
    (response, items)
}

/// Runs a conversation against `p`, answering each tool call with `tool_result(name)`.
async fn converse(p: &ScriptedProvider, tool_result: impl Fn(&str) -> String) -> Vec<String> {
    let mut messages = vec![ChatMessage::user("task")];
    let mut tools_called = Vec::new();
    loop {
        let (response, items) = call(p, &messages).await;
        assert!(response.tool_calls_complete());
        let text_pieces = items
            .iter()
            .filter(|i| matches!(i, StreamItem::Text(_)))
            .count();
        assert!(text_pieces >= 2, "text should stream in several deltas");
        messages.push(response.to_message());
        if response.tool_calls.is_empty() {
            continue;
        }
        for c in &response.tool_calls {
            tools_called.push(c.name.clone());
            messages.push(ChatMessage::tool(
                c.id.clone(),
                c.name.clone(),
                tool_result(&c.name),
            ));
        }
        if tools_called.last().map(String::as_str) == Some("attempt_completion") {
            return tools_called;
        }
    }
}

#[tokio::test]
async fn direct_edit_example_reads_edits_and_completes() {
    let p = example("direct_edit.json");
    let tools = converse(&p, |name| match name {
        "read_file" => "fn main() {\n    println!(\"Hello, world!\");\n}\n".into(),
        _ => "ok".into(),
    })
    .await;
    assert_eq!(
        tools,
        vec!["read_file", "replace_in_file", "attempt_completion"]
    );
    assert_eq!(p.remaining(), 0);
}

#[tokio::test]
async fn direct_edit_example_takes_the_other_branch_when_the_file_is_missing() {
    let p = example("direct_edit.json");
    let tools = converse(&p, |name| match name {
        "read_file" => "No such file: src/main.rs".into(),
        _ => "ok".into(),
    })
    .await;
    assert_eq!(tools, vec!["read_file", "write_file", "attempt_completion"]);
}

#[tokio::test]
async fn plan_mode_example_creates_a_plan_then_runs_it() {
    let p = example("plan_mode.json");
    let (first, items) = call(&p, &[ChatMessage::user("add --verbose")]).await;
    assert!(!first.thinking.is_empty());
    assert_eq!(first.tool_calls[0].name, "create_plan");
    let plan: keel_events::Plan =
        serde_json::from_value(first.tool_calls[0].parsed_arguments().unwrap()).unwrap();
    assert_eq!(plan.steps.len(), 2);
    // Arguments arrive in several pieces.
    assert!(first.tool_calls[0].pieces > 3);
    assert!(
        items
            .iter()
            .filter(|i| matches!(i, StreamItem::Thinking(_)))
            .count()
            > 1
    );

    let tools = converse(&p, |name| match name {
        "search_files" => "src/args.rs:3:pub struct Args {".into(),
        _ => "ok".into(),
    })
    .await;
    assert_eq!(
        tools,
        vec![
            "search_files",
            "read_file",
            "replace_in_file",
            "attempt_completion"
        ]
    );
}

#[tokio::test]
async fn an_exhausted_script_is_an_error() {
    let p = ScriptedProvider::new(Script::from_json(r#"{"turns": [{"text": "only"}]}"#).unwrap());
    let (r, _) = call(&p, &[ChatMessage::user("x")]).await;
    assert_eq!(r.text, "only");
    assert_eq!(r.finish(), FinishReason::Stop);
    assert!(r.usage.is_some());
    let err = p
        .stream(&ChatRequest::new("m", vec![]))
        .await
        .err()
        .unwrap();
    assert!(matches!(err, ProviderError::Script(_)));
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn scripted_truncation_is_reported() {
    let p = ScriptedProvider::new(
        Script::from_json(
            r#"{"turns": [{"tool_calls": [{"name": "write_file", "arguments": "{\"path\": \"a"}],
                           "finish_reason": "truncated"}]}"#,
        )
        .unwrap(),
    );
    let (r, items) = call(&p, &[]).await;
    assert_eq!(
        items.last(),
        Some(&StreamItem::Finish(FinishReason::Truncated))
    );
    assert_eq!(r.tool_calls[0].status, ArgumentsStatus::Truncated);
}

#[tokio::test]
async fn scripted_errors_drive_retry_and_fallback() {
    let p = ScriptedProvider::new(
        Script::from_json(
            r#"{"turns": [
                {"error": {"status": 503, "message": "overloaded", "retry_after_ms": 5}},
                {"error": {"status": 404, "message": "no such model", "code": "model_not_found"}},
                {"text": "hello from the fallback"}
            ]}"#,
        )
        .unwrap(),
    );
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let policy = RetryPolicy {
        initial_delay: Duration::from_millis(1),
        ..RetryPolicy::default()
    };
    let mut chain = ModelChain::new(["a", "b"]).unwrap();
    let (r, model) = chain
        .complete(
            &p,
            &ChatRequest::new("", vec![]),
            &policy,
            &emitter,
            &CancellationToken::new(),
            &mut (),
        )
        .await
        .unwrap();
    assert_eq!(model, "b");
    assert_eq!(r.text, "hello from the fallback");
    // seq 1 select, 2 retry, 3 fallback select
    assert_eq!(emitter.sequencer().last_seq(), 3);

    let p = ScriptedProvider::new(
        Script::from_json(r#"{"delay_ms": 1, "turns": [{"text": "slow but fine"}]}"#).unwrap(),
    );
    let r = complete_with_retry(
        &p,
        &ChatRequest::new("", vec![]),
        &policy,
        &emitter,
        &CancellationToken::new(),
        &mut (),
    )
    .await
    .unwrap();
    assert_eq!(r.text, "slow but fine");
}
