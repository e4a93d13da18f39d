//! Seed 004's `pull_request` as a session option over real HTTP on loopback: a session made
//! with `"pull_request": true` commits its turn's changes and pushes its branch to a local bare
//! remote (reached through a GitHub-style URL), naming the compare page when `gh` is absent;
//! creating one on a work tree with changes it did not make is refused with 409 (the project's state, not the request, is what is wrong).

use keel_test_support::ScriptBuilder;
use keel_test_support::git::{add_github_remote, commit_files, git, init_repo};
use reqwest::StatusCode;
use serde_json::json;

use crate::common::{ALL, Options, TestServer};

#[tokio::test]
async fn a_pull_request_session_commits_pushes_and_names_the_compare_page() {
    let workspace = tempfile::tempdir().unwrap();
    let remotes = tempfile::tempdir().unwrap();
    let repo = workspace.path().join("ok");
    std::fs::create_dir_all(&repo).unwrap();
    init_repo(&repo, &[("README.md", "readme\n")]);
    let bare = add_github_remote(&repo, remotes.path());
    git(&repo, &["switch", "-q", "-c", "keel/http"]);
    let dirty = workspace.path().join("dirty");
    std::fs::create_dir_all(&dirty).unwrap();
    init_repo(&dirty, &[("README.md", "readme\n")]);
    // Its own bare remote: two first commits made a second apart differ, and the second push
    // to a shared remote would be refused.
    let dirty_remote = remotes.path().join("dirty");
    std::fs::create_dir_all(&dirty_remote).unwrap();
    add_github_remote(&dirty, &dirty_remote);
    git(&dirty, &["switch", "-q", "-c", "keel/dirty"]);
    std::fs::write(dirty.join("README.md"), "the user's edit\n").unwrap();

    let script = remotes.path().join("script.json");
    ScriptBuilder::new()
        .tool_call(
            "write_file",
            json!({"path": "http.txt", "content": "over http\n"}),
        )
        .text("Wrote it.")
        .write(&script)
        .unwrap();
    let s = TestServer::start_in(Options::new(script.to_str().unwrap()), workspace).await;

    // Refused at creation: the user's uncommitted edit.
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": dirty.canonicalize().unwrap().to_str().unwrap(), "pull_request": true}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the work tree has changes Keel did not make (README.md)"),
        "{body}"
    );

    let root = repo.canonicalize().unwrap();
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": root.to_str().unwrap(), "pull_request": true}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["pull_request"], true);
    let session = body["id"].as_str().unwrap().to_owned();
    let turn = s.start_turn(&session, "Write http.txt").await;
    let turn = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let pushed = s
        .wait_event_where(&session, |e| {
            e["type"] == "system.log" && e["payload"]["metadata"]["git"] == "pull_request"
        })
        .await;

    assert_eq!(commit_files(&repo, "HEAD"), ["http.txt"]);
    assert_eq!(
        git(&bare, &["rev-parse", "refs/heads/keel/http"]),
        git(&repo, &["rev-parse", "HEAD"])
    );
    let events = s.events(&session).await;
    let commit = events
        .iter()
        .find(|e| e["type"] == "system.log" && e["payload"]["metadata"]["git"] == "commit")
        .unwrap();
    assert_eq!(
        commit["payload"]["metadata"]["commit"],
        git(&repo, &["rev-parse", "HEAD"]).trim()
    );
    let gh_on_path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("gh").exists());
    if gh_on_path {
        eprintln!("note: `gh` is installed here: the compare page is not checked");
    } else {
        assert_eq!(pushed["payload"]["metadata"]["via"], "compare");
        assert_eq!(
            pushed["payload"]["metadata"]["url"],
            "https://github.com/acme/widgets/compare/keel/http?expand=1"
        );
    }
    s.stop().await;
}
