//! Shared by the integration tests: the `keel` binary with a clean environment, test scripts,
//! and its JSON output parsed into events.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use keel_test_support::mock_openai::MockServer;

pub mod tmux;

/// A test script under `crates/cli/tests/scripts/`.
pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// `keel` with a clean environment for settings: no KEEL_* variables, no user `keel.toml`.
pub fn keel(config_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_keel"));
    command
        .env_remove("KEEL_MODEL")
        .env_remove("KEEL_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("KEEL_CONFIG_DIR", config_dir);
    command
}

/// Runs `keel args` to its end, `stdin` (if any) as its standard input; returns its output.
pub fn run_keel(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

/// Every line of `stdout` parsed as an event.
pub fn events(stdout: &str) -> Vec<keel_events::Event> {
    stdout
        .lines()
        .enumerate()
        .map(|(n, line)| {
            keel_events::parse_line(n + 1, line)
                .unwrap_or_else(|e| panic!("line {} does not parse: {e}\n{line}", n + 1))
        })
        .collect()
}

/// Runs `keel ARGS… --root ROOT --provider openai --base-url BASE_URL --json` with a test key,
/// off the async threads (a mock model runs on them); returns its output.
pub async fn keel_with_model(
    config_dir: &Path,
    root: &Path,
    base_url: &str,
    args: &[&str],
) -> Output {
    let mut command = keel(config_dir);
    command
        .args(args)
        .arg("--root")
        .arg(root)
        .args(["--provider", "openai", "--base-url", base_url, "--json"])
        .env("OPENAI_API_KEY", "test-key");
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// Runs `keel ARGS… --root ROOT` against the mock `model`; it must succeed.
pub async fn keel_against(
    config_dir: &Path,
    root: &Path,
    model: &MockServer,
    args: &[&str],
) -> Output {
    let output = keel_with_model(config_dir, root, &model.base_url, args).await;
    assert!(
        output.status.success(),
        "keel {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The `role: content` lines of the last request the model received.
pub fn last_prompt(model: &MockServer) -> Vec<String> {
    let requests = model.requests();
    let last = requests.last().expect("the model was called");
    last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let content = m["content"].as_str().unwrap_or("");
            format!(
                "{}: {}",
                m["role"].as_str().unwrap_or(""),
                // A turn's first message opens with the turn's context (repo map, focused
                // files); the conversation is what follows it.
                keel_test_support::mock_openai::task_of(content)
            )
        })
        .collect()
}
