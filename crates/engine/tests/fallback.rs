//! Model fallback against a mock server that only knows some models.

// Test code: helpers outside #[test] functions unwrap too.

use crate::support;

use std::time::Duration;

use keel_engine::{
    ChatMessage, ChatRequest, ModelChain, OpenAiConfig, OpenAiProvider, ProviderError, RetryPolicy,
};
use keel_events::{Bus, Delivery, Emitter, EventKind, PrepareModelSelect, Sequencer};
use support::{MockServer, Reply, text_answer};
use tokio_util::sync::CancellationToken;

fn selections(sub: &mut keel_events::Subscription) -> Vec<PrepareModelSelect> {
    let mut out = Vec::new();
    while let Some(Delivery::Event(e)) = sub.try_recv() {
        if let EventKind::PrepareModelSelect(p) = &e.kind {
            out.push(p.clone());
        }
    }
    out
}

fn policy() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 2,
        initial_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    }
}

async fn setup(
    responder: impl Fn(&str) -> Reply + Send + Sync + 'static,
) -> (
    MockServer,
    OpenAiProvider,
    Emitter,
    keel_events::Subscription,
) {
    let server =
        MockServer::start(move |_, body| responder(body["model"].as_str().unwrap_or(""))).await;
    let provider = OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "unused")).unwrap();
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let sub = emitter.bus().subscribe();
    (server, provider, emitter, sub)
}

#[tokio::test]
async fn a_missing_model_falls_back_and_stays_on_the_fallback() {
    let (server, provider, emitter, mut sub) = setup(|model| match model {
        "m1" => Reply::error(
            404,
            "The model `m1` does not exist",
            Some("model_not_found"),
        ),
        _ => text_answer(&["from ", model]),
    })
    .await;
    let mut chain = ModelChain::new(["m1", "m2"]).unwrap();
    let request = ChatRequest::new("ignored", vec![ChatMessage::user("hi")]);
    let cancel = CancellationToken::new();
    let (response, model) = chain
        .complete(&provider, &request, &policy(), &emitter, &cancel, &mut ())
        .await
        .unwrap();
    assert_eq!(model, "m2");
    assert_eq!(response.text, "from m2");
    assert_eq!(
        selections(&mut sub),
        vec![
            PrepareModelSelect {
                requested_model: "m1".into(),
                final_model: "m1".into(),
                is_fallback: false,
                reason: None
            },
            PrepareModelSelect {
                requested_model: "m1".into(),
                final_model: "m2".into(),
                is_fallback: true,
                reason: Some("m1: HTTP 404: The model `m1` does not exist".into()),
            },
        ]
    );
    // The next call goes straight to m2, with no new selection event.
    chain
        .complete(&provider, &request, &policy(), &emitter, &cancel, &mut ())
        .await
        .unwrap();
    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(models, vec!["m1", "m2", "m2"]);
    assert!(selections(&mut sub).is_empty());
    assert_eq!(chain.current(), "m2");
}

#[tokio::test]
async fn exhausted_retries_fall_back_too() {
    let (server, provider, emitter, mut sub) = setup(|model| match model {
        "m1" => Reply::error(503, "overloaded", None),
        _ => text_answer(&["ok"]),
    })
    .await;
    let mut chain = ModelChain::new(["m1", "m2"]).unwrap();
    let request = ChatRequest::new("", vec![ChatMessage::user("hi")]);
    let (_, model) = chain
        .complete(
            &provider,
            &request,
            &policy(),
            &emitter,
            &CancellationToken::new(),
            &mut (),
        )
        .await
        .unwrap();
    assert_eq!(model, "m2");
    assert_eq!(server.requests().len(), 3); // two attempts on m1, one on m2
    let s = selections(&mut sub);
    assert!(s[1].is_fallback);
    assert!(
        s[1].reason
            .as_deref()
            .unwrap()
            .contains("gave up after 2 attempts")
    );
}

#[tokio::test]
async fn other_errors_do_not_fall_back_and_the_last_model_error_is_returned() {
    let (server, provider, emitter, _sub) = setup(|_| Reply::error(401, "bad key", None)).await;
    let mut chain = ModelChain::new(["m1", "m2"]).unwrap();
    let request = ChatRequest::new("", vec![ChatMessage::user("hi")]);
    let err = chain
        .complete(
            &provider,
            &request,
            &policy(),
            &emitter,
            &CancellationToken::new(),
            &mut (),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::Http { status: 401, .. }));
    assert_eq!(server.requests().len(), 1);

    let (_server2, provider, emitter, _sub) =
        setup(|m| Reply::error(404, &format!("no {m}"), Some("model_not_found"))).await;
    let mut chain = ModelChain::new(["m1", "m2"]).unwrap();
    let err = chain
        .complete(
            &provider,
            &request,
            &policy(),
            &emitter,
            &CancellationToken::new(),
            &mut (),
        )
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "HTTP 404: no m2");
    assert!(ModelChain::new(Vec::<String>::new()).is_err());
}
