//! `keel.toml` end to end: the project's and the user's files, the environment and the flags,
//! in that order of precedence under the flags; bad files are clear usage errors.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{events, keel, script};
use keel_events::EventKind;
use keel_test_support::sample_project;

/// Runs `keel run --json` and returns the model chain `prepare.model.select` announced first.
fn first_model(mut command: Command, root: &Path) -> String {
    let out = command
        .arg("run")
        .arg("--root")
        .arg(root)
        .args(["--json", "say hello"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    events(&String::from_utf8(out.stdout).unwrap())
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::PrepareModelSelect(select) => Some(select.requested_model.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn flags_beat_env_beat_project_beat_user() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let user_dir = dir.join("user");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::copy(script("two-turns.json"), user_dir.join("two-turns.json")).unwrap();
    // The user's file names the script relative to itself, and a model.
    std::fs::write(
        user_dir.join("keel.toml"),
        "provider = \"scripted:two-turns.json\"\nmodel = \"user-model\"\n",
    )
    .unwrap();
    assert_eq!(first_model(keel(&user_dir), root), "user-model");

    std::fs::write(
        root.join("keel.toml"),
        "model = [\"project-model\", \"fallback\"]\nmode = \"direct\"\n",
    )
    .unwrap();
    assert_eq!(first_model(keel(&user_dir), root), "project-model");

    let mut with_env = keel(&user_dir);
    with_env.env("KEEL_MODEL", "env-model");
    assert_eq!(first_model(with_env, root), "env-model");

    let out = keel(&user_dir)
        .env("KEEL_MODEL", "env-model")
        .arg("run")
        .args(["--model", "flag-model", "--json", "--root"])
        .arg(root)
        .arg("say hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let model = events(&String::from_utf8(out.stdout).unwrap())
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::PrepareModelSelect(select) => Some(select.requested_model.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(model, "flag-model");
}

#[test]
fn an_unknown_key_names_the_file_and_the_key() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    std::fs::write(
        root.join("keel.toml"),
        "mode = \"plan\"\nmodle = \"gpt-4o\"\n",
    )
    .unwrap();
    let out = keel(dir)
        .args(["chat", "--root"])
        .arg(root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&root.join("keel.toml").display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(
        stderr.contains("unknown key `modle` in ") && stderr.contains("did you mean `model`?"),
        "{stderr}"
    );
}

#[test]
fn a_wrong_type_in_the_user_file_names_it() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    std::fs::write(dir.join("keel.toml"), "max_iterations = \"ten\"\n").unwrap();
    let out = keel(dir)
        .args(["run", "--root"])
        .arg(root)
        .arg("hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&dir.join("keel.toml").display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("max_iterations = \"ten\""), "{stderr}");
}

#[test]
fn without_a_key_or_a_script_the_message_says_what_to_set() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    std::fs::write(root.join("keel.toml"), "mode = \"direct\"\n").unwrap();
    let out = keel(dir)
        .args(["run", "--root"])
        .arg(root)
        .arg("hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}

#[test]
fn tool_format_xml_is_accepted_from_flag_and_file() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let out = keel(dir)
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script("two-turns.json").display()))
        .args(["--tool-format", "json", "--root"])
        .arg(root)
        .arg("hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("native or xml"));

    std::fs::write(root.join("keel.toml"), "tool_format = \"xml\"\n").unwrap();
    let out = keel(dir)
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script("xml-turn.json").display()))
        .args(["--json", "--root"])
        .arg(root)
        .arg("say hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `run.context.window` limit of `keel run` against `server` with `extra` flags.
async fn window_limit(
    config_dir: &Path,
    root: &Path,
    server: &keel_test_support::mock_openai::MockServer,
    extra: &[&str],
) -> u64 {
    let mut command = keel(config_dir);
    command
        .arg("run")
        .arg("--root")
        .arg(root)
        .args(["--base-url", &server.base_url, "--model", "local-model"])
        .args(extra)
        .args(["--json", "say hello"])
        .env("OPENAI_API_KEY", "k")
        .stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    events(&String::from_utf8(out.stdout).unwrap())
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunContextWindow(w) => Some(w.limit),
            _ => None,
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_window_setting_beats_the_servers_which_beats_the_table() {
    use keel_test_support::mock_openai::{MockServer, ServerInfo, text_answer};
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let reporting = MockServer::start_with(ServerInfo::llama_cpp("local-model", 8192), |_, _| {
        text_answer(&["hello"])
    })
    .await;
    let silent = MockServer::start(|_, _| text_answer(&["hello"])).await;

    // The table's default for an unknown model, then the server's, then keel.toml's, then the
    // flag's.
    assert_eq!(window_limit(dir, root, &silent, &[]).await, 128_000);
    assert_eq!(window_limit(dir, root, &reporting, &[]).await, 8192);
    std::fs::write(root.join("keel.toml"), "context_window = 4096\n").unwrap();
    assert_eq!(window_limit(dir, root, &reporting, &[]).await, 4096);
    assert_eq!(
        window_limit(dir, root, &reporting, &["--context-window", "2048"]).await,
        2048
    );
}

/// `keel config show --origin`: every effective value and where it came from (default, the
/// user's file, the project's file, a profile, the environment, a flag).
#[test]
fn config_show_prints_every_value_and_its_origin() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user");
    let root = dir.path().join("project");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        user.join("keel.toml"),
        "model = 'user-model'\napproval = 'always'\n[pricing.local]\ninput = 0\noutput = 0\n\
         [profiles.fast]\ntool_profile = 'compact'\n",
    )
    .unwrap();
    std::fs::write(
        root.join("keel.toml"),
        "mode = 'plan'\ninstructions_files = ['CLAUDE.md']\n[memory]\ndistill = false\n\
         [mcp_servers.docs]\ncommand = 'docs-server'\n[profiles.fast]\nmax_iterations = 5\n",
    )
    .unwrap();
    let out = keel(&user)
        .env("KEEL_BASE_URL", "http://127.0.0.1:8080/v1")
        .args([
            "config",
            "show",
            "--origin",
            "--profile",
            "fast",
            "--max-retries",
            "2",
            "--root",
        ])
        .arg(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&dir.path().display().to_string(), "[TMP]");
    insta::assert_snapshot!("config_show_origin", shown);
    // Without --origin: the values only.
    let plain = keel(&user)
        .args(["config", "show", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(plain.contains("mode = \"plan\"\n"), "{plain}");
    assert!(!plain.contains('#'), "{plain}");
}

/// A misspelt key stops `keel config show` too, naming file, line and the key meant.
#[test]
fn config_show_names_a_misspelt_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("keel.toml"),
        "mode = 'plan'\nmax_iteration = 3\n",
    )
    .unwrap();
    let out = keel(dir.path())
        .args(["config", "show", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "unknown key `max_iteration` in {} line 2: did you mean `max_iterations`?",
            dir.path().join("keel.toml").display()
        )),
        "{stderr}"
    );
}
