//! `keel rewind` and `keel sessions fork` end to end: a three-turn session against a mock
//! model, rewound to before its second turn, resumes with exactly the first turn's history and
//! files; forks leave the original's rows as they were; bad checkpoints change nothing.

use std::path::Path;
use std::process::Output;

use keel_store::{EventRange, SqliteStore, Store, default_db_path};
use keel_test_support::mock_openai::{MockServer, Reply, task_of, text_answer, tool_call_answer};
use keel_test_support::{sample_project, tree_bytes};
use serde_json::{Value, json};

use crate::common::{events, keel, keel_against};

/// The model: a task's first call writes that task's file, the call after its result answers.
fn answer(_: usize, body: &Value) -> Reply {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    if last["role"] == "tool" {
        return text_answer(&["done"]);
    }
    let (path, content) = match task_of(last["content"].as_str().unwrap_or_default()) {
        "task one" => ("notes.txt", "one\n"),
        "task two" => ("notes.txt", "two\n"),
        "task three" => ("third.txt", "three\n"),
        _ => ("later.txt", "later\n"),
    };
    let args = json!({"path": path, "content": content}).to_string();
    tool_call_answer(&format!("call_{}", messages.len()), "write_file", &args)
}

/// A sample project whose sessions make no memory-distillation call (two requests a turn).
fn project() -> keel_test_support::SampleProject {
    let project = sample_project();
    std::fs::write(
        project.path().join("keel.toml"),
        "[memory]\ndistill = false\n",
    )
    .unwrap();
    project
}

/// Runs `keel ARGS --root ROOT` without a model; returns its output.
fn keel_plain(dir: &Path, root: &Path, args: &[&str]) -> Output {
    keel(dir)
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap()
}

fn ok_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The non-system messages of a chat-completions request.
fn history(request: &Value) -> Vec<Value> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .cloned()
        .collect()
}

/// Every file of the tree but `.keel`, with its bytes.
type Tree = std::collections::BTreeMap<String, Vec<u8>>;

/// Runs three turns (each writing a file) in one session; returns its id and turn ids.
async fn three_turns(dir: &Path, root: &Path, model: &MockServer) -> (String, Vec<String>) {
    let (session, turns, _) = three_turns_seen(dir, root, model).await;
    (session, turns)
}

/// [`three_turns`], with the tree as turn 1 left it.
async fn three_turns_seen(
    dir: &Path,
    root: &Path,
    model: &MockServer,
) -> (String, Vec<String>, Tree) {
    let out = keel_against(dir, root, model, &["run", "task one"]).await;
    let first = events(&String::from_utf8_lossy(&out.stdout));
    let session = first[0].session_id.clone();
    let after_one = tree_bytes(root).unwrap();
    let mut turns = vec![first[0].turn_id.clone().unwrap()];
    for task in ["task two", "task three"] {
        let out = keel_against(dir, root, model, &["sessions", "resume", &session, task]).await;
        let evs = events(&String::from_utf8_lossy(&out.stdout));
        let turn = evs.iter().find_map(|e| e.turn_id.clone()).unwrap();
        turns.push(turn);
    }
    (session, turns, after_one)
}

/// The checkpoints of `root` (`keel checkpoints list --json`).
fn checkpoints(dir: &Path, root: &Path) -> Vec<Value> {
    let usage = ok_json(&keel_plain(dir, root, &["checkpoints", "list", "--json"]));
    assert!(usage["total_bytes"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(usage["max_bytes"], 512 * 1024 * 1024, "{usage}");
    usage["checkpoints"].as_array().unwrap().clone()
}

fn checkpoint_of(list: &[Value], turn: &str) -> String {
    list.iter()
        .find(|c| c["turn_id"] == turn)
        .unwrap_or_else(|| panic!("no checkpoint for {turn}: {list:#?}"))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_rewound_to_before_turn_two_resumes_with_turn_one_history_and_files() {
    let project = project();
    let (dir, root) = (project.scratch(), project.path().to_path_buf());
    let model = MockServer::start(answer).await;
    let (session, turns, after_one) = three_turns_seen(dir, &root, &model).await;
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "two\n"
    );
    assert!(root.join("third.txt").exists());
    // The first request of turn 2 carries turn 1's history, then "task two".
    let requests = model.requests();
    assert_eq!(requests.len(), 6);
    let mut turn_one = history(&requests[2].body);
    assert_eq!(
        task_of(turn_one.pop().unwrap()["content"].as_str().unwrap()),
        "task two"
    );

    let list = checkpoints(dir, &root);
    assert!(list.iter().all(|c| c["bytes"].as_u64().unwrap() > 0));
    let before_two = checkpoint_of(&list, &turns[1]);
    let report = ok_json(&keel_plain(dir, &root, &["rewind", &before_two]));
    assert_eq!(report["session_id"], session.as_str());
    assert_eq!(report["scope"], "both");
    assert_eq!(report["turn_ids"], json!([turns[1], turns[2]]));
    assert_eq!(report["files_restored"], json!(["notes.txt"]));
    assert_eq!(report["files_removed"], json!(["third.txt"]));

    // The files are as turn 1 left them, byte for byte.
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "one\n"
    );
    assert!(!root.join("third.txt").exists());
    assert!(
        tree_bytes(&root).unwrap() == after_one,
        "the tree differs from turn 1's"
    );

    // The rewound turns' events stay, marked by `run.checkpoint.rewind`.
    let shown = keel_plain(dir, &root, &["sessions", "show", &session, "--json"]);
    let log = events(&String::from_utf8_lossy(&shown.stdout));
    assert!(
        log.iter()
            .any(|e| e.turn_id.as_deref() == Some(turns[2].as_str()))
    );
    let marker = log.last().unwrap();
    assert_eq!(marker.type_name(), "run.checkpoint.rewind");
    assert_eq!(marker.seq, report["seq"].as_u64().unwrap());
    assert_eq!(report["to_seq"].as_u64().unwrap() + 1, marker.seq);

    // The next turn continues from exactly turn 1's history.
    keel_against(
        dir,
        &root,
        &model,
        &["sessions", "resume", &session, "task four"],
    )
    .await;
    let requests = model.requests();
    let mut next = history(&requests[6].body);
    let last = next.pop().unwrap();
    assert_eq!(task_of(last["content"].as_str().unwrap()), "task four");
    assert_eq!(next, turn_one);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewinding_one_scope_leaves_the_other() {
    let project = project();
    let (dir, root) = (project.scratch(), project.path().to_path_buf());
    let model = MockServer::start(answer).await;
    let (session, turns) = three_turns(dir, &root, &model).await;
    let list = checkpoints(dir, &root);
    let before_three = checkpoint_of(&list, &turns[2]);

    // History only: the files stay.
    let report = ok_json(&keel_plain(
        dir,
        &root,
        &["rewind", &before_three, "--conversation"],
    ));
    assert_eq!(report["scope"], "conversation");
    assert_eq!(report["files_restored"], json!([]));
    assert!(root.join("third.txt").exists());
    // Files only: the checkpoint is still there (a conversation rewind keeps it).
    let report = ok_json(&keel_plain(
        dir,
        &root,
        &["rewind", &before_three, "--files"],
    ));
    assert_eq!(report["files_removed"], json!(["third.txt"]));
    assert!(report.get("messages").is_none());
    assert!(!root.join("third.txt").exists());

    keel_against(
        dir,
        &root,
        &model,
        &["sessions", "resume", &session, "task four"],
    )
    .await;
    let requests = model.requests();
    let mut next = history(&requests[6].body);
    let mut turn_two = history(&requests[4].body);
    assert_eq!(
        task_of(next.pop().unwrap()["content"].as_str().unwrap()),
        "task four"
    );
    assert_eq!(
        task_of(turn_two.pop().unwrap()["content"].as_str().unwrap()),
        "task three"
    );
    assert_eq!(next, turn_two);
}

/// Everything the store holds about a session.
async fn rows(store: &dyn Store, id: &str) -> Value {
    let session = store.get_session(id).await.unwrap();
    let turns = store.list_turns(id).await.unwrap();
    let events = store.read_events(id, EventRange::all()).await.unwrap();
    json!({
        "session": session,
        "turns": turns.iter().map(|t| json!([t.id, t.input, t.status.as_str(), t.error]))
            .collect::<Vec<_>>(),
        "events": events,
        "conversation": store.load_conversation(id).await.unwrap(),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_leaves_the_original_rows_unchanged() {
    let project = project();
    let (dir, root) = (project.scratch(), project.path().to_path_buf());
    let model = MockServer::start(answer).await;
    let (session, turns) = three_turns(dir, &root, &model).await;
    let list = checkpoints(dir, &root);
    let before_two = checkpoint_of(&list, &turns[1]);
    let db = default_db_path(&root);
    let before = {
        let store = SqliteStore::open(&db).await.unwrap();
        let rows = rows(&store, &session).await;
        store.close().await;
        rows
    };

    let whole = ok_json(&keel_plain(
        dir,
        &root,
        &["sessions", "fork", &session, "--json"],
    ));
    let at = ok_json(&keel_plain(
        dir,
        &root,
        &["sessions", "fork", &session, "--at", &before_two, "--json"],
    ));
    // The working tree is not touched by a fork.
    assert!(root.join("third.txt").exists());

    let store = SqliteStore::open(&db).await.unwrap();
    assert_eq!(rows(&store, &session).await, before, "the original changed");
    let whole_id = whole["session"]["id"].as_str().unwrap();
    let at_id = at["session"]["id"].as_str().unwrap();
    assert_ne!(whole_id, session);
    assert_eq!(
        at["session"]["metadata"]["forked_from"]["checkpoint_id"],
        before_two.as_str()
    );
    assert_eq!(
        store
            .read_events(at_id, EventRange::all())
            .await
            .unwrap()
            .len(),
        0
    );
    let messages = |v: Option<Value>| v.unwrap()["conversation"]["messages"].clone();
    assert_eq!(
        messages(store.load_conversation(whole_id).await.unwrap()),
        messages(before["conversation"].clone().into())
    );
    let forked = messages(store.load_conversation(at_id).await.unwrap());
    store.close().await;
    assert_eq!(
        forked.as_array().unwrap().len(),
        4,
        "turn 1: user, call, result, answer"
    );

    // The fork's own checkpoint holds the files' state before turn 2.
    let fork_checkpoint = at["checkpoint"]["id"].as_str().unwrap();
    ok_json(&keel_plain(
        dir,
        &root,
        &["rewind", fork_checkpoint, "--files"],
    ));
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "one\n"
    );
    assert!(!root.join("third.txt").exists());

    // The fork continues from turn 1's history.
    keel_against(
        dir,
        &root,
        &model,
        &["sessions", "resume", at_id, "task four"],
    )
    .await;
    let requests = model.requests();
    // The turn's first call (the second answers the tool result).
    let mut next = history(&requests[requests.len() - 2].body);
    let mut turn_one = history(&requests[2].body);
    next.pop();
    turn_one.pop();
    assert_eq!(next, turn_one);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_checkpoints_are_refused_and_change_nothing() {
    let project = project();
    let (dir, root) = (project.scratch(), project.path().to_path_buf());
    let model = MockServer::start(answer).await;
    let (session, turns) = three_turns(dir, &root, &model).await;
    let list = checkpoints(dir, &root);
    let before_two = checkpoint_of(&list, &turns[1]);
    let before_three = checkpoint_of(&list, &turns[2]);
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();

    // Unknown id.
    let out = keel_plain(dir, &root, &["rewind", "0190-no-such-checkpoint"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no checkpoint `0190-no-such-checkpoint`"),
        "{}",
        stderr(&out)
    );

    // Another session's checkpoint.
    let other = keel_against(dir, &root, &model, &["run", "another session"]).await;
    let other = events(&String::from_utf8_lossy(&other.stdout))[0]
        .session_id
        .clone();
    let out = keel_plain(
        dir,
        &root,
        &["sessions", "fork", &other, "--at", &before_two],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("belongs to session `{session}`")),
        "{}",
        stderr(&out)
    );

    // A running turn.
    let db = default_db_path(&root);
    let store = SqliteStore::open(&db).await.unwrap();
    let running = store
        .begin_turn(keel_store::NewTurn::new(&session, "still running"))
        .await
        .unwrap();
    let out = keel_plain(dir, &root, &["rewind", &before_two]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is running turn"), "{}", stderr(&out));
    store
        .finish_turn(&running.turn.id, keel_store::TurnOutcome::Cancelled, None)
        .await
        .unwrap();
    let conversation = store.load_conversation(&session).await.unwrap();
    store.close().await;

    // A damaged blob: the one holding notes.txt before turn 2.
    let saved: Value = serde_json::from_slice(
        &std::fs::read(root.join(format!(".keel/checkpoints/{before_two}.json"))).unwrap(),
    )
    .unwrap();
    let blob = root.join(format!(
        ".keel/checkpoints/blobs/{}",
        saved["files"][0]["blob"].as_str().unwrap()
    ));
    let intact = std::fs::read(&blob).unwrap();
    std::fs::write(&blob, "tampered").unwrap();
    let out = keel_plain(dir, &root, &["rewind", &before_two]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("checkpoint `{before_two}` is damaged"))
            && stderr(&out).contains("nothing was restored"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&blob, intact).unwrap();

    // A damaged checkpoint (a later one the rewind must undo too).
    let damaged = root.join(format!(".keel/checkpoints/{before_three}.json"));
    std::fs::write(&damaged, "{ not json").unwrap();
    let out = keel_plain(dir, &root, &["rewind", &before_two]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is damaged"), "{}", stderr(&out));

    // Nothing was lost: files and history as they were.
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "two\n"
    );
    assert!(root.join("third.txt").exists());
    let store = SqliteStore::open(&db).await.unwrap();
    assert_eq!(
        store.load_conversation(&session).await.unwrap(),
        conversation
    );
    store.close().await;
}
