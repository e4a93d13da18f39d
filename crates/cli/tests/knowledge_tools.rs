//! `list_package_info`, `read_library_docs` and `generate_image` through the real binary: on a
//! project with a Cargo.lock, a node_modules tree and a venv made on disk, with a cargo home
//! holding the locked crate, and against a mock image server over loopback.

use std::process::Output;

use keel_events::{EventKind, FileOp, ToolStatus};
use keel_test_support::mock_openai::{
    ImageReply, MockServer, ServerInfo, text_answer, tool_call_answer,
};
use keel_test_support::packages::{
    DEMO_CRATE_LOCKED, DEMO_CRATE_NEWER, PackagesFixture, packages_fixture,
};
use keel_test_support::png::solid_png;
use serde_json::Value;

use crate::common::{events, keel};

/// `keel tool call NAME ARGS --root ROOT` with the fixture's cargo home, off the async
/// threads (a mock server may run on them).
async fn tool_call(fixture: &PackagesFixture, name: &str, arguments: &str) -> (Output, Value) {
    let mut command = keel(&fixture.dir.path().join("config"));
    command
        .args(["tool", "call", name, arguments, "--root"])
        .arg(&fixture.root)
        .env("CARGO_HOME", &fixture.cargo_home)
        .env_remove("VIRTUAL_ENV");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, value)
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or("").to_owned()
}

fn succeeded(output: &Output, value: &Value) {
    assert_eq!(output.status.code(), Some(0), "{value:#}");
    assert_eq!(value["success"], true, "{value:#}");
}

fn failed(output: &Output, value: &Value) -> String {
    assert_eq!(output.status.code(), Some(1), "{value:#}");
    assert_eq!(value["success"], false, "{value:#}");
    text(value, "message")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn package_info_for_a_path_shows_manifest_locks_readme_and_commits() {
    let fixture = packages_fixture(true);
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"src/main.rs"}"#).await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    for expected in [
        "Package `fixture-app` 0.1.0 (cargo, Cargo.toml)",
        "An app that uses demo-crate",
        &format!("[dependencies] demo-crate 0.3 (locked {DEMO_CRATE_LOCKED})"),
        "[dev-dependencies] left-right 1",
        "README (README.md), opening:",
        "An app for testing Keel's package tools.",
        "Recent changes to `.` (git, newest first):",
        "Ada: Add the fixture app",
    ] {
        assert!(
            content.contains(expected),
            "{expected:?} missing:\n{content}"
        );
    }

    // The same project without git says so.
    let bare = packages_fixture(false);
    let (out, result) = tool_call(&bare, "list_package_info", r#"{"path":"."}"#).await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    assert!(
        content.contains("Recent changes: unknown, the workspace is not a git repository."),
        "{content}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn package_info_for_a_dependency_gives_the_locked_version_and_its_source() {
    let fixture = packages_fixture(false);
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"demo_crate"}"#).await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    let source = fixture
        .cargo_home
        .join(format!(
            "registry/src/index.crates.io-0000000000000000/demo-crate-{DEMO_CRATE_LOCKED}"
        ))
        .display()
        .to_string();
    assert!(
        content.contains(&format!(
            "Dependency `demo-crate` (cargo) locked at {DEMO_CRATE_LOCKED} in Cargo.lock"
        )),
        "{content}"
    );
    assert!(content.contains(&format!("source: {source}")), "{content}");

    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"left-pad"}"#).await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    assert!(
        content.contains("`left-pad` (npm) locked at 1.3.0 in package-lock.json"),
        "{content}"
    );
    assert!(content.contains("node_modules/left-pad"), "{content}");

    // Not locked, but installed in the venv.
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"tinyhttp"}"#).await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    assert!(
        content.contains("not pinned by a lock file; installed version 2.1.0"),
        "{content}"
    );
    assert!(content.contains("site-packages/tinyhttp"), "{content}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors() {
    let fixture = packages_fixture(false);
    // A path outside the root.
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"../x"}"#).await;
    let message = failed(&out, &result);
    assert!(message.contains("climbs out of the workspace"), "{message}");
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"/etc/passwd"}"#).await;
    let message = failed(&out, &result);
    assert!(message.contains("outside the workspace"), "{message}");

    // An unknown library: where the search looked.
    let (out, result) = tool_call(
        &fixture,
        "read_library_docs",
        r#"{"library":"no-such-lib"}"#,
    )
    .await;
    let message = failed(&out, &result);
    for place in [
        "Cargo.lock",
        "package-lock.json",
        "node_modules",
        "site-packages",
    ] {
        assert!(message.contains(place), "{place} missing: {message}");
    }
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"no-such-lib"}"#).await;
    let message = failed(&out, &result);
    assert!(
        message.contains("neither a path in the workspace nor a known dependency"),
        "{message}"
    );

    // A lock file that does not parse: the file and the line, for both tools.
    std::fs::write(
        fixture.root.join("Cargo.lock"),
        "version = 4\n\n[[package]]\nname = \"demo-crate\nversion = \"0.3.1\"\n",
    )
    .unwrap();
    for (tool, args) in [
        ("read_library_docs", r#"{"library":"demo-crate"}"#),
        ("list_package_info", r#"{"path":"demo-crate"}"#),
        ("list_package_info", r#"{"path":"src"}"#),
    ] {
        let (out, result) = tool_call(&fixture, tool, args).await;
        let message = failed(&out, &result);
        assert!(
            message.contains("Cargo.lock does not parse at line 4"),
            "{tool}: {message}"
        );
    }
    std::fs::write(
        fixture.root.join("package-lock.json"),
        "{\n  \"packages\": [,\n}\n",
    )
    .unwrap();
    let (out, result) = tool_call(&fixture, "list_package_info", r#"{"path":"left-pad"}"#).await;
    let message = failed(&out, &result);
    assert!(message.contains("does not parse at line"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn library_docs_come_from_the_locked_version_in_each_ecosystem() {
    let fixture = packages_fixture(false);
    let (out, result) = tool_call(
        &fixture,
        "read_library_docs",
        r#"{"library":"demo-crate","topic":"timeout deadline"}"#,
    )
    .await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    assert!(
        content.starts_with(&format!(
            "# demo-crate {DEMO_CRATE_LOCKED} (cargo, locked in Cargo.lock)"
        )),
        "{content}"
    );
    let timeout = content.find("### `Timeout`").expect("Timeout shown");
    let spawn = content.find("### `spawn_task`");
    assert!(
        spawn.is_none_or(|s| s > timeout),
        "matches first:\n{content}"
    );
    assert!(content.contains("A deadline for a future"), "{content}");
    assert!(
        !content.contains("newer_only"),
        "only the locked version: {content}"
    );
    assert!(!content.contains(DEMO_CRATE_NEWER), "{content}");

    let (out, result) =
        tool_call(&fixture, "read_library_docs", r#"{"library":"demo-crate"}"#).await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    for expected in [
        "Tasks and timers for tests.",
        "Demo crate: tasks and timers for tests.",
        "pub fn spawn_task<F>(future: F) -> TaskHandle",
        "Spawns a task onto the demo executor",
    ] {
        assert!(
            content.contains(expected),
            "{expected:?} missing:\n{content}"
        );
    }
    assert!(!content.contains("internal"), "{content}");

    let (out, result) = tool_call(
        &fixture,
        "read_library_docs",
        r#"{"library":"left-pad","topic":"pad"}"#,
    )
    .await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    assert!(
        content.contains("# left-pad 1.3.0 (npm, locked in package-lock.json)"),
        "{content}"
    );
    assert!(
        content.contains(
            "export declare function leftPad(str: string, len: number, ch?: string): string;"
        ),
        "{content}"
    );
    assert!(content.contains("Pads `str` on the left"), "{content}");

    let (out, result) = tool_call(
        &fixture,
        "read_library_docs",
        r#"{"library":"tinyhttp","topic":"request"}"#,
    )
    .await;
    succeeded(&out, &result);
    let content = text(&result, "content");
    assert!(
        content.contains("# tinyhttp 2.1.0 (python, installed, not locked)"),
        "{content}"
    );
    assert!(content.contains("### `Client.request`"), "{content}");
    assert!(
        content.contains("Sends a request with `method` to `url`."),
        "{content}"
    );
    assert!(!content.contains("_helper"), "{content}");
}

/// The fixture with `[images]` pointing at `base_url`.
fn with_images(fixture: &PackagesFixture, base_url: &str) {
    std::fs::write(
        fixture.root.join("keel.toml"),
        format!("[images]\nbase_url = \"{base_url}\"\nmodel = \"test-image-1\"\n"),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_image_writes_the_png_in_both_response_forms() {
    let png = solid_png(4, 3, [200, 30, 30]);
    for reply in [
        ImageReply::B64Json(png.clone()),
        ImageReply::Url(png.clone()),
    ] {
        let fixture = packages_fixture(false);
        let server = MockServer::start_with(ServerInfo::images(reply.clone()), |_, _| {
            text_answer(&["unused"])
        })
        .await;
        with_images(&fixture, &server.base_url);
        let (out, result) = tool_call(
            &fixture,
            "generate_image",
            r#"{"prompt":"a red square","path":"assets/icon.png","size":"256x256"}"#,
        )
        .await;
        succeeded(&out, &result);
        assert_eq!(text(&result, "content"), "assets/icon.png", "{reply:?}");
        assert!(text(&result, "message").contains("a 4x3 PNG"), "{result:#}");
        assert_eq!(
            std::fs::read(fixture.root.join("assets/icon.png")).unwrap(),
            png
        );
        let sent = server.image_requests();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].body["model"], "test-image-1");
        assert_eq!(sent[0].body["prompt"], "a red square");
        assert_eq!(sent[0].body["size"], "256x256");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_image_failures_write_nothing() {
    let fixture = packages_fixture(false);
    // Not configured: the keys to set.
    let (out, result) = tool_call(
        &fixture,
        "generate_image",
        r#"{"prompt":"x","path":"a.png"}"#,
    )
    .await;
    let message = failed(&out, &result);
    assert!(message.contains("`model` under `[images]`"), "{message}");
    assert!(message.contains("`base_url`"), "{message}");

    // The server is down.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    with_images(&fixture, &format!("http://{closed}/v1"));
    let (out, result) = tool_call(
        &fixture,
        "generate_image",
        r#"{"prompt":"x","path":"a.png"}"#,
    )
    .await;
    let message = failed(&out, &result);
    assert!(
        message.contains("Cannot reach the image server"),
        "{message}"
    );

    // The server answers with a JPEG, then with an error.
    let jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01".to_vec();
    let server = MockServer::start_with(ServerInfo::images(ImageReply::B64Json(jpeg)), |_, _| {
        text_answer(&["unused"])
    })
    .await;
    with_images(&fixture, &server.base_url);
    let (out, result) = tool_call(
        &fixture,
        "generate_image",
        r#"{"prompt":"x","path":"a.png"}"#,
    )
    .await;
    let message = failed(&out, &result);
    assert!(message.contains("did not return a PNG"), "{message}");
    let error = serde_json::json!({"error": {"message": "content policy violation"}});
    let server = MockServer::start_with(
        ServerInfo::images(ImageReply::Status(400, error)),
        |_, _| text_answer(&["unused"]),
    )
    .await;
    with_images(&fixture, &server.base_url);
    let (out, result) = tool_call(
        &fixture,
        "generate_image",
        r#"{"prompt":"x","path":"a.png"}"#,
    )
    .await;
    let message = failed(&out, &result);
    assert!(
        message.contains("answered 400: content policy violation"),
        "{message}"
    );

    // Outside the root, and not a .png.
    for (args, expected) in [
        (
            r#"{"prompt":"x","path":"../a.png"}"#,
            "climbs out of the workspace",
        ),
        (r#"{"prompt":"x","path":"a.jpg"}"#, "does not end in .png"),
        (
            r#"{"prompt":"x","path":"a.png","size":"huge"}"#,
            "is not WIDTHxHEIGHT",
        ),
    ] {
        let (out, result) = tool_call(&fixture, "generate_image", args).await;
        let message = failed(&out, &result);
        assert!(message.contains(expected), "{args}: {message}");
    }
    assert!(!fixture.root.join("a.png").exists());
    assert!(!fixture.dir.path().join("a.png").exists());
}

fn system_prompt(server: &MockServer, n: usize) -> String {
    server.requests()[n].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The content of the tool message answering `call_id` in request `n`.
fn tool_message(server: &MockServer, n: usize, call_id: &str) -> String {
    server.requests()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no result for {call_id}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_run_uses_all_three_tools_with_docs_preloaded() {
    let fixture = packages_fixture(true);
    let png = solid_png(8, 8, [10, 120, 240]);
    let server = MockServer::start_with(
        ServerInfo::images(ImageReply::B64Json(png.clone())),
        |n, _| match n {
            0 => tool_call_answer("call_pkg", "list_package_info", r#"{"path":"src/main.rs"}"#),
            1 => tool_call_answer(
                "call_docs",
                "read_library_docs",
                r#"{"library":"demo-crate"}"#,
            ),
            2 => tool_call_answer(
                "call_topic",
                "read_library_docs",
                r#"{"library":"left-pad","topic":"pad"}"#,
            ),
            3 => tool_call_answer(
                "call_img",
                "generate_image",
                r#"{"prompt":"app icon","path":"assets/icon.png"}"#,
            ),
            _ => text_answer(&["Done."]),
        },
    )
    .await;
    // `[images]` without base_url: the chat provider's is used.
    std::fs::write(
        fixture.root.join("keel.toml"),
        "[images]\nmodel = \"test-image-1\"\n\n[context]\nlibraries = [\"demo-crate\", \"demo_crate\", \"not-a-dep\"]\n",
    )
    .unwrap();
    let mut command = keel(&fixture.dir.path().join("config"));
    command
        .args(["run", "Describe the app and draw an icon", "--root"])
        .arg(&fixture.root)
        .args([
            "--provider",
            "openai",
            "--base-url",
            &server.base_url,
            "--json",
        ])
        .env("OPENAI_API_KEY", "test-key")
        .env("CARGO_HOME", &fixture.cargo_home)
        .env_remove("VIRTUAL_ENV");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let events = events(&stdout);
    let ends: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunToolEnd(end) => {
                Some((end.tool_name.clone(), end.status == ToolStatus::Success))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            ("list_package_info".to_owned(), true),
            ("read_library_docs".to_owned(), true),
            ("read_library_docs".to_owned(), true),
            ("generate_image".to_owned(), true),
        ],
        "{stdout}"
    );
    let change = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunFileChange(change) => Some(change.clone()),
            _ => None,
        })
        .expect("run.file.change for the image");
    assert_eq!(change.path, "assets/icon.png");
    assert_eq!(change.op, FileOp::Create);
    assert_eq!(change.mime_type.as_deref(), Some("image/png"));
    assert_eq!(change.size, Some(png.len() as u64));
    assert_eq!(
        std::fs::read(fixture.root.join("assets/icon.png")).unwrap(),
        png
    );
    assert_eq!(server.image_requests().len(), 1);

    // The digest is in the system prompt once, the missing library named.
    let system = system_prompt(&server, 0);
    assert_eq!(
        system.matches("## Library documentation").count(),
        1,
        "{system}"
    );
    assert_eq!(
        system
            .matches(&format!(
                "# demo-crate {DEMO_CRATE_LOCKED} (cargo, locked in Cargo.lock)"
            ))
            .count(),
        1,
        "{system}"
    );
    assert!(
        system.contains("Spawns a task onto the demo executor"),
        "{system}"
    );
    assert!(
        system.contains("- `not-a-dep`: no library `not-a-dep` found"),
        "{system}"
    );
    // Its overview read refers there; a topic read of another library is whole.
    let docs = tool_message(&server, 2, "call_docs");
    assert!(docs.contains("preloaded in the system prompt"), "{docs}");
    let topic = tool_message(&server, 3, "call_topic");
    assert!(topic.contains("export declare function leftPad"), "{topic}");
    let package = tool_message(&server, 1, "call_pkg");
    assert!(package.contains("Package `fixture-app` 0.1.0"), "{package}");
}

#[test]
fn tool_list_names_the_knowledge_tools() {
    let dir = tempfile::tempdir().unwrap();
    let out = keel(dir.path()).args(["tool", "list"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["list_package_info", "read_library_docs", "generate_image"] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name}:\n{text}");
    }
}
