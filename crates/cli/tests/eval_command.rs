//! `keel eval` end to end: Keel as the agent against the mock OpenAI server through the
//! metering proxy, an endpoint that is down, another agent's command line, Ctrl-C mid-suite,
//! `--report`, `--verify`, and the up-front errors.

use crate::common;

use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::keel;
use keel_test_support::mock_openai::{MockServer, text_answer, tool_call_answer};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// A task folder `suite/name` whose repo holds `value.txt` = 1, solved when it holds `want`.
fn task(suite: &Path, name: &str, text: &str, want: u32) -> PathBuf {
    let dir = suite.join(name);
    std::fs::create_dir_all(dir.join("repo")).unwrap();
    std::fs::write(dir.join("repo/value.txt"), "1\n").unwrap();
    std::fs::write(dir.join("task.txt"), text).unwrap();
    executable(
        &dir.join("check.sh"),
        &format!("#!/bin/sh\ntest \"$(cat value.txt)\" = {want}\n"),
    );
    dir
}

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `keel eval ARGS…` to its end, off the async threads (a mock model may run on them).
async fn eval(config: &Path, args: Vec<String>) -> Output {
    let mut command = keel(config);
    command.arg("eval").args(args);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn keel_works_through_the_metering_proxy_and_is_scored() {
    // A model that writes value.txt = 2, then completes; a request without tools (the
    // end-of-session memory call) gets a text answer.
    let model = MockServer::start(|_, body| {
        let offered = body["tools"].as_array().is_some_and(|t| !t.is_empty());
        let results = body["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count());
        match (offered, results) {
            (false, _) => text_answer(&["nothing to remember"]),
            (true, 0) => tool_call_answer(
                "call_write",
                "write_file",
                &json!({"path": "value.txt", "content": "2\n"}).to_string(),
            ),
            (true, _) => tool_call_answer(
                "call_done",
                "attempt_completion",
                &json!({"result": "Set the value to two."}).to_string(),
            ),
        }
    })
    .await;
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("suite");
    let solved = task(&suite, "solved", "Set value.txt to 2.", 2);
    std::fs::write(
        solved.join("task.toml"),
        "language = \"text\"\nkind = \"fix-test\"\ntest_cmd = \"true\"\n",
    )
    .unwrap();
    task(&suite, "unsolved", "Set value.txt to 2.", 3);
    let out = root.path().join("out/results.jsonl");
    let output = eval(
        root.path(),
        strings(&[
            suite.to_str().unwrap(),
            "--base-url",
            &model.base_url,
            "--model",
            "mock-model",
            "--out",
            out.to_str().unwrap(),
            "--keel-arg=--max-retries",
            "--keel-arg=0",
        ]),
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");

    let results = lines(&out);
    assert_eq!(results.len(), 2, "{results:#?}");
    let solved = &results[0];
    assert_eq!(solved["task"], "solved");
    assert_eq!(solved["outcome"], "solved", "{solved:#}\n{stderr}");
    assert_eq!(solved["agent"], "keel");
    assert_eq!(solved["model"], "mock-model");
    assert_eq!(solved["language"], "text");
    assert_eq!(solved["ended"], "completed: Set the value to two.");
    assert_eq!(solved["files_changed"], json!(["value.txt"]));
    // write_file and attempt_completion, and the task's `test_cmd` Keel runs before the first
    // model call and after the change.
    assert_eq!(
        (
            solved["tool_calls"].as_u64(),
            solved["tool_errors"].as_u64()
        ),
        (Some(4), Some(0))
    );
    let calls = solved["model_calls"].as_u64().unwrap();
    assert!(calls >= 2, "{solved:#}");
    assert_eq!(solved["prompt_tokens"].as_u64(), Some(10 * calls));
    assert_eq!(solved["first_request_tokens"].as_u64(), Some(10));
    assert!(solved["first_token_secs"].as_f64().is_some());
    assert_eq!(results[1]["outcome"], "unsolved");

    let run = PathBuf::from(solved["log_dir"].as_str().unwrap());
    assert!(run.is_absolute());
    assert_eq!(
        std::fs::read_to_string(run.join("answer.txt")).unwrap(),
        "Set the value to two."
    );
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(events.contains("\"agent.end\""));
    assert_eq!(
        std::fs::read_to_string(run.join("calls.jsonl"))
            .unwrap()
            .lines()
            .count() as u64,
        calls
    );
    let requests = model.requests();
    assert!(requests.iter().all(|r| r.body["model"] == "mock-model"));
    assert_eq!(
        requests[0].authorization.as_deref(),
        Some("Bearer sk-keel-eval-dummy")
    );

    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("| task | lang | kind | solved |"),
        "{stdout}"
    );
    assert!(stdout.contains("| **total** | | | **1/2** |"), "{stdout}");
    let summary = std::fs::read_to_string(root.path().join("out/results.md")).unwrap();
    assert_eq!(summary, stdout);
    assert!(
        stderr.contains("✓ solved") && stderr.contains("✗ unsolved"),
        "{stderr}"
    );
}

#[tokio::test]
async fn an_endpoint_that_is_down_is_the_tasks_error() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let root = tempfile::tempdir().unwrap();
    let dir = task(root.path(), "down", "Set value.txt to 2.", 2);
    let out = root.path().join("results.jsonl");
    let output = eval(
        root.path(),
        strings(&[
            dir.to_str().unwrap(),
            "--base-url",
            &base_url,
            "--model",
            "m",
            "--out",
            out.to_str().unwrap(),
            "--keel-arg",
            "--max-retries",
            "--keel-arg",
            "0",
        ]),
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = &lines(&out)[0];
    assert_eq!(result["outcome"], "error", "{result:#}");
    let error = result["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!(
            "the model endpoint at {base_url} did not answer: "
        )),
        "{error}"
    );
    assert!(error.to_lowercase().contains("refused"), "{error}");
    assert!(result["model_calls"].as_u64().unwrap() >= 1);
}

#[tokio::test]
async fn another_agents_command_line_gets_the_task_and_the_proxy() {
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("suite");
    task(&suite, "edit", "Set value.txt to 2.", 2);
    let question = task(&suite, "question", "What is the value?", 1);
    executable(
        &question.join("check.sh"),
        "#!/bin/sh\ngrep -q 'The value is 1' \"$KEEL_EVAL_ANSWER\"\n",
    );
    let agent = root.path().join("fake-agent");
    executable(
        &agent,
        r#"#!/bin/sh
case "$KEEL_EVAL_TASK" in
  *Set*) echo 2 > value.txt ;;
  *) printf '\033[32mThe value is %s\033[0m\n' "$(cat value.txt)" ;;
esac
echo "task file: $(cat "$KEEL_EVAL_TASK_FILE")"
echo "proxy: $KEEL_EVAL_BASE_URL $OPENAI_BASE_URL $OPENAI_API_BASE"
echo "model: $KEEL_EVAL_MODEL, tests: [$KEEL_EVAL_TEST_CMD], key: $OPENAI_API_KEY"
"#,
    );
    let out = root.path().join("results.jsonl");
    let output = eval(
        root.path(),
        strings(&[
            suite.to_str().unwrap(),
            "--agent-cmd",
            &format!("{} --flag", agent.display()),
            "--model",
            "mock-model",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]),
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Two jobs: the lines come in the order the tasks finished.
    let results = lines(&out);
    let named = |name: &str| results.iter().find(|r| r["task"] == name).unwrap();
    let [edit, question] = [named("edit"), named("question")];
    assert_eq!(edit["outcome"], "solved", "{edit:#}");
    assert_eq!(question["outcome"], "solved", "{question:#}");
    assert_eq!(edit["agent"], "fake-agent");
    assert!(edit["tool_calls"].is_null() && edit["tool_errors"].is_null());
    assert_eq!(edit["ended"], "exit 0");

    let answer = std::fs::read_to_string(
        PathBuf::from(question["log_dir"].as_str().unwrap()).join("answer.txt"),
    )
    .unwrap();
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines[0], "The value is 1");
    assert_eq!(lines[1], "task file: What is the value?");
    let urls: Vec<&str> = lines[2].trim_start_matches("proxy: ").split(' ').collect();
    assert!(
        urls[0].starts_with("http://127.0.0.1:") && urls[0].ends_with("/v1"),
        "{answer}"
    );
    assert!(urls.iter().all(|u| *u == urls[0]), "{answer}");
    assert_eq!(
        lines[3],
        "model: mock-model, tests: [], key: sk-keel-eval-dummy"
    );
}

#[tokio::test]
async fn keel_at_the_cap_is_stopped_with_the_command_it_runs() {
    let root = tempfile::tempdir().unwrap();
    let dir = task(root.path(), "hangs", "Wait for the slow command.", 2);
    let pid_file = root.path().join("command.pid");
    let script = root.path().join("sleep.json");
    keel_test_support::ScriptBuilder::new()
        .tool_call(
            "execute_command",
            json!({"command": format!("echo $$ > {}; exec sleep 60", pid_file.display()),
                   "requires_approval": false, "timeout_secs": 120}),
        )
        .text("Slept.")
        .write(&script)
        .unwrap();
    let out = root.path().join("results.jsonl");
    let started = Instant::now();
    let output = eval(
        root.path(),
        strings(&[
            dir.to_str().unwrap(),
            "--provider",
            &format!("scripted:{}", script.display()),
            "--cap",
            "3",
            "--keel-arg=--sandbox=off",
            "--out",
            out.to_str().unwrap(),
        ]),
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    let result = &lines(&out)[0];
    assert_eq!(result["outcome"], "cap", "{result:#}");
    assert_eq!(result["ended"], "cap after 3 s");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        kill(Pid::from_raw(pid), None).is_err(),
        "the command Keel ran outlived the cap"
    );
}

/// Starts `keel eval` on a quick task and one whose agent hangs, writing its pid first.
fn start_interruptible(root: &Path, out: &Path) -> Child {
    let suite = root.join("suite");
    task(&suite, "a-quick", "quick", 2);
    task(&suite, "b-hangs", "hang", 2);
    let agent = format!(
        "case \"$KEEL_EVAL_TASK\" in hang) echo $$ > {}/agent.pid; exec sleep 60 ;; esac; echo 2 > value.txt",
        root.display()
    );
    keel(root)
        .arg("eval")
        .arg(&suite)
        .args(["--agent-cmd", &agent, "--out"])
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !ready() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ctrl_c_kills_the_running_agent_keeps_finished_results_and_exits_130() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out/results.jsonl");
    let mut child = start_interruptible(root.path(), &out);
    let pid_file = root.path().join("agent.pid");
    wait_for("the first result", Duration::from_secs(30), || {
        std::fs::read_to_string(&out).is_ok_and(|text| text.lines().count() == 1)
    });
    wait_for("the hanging agent", Duration::from_secs(30), || {
        pid_file.exists()
    });
    let agent_pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();

    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let until = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < until, "keel eval did not end after SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");

    let results = lines(&out);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["task"], "a-quick");
    assert!(
        stdout.contains("| a-quick |") && !stdout.contains("b-hangs"),
        "{stdout}"
    );
    assert!(stdout.contains("**1/1**"), "{stdout}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    wait_for("the agent to be gone", Duration::from_secs(5), || {
        kill(Pid::from_raw(agent_pid), None).is_err()
    });
}

/// A results line with the figures the report shows.
fn result_line(
    agent: &str,
    task: &str,
    solved: bool,
    secs: f64,
    calls: u64,
    prompt: u64,
) -> String {
    json!({
        "task": task, "suite": "tasks", "agent": agent, "model": "qwen", "solved": solved,
        "outcome": if solved { "solved" } else { "unsolved" }, "wall_secs": secs,
        "model_calls": calls, "prompt_tokens": prompt, "log_dir": "runs/x"
    })
    .to_string()
}

#[tokio::test]
async fn report_puts_results_files_side_by_side() {
    let root = tempfile::tempdir().unwrap();
    let keel_file = root.path().join("keel.jsonl");
    let aider_file = root.path().join("aider.jsonl");
    std::fs::write(
        &keel_file,
        [
            result_line("keel", "py-median-even", true, 12.3, 4, 12_345),
            result_line("keel", "py-slugify", false, 95.0, 11, 80_000),
            result_line("keel", "rs-leap-year", true, 20.5, 5, 15_000),
        ]
        .join("\n"),
    )
    .unwrap();
    std::fs::write(
        &aider_file,
        [
            result_line("aider", "py-median-even", true, 30.0, 3, 20_000),
            result_line("aider", "py-slugify", true, 61.2, 6, 45_500),
            result_line("aider", "py-slugify", false, 70.0, 7, 50_000),
        ]
        .join("\n"),
    )
    .unwrap();
    let output = eval(
        root.path(),
        strings(&[
            "--report",
            keel_file.to_str().unwrap(),
            aider_file.to_str().unwrap(),
        ]),
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    insta::assert_snapshot!("eval_report", String::from_utf8_lossy(&output.stdout));

    std::fs::write(root.path().join("bad.jsonl"), "{\"task\": 3}\n").unwrap();
    let output = eval(
        root.path(),
        strings(&["--report", root.path().join("bad.jsonl").to_str().unwrap()]),
    )
    .await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.jsonl:1: "), "{stderr}");
}

#[tokio::test]
async fn verify_passes_a_sound_task_and_names_a_broken_one() {
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("suite");
    let good = task(&suite, "good", "Set value.txt to 2.", 2);
    std::fs::write(
        good.join("fix.patch"),
        "--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-1\n+2\n",
    )
    .unwrap();
    let output = eval(root.path(), strings(&["--verify", good.to_str().unwrap()])).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.starts_with("ok    suite/good"), "{stdout}");

    let bad = task(&suite, "bad", "Set value.txt to 2.", 1);
    std::fs::copy(good.join("fix.patch"), bad.join("fix.patch")).unwrap();
    let output = eval(root.path(), strings(&["--verify", suite.to_str().unwrap()])).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL  suite/bad")
            && stdout.contains("check passes on the untouched repo")
            && stdout.contains("ok    suite/good"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("2 task(s) verified, 1 unsound\n"),
        "{stdout}"
    );
}

#[tokio::test]
async fn folders_without_tasks_are_up_front_errors() {
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("missing");
    let output = eval(root.path(), strings(&[missing.to_str().unwrap()])).await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim(),
        format!("keel eval: {}: no such folder", missing.display())
    );

    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let output = eval(root.path(), strings(&[empty.to_str().unwrap()])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("empty: holds no task"));

    task(&empty, "one", "x", 2);
    let output = eval(
        root.path(),
        strings(&[empty.to_str().unwrap(), "--filter", "nothing-like-it"]),
    )
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no task matches --filter"));
}
