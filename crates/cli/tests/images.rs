//! Images in (issue 27 §3), end to end over real loopback HTTP against the recording mock
//! OpenAI server: `keel run --image` sends the image as an `image_url` part to a vision model
//! and records only its name, type and size in `agent.start`; a text-only model refuses by
//! name and nothing is sent; wrong type, too large and missing files are usage errors naming
//! the file; `read_file` on an image attaches it for a vision model and describes it for
//! another; `keel chat` attaches the image files a line names.

use std::path::Path;
use std::process::{Output, Stdio};

use base64::Engine as _;
use keel_events::EventKind;
use keel_test_support::mock_openai::{MockServer, text_answer, tool_call_answer};
use keel_test_support::png::solid_png;
use serde_json::Value;

use crate::common::{events, keel, keel_with_model};

/// A project with `shot.png` (a real 3×2 PNG) and the bytes it holds.
fn project() -> (tempfile::TempDir, tempfile::TempDir, Vec<u8>) {
    let root = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let png = solid_png(3, 2, [200, 30, 30]);
    std::fs::write(root.path().join("shot.png"), &png).unwrap();
    (root, config, png)
}

/// The user messages of a recorded request body.
fn user_messages(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .cloned()
        .collect()
}

/// The `image_url` URLs of a message whose content is a list of parts.
fn image_urls(message: &Value) -> Vec<String> {
    message["content"]
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p["type"] == "image_url")
                .map(|p| p["image_url"]["url"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `keel run "What is in this picture?" --image shot.png --model MODEL` in `root`, against the
/// mock server at `base_url`.
async fn run_with_image(config: &Path, root: &Path, base_url: &str, model: &str) -> Output {
    let image = root.join("shot.png");
    keel_with_model(
        config,
        root,
        base_url,
        &[
            "run",
            "What is in this picture?",
            "--image",
            image.to_str().unwrap(),
            "--model",
            model,
        ],
    )
    .await
}

fn data_url(png: &[u8]) -> String {
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_an_image_sends_it_as_an_image_part_and_logs_only_its_metadata() {
    let (root, config, png) = project();
    let model = MockServer::sequence(vec![text_answer(&["A red square."])]).await;
    let image = root.path().join("shot.png");
    let output = run_with_image(config.path(), root.path(), &model.base_url, "gpt-4o").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");

    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let users = user_messages(&requests[0].body);
    let task = users.last().unwrap();
    let parts = task["content"].as_array().expect("content parts");
    assert_eq!(parts[0]["type"], "text");
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .ends_with("What is in this picture?"),
        "{task}"
    );
    assert_eq!(parts.len(), 2, "{task}");
    assert_eq!(image_urls(task), [data_url(&png)]);

    // The event log has the image's name, type and size, never its bytes.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let start = events(&stdout)
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::AgentStart(start) => Some(start),
            _ => None,
        })
        .unwrap();
    let images = start.images.expect("agent.start lists the images");
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].name, image.to_str().unwrap());
    assert_eq!(images[0].media_type, "image/png");
    assert_eq!(images[0].size, png.len() as u64);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&png);
    assert!(
        !stdout.contains(&encoded),
        "the bytes stay out of the events"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_model_refuses_images_by_name_and_nothing_is_sent() {
    let (root, config, _) = project();
    let model = MockServer::sequence(vec![text_answer(&["never asked"])]).await;
    let output = run_with_image(
        config.path(),
        root.path(),
        &model.base_url,
        "qwen2.5-coder-1.5b-instruct",
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert!(model.requests().is_empty(), "nothing is sent");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let end = events(&stdout)
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::AgentEnd(end) => Some(end),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.status, keel_events::AgentStatus::Failed);
    assert_eq!(
        end.result,
        "qwen2.5-coder-1.5b-instruct does not accept images; set vision = true if it does. The request had an image and was not sent."
    );

    // `vision = true` says otherwise: the same model is sent the image.
    std::fs::write(root.path().join("keel.toml"), "vision = true\n").unwrap();
    let model = MockServer::sequence(vec![text_answer(&["A red square."])]).await;
    let output = run_with_image(
        config.path(),
        root.path(),
        &model.base_url,
        "qwen2.5-coder-1.5b-instruct",
    )
    .await;
    assert!(output.status.success());
    let requests = model.requests();
    assert_eq!(
        image_urls(user_messages(&requests[0].body).last().unwrap()).len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_image_files_are_usage_errors_naming_the_file() {
    let (root, config, _) = project();
    let model = MockServer::sequence(vec![text_answer(&["never asked"])]).await;
    let fake = root.path().join("fake.png");
    std::fs::write(&fake, "just text, not a picture").unwrap();
    let huge = root.path().join("huge.png");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(10 * 1024 * 1024 + 1).unwrap();
    let missing = root.path().join("gone.png");
    let cases = [
        (
            &fake,
            format!(
                "keel run: {} is not a PNG, JPEG, GIF or WebP image (it starts with `just tex`)",
                fake.display()
            ),
        ),
        (
            &huge,
            format!(
                "keel run: {} is 10485761 bytes; images may be at most 10485760 bytes (10 MiB)",
                huge.display()
            ),
        ),
        (
            &missing,
            format!("keel run: {}: no such file", missing.display()),
        ),
    ];
    for (path, expected) in cases {
        let output = keel_with_model(
            config.path(),
            root.path(),
            &model.base_url,
            &[
                "run",
                "look",
                "--image",
                path.to_str().unwrap(),
                "--model",
                "gpt-4o",
            ],
        )
        .await;
        assert_eq!(output.status.code(), Some(2), "{}", path.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim_end(), expected);
    }
    assert!(model.requests().is_empty());
}

/// `keel run` where the model reads `shot.png` with read_file, then answers.
async fn read_image(model_name: &str) -> (MockServer, Vec<u8>) {
    let (root, config, png) = project();
    let model = MockServer::sequence(vec![
        tool_call_answer("call_1", "read_file", r#"{"path":"shot.png"}"#),
        text_answer(&["Seen."]),
    ])
    .await;
    let output = keel_with_model(
        config.path(),
        root.path(),
        &model.base_url,
        &["run", "Describe shot.png", "--model", model_name],
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (model, png)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_file_on_an_image_attaches_it_for_a_vision_model() {
    let (model, png) = read_image("gpt-4.1-mini").await;
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("`shot.png` is a PNG image (3x2, "),
        "{tool}"
    );
    assert!(tool["content"].as_str().unwrap().contains("attached"));
    // The image follows the tool results as a user message part.
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(
        last["content"][0]["text"],
        "The image read_file attached: `shot.png`."
    );
    assert_eq!(image_urls(last), [data_url(&png)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_file_on_an_image_describes_it_for_a_text_only_model() {
    let (model, _) = read_image("qwen2.5-coder-1.5b-instruct").await;
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    let text = tool["content"].as_str().unwrap();
    assert!(
        text.contains("`shot.png` is a PNG image (3x2, ")
            && text.contains("this model does not accept images"),
        "{text}"
    );
    assert!(messages.iter().all(|m| image_urls(m).is_empty()));
}

/// `keel chat --json` on `root` against `model` (cwd `cwd`), given `line`.
async fn chat(config: &Path, root: &Path, cwd: &Path, model: &MockServer, line: &str) -> Output {
    let mut command = keel(config);
    command
        .args([
            "chat",
            "--json",
            "--provider",
            "openai",
            "--model",
            "gpt-4o",
        ])
        .args(["--base-url", &model.base_url, "--root"])
        .arg(root)
        .current_dir(cwd)
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let line = format!("{line}\n");
    tokio::task::spawn_blocking(move || {
        use std::io::Write as _;
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_attaches_the_image_files_a_line_names() {
    let (root, config, png) = project();
    let model = MockServer::sequence(vec![text_answer(&["A red square."])]).await;
    // From the current folder.
    let output = chat(
        config.path(),
        root.path(),
        root.path(),
        &model,
        "what is in shot.png? and not in missing.png",
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("attached shot.png (PNG, {} bytes)", png.len())),
        "{stderr}"
    );
    let requests = model.requests();
    let users = user_messages(&requests[0].body);
    assert_eq!(image_urls(users.last().unwrap()), [data_url(&png)]);

    // From the project root; a file that is no image is named, and the line is not sent.
    std::fs::write(root.path().join("notes.png"), "text").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let output = chat(
        config.path(),
        root.path(),
        elsewhere.path(),
        &model,
        "see notes.png",
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not sent: ")
            && stderr.contains("notes.png is not a PNG, JPEG, GIF or WebP image"),
        "{stderr}"
    );
    assert_eq!(model.requests().len(), 1, "nothing more was sent");
}
