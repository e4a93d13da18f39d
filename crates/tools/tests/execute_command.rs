//! `execute_command`: the approval policy, the approval events, modification, streaming,
//! time-out and results.

use std::sync::{Arc, Mutex};

use keel_events::{
    ApprovalDecision, ApprovalKind, Bus, Delivery, Emitter, EventKind, OutputStream, Sequencer,
};
use keel_protocol::{ApprovalPolicy, ApprovalReply, ApprovalRequest, Approver, CannotAsk};
use keel_sandbox::{SandboxMode, SandboxPolicy};
use keel_tools::builtin::ExecuteCommand;
use keel_tools::process::CommandSandbox;
use keel_tools::{Tool, ToolContext};
use serde_json::json;

/// Answers with scripted replies (approve once they run out) and records every request.
#[derive(Debug, Default)]
struct Scripted {
    replies: Mutex<Vec<ApprovalReply>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Scripted {
    fn new(replies: Vec<ApprovalReply>) -> Arc<Self> {
        Arc::new(Self {
            replies: Mutex::new(replies.into_iter().rev().collect()),
            asked: Mutex::default(),
        })
    }

    fn asked(&self) -> Vec<ApprovalRequest> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl Approver for Scripted {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply {
        self.asked.lock().unwrap().push(request.clone());
        self.replies
            .lock()
            .unwrap()
            .pop()
            .unwrap_or_else(ApprovalReply::approve)
    }
}

fn modify(to: serde_json::Value) -> ApprovalReply {
    ApprovalReply {
        decision: ApprovalDecision::Modify,
        reason: None,
        modified: Some(to),
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    ctx: ToolContext,
    sub: keel_events::Subscription,
}

fn fixture(policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let sub = emitter.bus().subscribe();
    let mut ctx = ToolContext::new(dir.path().canonicalize().unwrap(), emitter)
        .with_approval(policy, approver);
    ctx.call_id = "call_1".into();
    Fixture {
        _dir: dir,
        ctx,
        sub,
    }
}

fn events(sub: &mut keel_events::Subscription) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some(Delivery::Event(event)) = sub.try_recv() {
        out.push(event.kind.clone());
    }
    out
}

/// Classified dangerous (force push) but harmless here: the temp dir is no git repository.
const DANGEROUS_BUT_HARMLESS: &str = "git push --force 2>/dev/null; echo ran";

async fn call(f: &Fixture, args: serde_json::Value) -> keel_protocol::ToolResult {
    ExecuteCommand::default().call(&f.ctx, args).await
}

#[tokio::test]
async fn benign_command_runs_without_asking_and_streams_output() {
    let approver = Scripted::new(vec![]);
    let mut f = fixture(ApprovalPolicy::OnDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": "echo hello; echo warn >&2", "requires_approval": false}),
    )
    .await;
    assert!(result.success, "{result:?}");
    let content = result.content.unwrap();
    assert!(content.starts_with("Exit code: 0\nOutput:\n"), "{content}");
    assert!(content.contains("hello") && content.contains("warn"));
    assert!(approver.asked().is_empty());
    let outputs: Vec<_> = events(&mut f.sub)
        .into_iter()
        .filter_map(|e| match e {
            EventKind::RunToolOutput(o) => Some((o.call_id, o.stream, o.content)),
            _ => None,
        })
        .collect();
    assert!(
        outputs.contains(&("call_1".into(), OutputStream::Stdout, "hello\n".into())),
        "{outputs:?}"
    );
    assert!(
        outputs.contains(&("call_1".into(), OutputStream::Stderr, "warn\n".into())),
        "{outputs:?}"
    );
}

#[tokio::test]
async fn failing_command_reports_its_exit_code() {
    let f = fixture(ApprovalPolicy::Never, Arc::new(CannotAsk));
    let result = call(
        &f,
        json!({"command": "echo nope; exit 7", "requires_approval": false}),
    )
    .await;
    assert!(!result.success);
    assert!(result.message.contains("exit code 7"), "{}", result.message);
    assert!(result.content.unwrap().starts_with("Exit code: 7\n"));
}

#[tokio::test]
async fn dangerous_command_asks_and_rejection_is_reported() {
    let approver = Scripted::new(vec![ApprovalReply::reject("not on my machine")]);
    let mut f = fixture(ApprovalPolicy::OnDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": false}),
    )
    .await;
    assert!(!result.success);
    assert!(result.message.contains("denied"), "{}", result.message);
    assert!(
        result.message.contains("not on my machine"),
        "{}",
        result.message
    );
    assert!(result.content.is_none(), "it did not run");
    let asked = approver.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].kind, ApprovalKind::Command);
    assert_eq!(asked[0].subject, DANGEROUS_BUT_HARMLESS);
    assert!(
        asked[0].reason.contains("force_push"),
        "{}",
        asked[0].reason
    );

    let events = events(&mut f.sub);
    // The wait is a status between the request and its resolution.
    let (request, resolve) = match events.as_slice() {
        [
            EventKind::RunApprovalRequest(a),
            EventKind::SystemStatus(waiting),
            EventKind::RunApprovalResolve(b),
        ] if waiting.kind == Some(keel_events::StatusKind::WaitingForApproval) => (a, b),
        other => panic!("{other:?}"),
    };
    assert_eq!(request.approval_id, resolve.approval_id);
    assert_eq!(request.kind, ApprovalKind::Command);
    assert_eq!(resolve.kind, Some(ApprovalKind::Command));
    assert_eq!(resolve.decision, ApprovalDecision::Reject);
    assert_eq!(resolve.reason.as_deref(), Some("not on my machine"));
}

#[tokio::test]
async fn approved_dangerous_command_runs() {
    let approver = Scripted::new(vec![ApprovalReply::approve()]);
    let f = fixture(ApprovalPolicy::OnDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": true}),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(result.content.unwrap().contains("ran"));
    assert_eq!(approver.asked().len(), 1);
}

#[tokio::test]
async fn model_flag_asks_under_on_dangerous() {
    let approver = Scripted::new(vec![ApprovalReply::reject("no")]);
    let f = fixture(ApprovalPolicy::OnDangerous, approver.clone());
    let result = call(&f, json!({"command": "echo hi", "requires_approval": true})).await;
    assert!(!result.success);
    assert_eq!(approver.asked().len(), 1);
    assert!(approver.asked()[0].reason.contains("marked"));
}

#[tokio::test]
async fn always_asks_every_time() {
    let approver = Scripted::new(vec![]);
    let f = fixture(ApprovalPolicy::Always, approver.clone());
    for _ in 0..2 {
        let result = call(&f, json!({"command": "true", "requires_approval": false})).await;
        assert!(result.success);
    }
    assert_eq!(approver.asked().len(), 2);
}

#[tokio::test]
async fn never_runs_without_asking() {
    let approver = Scripted::new(vec![]);
    let f = fixture(ApprovalPolicy::Never, approver.clone());
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": true}),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(approver.asked().is_empty());
}

#[tokio::test]
async fn deny_dangerous_refuses_without_asking() {
    let approver = Scripted::new(vec![]);
    let mut f = fixture(ApprovalPolicy::DenyDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": false}),
    )
    .await;
    assert!(!result.success);
    assert!(
        result.message.contains("deny-dangerous"),
        "{}",
        result.message
    );
    assert!(result.message.contains("force_push"), "{}", result.message);
    assert!(approver.asked().is_empty());
    assert!(
        events(&mut f.sub).is_empty(),
        "nothing ran, nothing was asked"
    );
    // Benign commands still run, even when the model asks for approval.
    let result = call(
        &f,
        json!({"command": "echo fine", "requires_approval": true}),
    )
    .await;
    assert!(result.success);
    assert!(approver.asked().is_empty());
}

/// Inline code whose command is built at run time: the check cannot judge it (issue 28 §3).
const UNJUDGED: &str = "python3 -c 'import os, sys; os.system(sys.argv[1])' 'echo ran'";

#[tokio::test]
async fn inline_code_the_check_cannot_judge_is_asked_not_allowed() {
    for policy in [ApprovalPolicy::OnDangerous, ApprovalPolicy::DenyDangerous] {
        let approver = Scripted::new(vec![ApprovalReply::reject("show me first")]);
        let f = fixture(policy, approver.clone());
        let result = call(&f, json!({"command": UNJUDGED, "requires_approval": false})).await;
        assert!(!result.success, "{policy}: {result:?}");
        assert!(result.content.is_none(), "{policy}: it did not run");
        let asked = approver.asked();
        assert_eq!(asked.len(), 1, "{policy}");
        assert!(
            asked[0].reason.contains("cannot judge") && asked[0].reason.contains("python3"),
            "{policy}: {}",
            asked[0].reason
        );
    }
    // A front end that cannot ask refuses it.
    let f = fixture(ApprovalPolicy::OnDangerous, Arc::new(CannotAsk));
    let result = call(&f, json!({"command": UNJUDGED, "requires_approval": false})).await;
    assert!(!result.success, "{result:?}");
    // Inline code the check can judge and finds ordinary runs without asking.
    let approver = Scripted::new(vec![]);
    let f = fixture(ApprovalPolicy::DenyDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": "python3 -c 'print(1 + 1)' 2>/dev/null; echo ran", "requires_approval": false}),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(approver.asked().is_empty());
}

#[tokio::test]
async fn modify_runs_the_modified_command() {
    let approver = Scripted::new(vec![modify(json!("echo modified"))]);
    let mut f = fixture(ApprovalPolicy::OnDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": false}),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(
        result
            .message
            .contains("changed the command to `echo modified`"),
        "{}",
        result.message
    );
    let content = result.content.unwrap();
    assert!(
        content.contains("modified") && !content.contains("ran"),
        "{content}"
    );
    let resolve = events(&mut f.sub)
        .into_iter()
        .find_map(|e| match e {
            EventKind::RunApprovalResolve(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert_eq!(resolve.decision, ApprovalDecision::Modify);
    assert_eq!(resolve.modified, Some(json!("echo modified")));
}

#[tokio::test]
async fn modification_into_a_dangerous_command_is_asked_again() {
    let approver = Scripted::new(vec![
        modify(json!({"command": "git reset --hard; echo second"})),
        ApprovalReply::reject("still no"),
    ]);
    let f = fixture(ApprovalPolicy::OnDangerous, approver.clone());
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": false}),
    )
    .await;
    assert!(!result.success);
    let asked = approver.asked();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1].reason.contains("destructive_git"),
        "{}",
        asked[1].reason
    );
    assert!(
        result.message.contains("git reset --hard"),
        "{}",
        result.message
    );
}

#[tokio::test]
async fn front_end_that_cannot_ask_rejects() {
    let f = fixture(ApprovalPolicy::OnDangerous, Arc::new(CannotAsk));
    let result = call(
        &f,
        json!({"command": DANGEROUS_BUT_HARMLESS, "requires_approval": false}),
    )
    .await;
    assert!(!result.success);
    assert!(result.message.contains("cannot ask"), "{}", result.message);
}

#[tokio::test]
async fn time_out_is_reported() {
    let f = fixture(ApprovalPolicy::Never, Arc::new(CannotAsk));
    let started = std::time::Instant::now();
    let result = call(
        &f,
        json!({"command": "echo begun; sleep 30", "requires_approval": false, "timeout_secs": 1}),
    )
    .await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(!result.success);
    assert!(
        result.message.contains("timed out after 1 s"),
        "{}",
        result.message
    );
    let content = result.content.unwrap();
    assert!(
        content.starts_with("Exit code: none (timed out"),
        "{content}"
    );
    assert!(content.contains("begun"));
}

#[tokio::test]
async fn bad_arguments_are_explained() {
    let f = fixture(ApprovalPolicy::Never, Arc::new(CannotAsk));
    let result = call(&f, json!({"requires_approval": false})).await;
    assert!(!result.success);
    assert!(result.message.contains("command"), "{}", result.message);
    let result = call(&f, json!({"command": "  ", "requires_approval": false})).await;
    assert!(!result.success && result.message.contains("empty"));
    let result = call(
        &f,
        json!({"command": "ls", "requires_approval": false, "timeout_secs": 0}),
    )
    .await;
    assert!(!result.success && result.message.contains("timeout_secs"));
}

#[tokio::test]
async fn cancellation_while_waiting_for_approval_rejects() {
    #[derive(Debug)]
    struct Hangs;
    #[async_trait::async_trait]
    impl Approver for Hangs {
        async fn approve(&self, _request: &ApprovalRequest) -> ApprovalReply {
            std::future::pending().await
        }
    }
    let f = fixture(ApprovalPolicy::Always, Arc::new(Hangs));
    let cancel = f.ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        cancel.cancel();
    });
    let result = call(
        &f,
        json!({"command": "echo hi", "requires_approval": false}),
    )
    .await;
    assert!(!result.success);
    assert!(result.message.contains("cancelled"), "{}", result.message);
}

#[test]
fn schema_shows_the_arguments() {
    let schema = ExecuteCommand::default().parameters();
    let props = schema["properties"].as_object().unwrap();
    assert!(
        props.contains_key("command")
            && props.contains_key("requires_approval")
            && props.contains_key("timeout_secs")
    );
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    // Only the command is required: requires_approval defaults to false.
    assert_eq!(required, ["command"]);
}

/// A sandbox mode that cannot be enforced refuses every command with a `system.error`.
#[tokio::test]
async fn an_unenforceable_sandbox_refuses_with_a_system_error() {
    let mut f = fixture(ApprovalPolicy::Never, Arc::new(CannotAsk));
    let marker = f.ctx.root.join("ran.txt");
    f.ctx = f.ctx.clone().with_sandbox(CommandSandbox::Refused(
        "the sandbox mode `workspace-write` cannot be enforced here: the kernel has no Landlock"
            .into(),
    ));
    let result = ExecuteCommand::default()
        .call(
            &f.ctx,
            json!({"command": "touch ran.txt", "requires_approval": false}),
        )
        .await;
    assert!(!result.success);
    assert!(
        result.message.contains("cannot be enforced here"),
        "{}",
        result.message
    );
    assert!(!marker.exists());
    let errors: Vec<_> = events(&mut f.sub)
        .into_iter()
        .filter_map(|kind| match kind {
            EventKind::SystemError(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].error_type, "sandbox");
}

/// `requires_escalation` asks a person even under `--approval never`, and an approval runs the
/// command outside the sandbox.
#[tokio::test]
async fn escalation_asks_and_runs_outside_the_sandbox() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escalated.txt");
    let approver = Scripted::new(vec![ApprovalReply::approve()]);
    let mut f = fixture(ApprovalPolicy::Never, approver.clone());
    f.ctx = f.ctx.clone().with_sandbox(CommandSandbox::resolve(
        SandboxPolicy::new(SandboxMode::WorkspaceWrite),
        &f.ctx.root,
    ));
    let command = format!("echo x > {}", target.display());
    let result = ExecuteCommand::default()
        .call(
            &f.ctx,
            json!({"command": command, "requires_approval": false}),
        )
        .await;
    assert!(!result.success);
    assert!(
        result.message.contains("blocked by the sandbox"),
        "{}",
        result.message
    );
    assert!(approver.asked().is_empty());

    let result = ExecuteCommand::default()
        .call(
            &f.ctx,
            json!({"command": command, "requires_approval": false, "requires_escalation": true}),
        )
        .await;
    assert!(result.success, "{}", result.message);
    assert!(target.exists());
    let asked = approver.asked();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].reason.contains("outside the sandbox"),
        "{}",
        asked[0].reason
    );
}
