//! `keel acp` driven by a scripted ACP client (the `agent-client-protocol` crate's client side)
//! over the real binary's standard input and output: a prompt that edits files and runs a
//! command after a permission request, streamed as message chunks, tool calls with their status
//! and diffs; the session loaded again with its turns replayed; a rejected permission; cancel;
//! bad input; and image blocks reaching a vision model (the mock OpenAI server records them) or
//! refused by a text-only model's name.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, InitializeRequest, LoadSessionRequest, NewSessionRequest,
    PermissionOptionKind, PlanEntryStatus, PromptRequest, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome, SessionId,
    SessionNotification, SessionUpdate, StopReason, TextContent, ToolCallContent, ToolCallStatus,
    ToolKind,
};
use agent_client_protocol::{Agent, ByteStreams, Client};
use keel_test_support::ScriptBuilder;
use serde_json::{Value, json};
use tokio_util::compat::{TokioAsyncReadCompatExt as _, TokioAsyncWriteCompatExt as _};

use crate::common::keel;

/// How the scripted client answers permission requests, in order (then: allow).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Allow,
    Reject,
}

/// What the client saw.
#[derive(Debug, Default)]
struct Seen {
    updates: Vec<SessionUpdate>,
    permissions: Vec<RequestPermissionRequest>,
}

impl Seen {
    fn agent_text(&self) -> String {
        self.updates
            .iter()
            .filter_map(|u| match u {
                SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
                    ContentBlock::Text(t) => Some(t.text.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    fn user_text(&self) -> String {
        self.updates
            .iter()
            .filter_map(|u| match u {
                SessionUpdate::UserMessageChunk(chunk) => match &chunk.content {
                    ContentBlock::Text(t) => Some(t.text.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }
}

/// A workspace with a README, a user config folder, and `script` for the scripted provider.
fn workspace(script: &ScriptBuilder) -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("README.md"), "hello\n").unwrap();
    let config = tempfile::tempdir().unwrap();
    let path = config.path().join("script.json");
    script.write(&path).unwrap();
    (root, config, path)
}

/// Spawns `keel acp ARGS…` and runs `body` as its client, answering permission requests with
/// `answers`; returns what `body` returned and what the client saw.
async fn with_agent<T: Send + 'static>(
    config: &Path,
    args: &[&str],
    answers: Vec<Answer>,
    body: impl AsyncFnOnce(ConnectionTo<Agent>, Arc<Mutex<Seen>>) -> T + Send + 'static,
) -> (T, Seen) {
    let mut command = tokio::process::Command::from(keel(config));
    command
        .arg("acp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let stdin = child.stdin.take().unwrap().compat_write();
    let stdout = child.stdout.take().unwrap().compat();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let answers = Arc::new(Mutex::new(answers));
    let (on_update, on_permission, in_body) = (seen.clone(), seen.clone(), seen.clone());
    let result = Arc::new(Mutex::new(None));
    let out = result.clone();
    Client
        .v1()
        .on_receive_notification(
            async move |notification: SessionNotification, _cx| {
                on_update.lock().unwrap().updates.push(notification.update);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                let answer = {
                    let mut answers = answers.lock().unwrap();
                    if answers.is_empty() {
                        Answer::Allow
                    } else {
                        answers.remove(0)
                    }
                };
                let kind = match answer {
                    Answer::Allow => PermissionOptionKind::AllowOnce,
                    Answer::Reject => PermissionOptionKind::RejectOnce,
                };
                let option = request
                    .options
                    .iter()
                    .find(|o| o.kind == kind)
                    .map(|o| o.option_id.clone())
                    .unwrap();
                on_permission.lock().unwrap().permissions.push(request);
                responder.respond(RequestPermissionResponse::new(
                    RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option)),
                ))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(ByteStreams::new(stdin, stdout), async move |cx| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let value = body(cx, in_body).await;
            *out.lock().unwrap() = Some(value);
            Ok(())
        })
        .await
        .unwrap();
    drop(child);
    let value = result.lock().unwrap().take().unwrap();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (value, seen)
}

fn text(prompt: &str) -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent::new(prompt))]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_edits_a_file_asks_permission_for_a_command_and_loads_again() {
    let script = ScriptBuilder::new()
        .turn(json!({
            "text": "Updating the README.",
            "tool_calls": [{"name": "write_file", "arguments": {"path": "README.md", "content": "hello\nworld\n"}}]
        }))
        .tool_call(
            "execute_command",
            json!({"command": "echo ran > ran.txt", "requires_approval": true}),
        )
        .tool_call("attempt_completion", json!({"result": "README updated."}))
        .chunk_chars(5);
    let (root, config, script) = workspace(&script);
    let provider = format!("--provider=scripted:{}", script.display());
    let cwd = root.path().to_path_buf();
    let ((session_id, stop), seen) = with_agent(
        config.path(),
        &[&provider, "--approval", "always"],
        vec![Answer::Allow],
        async move |cx, _seen| {
            let session = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await
                .unwrap();
            let response = cx
                .send_request(PromptRequest::new(
                    session.session_id.clone(),
                    text("say hello to the world"),
                ))
                .block_task()
                .await
                .unwrap();
            (session.session_id, response.stop_reason)
        },
    )
    .await;

    assert_eq!(stop, StopReason::EndTurn);
    assert!(seen.agent_text().contains("Updating the README."));
    // Streamed: the text came in more than one chunk.
    let chunks = seen
        .updates
        .iter()
        .filter(|u| matches!(u, SessionUpdate::AgentMessageChunk(_)))
        .count();
    assert!(chunks > 1, "{chunks} chunk(s)");

    // The edit: a tool call of kind edit, then its diff as old and new text, then completed.
    let edit = seen
        .updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCall(call) if call.kind == ToolKind::Edit => Some(call.clone()),
            _ => None,
        })
        .expect("an edit tool call");
    assert_eq!(edit.status, ToolCallStatus::InProgress);
    let readme = root.path().join("README.md");
    let diff = seen
        .updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCallUpdate(update) if update.tool_call_id == edit.tool_call_id => {
                update.fields.content.as_ref().and_then(|content| {
                    content.iter().find_map(|c| match c {
                        ToolCallContent::Diff(diff) => Some(diff.clone()),
                        _ => None,
                    })
                })
            }
            _ => None,
        })
        .expect("a diff on the edit");
    assert!(diff.path.ends_with("README.md"), "{}", diff.path.display());
    assert_eq!(diff.old_text.as_deref(), Some("hello\n"));
    assert_eq!(diff.new_text, "hello\nworld\n");
    assert!(seen.updates.iter().any(|u| matches!(u,
        SessionUpdate::ToolCallUpdate(update)
            if update.tool_call_id == edit.tool_call_id
                && update.fields.status == Some(ToolCallStatus::Completed))));
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), "hello\nworld\n");

    // The command: asked on its own tool call, allowed, run.
    assert_eq!(seen.permissions.len(), 1, "{:?}", seen.permissions);
    let asked = &seen.permissions[0];
    assert_eq!(asked.session_id, session_id);
    assert!(
        asked
            .tool_call
            .fields
            .title
            .as_deref()
            .unwrap_or_default()
            .contains("echo ran > ran.txt")
    );
    let command_call = seen
        .updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCall(call) if call.kind == ToolKind::Execute => Some(call.clone()),
            _ => None,
        })
        .expect("a command tool call");
    assert_eq!(asked.tool_call.tool_call_id, command_call.tool_call_id);
    assert!(root.path().join("ran.txt").exists());

    // A new connection loads the stored session: its turn is replayed before the answer.
    let cwd = root.path().to_path_buf();
    let loaded_id = session_id.clone();
    let ((), replayed) = with_agent(
        config.path(),
        &[&provider],
        Vec::new(),
        async move |cx, _seen| {
            cx.send_request(LoadSessionRequest::new(loaded_id, cwd))
                .block_task()
                .await
                .unwrap();
        },
    )
    .await;
    assert_eq!(replayed.user_text(), "say hello to the world");
    assert!(replayed.agent_text().contains("Updating the README."));
    assert!(
        replayed
            .updates
            .iter()
            .any(|u| matches!(u, SessionUpdate::ToolCall(call) if call.kind == ToolKind::Edit))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_permission_fails_the_call_and_cancel_stops_the_turn() {
    let script = ScriptBuilder::new()
        .tool_call(
            "execute_command",
            json!({"command": "echo no > no.txt", "requires_approval": true}),
        )
        .tool_call(
            "execute_command",
            json!({"command": "sleep 30", "requires_approval": true}),
        )
        .tool_call("attempt_completion", json!({"result": "never reached"}));
    let (root, config, script) = workspace(&script);
    let provider = format!("--provider=scripted:{}", script.display());
    let cwd = root.path().to_path_buf();
    let started = std::time::Instant::now();
    let (stop, seen) = with_agent(
        config.path(),
        &[&provider, "--approval", "always"],
        vec![Answer::Reject, Answer::Allow],
        async move |cx, seen| {
            let session = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await
                .unwrap();
            let id: SessionId = session.session_id.clone();
            let prompt = cx.send_request(PromptRequest::new(id.clone(), text("try things")));
            // Once the sleep is allowed and running, cancel.
            let canceller = cx.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    if seen.lock().unwrap().permissions.len() >= 2 {
                        break;
                    }
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
                canceller
                    .send_notification(CancelNotification::new(id))
                    .unwrap();
            });
            prompt.block_task().await.unwrap().stop_reason
        },
    )
    .await;

    assert_eq!(stop, StopReason::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "cancel took {:?}",
        started.elapsed()
    );
    assert_eq!(seen.permissions.len(), 2);
    assert!(!root.path().join("no.txt").exists());
    let failed: Vec<_> = seen
        .updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(update)
                if update.fields.status == Some(ToolCallStatus::Failed) =>
            {
                Some(update.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        failed.first().map(|u| &u.tool_call_id),
        Some(&seen.permissions[0].tool_call.tool_call_id),
        "the rejected command's call failed"
    );
}

#[test]
fn bad_input_gets_json_rpc_errors_and_the_agent_stays_up() {
    let (root, config, script) = workspace(&ScriptBuilder::new().text("Hello."));
    let mut child = keel(config.path())
        .arg("acp")
        .arg(format!("--provider=scripted:{}", script.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut exchange = |line: &str| -> Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        stdout.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply}"))
    };
    let init = exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#,
    );
    assert_eq!(init["result"]["agentInfo"]["name"], "keel");
    assert_eq!(init["result"]["agentCapabilities"]["loadSession"], true);

    let garbage = exchange("this is not json");
    assert_eq!(garbage["error"]["code"], -32700);

    let unknown = exchange(r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#);
    assert_eq!(unknown["error"]["code"], -32601);

    let relative = exchange(
        r#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}"#,
    );
    assert_eq!(relative["error"]["code"], -32602);
    assert!(
        relative["error"]["message"]
            .as_str()
            .unwrap()
            .contains("absolute")
    );

    let wrong_type = exchange(
        r#"{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":42,"mcpServers":[]}}"#,
    );
    assert_eq!(wrong_type["error"]["code"], -32602, "{wrong_type}");

    let unknown_session = exchange(
        r#"{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}"#,
    );
    assert_eq!(unknown_session["error"]["code"], -32602);
    assert!(
        unknown_session["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown session `nope`")
    );

    let missing = exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"session/load","params":{{"sessionId":"nope","cwd":{},"mcpServers":[]}}}}"#,
        json!(root.path())
    ));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");

    // Still serving.
    let session = exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"session/new","params":{{"cwd":{},"mcpServers":[]}}}}"#,
        json!(root.path())
    ));
    assert!(session["result"]["sessionId"].is_string(), "{session}");

    // An image block whose bytes are no image is refused by name, not dropped.
    let image = exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{{"sessionId":{},"prompt":[{{"type":"text","text":"what is this?"}},{{"type":"image","data":"aGVsbG8sIHdvcmxk","mimeType":"image/png"}}]}}}}"#,
        session["result"]["sessionId"]
    ));
    assert_eq!(image["error"]["code"], -32602, "{image}");
    assert_eq!(
        image["error"]["message"],
        "image 1 is not a PNG, JPEG, GIF or WebP image (it starts with `hello, w`)",
        "{image}"
    );
    // Audio is still refused by name.
    let audio = exchange(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{{"sessionId":{},"prompt":[{{"type":"audio","data":"AAAA","mimeType":"audio/wav"}}]}}}}"#,
        session["result"]["sessionId"]
    ));
    assert_eq!(audio["error"]["code"], -32602, "{audio}");
    assert!(
        audio["error"]["message"]
            .as_str()
            .unwrap()
            .contains("does not take audio in prompts"),
        "{audio}"
    );

    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// The final text of the tool calls the client saw, by title fragment.
fn tool_statuses(seen: &Seen, title: &str) -> Vec<ToolCallStatus> {
    let ids: Vec<_> = seen
        .updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCall(call) if call.title.contains(title) => {
                Some(call.tool_call_id.clone())
            }
            _ => None,
        })
        .collect();
    ids.iter()
        .filter_map(|id| {
            seen.updates.iter().rev().find_map(|u| match u {
                SessionUpdate::ToolCallUpdate(update) if &update.tool_call_id == id => {
                    update.fields.status
                }
                _ => None,
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_ask_by_their_approval_and_annotations_answered_yes_and_no() {
    let Some(everything) = crate::mcp_command::everything() else {
        return;
    };
    let script = ScriptBuilder::new()
        .tool_call("mcp__everything__echo", json!({"message": "not asked"}))
        .tool_call("mcp__everything__get-sum", json!({"a": 2, "b": 40}))
        .tool_call("mcp__everything__get-sum", json!({"a": 1, "b": 1}))
        .text("Done with the sums.");
    let (root, config, script) = workspace(&script);
    // echo is read-only by its annotations (on-dangerous: not asked); get-sum is `always`.
    std::fs::write(
        root.path().join("keel.toml"),
        format!(
            "[mcp_servers.everything]\ncommand = {}\nargs = [\"stdio\"]\napproval = \"on-dangerous\"\ntool_approval = {{ \"get-sum\" = \"always\" }}\n",
            crate::mcp_command::toml_string(&everything)
        ),
    )
    .unwrap();
    let provider = format!("--provider=scripted:{}", script.display());
    let cwd = root.path().to_path_buf();
    let (stop, seen) = with_agent(
        config.path(),
        &[&provider],
        vec![Answer::Allow, Answer::Reject],
        async move |cx, _seen| {
            let session = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await
                .unwrap();
            cx.send_request(PromptRequest::new(
                session.session_id.clone(),
                text("add things up"),
            ))
            .block_task()
            .await
            .unwrap()
            .stop_reason
        },
    )
    .await;
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(seen.permissions.len(), 2, "{:#?}", seen.permissions);
    for asked in &seen.permissions {
        let title = asked.tool_call.fields.title.clone().unwrap_or_default();
        assert!(title.contains("get-sum"), "{title}");
    }
    assert_eq!(
        tool_statuses(&seen, "echo"),
        vec![ToolCallStatus::Completed],
        "{:#?}",
        seen.updates
    );
    assert_eq!(
        tool_statuses(&seen, "get-sum"),
        vec![ToolCallStatus::Completed, ToolCallStatus::Failed],
        "{:#?}",
        seen.updates
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_shown_as_an_acp_plan_whose_steps_progress() {
    let script = ScriptBuilder::new()
        .tool_call(
            "create_plan",
            json!({"goal": "Tidy up", "steps": [
                {"index": 1, "title": "Look around", "description": "See what is there.", "expected_tools": []},
                {"index": 2, "title": "Report", "description": "Say what was found.", "expected_tools": []}
            ], "estimated_complexity": "low"}),
        )
        .text("Looked around: a README.")
        .text("Reported.")
        .text("All done.");
    let (root, config, script) = workspace(&script);
    let provider = format!("--provider=scripted:{}", script.display());
    let cwd = root.path().to_path_buf();
    let (_stop, seen) = with_agent(
        config.path(),
        &[&provider, "--mode", "plan", "--approve-plans"],
        Vec::new(),
        async move |cx, _seen| {
            let session = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await
                .unwrap();
            cx.send_request(PromptRequest::new(
                session.session_id.clone(),
                text("tidy up"),
            ))
            .block_task()
            .await
            .map(|r| r.stop_reason)
        },
    )
    .await;
    let plans: Vec<Vec<(String, PlanEntryStatus)>> = seen
        .updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::Plan(plan) => Some(
                plan.entries
                    .iter()
                    .map(|e| (e.content.clone(), e.status.clone()))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    assert!(!plans.is_empty(), "no plan update in {:#?}", seen.updates);
    assert_eq!(
        plans[0],
        vec![
            ("Look around".to_owned(), PlanEntryStatus::Pending),
            ("Report".to_owned(), PlanEntryStatus::Pending)
        ]
    );
    assert!(
        plans
            .iter()
            .any(|p| p[0].1 == PlanEntryStatus::InProgress && p[1].1 == PlanEntryStatus::Pending),
        "{plans:#?}"
    );
    let last = plans.last().unwrap();
    assert_eq!(last[0].1, PlanEntryStatus::Completed, "{plans:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_commands_are_available_commands_and_expand_in_prompts() {
    let script = ScriptBuilder::new().text("Hello, Ada.");
    let (root, config, script) = workspace(&script);
    let commands = root.path().join(".keel/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("hello.md"),
        "---\ndescription: Say hello\nargument-hint: [name]\n---\nSay hello to $1.\n",
    )
    .unwrap();
    std::fs::write(commands.join("bad.md"), "Use $FOO.\n").unwrap();
    let provider = format!("--provider=scripted:{}", script.display());
    let cwd = root.path().to_path_buf();
    let ((session_id, good, bad), seen) = with_agent(
        config.path(),
        &[&provider],
        Vec::new(),
        async move |cx, _seen| {
            let session = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await
                .unwrap();
            let bad = cx
                .send_request(PromptRequest::new(
                    session.session_id.clone(),
                    text("/bad now"),
                ))
                .block_task()
                .await
                .unwrap_err();
            let good = cx
                .send_request(PromptRequest::new(
                    session.session_id.clone(),
                    text("/hello Ada"),
                ))
                .block_task()
                .await
                .unwrap();
            (session.session_id, good.stop_reason, bad)
        },
    )
    .await;

    let available = seen
        .updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::AvailableCommandsUpdate(update) => Some(update.clone()),
            _ => None,
        })
        .expect("an available_commands_update");
    let listed = serde_json::to_value(&available.available_commands).unwrap();
    assert_eq!(
        listed,
        json!([
            {"name": "bad", "description": "Use $FOO.", "input": {"hint": "arguments"}},
            {"name": "hello", "description": "Say hello", "input": {"hint": "[name]"}}
        ])
    );
    assert!(
        bad.message.contains("/bad not run:") && bad.message.contains("unknown placeholder `$FOO`"),
        "{bad:?}"
    );
    assert_eq!(good, StopReason::EndTurn);
    assert!(seen.agent_text().contains("Hello, Ada."));

    // The stored turn is the expanded prompt.
    let cwd = root.path().to_path_buf();
    let ((), replayed) = with_agent(
        config.path(),
        &[&provider],
        Vec::new(),
        async move |cx, _seen| {
            cx.send_request(LoadSessionRequest::new(session_id, cwd))
                .block_task()
                .await
                .unwrap();
        },
    )
    .await;
    assert_eq!(replayed.user_text(), "Say hello to Ada.\n");
}

/// `keel acp` against the mock model `model_name` at `base_url`, driven line by line: the
/// initialize result, then each prompt's final reply (notifications before it skipped).
fn acp_prompts(
    config: &Path,
    root: &Path,
    base_url: &str,
    model_name: &str,
    prompts: &[Value],
) -> (Value, Vec<Value>) {
    let mut child = keel(config)
        .args(["acp", "--provider", "openai", "--base-url", base_url])
        .args(["--model", model_name])
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut request = |id: u64, method: &str, params: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        loop {
            let mut reply = String::new();
            stdout.read_line(&mut reply).unwrap();
            let reply: Value =
                serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply}"));
            if reply["id"] == id {
                return reply;
            }
        }
    };
    let init = request(
        1,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let session = request(2, "session/new", json!({"cwd": root, "mcpServers": []}));
    let id = session["result"]["sessionId"].clone();
    let replies = prompts
        .iter()
        .enumerate()
        .map(|(i, prompt)| {
            request(
                3 + i as u64,
                "session/prompt",
                json!({"sessionId": id, "prompt": prompt}),
            )
        })
        .collect();
    drop(stdin);
    child.wait().unwrap();
    (init, replies)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_blocks_reach_a_vision_model_and_a_text_only_one_refuses_them() {
    use base64::Engine as _;
    use keel_test_support::mock_openai::{MockServer, text_answer};
    let (root, config, _) = workspace(&ScriptBuilder::new());
    let png = keel_test_support::png::solid_png(2, 2, [0, 0, 255]);
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let prompt = json!([
        {"type": "text", "text": "What colour is this?"},
        {"type": "image", "data": data, "mimeType": "image/png", "uri": "file:///tmp/blue.png"},
    ]);

    let model = MockServer::sequence(vec![text_answer(&["Blue."])]).await;
    let (config_dir, root_dir, base_url) = (
        config.path().to_path_buf(),
        root.path().to_path_buf(),
        model.base_url.clone(),
    );
    let prompts = vec![prompt.clone()];
    let (init, replies) = tokio::task::spawn_blocking(move || {
        acp_prompts(&config_dir, &root_dir, &base_url, "gpt-4o", &prompts)
    })
    .await
    .unwrap();
    assert_eq!(
        init["result"]["agentCapabilities"]["promptCapabilities"]["image"], true,
        "{init}"
    );
    assert_eq!(
        replies[0]["result"]["stopReason"], "end_turn",
        "{}",
        replies[0]
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let user = requests[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()
        .clone();
    assert_eq!(
        user["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}}),
        "{user}"
    );

    // A text-only model: no image capability advertised, and a prompt with one is refused by
    // the model's name with nothing sent.
    let model = MockServer::sequence(vec![text_answer(&["never asked"])]).await;
    let (config_dir, root_dir, base_url) = (
        config.path().to_path_buf(),
        root.path().to_path_buf(),
        model.base_url.clone(),
    );
    let (init, replies) = tokio::task::spawn_blocking(move || {
        acp_prompts(
            &config_dir,
            &root_dir,
            &base_url,
            "qwen2.5-coder-1.5b-instruct",
            &[prompt],
        )
    })
    .await
    .unwrap();
    assert_eq!(
        init["result"]["agentCapabilities"]["promptCapabilities"]["image"], false,
        "{init}"
    );
    let message = replies[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(
            "qwen2.5-coder-1.5b-instruct does not accept images; set vision = true if it does"
        ),
        "{}",
        replies[0]
    );
    assert!(model.requests().is_empty());
}
