//! Ctrl-C with a real process: SIGINT cancels the running turn (the command it runs is
//! killed, `agent.end` says cancelled, exit 1); a second SIGINT while the turn is still
//! winding down exits 130 at once. In `keel chat`, a cancelled turn returns to the prompt and
//! Ctrl-C at the prompt exits 130.

use crate::common;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{events, keel, script};
use keel_events::{AgentStatus, EventKind};
use keel_test_support::sample_project;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Starts `keel run --json` on `script_name` and waits until its command has written its pid.
fn start(root: &Path, config_dir: &Path, script_name: &str) -> (Child, i32) {
    let mut child = keel(config_dir)
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script(script_name).display()))
        .arg("--root")
        .arg(root)
        .args(["--json", "--approval", "never", "wait for the slow command"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid_file = root.join("sleep.pid");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && let Ok(pid) = text.trim().parse::<i32>()
        {
            return (child, pid);
        }
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            panic!("keel ended before the command started: {status}\n{stderr}");
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn interrupt(child: &Child) {
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
}

/// Waits for `child` to exit, at most `limit`; returns its exit code, stdout and stderr.
fn wait(mut child: Child, limit: Duration) -> (Option<i32>, String, String) {
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("keel did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), out.join().unwrap(), err.join().unwrap())
}

/// True once `pid` is gone (or a zombie nobody has reaped yet).
fn is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

fn wait_gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if is_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn ctrl_c_cancels_the_turn_and_kills_its_command() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let (child, sleep_pid) = start(root, dir, "sleep.json");
    let signalled = Instant::now();
    interrupt(&child);
    let (code, stdout, stderr) = wait(child, Duration::from_secs(15));
    let took = signalled.elapsed();
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(stderr.contains("cancelling the turn"), "{stderr}");
    let events = events(&stdout);
    match &events.last().unwrap().kind {
        EventKind::AgentEnd(end) => assert_eq!(end.status, AgentStatus::Cancelled),
        other => panic!("last event is not agent.end: {other:?}"),
    }
    assert!(wait_gone(sleep_pid), "sleep {sleep_pid} still runs");

    // The store has the cancelled turn.
    let out = keel(dir)
        .args(["sessions", "list", "--json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let listed: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(listed["status"], "cancelled");
    assert_eq!(listed["turns"], 1);
}

#[test]
fn a_second_ctrl_c_while_the_turn_is_blocked_exits_130() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    // The command ignores SIGTERM, so the cancelled turn waits out the kill grace period.
    let (child, shell_pid) = start(root, dir, "stubborn-sleep.json");
    interrupt(&child);
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    interrupt(&child);
    let (code, _stdout, stderr) = wait(child, Duration::from_secs(15));
    assert_eq!(code, Some(130), "stderr: {stderr}");
    assert!(
        signalled.elapsed() < Duration::from_millis(1500),
        "took {:?}",
        signalled.elapsed()
    );
    assert!(wait_gone(shell_pid), "the command {shell_pid} still runs");

    let out = keel(dir)
        .args(["sessions", "list", "--json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let listed: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(listed["status"], "cancelled");
}

/// `keel chat --json` on `script_name` with piped input, its output lines sent to a channel.
fn start_chat(
    root: &Path,
    config_dir: &Path,
    script_name: &str,
) -> (Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    let mut child = keel(config_dir)
        .arg("chat")
        .arg("--provider")
        .arg(format!("scripted:{}", script(script_name).display()))
        .arg("--root")
        .arg(root)
        .args(["--json", "--approval", "never"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, stdin, rx)
}

/// Waits for the next `agent.end` on `lines` and returns its status.
fn next_end(lines: &mpsc::Receiver<String>) -> AgentStatus {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("no agent.end within 30 s");
        let event = keel_events::parse_line(1, &line).unwrap();
        if let EventKind::AgentEnd(end) = event.kind {
            return end.status;
        }
    }
}

fn exit_code(mut child: Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("keel chat did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn in_chat_ctrl_c_cancels_the_turn_and_returns_to_the_prompt() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let (child, mut stdin, lines) = start_chat(root, dir, "sleep.json");
    writeln!(stdin, "wait for the slow command").unwrap();
    let pid_file = root.join("sleep.pid");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !pid_file.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    interrupt(&child);
    assert_eq!(next_end(&lines), AgentStatus::Cancelled);
    // Still at the prompt: the next line is a turn of the same session.
    writeln!(stdin, "and now finish").unwrap();
    assert_eq!(next_end(&lines), AgentStatus::Completed);
    writeln!(stdin, "/exit").unwrap();
    assert_eq!(exit_code(child), Some(0));
}

#[test]
fn in_chat_ctrl_c_at_the_prompt_exits_130() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let (child, mut stdin, lines) = start_chat(root, dir, "two-turns.json");
    writeln!(stdin, "say hello").unwrap();
    assert_eq!(next_end(&lines), AgentStatus::Completed);
    // The turn is over and the chat waits for the next line.
    std::thread::sleep(Duration::from_millis(200));
    interrupt(&child);
    assert_eq!(exit_code(child), Some(130));
    drop(stdin);
}

#[test]
fn a_turn_left_by_a_killed_keel_is_failed_by_the_next_one() {
    let project = sample_project();
    let (dir, root) = (project.scratch(), project.path());
    let (mut child, sleep_pid) = {
        // A two-second lease, so the test need not wait the default 30 s.
        let mut child = keel(dir)
            .env("KEEL_TURN_LEASE_SECS", "2")
            .arg("run")
            .arg("--provider")
            .arg(format!("scripted:{}", script("sleep.json").display()))
            .arg("--root")
            .arg(root)
            .args(["--json", "--approval", "never", "wait for the slow command"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid_file = root.join("sleep.pid");
        let deadline = Instant::now() + Duration::from_secs(30);
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse::<i32>()
            {
                break pid;
            }
            assert!(child.try_wait().unwrap().is_none(), "keel ended early");
            assert!(Instant::now() < deadline, "the command never started");
            std::thread::sleep(Duration::from_millis(20));
        };
        (child, pid)
    };
    // kill -9: no chance to end the turn.
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = kill(Pid::from_raw(sleep_pid), Signal::SIGKILL);

    let list = || {
        let out = keel(dir)
            .args(["sessions", "list", "--json", "--root"])
            .arg(root)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        serde_json::from_str::<serde_json::Value>(text.trim()).unwrap()
    };
    // Within the lease (renewed every 2/3 s, so at least 1.3 s of it is left) the turn still
    // counts as running: for all the next `keel` knows, its process is alive.
    assert_eq!(list()["status"], "running");
    std::thread::sleep(Duration::from_millis(2_300));
    let listed = list();
    assert_eq!(listed["status"], "failed", "{listed}");
    let id = listed["id"].as_str().unwrap().to_owned();
    let out = keel(dir)
        .args(["sessions", "show", &id, "--json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let events = events(&String::from_utf8(out.stdout).unwrap());
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "gap in seq"
    );
    match &events.last().unwrap().kind {
        EventKind::SystemError(error) => assert_eq!(error.error_type, "interrupted"),
        other => panic!("last event is not system.error: {other:?}"),
    }
}
