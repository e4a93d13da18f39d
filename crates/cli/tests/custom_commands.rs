//! Custom commands and skills at the command line: `/NAME ARGS` in `keel chat` on a real
//! terminal (a tmux pane) expanding templates from `.keel/commands/`, `.claude/commands/` and
//! the user's `commands/`, with `/help` listing them beside the built-in ones, an unknown
//! placeholder and an unknown command each a clear message while the chat goes on, and the
//! template's `allowed-tools` and `model` applied to its turn; `keel skills list|show`;
//! the commands offered to an ACP client as available commands.

use std::path::Path;

use keel_test_support::mock_openai::{MockServer, text_answer};

use crate::common::tmux::{chat_with, tmux_available};
use crate::common::{keel, run_keel};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project and a user folder with commands in every folder, one template broken.
fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    write(
        &root.join(".keel/commands/review.md"),
        "---\ndescription: Review one file\nargument-hint: [path] [depth]\nallowed-tools: Read, search_files\nmodel: review-model\n---\nReview $1 with depth $2. Say what is wrong.\n",
    );
    write(
        &root.join(".claude/commands/greet.md"),
        "# Greet the team\nSay hello to $ARGUMENTS.\n",
    );
    write(
        &root.join(".keel/commands/deploy.md"),
        "---\ndescription: Deploy\n---\nDeploy to $1 using $FOO.\n",
    );
    write(
        &config.join("commands/standup.md"),
        "---\ndescription: Write the stand-up\n---\nSummarise the day.\n",
    );
    (dir, root, config)
}

fn tool_names(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_commands_expand_in_keel_chat_on_a_terminal() {
    if !tmux_available() {
        return;
    }
    let (_dir, root, config) = folders();
    let model = MockServer::start(|_, _| text_answer(&["Reviewed."])).await;
    let base_url = model.base_url.clone();
    let pane = chat_with(
        &config,
        &root,
        "C.UTF-8",
        &[("OPENAI_API_KEY", "test-key")],
        &[
            "--provider",
            "openai",
            "--base-url",
            &base_url,
            "--model",
            "main-model",
        ],
    );
    pane.wait_for("Ctrl-D");

    pane.type_line("/help");
    let help = pane.wait_for("/standup");
    for line in [
        "/help",
        "/exit, /quit",
        "/deploy",
        "/greet",
        "Greet the team",
        "/review [path] [depth]  Review one file",
        "Write the stand-up",
    ] {
        assert!(help.contains(line), "`{line}` missing from /help:\n{help}");
    }

    pane.type_line("/deploy prod");
    let screen = pane.wait_for("unknown placeholder `$FOO`");
    assert!(
        screen.contains(&format!(
            "/deploy not run: {}:4: unknown placeholder `$FOO`",
            root.join(".keel/commands/deploy.md").display()
        )),
        "{screen}"
    );
    pane.type_line("/nosuch thing");
    pane.wait_for("unknown command /nosuch: type /help for the list");
    assert!(
        model.requests().is_empty(),
        "a bad command reached the model"
    );

    // The chat went on: a good command runs its turn with its model and tools.
    pane.type_line("/review src/lib.rs deep");
    pane.wait_for("Reviewed.");
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(body["model"], "review-model");
    let last = body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        last.contains("Review src/lib.rs with depth deep. Say what is wrong."),
        "{last}"
    );
    let tools = tool_names(body);
    assert!(tools.contains(&"read_file".to_owned()), "{tools:?}");
    assert!(tools.contains(&"search_files".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"execute_command".to_owned()), "{tools:?}");

    // A plain line after it runs on the session's model with every tool again.
    pane.type_line("thanks");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while model.requests().len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the second turn never ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let second = &model.requests()[1].body;
    assert_eq!(second["model"], "main-model");
    assert!(tool_names(second).contains(&"execute_command".to_owned()));
}

#[test]
fn keel_skills_lists_and_shows_and_warns_about_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    write(
        &root.join(".claude/skills/pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Fill in PDF forms.\n---\nUse forms.py beside this file.\n",
    );
    write(&root.join(".claude/skills/pdf/forms.py"), "print('x')\n");
    write(
        &root.join(".agents/skills/bare/SKILL.md"),
        "No front matter here.\n",
    );
    write(
        &config.join("skills/notes/SKILL.md"),
        "---\nname: notes\ndescription: Keep release notes.\n---\nAppend to NOTES.md.\n",
    );

    let output = keel(&config)
        .args(["skills", "list", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stdout,
        "notes  user     Keep release notes.\npdf    project  Fill in PDF forms.\n"
    );
    assert!(
        stderr.contains(&format!(
            "warning: {}:1: no front matter",
            root.join(".agents/skills/bare/SKILL.md").display()
        )),
        "{stderr}"
    );

    let output = keel(&config)
        .args(["skills", "show", "pdf", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("# pdf\n"), "{stdout}");
    assert!(
        stdout.contains("Use forms.py beside this file."),
        "{stdout}"
    );

    let output = keel(&config)
        .args(["skills", "show", "nope", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no skill `nope` (skills: notes, pdf)")
    );
    // Usage errors are 2.
    assert_eq!(run_keel(&["skills", "show"], None).status.code(), Some(2));
}
