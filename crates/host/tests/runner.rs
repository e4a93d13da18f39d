//! Seed 004's runners over one base: the terminal, event-system and SDK runners on one hosted
//! session, and `conversation_name` resolved in the project's store.

use std::io::Write;
use std::sync::{Arc, Mutex};

use futures::StreamExt as _;
use keel_engine::{Script, ScriptedProvider};
use keel_events::projection::WireFormat;
use keel_events::{AgentStatus, EventKind, Lang};
use keel_host::{
    AgentSettings, ConversationName, HostError, Interaction, Runner, RunnerConfig, TurnEnd,
};
use keel_protocol::{CannotAnswer, CannotAsk, Mode};
use keel_render::RenderOptions;

/// A scripted model answering each turn with the next of `answers`.
fn provider(answers: &[&str]) -> Arc<ScriptedProvider> {
    let turns: Vec<_> = answers
        .iter()
        .map(|a| serde_json::json!({"text": a, "finish_reason": "stop"}))
        .collect();
    let script = serde_json::json!({ "turns": turns });
    Arc::new(ScriptedProvider::new(
        Script::from_json(&script.to_string()).unwrap(),
    ))
}

fn config(root: &std::path::Path, answers: &[&str], conversation: &str) -> RunnerConfig {
    RunnerConfig {
        settings: AgentSettings {
            mode: Mode::Direct,
            repo_map: false,
            auto_test: false,
            ..AgentSettings::new(root, vec!["scripted".to_owned()])
        },
        provider: provider(answers),
        conversation: conversation.parse().unwrap(),
        interaction: Interaction {
            approver: Arc::new(CannotAsk),
            answerer: Arc::new(CannotAnswer),
        },
        mcp_servers: Default::default(),
    }
}

/// A writer whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn completed(end: Option<TurnEnd>) {
    assert!(
        matches!(
            end,
            Some(TurnEnd::Finished {
                status: AgentStatus::Completed,
                ..
            })
        ),
        "{end:?}"
    );
}

#[tokio::test]
async fn the_three_runners_share_one_session_and_current_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let answers = ["Hello from the SDK.", "Hello in paths.", "Hello, terminal."];
    let mut runner = Runner::open(config(&root, &answers, "new")).await.unwrap();
    assert_eq!(runner.take_warnings(), Vec::<String>::new());
    let id = runner.session_id().to_owned();

    // SDK: the events themselves, ending with the turn's `agent.end`.
    let events: Vec<_> = runner.events("Say hello").collect().await;
    let last = events.last().unwrap();
    assert!(
        matches!(&last.kind, EventKind::AgentEnd(end) if end.status == AgentStatus::Completed),
        "{last:?}"
    );
    assert!(events.windows(2).all(|w| w[0].seq < w[1].seq));

    // Event system: seed 004's paths, one JSON line per published event.
    let lines = Shared::default();
    completed(
        runner
            .publish("Say hello again", WireFormat::Paths, lines.clone())
            .await,
    );
    let paths: Vec<String> = lines
        .text()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["path"].to_string())
        .collect();
    assert!(
        paths.contains(&"\"/agent/edit/output\"".to_owned()),
        "{paths:?}"
    );
    assert!(
        paths.iter().all(|p| p.starts_with("\"/agent/edit/")),
        "{paths:?}"
    );

    // Terminal: rendered as `keel run` shows it.
    let screen = Shared::default();
    let options = RenderOptions {
        color: false,
        verbose: false,
        lang: Lang::En,
    };
    completed(
        runner
            .run_in_terminal("Greet the terminal", screen.clone(), options)
            .await,
    );
    assert!(
        screen.text().contains("Hello, terminal."),
        "{}",
        screen.text()
    );
    runner.close(std::future::pending()).await;

    // `current` is the project's most recent session, with its conversation.
    let mut again = Runner::open(config(&root, &["Still here."], "current"))
        .await
        .unwrap();
    assert_eq!(again.session_id(), id);
    let events: Vec<_> = again.events("Are you there?").collect().await;
    let turn_start = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::PrepareConversationOpen(open) => Some(open.action),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        serde_json::to_value(turn_start).unwrap(),
        serde_json::json!("resume")
    );
    again.close(std::future::pending()).await;
}

#[tokio::test]
async fn current_in_a_project_without_sessions_is_a_new_one_and_an_unknown_id_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut runner = Runner::open(config(&root, &["Fresh."], "current"))
        .await
        .unwrap();
    let events: Vec<_> = runner.events("Hi").collect().await;
    assert!(!events.is_empty());
    runner.close(std::future::pending()).await;

    let err = Runner::open(config(&root, &["x"], "0190-no-such-session"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, HostError::UnknownSession(id) if id == "0190-no-such-session"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "no session `0190-no-such-session` in the project's store"
    );
    assert_eq!(
        "current".parse::<ConversationName>().unwrap(),
        ConversationName::Current
    );
}

/// Seed 004's `pull_request` through the library: the runner's turn is committed (only its
/// file) and its branch pushed to the remote, the compare page named when `gh` is absent; a
/// work tree with the user's own changes is refused before any turn.
#[tokio::test]
async fn the_runner_commits_its_turn_and_pushes_the_branch_of_a_pull_request() {
    use keel_host::git::{GitOptions, Opened};
    use keel_test_support::git::{add_github_remote, commit_files, git, init_repo};

    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    init_repo(&repo, &[("README.md", "readme\n")]);
    let bare = add_github_remote(&repo, dir.path());
    git(&repo, &["switch", "-q", "-c", "keel/runner"]);
    let script = keel_test_support::ScriptBuilder::new()
        .tool_call(
            "write_file",
            serde_json::json!({"path": "runner.txt", "content": "from the runner\n"}),
        )
        .text("Wrote runner.txt.");
    let mut config = config(&repo, &[], "new");
    config.provider = Arc::new(ScriptedProvider::new(
        Script::from_json(&script.to_json().to_string()).unwrap(),
    ));
    let mut runner = Runner::open(config).await.unwrap();
    let options = GitOptions {
        pull_request: true,
        ..GitOptions::default()
    };
    runner.set_git(options.clone()).await.unwrap();
    completed(
        runner
            .publish("Write runner.txt", WireFormat::Paths, Shared::default())
            .await,
    );
    assert_eq!(commit_files(&repo, "HEAD"), ["runner.txt"]);
    let pr = runner.open_pull_request().await.unwrap().unwrap();
    assert_eq!(pr.branch, "keel/runner");
    assert!(
        matches!(&pr.opened, Opened::Compare(url) if url.ends_with("/compare/keel/runner?expand=1")),
        "{pr:?}"
    );
    assert_eq!(
        git(&bare, &["rev-parse", "refs/heads/keel/runner"]),
        git(&repo, &["rev-parse", "HEAD"])
    );
    runner.close(std::future::pending()).await;

    // The user's own uncommitted edit: refused, naming it.
    std::fs::write(repo.join("README.md"), "the user's edit\n").unwrap();
    let mut runner = Runner::open(config_for_repo(&repo)).await.unwrap();
    let refused = runner.set_git(options).await.unwrap_err().to_string();
    assert!(refused.contains("README.md"), "{refused}");
    runner.close(std::future::pending()).await;
}

fn config_for_repo(repo: &std::path::Path) -> RunnerConfig {
    config(repo, &["unused"], "new")
}
