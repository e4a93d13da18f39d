//! Server approvals on a par with the terminal's, over real HTTP: `approval_edits = "ask"`
//! puts each file edit up for approval with its diff in `run.approval.request` before it
//! applies, and the decision `always` approves and writes allow rules into the project's
//! `.keel/rules.toml`, saying which and where in the response and the resolve event.

use crate::common;

use common::{ALL, Options, TestServer};
use keel_protocol::EditApproval;
use reqwest::StatusCode;
use serde_json::json;

async fn first_approval(s: &TestServer, id: &str) -> (String, serde_json::Value) {
    let request = s.wait_event(id, "run.approval.request").await;
    let approval_id = request["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_owned();
    (approval_id, request)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_waits_for_approval_with_its_diff() {
    let mut options = Options::new("edit.json");
    options.provider = |p| p.approval_edits = EditApproval::Ask;
    let s = TestServer::start(options).await;
    let notes = s.workspace.join("notes.txt");
    std::fs::write(&notes, "one\ntwo\nthree\n").unwrap();

    // Rejected: nothing changes.
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "number the lines").await;
    let (approval_id, request) = first_approval(&s, &id).await;
    let subject = request["payload"]["subject"].as_str().unwrap();
    assert_eq!(request["payload"]["kind"], "tool");
    assert!(subject.starts_with("write_file notes.txt\n"), "{subject}");
    assert!(
        subject.contains("\n-two\n") && subject.contains("\n+2\n"),
        "{subject}"
    );
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "one\ntwo\nthree\n"
    );
    let path = format!("/v1/sessions/{id}/approvals/{approval_id}");
    let (status, body) = s
        .post(
            &path,
            ALL,
            json!({"decision": "reject", "reason": "keep the word"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "one\ntwo\nthree\n"
    );

    // Approved: the edit applies.
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "number the lines").await;
    let (approval_id, _) = first_approval(&s, &id).await;
    let path = format!("/v1/sessions/{id}/approvals/{approval_id}");
    let (status, body) = s.post(&path, ALL, json!({"decision": "approve"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "one\n2\nthree\n");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_writes_a_rule_and_says_where() {
    let s = TestServer::start(Options::new("approval.json")).await;
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "make the marker").await;
    let (approval_id, _) = first_approval(&s, &id).await;

    // An unknown approval is 404 and writes nothing.
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/approvals/appr_missing"),
            ALL,
            json!({"decision": "always"}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let rules_file = s.workspace.join(".keel/rules.toml");
    assert!(!rules_file.exists());

    // A rules file that does not parse: 422 naming it, the file left as it was, and the
    // approval still waiting.
    std::fs::create_dir_all(rules_file.parent().unwrap()).unwrap();
    let broken = "[[rule]]\nmatch = 3\n";
    std::fs::write(&rules_file, broken).unwrap();
    let path = format!("/v1/sessions/{id}/approvals/{approval_id}");
    let (status, body) = s.post(&path, ALL, json!({"decision": "always"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body.to_string().contains("rules.toml"), "{body}");
    assert_eq!(std::fs::read_to_string(&rules_file).unwrap(), broken);
    std::fs::remove_file(&rules_file).unwrap();

    let (status, body) = s.post(&path, ALL, json!({"decision": "always"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["decision"], "always");
    assert_eq!(body["applied"], true);
    let written = body["rules_written"].as_array().unwrap();
    assert_eq!(written.len(), 1, "{body}");
    assert_eq!(written[0]["match"], json!(["touch", "approved.txt"]));
    assert_eq!(written[0]["decision"], "allow");
    assert_eq!(written[0]["index"], 1);
    let file = written[0]["file"].as_str().unwrap();
    assert!(file.ends_with(".keel/rules.toml"), "{file}");

    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed");
    assert!(s.workspace.join("approved.txt").exists());
    let resolve = s.wait_event(&id, "run.approval.resolve").await;
    assert_eq!(resolve["payload"]["decision"], "approve");
    let reason = resolve["payload"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("wrote rule 1 `allow touch approved.txt`") && reason.contains(file),
        "{reason}"
    );

    // Deciding again is idempotent and writes nothing more.
    let (status, body) = s.post(&path, ALL, json!({"decision": "always"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["applied"], false);
    assert!(body.get("rules_written").is_none(), "{body}");
    let (status, rules) = s.get(&format!("/v1/sessions/{id}/rules"), ALL).await;
    assert_eq!(status, StatusCode::OK, "{rules}");
    let text = std::fs::read_to_string(&rules_file).unwrap();
    assert_eq!(text.matches("[[rule]]").count(), 1, "{text}");
    s.stop().await;
}
