//! The model's questions and planning replies with a real `keel` process: a `run.plan.respond`
//! carries a `question_id` and is answered like a `run.question.ask` — at the terminal when
//! standard input is one (a pseudo-terminal here), at once with "cannot ask" when it is not,
//! which the model is told in words. `-v` and `include_system_prompt` put the system prompt
//! into `run.llm.start`.

use crate::common;

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{events, keel};
use keel_events::{AgentStatus, Event, EventKind, StatusKind};
use keel_protocol::CANNOT_ANSWER;
use keel_test_support::{ScriptBuilder, sample_project};
use serde_json::json;

/// A plan-mode script: a planning reply with two options, then an answer that depends on
/// what the tool result said (the user's choice, or that nobody can answer), then a closing
/// answer (plan mode reminds a model that answers without a plan once).
fn planning_script(dir: &Path) -> PathBuf {
    let path = dir.join("plan-respond.json");
    ScriptBuilder::new()
        .turns([
            json!({"tool_calls": [{"id": "call_respond", "name": "plan_mode_respond",
                "arguments": {"response": "Patch mean() or rewrite the module?",
                              "options": ["patch", "rewrite"]}}]}),
            json!({"when_tool_result_contains": "The user answered: patch",
                   "text": "Patching, as asked."}),
            json!({"when_tool_result_contains": "No one can answer",
                   "text": "Nobody to ask: patching."}),
            json!({"text": "Done."}),
        ])
        .write(&path)
        .unwrap();
    path
}

fn run_args(script: &Path, root: &Path) -> Vec<String> {
    vec![
        "run".into(),
        "--provider".into(),
        format!("scripted:{}", script.display()),
        "--root".into(),
        root.display().to_string(),
        "--mode".into(),
        "plan".into(),
        "--json".into(),
        "fix mean()".into(),
    ]
}

/// The planning reply, the answer that quotes it, and the agent's answer right after it.
fn reply_and_answer(events: &[Event]) -> (String, String, String) {
    let at = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::RunPlanRespond(_)))
        .expect("a run.plan.respond");
    let EventKind::RunPlanRespond(respond) = &events[at].kind else {
        unreachable!()
    };
    assert_eq!(respond.options, ["patch", "rewrite"]);
    match &events[at + 1].kind {
        EventKind::SystemStatus(s) => assert_eq!(s.kind, Some(StatusKind::WaitingForAnswer)),
        other => panic!("{other:?}"),
    }
    let EventKind::RunQuestionAnswer(answer) = &events[at + 2].kind else {
        panic!("{:?}", events[at + 2].kind)
    };
    let next_text = events[at..]
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::RunLlmEnd(end) if !end.llm_output.is_empty() => Some(end.llm_output.clone()),
            _ => None,
        })
        .expect("an answer after the reply");
    assert_eq!(answer.question_id, respond.question_id);
    (
        respond.question_id.clone(),
        answer.answer.clone(),
        next_text,
    )
}

fn last_status(events: &[Event]) -> AgentStatus {
    match &events.last().expect("events").kind {
        EventKind::AgentEnd(end) => end.status,
        other => panic!("last event is not agent.end: {other:?}"),
    }
}

#[test]
fn without_a_terminal_a_planning_reply_is_answered_for_the_model() {
    let project = sample_project();
    let script = planning_script(project.scratch());
    let out = keel(project.scratch())
        .args(run_args(&script, project.path()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let events = events(&String::from_utf8(out.stdout).unwrap());
    let (question_id, answer, next) = reply_and_answer(&events);
    assert_eq!(question_id, "call_respond");
    assert_eq!(answer, CANNOT_ANSWER);
    assert_eq!(next, "Nobody to ask: patching.");
    assert_eq!(last_status(&events), AgentStatus::Completed);
}

#[test]
fn a_planning_reply_is_answered_at_the_terminal() {
    let project = sample_project();
    let script = planning_script(project.scratch());
    let pty = nix::pty::openpty(None, None).unwrap();
    let mut child = keel(project.scratch())
        .args(run_args(&script, project.path()))
        .stdin(Stdio::from(std::fs::File::from(pty.slave)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Typed ahead: the terminal keeps the line until keel reads it for the question.
    let mut master = std::fs::File::from(pty.master);
    master.write_all(b"patch\n").unwrap();
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
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("keel did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(master);
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert!(status.success(), "{stderr}");
    // The prompt was shown on standard error, with the options.
    assert!(
        stderr.contains("? (planning) Patch mean() or rewrite the module?"),
        "{stderr}"
    );
    assert!(stderr.contains("options: 1. patch  2. rewrite"), "{stderr}");
    let events = events(&stdout);
    let (question_id, answer, next) = reply_and_answer(&events);
    assert_eq!(question_id, "call_respond");
    assert_eq!(answer, "patch");
    assert_eq!(next, "Patching, as asked.");
    assert_eq!(last_status(&events), AgentStatus::Completed);
}

/// The `system_prompt` of each `run.llm.start` of a `keel run --json` with `extra` flags.
fn system_prompts(root: &Path, config_dir: &Path, extra: &[&str]) -> Vec<Option<String>> {
    let script = config_dir.join("hello.json");
    ScriptBuilder::new().text("Hello.").write(&script).unwrap();
    let out = keel(config_dir)
        .arg("run")
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(root)
        .args(["--json", "--mode", "direct"])
        .args(extra)
        .arg("hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    events(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::RunLlmStart(start) => Some(start.system_prompt),
            _ => None,
        })
        .collect()
}

#[test]
fn the_system_prompt_is_in_the_events_with_verbose_or_when_configured() {
    let project = sample_project();
    let (root, dir) = (project.path(), project.scratch());
    assert_eq!(system_prompts(root, dir, &[]), [None]);
    let verbose = system_prompts(root, dir, &["-v"]);
    let prompt = verbose[0].as_deref().expect("a system prompt with -v");
    assert!(prompt.contains("attempt_completion"), "{prompt}");
    std::fs::write(root.join("keel.toml"), "include_system_prompt = true\n").unwrap();
    assert!(system_prompts(root, dir, &[])[0].is_some());
}
