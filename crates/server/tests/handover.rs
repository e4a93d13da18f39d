//! Many instances, nothing lost: two real `keel-server` processes on one PostgreSQL database,
//! real signals, and a model on loopback (the recording mock OpenAI server) that answers from
//! what each request holds — as a model would — so an instance continuing a turn gets the
//! answer its conversation calls for.
//!
//! - `kill -9` mid-turn: the other instance completes the turn; the committed tool call (it
//!   appends to a file) is not run again, the running one is reported interrupted.
//! - `SIGTERM`: the instance drains within `--drain-secs`, its turn goes on elsewhere.
//! - `SIGSTOP` past the lease, then `SIGCONT`: the stalled instance writes nothing more, the
//!   other's turns keep every event, the session ends `completed`.
//! - A file run posted to the instance that does not write the session is refused, naming it.
//! - A turn that cannot be continued (a plan waiting for approval) ends with `agent.end{failed}`
//!   and its `turn_id`, and its work is in the next turn's prompt.
//! - A stream client of one instance is caught up with the store after each instance's work.
//! - A rolling restart of both instances during a multi-turn session fails no turn.
//! - An approval that waited when its instance died is asked again by the continuing one.
//!
//! Runs only when `KEEL_TEST_DATABASE_URL` is set.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use keel_host::INTERRUPTED_CALL_RESULT;
use keel_test_support::TestDatabase;
use keel_test_support::mock_openai::{
    Frame, MockServer, Reply, content, done, finish, role, text_answer, tool_call_answer, usage,
};
use serde_json::{Value, json};

const TOKEN: &str = "handover-token";

/// A `keel-server` process; killed when dropped.
struct Instance {
    child: Child,
    base: String,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Instance {
    fn signal(&self, signal: nix::sys::signal::Signal) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        nix::sys::signal::kill(pid, signal).unwrap();
    }
}

/// Starts instance `id` on `database`, its model at `model`, with `extra` flags.
fn start(
    id: &str,
    database: &TestDatabase,
    workspace: &Path,
    model: &str,
    extra: &[&str],
) -> Instance {
    let data = tempfile::tempdir().unwrap().keep();
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
        .args(["--instance-id", id, "--turn-lease-secs", "1"])
        .args(["--sandbox", "off", "--max-iterations", "10"])
        .args(if extra.contains(&"--approval") {
            &[][..]
        } else {
            &["--approval", "never"][..]
        })
        .args([
            "--provider",
            "openai",
            "--model",
            "mock",
            "--base-url",
            model,
        ])
        .arg("--database-url")
        .arg(database.url())
        .arg("--data-dir")
        .arg(&data)
        .arg("--allow-root")
        .arg(workspace)
        .env_remove("KEEL_SERVER_TOKEN")
        .env_remove("KEEL_DATABASE_URL")
        .env_remove("KEEL_SERVER_INSTANCE_ID")
        .env_remove("KEEL_SERVER_TURN_LEASE_SECS")
        .env_remove("KEEL_SERVER_DRAIN_SECS")
        .env_remove("KEEL_SERVER_LOG_FORMAT")
        .env_remove("OPENAI_API_KEY")
        .env_remove("RUST_LOG")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some((_, addr)) = line.split_once("keel-server listening on ") {
                let _ = tx.send(addr.trim().to_owned());
            }
            kept.lock().unwrap().push(line);
        }
    });
    let base = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|e| {
            panic!(
                "the server did not start ({e}): {:?}",
                lines.lock().unwrap()
            )
        });
    Instance { child, base }
}

async fn call(method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut request = common::client().request(method, url).bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn post(base: &str, path: &str, body: Value) -> (u16, Value) {
    call(reqwest::Method::POST, format!("{base}{path}"), Some(body)).await
}

async fn get(base: &str, path: &str) -> Value {
    call(reqwest::Method::GET, format!("{base}{path}"), None)
        .await
        .1
}

/// Every stored event of the session.
async fn events(base: &str, session: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after = 0;
    loop {
        let page = get(
            base,
            &format!("/v1/sessions/{session}/events?after={after}&limit=1000"),
        )
        .await;
        out.extend(page["events"].as_array().unwrap().iter().cloned());
        after = page["next_after"].as_u64().unwrap();
        if !page["has_more"].as_bool().unwrap() {
            return out;
        }
    }
}

async fn create_session(base: &str, workspace: &Path) -> String {
    let (status, session) = post(
        base,
        "/v1/sessions",
        json!({"project_id": "p", "root": workspace}),
    )
    .await;
    assert_eq!(status, 201, "{session}");
    session["id"].as_str().unwrap().to_owned()
}

async fn start_turn(base: &str, session: &str, input: &str) -> String {
    let (status, turn) = post(
        base,
        &format!("/v1/sessions/{session}/turns"),
        json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": input}),
    )
    .await;
    assert_eq!(status, 202, "{turn}");
    turn["turn"]["id"].as_str().unwrap().to_owned()
}

/// Waits (up to `within`) until `check` holds for the session's events; returns them.
async fn wait_events(
    base: &str,
    session: &str,
    within: Duration,
    check: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let all = events(base, session).await;
        if check(&all) {
            return all;
        }
        assert!(
            started.elapsed() < within,
            "waited {within:?}; events: {:#?}",
            all.iter()
                .map(|e| format!("{} {} {}", e["seq"], e["type"], e["turn_id"]))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits (up to `within`) until turn `turn_id` has ended; returns it.
async fn wait_turn(base: &str, session: &str, turn_id: &str, within: Duration) -> Value {
    let started = Instant::now();
    loop {
        let turns = get(base, &format!("/v1/sessions/{session}/turns")).await;
        if let Some(turn) = turns["turns"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["id"] == turn_id))
            && turn["status"] != "running"
        {
            return turn.clone();
        }
        assert!(
            started.elapsed() < within,
            "turn {turn_id} did not end: {turns}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn assert_gap_free(events: &[Value]) {
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "gap in seq"
    );
}

fn of_turn<'a>(events: &'a [Value], turn_id: &str, kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["turn_id"] == turn_id && e["type"] == kind)
        .collect()
}

/// The request's messages.
fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// How many tool results the request carries.
fn tool_results(body: &Value) -> usize {
    messages(body)
        .iter()
        .filter(|m| m["role"] == "tool")
        .count()
}

/// Whether the request's latest user message (the turn's task) mentions `word`.
fn task_mentions(body: &Value, word: &str) -> bool {
    messages(body)
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str().map(|c| c.contains(word)))
        .unwrap_or(false)
}

/// A model that appends `a` to `tally.txt`, then runs `sleep 20`, then appends `b`, then
/// answers: which step comes next it reads from the tool results it is given.
fn tally_model(_: usize, body: &Value) -> Reply {
    let command = |id: &str, command: &str| {
        tool_call_answer(
            id,
            "execute_command",
            &json!({"command": command, "requires_approval": false}).to_string(),
        )
    };
    match tool_results(body) {
        0 => command("call_a", "echo a >> tally.txt"),
        1 => command("call_sleep", "sleep 20"),
        2 => command("call_b", "echo b >> tally.txt"),
        _ => text_answer(&["Appended a and b."]),
    }
}

/// A slow text answer: `pieces` deltas `gap` apart.
fn slow_answer(pieces: usize, gap: Duration) -> Reply {
    let mut frames = vec![role()];
    for i in 0..pieces {
        frames.push(Frame::Sleep(gap));
        frames.push(content(&format!("w{i} ")));
    }
    frames.extend([finish("stop"), usage(10, pieces as u64), done()]);
    Reply::Sse(frames)
}

struct Pair {
    database: TestDatabase,
    workspace: tempfile::TempDir,
    model: MockServer,
}

async fn pair(responder: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static) -> Option<Pair> {
    let database = TestDatabase::create().await?;
    Some(Pair {
        database,
        workspace: tempfile::tempdir().unwrap(),
        model: MockServer::start(responder).await,
    })
}

impl Pair {
    fn start(&self, id: &str, extra: &[&str]) -> Instance {
        start(
            id,
            &self.database,
            self.workspace.path(),
            &self.model.base_url,
            extra,
        )
    }

    fn tally(&self) -> String {
        std::fs::read_to_string(self.workspace.path().join("tally.txt")).unwrap_or_default()
    }
}

/// Waits until the turn's `sleep 20` runs.
async fn sleeping(base: &str, session: &str) -> Vec<Value> {
    wait_events(base, session, Duration::from_secs(30), |all| {
        all.iter()
            .any(|e| e["type"] == "run.tool.start" && e["payload"]["call_id"] == "call_sleep")
    })
    .await
}

/// The turn was continued by `by` after `from` stopped, and ended once, completed; the
/// committed call ran once, the next one again on the continuing instance.
fn assert_continued_tally(pair: &Pair, all: &[Value], turn_id: &str, by: &str, from: &str) {
    assert_gap_free(all);
    let notices: Vec<&Value> = of_turn(all, turn_id, "system.log")
        .into_iter()
        .filter(|e| e["payload"]["metadata"]["continued_by"].is_string())
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    let message = notices[0]["payload"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("instance `{by}`"))
            && message.contains(&format!("instance `{from}`")),
        "{message}"
    );
    let ends = of_turn(all, turn_id, "agent.end");
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0]["payload"]["status"], "completed", "{}", ends[0]);
    let starts: Vec<&str> = of_turn(all, turn_id, "run.tool.start")
        .iter()
        .map(|e| e["payload"]["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(starts, ["call_a", "call_sleep", "call_b"]);
    assert_eq!(
        pair.tally(),
        "a\nb\n",
        "a tool call ran twice, or not at all"
    );
    // The continuation's request: the committed result, and the running call interrupted.
    let requests = pair.model.requests();
    let continued = requests
        .iter()
        .find(|r| tool_results(&r.body) == 2)
        .expect("no request after the interrupted call");
    let results: Vec<String> = messages(&continued.body)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(results[1].contains(INTERRUPTED_CALL_RESULT), "{results:?}");
    assert_eq!(
        requests
            .iter()
            .filter(|r| tool_results(&r.body) == 0)
            .count(),
        1,
        "the turn's first answer was asked for again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_dash_nine_mid_turn_the_other_instance_completes_it() {
    let Some(pair) = pair(tally_model).await else {
        return;
    };
    let a = pair.start("a", &[]);
    let b = pair.start("b", &[]);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let turn = start_turn(&a.base, &id, "append a and b").await;
    sleeping(&a.base, &id).await;
    let mut a = a;
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let killed = Instant::now();
    let ended = wait_turn(&b.base, &id, &turn, Duration::from_secs(20)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert!(
        killed.elapsed() < Duration::from_secs(8),
        "{:?}",
        killed.elapsed()
    );
    let all = events(&b.base, &id).await;
    assert_continued_tally(&pair, &all, &turn, "b", "a");
    assert_eq!(
        get(&b.base, &format!("/v1/sessions/{id}")).await["status"],
        "completed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_and_the_turn_goes_on_elsewhere() {
    let Some(pair) = pair(tally_model).await else {
        return;
    };
    let mut a = pair.start("a", &["--drain-secs", "4"]);
    let b = pair.start("b", &[]);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let turn = start_turn(&a.base, &id, "append a and b").await;
    sleeping(&a.base, &id).await;
    let signalled = Instant::now();
    a.signal(nix::sys::signal::Signal::SIGTERM);
    // A exits within its drain time, though it was running `sleep 20`.
    let status = loop {
        if let Some(status) = a.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(6),
            "A did not exit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
    let ended = wait_turn(&b.base, &id, &turn, Duration::from_secs(20)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let all = events(&b.base, &id).await;
    assert_continued_tally(&pair, &all, &turn, "b", "a");
    // Nothing of A's cancelled run was written.
    assert!(
        !all.iter().any(|e| e["payload"]["status"] == "cancelled"),
        "a cancellation was stored"
    );
}

/// Turn one streams slowly; its instance is stopped past its lease, the other continues it and
/// runs turn two; the stalled instance, resumed, writes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_instance_writes_nothing_after_the_other_took_over() {
    const PIECES: usize = 150;
    let Some(pair) = pair(|_, _| slow_answer(PIECES, Duration::from_millis(15))).await else {
        return;
    };
    let mut a = pair.start("a", &[]);
    let b = pair.start("b", &[]);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let first = start_turn(&a.base, &id, "first").await;
    wait_events(&a.base, &id, Duration::from_secs(20), |all| {
        of_turn(all, &first, "run.llm.delta").len() >= 20
    })
    .await;
    a.signal(nix::sys::signal::Signal::SIGSTOP);
    let ended = wait_turn(&b.base, &id, &first, Duration::from_secs(30)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let second = start_turn(&b.base, &id, "second").await;
    wait_events(&b.base, &id, Duration::from_secs(20), |all| {
        of_turn(all, &second, "run.llm.delta").len() >= 20
    })
    .await;
    // A wakes up mid-way through B's turn, with its stream and writer where they stopped.
    a.signal(nix::sys::signal::Signal::SIGCONT);
    let ended = wait_turn(&b.base, &id, &second, Duration::from_secs(30)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    // Time for A to do whatever it would.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let all = events(&b.base, &id).await;
    assert_gap_free(&all);
    for turn in [&first, &second] {
        let ends = of_turn(&all, turn, "agent.end");
        assert_eq!(ends.len(), 1, "{ends:?}");
        assert_eq!(ends[0]["payload"]["status"], "completed");
        assert_eq!(of_turn(&all, turn, "run.response.end").len(), 1);
    }
    // B's turn kept every one of its events; after it ended nothing was written.
    assert_eq!(of_turn(&all, &second, "run.llm.delta").len(), PIECES);
    assert_eq!(all.last().unwrap()["type"], "agent.end");
    assert_eq!(all.last().unwrap()["turn_id"], second.as_str());
    let session = get(&b.base, &format!("/v1/sessions/{id}")).await;
    assert_eq!(session["status"], "completed", "{session}");
    // A is alive and takes work again.
    assert!(a.child.try_wait().unwrap().is_none());
    let third = start_turn(&a.base, &id, "third").await;
    let ended = wait_turn(&a.base, &id, &third, Duration::from_secs(30)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_gap_free(&events(&a.base, &id).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_run_on_the_instance_not_writing_the_session_is_refused_naming_it() {
    let Some(pair) = pair(tally_model).await else {
        return;
    };
    std::fs::write(
        pair.workspace.path().join("hello.sh"),
        "echo hello from the file\n",
    )
    .unwrap();
    let a = pair.start("a", &[]);
    let b = pair.start("b", &[]);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let turn = start_turn(&a.base, &id, "append a and b").await;
    sleeping(&a.base, &id).await;
    let before = events(&b.base, &id).await.len();
    let (status, body) = post(
        &b.base,
        &format!("/v1/sessions/{id}/file-runs"),
        json!({"path": "hello.sh"}),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "conflict");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("`a`"),
        "{body}"
    );
    // Nothing was written by B.
    assert_eq!(events(&b.base, &id).await.len(), before);
    // On the instance writing the session the run goes, and its events are stored.
    let (status, body) = post(
        &a.base,
        &format!("/v1/sessions/{id}/file-runs"),
        json!({"path": "hello.sh"}),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let all = wait_events(&b.base, &id, Duration::from_secs(20), |all| {
        all.iter().any(|e| e["type"] == "exec.file.exit")
    })
    .await;
    assert!(
        all.iter().any(|e| e["type"] == "exec.file.stdout"
            && e["payload"].to_string().contains("hello from the file")),
        "no output stored"
    );
    let (status, _) = post(&b.base, &format!("/v1/sessions/{id}/cancel"), json!({})).await;
    assert_eq!(status, 202);
    let ended = wait_turn(&a.base, &id, &turn, Duration::from_secs(20)).await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
    let all = events(&a.base, &id).await;
    assert_gap_free(&all);
    assert_eq!(of_turn(&all, &turn, "agent.end").len(), 1);
}

/// A model that appends `a`, then makes a plan (which waits for approval); asked anything
/// else, it answers plainly.
fn planning_model(_: usize, body: &Value) -> Reply {
    if !task_mentions(body, "plan it") {
        return text_answer(&["ok"]);
    }
    match tool_results(body) {
        0 => tool_call_answer(
            "call_a",
            "execute_command",
            &json!({"command": "echo a >> tally.txt", "requires_approval": false}).to_string(),
        ),
        _ => tool_call_answer(
            "call_plan",
            "create_plan",
            &json!({"goal": "finish", "estimated_complexity": "low",
                    "steps": [{"title": "one", "description": "do one"}]})
            .to_string(),
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_cannot_go_on_ends_failed_with_its_work_kept() {
    let Some(pair) = pair(planning_model).await else {
        return;
    };
    let mut a = pair.start("a", &["--approve-plans"]);
    let b = pair.start("b", &["--approve-plans"]);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let turn = start_turn(&a.base, &id, "plan it").await;
    wait_events(&a.base, &id, Duration::from_secs(20), |all| {
        all.iter().any(|e| e["type"] == "run.approval.request")
    })
    .await;
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let ended = wait_turn(&b.base, &id, &turn, Duration::from_secs(20)).await;
    assert_eq!(ended["status"], "failed", "{ended}");
    let all = events(&b.base, &id).await;
    assert_gap_free(&all);
    let ends = of_turn(&all, &turn, "agent.end");
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0]["payload"]["status"], "failed");
    let errors = of_turn(&all, &turn, "system.error");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["payload"]["error_type"], "interrupted");
    assert_eq!(
        get(&b.base, &format!("/v1/sessions/{id}")).await["status"],
        "failed"
    );
    // The next turn's prompt holds the interrupted turn's work: its task, its committed call
    // and result.
    let next = start_turn(&b.base, &id, "what happened?").await;
    let ended = wait_turn(&b.base, &id, &next, Duration::from_secs(20)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let requests = pair.model.requests();
    let last = requests.last().unwrap();
    let prompt = serde_json::to_string(&messages(&last.body)).unwrap();
    assert!(prompt.contains("plan it"), "{prompt}");
    assert!(prompt.contains("echo a >> tally.txt"), "{prompt}");
    assert!(
        messages(&last.body)
            .iter()
            .any(|m| m["role"] == "tool" && m["tool_call_id"] == "call_a"),
        "{prompt}"
    );
    assert_eq!(pair.tally(), "a\n");
}

/// A stream client of B follows turns and file runs on both instances; after each, it has
/// every stored event, in order, without waiting for anything else to happen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_client_is_caught_up_after_each_instances_work() {
    let Some(pair) = pair(|_, _| slow_answer(40, Duration::from_millis(2))).await else {
        return;
    };
    std::fs::write(pair.workspace.path().join("hello.sh"), "echo hi\n").unwrap();
    let a = pair.start("a", &[]);
    let b = pair.start("b", &[]);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let response = common::client()
        .get(format!("{}/v1/sessions/{id}/events", b.base))
        .bearer_auth(TOKEN)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let mut reader = common::SseReader::new(response);
    let received = Arc::new(std::sync::Mutex::new(Vec::<u64>::new()));
    let sink = Arc::clone(&received);
    let follower = tokio::spawn(async move {
        while let Some(message) = reader.next().await {
            if let Some(seq) = message.id.and_then(|id| id.parse().ok()) {
                sink.lock().unwrap().push(seq);
            }
        }
    });
    for (round, base) in [&a.base, &b.base, &a.base, &b.base].into_iter().enumerate() {
        if round % 2 == 1 {
            let (status, body) = post(
                base,
                &format!("/v1/sessions/{id}/file-runs"),
                json!({"path": "hello.sh"}),
            )
            .await;
            assert_eq!(status, 202, "{body}");
            wait_events(base, &id, Duration::from_secs(20), |all| {
                all.iter().filter(|e| e["type"] == "exec.file.exit").count() > round / 2
            })
            .await;
        }
        let turn = start_turn(base, &id, &format!("round {round}")).await;
        wait_turn(base, &id, &turn, Duration::from_secs(30)).await;
        let stored = events(base, &id).await.len() as u64;
        // Caught up promptly: the end of each round reaches the client within two seconds.
        let started = Instant::now();
        loop {
            let last = received.lock().unwrap().last().copied().unwrap_or(0);
            if last >= stored {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "round {round}: the client is at seq {last}, the store at {stored}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    follower.abort();
    let seqs = received.lock().unwrap().clone();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
}

/// A model that runs `sleep 2` first in each turn, then answers in a slow stream.
fn working_model(_: usize, body: &Value) -> Reply {
    let last = messages(body).last().cloned().unwrap_or_default();
    if last["role"] == "user" {
        return tool_call_answer(
            "call_work",
            "execute_command",
            &json!({"command": "sleep 2", "requires_approval": false}).to_string(),
        );
    }
    slow_answer(30, Duration::from_millis(10))
}

/// Every instance restarted in turn while a long session runs: each restart drains the
/// instance running the turn, the other continues it; no turn fails, no event is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_loses_no_event_and_fails_no_turn() {
    let Some(pair) = pair(working_model).await else {
        return;
    };
    let flags = ["--drain-secs", "5"];
    let mut instances = [pair.start("a", &flags), pair.start("b", &flags)];
    let id = create_session(&instances[0].base, pair.workspace.path()).await;
    let mut turns = Vec::new();
    for round in 0..4 {
        let (runs, other) = (round % 2, 1 - round % 2);
        let turn = start_turn(&instances[runs].base, &id, &format!("round {round}")).await;
        wait_events(
            &instances[other].base,
            &id,
            Duration::from_secs(20),
            |all| !of_turn(all, &turn, "run.tool.start").is_empty(),
        )
        .await;
        // Restart the instance running the turn: SIGTERM, wait for it to exit, start it again.
        let name = if runs == 0 { "a" } else { "b" };
        instances[runs].signal(nix::sys::signal::Signal::SIGTERM);
        let signalled = Instant::now();
        while instances[runs].child.try_wait().unwrap().is_none() {
            assert!(
                signalled.elapsed() < Duration::from_secs(7),
                "{name} did not exit"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        instances[runs] = pair.start(name, &flags);
        let ended = wait_turn(&instances[other].base, &id, &turn, Duration::from_secs(30)).await;
        assert_eq!(ended["status"], "completed", "round {round}: {ended}");
        turns.push(turn);
    }
    // One more turn on each restarted instance.
    for instance in &instances {
        let turn = start_turn(&instance.base, &id, "after the restarts").await;
        let ended = wait_turn(&instance.base, &id, &turn, Duration::from_secs(30)).await;
        assert_eq!(ended["status"], "completed", "{ended}");
        turns.push(turn);
    }
    let all = events(&instances[0].base, &id).await;
    assert_gap_free(&all);
    for turn in &turns {
        let ends = of_turn(&all, turn, "agent.end");
        assert_eq!(ends.len(), 1, "{turn}: {ends:?}");
        assert_eq!(ends[0]["payload"]["status"], "completed");
    }
    assert!(
        !all.iter().any(|e| e["type"] == "system.error"),
        "an error was recorded"
    );
    let listed = get(&instances[1].base, &format!("/v1/sessions/{id}/turns")).await;
    assert!(
        listed["turns"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "completed"),
        "{listed}"
    );
}

/// A model whose one command needs an approval, then answers.
fn approval_model(_: usize, body: &Value) -> Reply {
    match tool_results(body) {
        0 => tool_call_answer(
            "call_approved",
            "execute_command",
            &json!({"command": "echo approved >> tally.txt", "requires_approval": true})
                .to_string(),
        ),
        _ => text_answer(&["Done."]),
    }
}

/// The instance running a turn dies while the turn waits for an approval: the continuing
/// instance asks it again, and the call runs once, after the new decision.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_that_waited_is_asked_again_by_the_continuing_instance() {
    let Some(pair) = pair(approval_model).await else {
        return;
    };
    let flags = ["--approval", "always"];
    let mut a = pair.start("a", &flags);
    let b = pair.start("b", &flags);
    let id = create_session(&a.base, pair.workspace.path()).await;
    let turn = start_turn(&a.base, &id, "make the tally").await;
    let asked = wait_events(&a.base, &id, Duration::from_secs(20), |all| {
        all.iter().any(|e| e["type"] == "run.approval.request")
    })
    .await;
    let first = asked
        .iter()
        .find(|e| e["type"] == "run.approval.request")
        .unwrap()["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_owned();
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    // B continues the turn and asks again.
    let again = wait_events(&b.base, &id, Duration::from_secs(20), |all| {
        all.iter()
            .filter(|e| e["type"] == "run.approval.request")
            .count()
            == 2
    })
    .await;
    let second = again
        .iter()
        .rev()
        .find(|e| e["type"] == "run.approval.request")
        .unwrap()["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(first, second);
    assert_eq!(pair.tally(), "", "the command ran before its approval");
    let (status, body) = post(
        &b.base,
        &format!("/v1/sessions/{id}/approvals/{second}"),
        json!({"decision": "approve"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let ended = wait_turn(&b.base, &id, &turn, Duration::from_secs(20)).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(pair.tally(), "approved\n");
    let all = events(&b.base, &id).await;
    assert_gap_free(&all);
    assert_eq!(of_turn(&all, &turn, "agent.end").len(), 1);
}
