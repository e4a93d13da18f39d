//! Running hooks: the event on standard input, exit codes and JSON answers, parallel runs
//! merged, and the failures that must never stop a session (a missing command, a hang, invalid
//! JSON), each a `system.log` naming the hook.

use std::time::{Duration, Instant};

use keel_events::{Bus, Delivery, Emitter, EventKind, HookDecision, Sequencer};
use keel_extensions::{Decision, Hook, HookEvent, HookOrigin, Hooks, Scope};
use keel_tools::hooks::{HookCall, HookRunner};
use keel_tools::process::CommandSandbox;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn hook(event: HookEvent, matcher: &str, command: &str, timeout: Option<u64>) -> Hook {
    let origin = HookOrigin {
        path: "keel.toml".into(),
        line: 7,
        scope: Scope::Project,
    };
    Hook::new(
        event,
        Some(matcher.to_owned()),
        command,
        timeout.map(Duration::from_secs),
        origin,
    )
    .unwrap()
}

fn drain(sub: &mut keel_events::Subscription) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some(Delivery::Event(e)) = sub.try_recv() {
        out.push(e.kind.clone());
    }
    out
}

fn bash_call(command: &str) -> HookCall {
    let mut fields = serde_json::Map::new();
    fields.insert("tool_name".into(), "execute_command".into());
    fields.insert("tool_input".into(), json!({"command": command}));
    HookCall {
        subject: Some("execute_command".into()),
        call_id: Some("call_1".into()),
        fields,
    }
}

async fn run(
    hooks: Vec<Hook>,
    event: HookEvent,
    call: HookCall,
) -> (keel_extensions::HookOutcome, Vec<EventKind>) {
    let dir = tempfile::tempdir().unwrap();
    let emitter = Emitter::new(Sequencer::new("sess", "p"), Bus::default());
    let mut sub = emitter.bus().subscribe();
    let hooks = Hooks::new(hooks);
    let runner = HookRunner {
        hooks: &hooks,
        root: dir.path(),
        sandbox: &CommandSandbox::Off,
        emitter: &emitter,
        cancel: &CancellationToken::new(),
        permission_mode: "on-dangerous",
    };
    let outcome = runner.run(event, call).await;
    (outcome, drain(&mut sub))
}

#[tokio::test]
async fn a_hook_gets_the_event_and_blocks_with_exit_2() {
    let guard = r#"input=$(cat); case "$input" in *'"command":"rm '*) echo "rm is not allowed: $(echo "$input" | grep -o '"session_id":"[a-z]*"')" >&2; exit 2;; esac"#;
    let hooks = vec![hook(HookEvent::PreToolUse, "Bash", guard, None)];
    let (outcome, events) = run(hooks.clone(), HookEvent::PreToolUse, bash_call("rm -rf x")).await;
    assert_eq!(outcome.decision, Decision::Block);
    assert_eq!(
        outcome.reason.as_deref(),
        Some(r#"rm is not allowed: "session_id":"sess""#)
    );
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::RunHookEnd(end) => Some(end),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].decision, HookDecision::Block);
    assert_eq!(ends[0].call_id.as_deref(), Some("call_1"));
    assert_eq!(ends[0].exit_code, Some(2));
    assert!(matches!(events[0], EventKind::RunHookStart(_)));
    let (outcome, _) = run(hooks, HookEvent::PreToolUse, bash_call("ls")).await;
    assert_eq!(outcome.decision, Decision::Continue);
}

#[tokio::test]
async fn hooks_of_one_event_run_at_once_and_any_block_wins() {
    let allow = r#"sleep 1; echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls -a"}}}'"#;
    let deny = r#"sleep 1; echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}'"#;
    let hooks = vec![
        hook(HookEvent::PreToolUse, "execute_command", allow, None),
        hook(HookEvent::PreToolUse, "*", deny, None),
        hook(HookEvent::PreToolUse, "Read", "exit 2", None),
    ];
    let started = Instant::now();
    let (outcome, events) = run(hooks, HookEvent::PreToolUse, bash_call("ls")).await;
    let took = started.elapsed();
    assert!(took < Duration::from_millis(1900), "not parallel: {took:?}");
    assert_eq!(outcome.decision, Decision::Block);
    assert_eq!(outcome.reason.as_deref(), Some("no"));
    // The allowing hook's rewrite survives the merge; the engine drops it for a block.
    assert_eq!(outcome.updated_input.unwrap()["command"], "ls -a");
    let ends = events
        .iter()
        .filter(|e| matches!(e, EventKind::RunHookEnd(_)))
        .count();
    assert_eq!(ends, 2, "the Read hook does not match a command");
}

#[tokio::test]
async fn failures_are_logged_and_decide_nothing() {
    let hooks = vec![
        hook(HookEvent::Stop, "", "no-such-hook-command-anywhere", None),
        hook(HookEvent::Stop, "", "sleep 30", Some(1)),
        hook(HookEvent::Stop, "", "echo '{not json'", None),
    ];
    let started = Instant::now();
    let (outcome, events) = run(hooks, HookEvent::Stop, HookCall::default()).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(outcome.decision, Decision::Continue);
    let logs: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::SystemLog(log) => Some(log.message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(logs.len(), 3, "{logs:?}");
    let all = logs.join("\n");
    assert!(
        all.contains(
            "hook Stop (keel.toml:7) `no-such-hook-command-anywhere` failed: exit code 127"
        ),
        "{all}"
    );
    assert!(
        all.contains("`sleep 30` failed: timed out after 1 s"),
        "{all}"
    );
    assert!(
        all.contains("`echo '{not json'` failed: its output is not valid JSON"),
        "{all}"
    );
    assert!(all.contains("the session goes on"), "{all}");
}
