//! Crash recovery with the real binary: a turn running a 30 s command, `kill -9`, a restart on
//! the same data folder: the turn is continued from its last committed state (the command
//! reported to the model as interrupted) and completes, the seq has no gap, and the session
//! takes new turns. And with two instances on one PostgreSQL database: an instance starting
//! leaves the other's running turn alone, and when the other is killed its turn is continued
//! once its lease lapses.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

const TOKEN: &str = "recovery-token";

struct Running {
    child: Child,
    base: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data: &Path, workspace: &Path, script: &str, extra: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_keel-server"))
        .args(extra)
        .args([
            "--addr",
            "127.0.0.1:0",
            "--token",
            TOKEN,
            "--repo-map",
            "false",
        ])
        .arg("--data-dir")
        .arg(data)
        .arg("--allow-root")
        .arg(workspace)
        .arg("--provider")
        .arg(format!("scripted:{}", common::script(script).display()))
        .env_remove("KEEL_SERVER_TOKEN")
        .env_remove("KEEL_DATABASE_URL")
        .env_remove("KEEL_SERVER_INSTANCE_ID")
        .env_remove("KEEL_SERVER_TURN_LEASE_SECS")
        .env_remove("KEEL_SERVER_LOG_FORMAT")
        .env_remove("RUST_LOG")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some((_, addr)) = line.split_once("keel-server listening on ") {
                let _ = tx.send(addr.trim().to_owned());
            }
        }
    });
    let base = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server did not start");
    Running { child, base }
}

async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = client.request(method, url).bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn events(client: &reqwest::Client, base: &str, session: &str) -> Vec<Value> {
    let (_, page) = call(
        client,
        reqwest::Method::GET,
        format!("{base}/v1/sessions/{session}/events?limit=1000"),
        None,
    )
    .await;
    page["events"].as_array().unwrap().clone()
}

/// Creates a session and starts a turn running `sleep 30` (the `sleep.json` script); returns
/// the session and turn ids once the command runs.
async fn start_waiting_turn(
    client: &reqwest::Client,
    base: &str,
    workspace: &Path,
) -> (String, String) {
    let (status, session) = call(
        client,
        reqwest::Method::POST,
        format!("{base}/v1/sessions"),
        Some(json!({"project_id": "p", "root": workspace})),
    )
    .await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let (status, turn) = call(
        client,
        reqwest::Method::POST,
        format!("{base}/v1/sessions/{id}/turns"),
        Some(json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "wait"})),
    )
    .await;
    assert_eq!(status, 202, "{turn}");
    let turn_id = turn["turn"]["id"].as_str().unwrap().to_owned();
    for _ in 0..200 {
        if events(client, base, &id)
            .await
            .iter()
            .any(|e| e["type"] == "run.tool.start")
        {
            return (id, turn_id);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the command never started");
}

/// `kill -9`.
fn kill(mut server: Running) {
    server.child.kill().unwrap();
    server.child.wait().unwrap();
}

fn assert_gap_free(events: &[Value]) {
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "gap in seq"
    );
}

/// Starts a turn on the session and waits for it to complete, continuing the seq.
async fn a_new_turn_completes(client: &reqwest::Client, base: &str, id: &str) {
    let (status, turn) = call(
        client,
        reqwest::Method::POST,
        format!("{base}/v1/sessions/{id}/turns"),
        Some(json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "hello again"})),
    )
    .await;
    assert_eq!(status, 202, "{turn}");
    let new_id = turn["turn"]["id"].as_str().unwrap().to_owned();
    let mut status = String::new();
    for _ in 0..200 {
        status = turn_statuses(client, base, id)
            .await
            .into_iter()
            .find(|(t, _)| *t == new_id)
            .map(|(_, s)| s)
            .unwrap();
        if status != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, "completed");
    let all = events(client, base, id).await;
    assert_gap_free(&all);
    assert_eq!(all.last().unwrap()["type"], "agent.end");
}

/// Writes a script of `n` plain answers into `dir`; returns its path.
fn answers(dir: &Path, n: usize) -> String {
    let turns: Vec<Value> = (0..n)
        .map(
            |i| json!({"text": format!("Answer {i}: nothing to change."), "finish_reason": "stop"}),
        )
        .collect();
    let path = dir.join("answers.json");
    std::fs::write(&path, json!({"turns": turns}).to_string()).unwrap();
    path.display().to_string()
}

/// The turn ended once, completed, on a continuation naming `by` and `from`.
fn assert_continued(events: &[Value], turn_id: &str, by: &str, from: &str) {
    let notice = events
        .iter()
        .find(|e| e["type"] == "system.log" && e["turn_id"] == turn_id)
        .expect("no continuation notice");
    let message = notice["payload"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("instance `{by}`"))
            && message.contains(&format!("instance `{from}`")),
        "{message}"
    );
    let ends: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "agent.end" && e["turn_id"] == turn_id)
        .collect();
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0]["payload"]["status"], "completed", "{}", ends[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_dash_nine_mid_turn_then_restart() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let scripts = tempfile::tempdir().unwrap();
    let client = common::client();

    // The same instance id after the restart: the restarted instance continues its own turn
    // at once, without waiting for the lease to lapse.
    let server = start(
        data.path(),
        workspace.path(),
        "sleep.json",
        &["--instance-id", "solo"],
    );
    let (id, turn_id) = start_waiting_turn(&client, &server.base, workspace.path()).await;
    let before = events(&client, &server.base, &id).await.len();

    kill(server);

    let server = start(
        data.path(),
        workspace.path(),
        &answers(scripts.path(), 2),
        &["--instance-id", "solo"],
    );
    let status = wait_status(&client, &server.base, &id, &turn_id).await;
    assert_eq!(status, "completed");
    let (_, shown) = call(
        &client,
        reqwest::Method::GET,
        format!("{}/v1/sessions/{id}", server.base),
        None,
    )
    .await;
    assert_eq!(shown["status"], "completed");

    let after = events(&client, &server.base, &id).await;
    assert!(after.len() > before);
    assert_gap_free(&after);
    assert_continued(&after, &turn_id, "solo", "solo");
    let last = after.last().unwrap();
    assert_eq!(last["type"], "agent.end", "{last}");
    assert_eq!(last["turn_id"], turn_id.as_str());
    assert_eq!(shown["last_seq"], after.len() as u64);

    // The session takes a new turn, continuing the seq.
    a_new_turn_completes(&client, &server.base, &id).await;
    assert!(events(&client, &server.base, &id).await.len() > after.len());
}

/// Waits (up to 15 s) until turn `turn_id` has ended; returns its status.
async fn wait_status(client: &reqwest::Client, base: &str, session: &str, turn_id: &str) -> String {
    let mut status = String::new();
    for _ in 0..300 {
        status = turn_statuses(client, base, session)
            .await
            .into_iter()
            .find(|(t, _)| t == turn_id)
            .map(|(_, s)| s)
            .unwrap();
        if status != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    status
}

/// The statuses of the session's turns, as `(id, status)`.
async fn turn_statuses(
    client: &reqwest::Client,
    base: &str,
    session: &str,
) -> Vec<(String, String)> {
    let (_, turns) = call(
        client,
        reqwest::Method::GET,
        format!("{base}/v1/sessions/{session}/turns"),
        None,
    )
    .await;
    turns["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_owned(),
                t["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_postgres_continue_only_a_dead_instances_turn() {
    let Some(database) = keel_test_support::TestDatabase::create().await else {
        return;
    };
    let url = database.url();
    let workspace = tempfile::tempdir().unwrap();
    let scripts = tempfile::tempdir().unwrap();
    let script = answers(scripts.path(), 2);
    let (data_a, data_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let client = common::client();
    let flags = |id: &'static str| {
        [
            "--database-url",
            url,
            "--instance-id",
            id,
            "--turn-lease-secs",
            "1",
        ]
    };

    let a = start(data_a.path(), workspace.path(), "sleep.json", &flags("a"));
    let (id, turn_id) = start_waiting_turn(&client, &a.base, workspace.path()).await;

    // B starts while A's turn runs, and sweeps lapsed leases every third of a second: A keeps
    // renewing, so its turn is left alone through several lease lengths.
    let b = start(data_b.path(), workspace.path(), &script, &flags("b"));
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    assert_eq!(
        turn_statuses(&client, &b.base, &id).await,
        [(turn_id.clone(), "running".to_owned())]
    );
    // B refuses a second turn while A's runs.
    let (status, _) = call(
        &client,
        reqwest::Method::POST,
        format!("{}/v1/sessions/{id}/turns", b.base),
        Some(json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "too soon"})),
    )
    .await;
    assert_eq!(status, 409);
    let before = events(&client, &b.base, &id).await.len();

    // kill -9 A: its lease lapses within a second and B continues the turn to its end.
    let killed_at = std::time::Instant::now();
    kill(a);
    let mut done = false;
    while killed_at.elapsed() < Duration::from_secs(15) {
        if turn_statuses(&client, &b.base, &id).await == [(turn_id.clone(), "completed".to_owned())]
        {
            done = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(done, "B never completed the dead instance's turn");
    let detected = killed_at.elapsed();
    assert!(detected < Duration::from_secs(6), "took {detected:?}");

    // One continuation notice and one `agent.end`, continuing the seq.
    let after = events(&client, &b.base, &id).await;
    assert!(after.len() > before);
    assert_gap_free(&after);
    assert_continued(&after, &turn_id, "b", "a");
    // The command was running when A died: the model was told it was interrupted.
    assert!(
        !after
            .iter()
            .any(|e| e["type"] == "system.error" && e["payload"]["error_type"] == "interrupted"),
        "the turn was continued, not failed"
    );

    // The session takes a new turn on B.
    a_new_turn_completes(&client, &b.base, &id).await;
}
