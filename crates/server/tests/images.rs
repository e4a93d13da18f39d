//! Images in over HTTP (issue 27 §3): a turn's `images` reach a vision model as `image_url`
//! parts (the mock OpenAI server records the request), `agent.start` records their name, type
//! and size only; bad images are 422s naming them; a text-only model fails the turn by name and
//! is sent nothing.

use base64::Engine as _;
use keel_test_support::mock_openai::{MockServer, text_answer};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{ALL, Options, TestServer};

/// A server whose sessions talk to `model` as `model_name` (no key: a loopback endpoint).
async fn server(model: &MockServer, model_name: &str) -> TestServer {
    let mut options = Options::new("simple.json");
    options.config_file = Some(format!(
        "[provider]\nbase_url = \"{}\"\nmodel = \"{model_name}\"\n",
        model.base_url
    ));
    options.provider = |settings| settings.provider = "openai".to_owned();
    TestServer::start(options).await
}

fn turn_with_images(input: &str, images: Value) -> Value {
    json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": input, "images": images})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turns_images_reach_a_vision_model_and_bad_ones_are_named() {
    let model = MockServer::sequence(vec![text_answer(&["A green square."])]).await;
    let s = server(&model, "gpt-4o").await;
    let session = s.create_session("p1", ALL).await;
    let path = format!("/v1/sessions/{session}/turns");
    let png = keel_test_support::png::solid_png(2, 2, [0, 200, 0]);
    let data = base64::engine::general_purpose::STANDARD.encode(&png);

    // Refused before anything starts, each naming the image.
    let (status, body) = s
        .post(
            &path,
            ALL,
            turn_with_images(
                "look",
                json!([{"name": "notes.png", "data": "aGVsbG8sIHdvcmxk"}]),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        body["error"]["message"],
        "notes.png is not a PNG, JPEG, GIF or WebP image (it starts with `hello, w`)"
    );
    let (status, body) = s
        .post(
            &path,
            ALL,
            turn_with_images("look", json!([{"media_type": "image/bmp", "data": data}])),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("image 1: `media_type` image/bmp is not one of image/png"),
        "{body}"
    );
    let (status, body) = s
        .post(
            &path,
            ALL,
            turn_with_images("look", json!([{"data": "!!"}])),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(model.requests().is_empty());

    let (status, body) = s
        .post(
            &path,
            ALL,
            turn_with_images(
                "What colour is this?",
                json!([{"name": "green.png", "media_type": "image/png", "data": data}]),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let ended = s
        .wait_turn(&session, body["turn"]["id"].as_str().unwrap())
        .await;
    assert_eq!(ended["status"], "completed", "{ended}");

    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let user = requests[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()
        .clone();
    assert_eq!(
        user["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}}),
        "{user}"
    );
    let events = s.events(&session).await;
    let start = events.iter().find(|e| e["type"] == "agent.start").unwrap();
    assert_eq!(
        start["payload"]["images"],
        json!([{"name": "green.png", "media_type": "image/png", "size": png.len()}])
    );
    assert!(!serde_json::to_string(&events).unwrap().contains(&data));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_model_fails_the_turn_by_name_and_is_sent_nothing() {
    let model = MockServer::sequence(vec![text_answer(&["never asked"])]).await;
    let s = server(&model, "qwen2.5-coder-1.5b-instruct").await;
    let session = s.create_session("p1", ALL).await;
    let png = keel_test_support::png::solid_png(2, 2, [0, 200, 0]);
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{session}/turns"),
            ALL,
            turn_with_images("What colour is this?", json!([{"data": data}])),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    s.wait_turn(&session, body["turn"]["id"].as_str().unwrap())
        .await;
    let events = s.events(&session).await;
    let end = events.iter().find(|e| e["type"] == "agent.end").unwrap();
    assert_eq!(end["payload"]["status"], "failed");
    assert_eq!(
        end["payload"]["result"],
        "qwen2.5-coder-1.5b-instruct does not accept images; set vision = true if it does. The request had an image and was not sent."
    );
    assert!(model.requests().is_empty());
}
