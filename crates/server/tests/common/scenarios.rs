//! Scenarios run against a [`TestServer`] on either backend.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{ALL, P1, P2, SseAuth, SseReader, TestServer, open_sse};

pub fn seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

/// Seqs are 1..=n, each once.
pub fn assert_gap_free(seqs: &[u64]) {
    let expected: Vec<u64> = (1..=seqs.len() as u64).collect();
    assert_eq!(seqs, expected.as_slice(), "seqs are not 1..=n without gaps");
}

pub async fn health_and_openapi(s: &TestServer, backend: &str) {
    let (status, body) = s.request(Method::GET, "/healthz", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["store"], backend);
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    let (status, body) = s.get("/openapi.json", ALL).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(body["paths"]["/v1/sessions/{id}/events"].is_object());
    let (status, _) = s.request(Method::GET, "/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// Every authenticated route refuses missing and wrong tokens, and another project's token
/// sees a session as missing.
pub async fn auth_everywhere(s: &TestServer) {
    let session = s.create_session("p1", ALL).await;
    let routes: Vec<(Method, String, Option<Value>)> = vec![
        (
            Method::POST,
            "/v1/sessions".into(),
            Some(json!({"project_id": "p1", "root": s.workspace})),
        ),
        (Method::GET, "/v1/sessions".into(), None),
        (Method::GET, format!("/v1/sessions/{session}"), None),
        (Method::GET, format!("/v1/sessions/{session}/files"), None),
        (
            Method::POST,
            format!("/v1/sessions/{session}/turns"),
            Some(json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "x"})),
        ),
        (Method::GET, format!("/v1/sessions/{session}/turns"), None),
        (Method::POST, format!("/v1/sessions/{session}/cancel"), None),
        (Method::GET, format!("/v1/sessions/{session}/events"), None),
        (Method::GET, format!("/v1/sessions/{session}/ws"), None),
        (
            Method::POST,
            format!("/v1/sessions/{session}/approvals/a1"),
            Some(json!({"decision": "approve"})),
        ),
        (
            Method::POST,
            format!("/v1/sessions/{session}/questions/q1"),
            Some(json!({"answer": "x"})),
        ),
        (
            Method::POST,
            format!("/v1/sessions/{session}/file-runs"),
            Some(json!({"path": "x.sh"})),
        ),
        (Method::GET, "/v1/projects/p1/timeline".into(), None),
        (Method::GET, format!("/v1/sessions/{session}/mcp"), None),
        (Method::GET, format!("/v1/sessions/{session}/memory"), None),
        (
            Method::DELETE,
            format!("/v1/sessions/{session}/memory/mem_00000000"),
            None,
        ),
        (
            Method::POST,
            "/v1/projects/p1/timeline/import".into(),
            Some(json!("line")),
        ),
        (
            Method::POST,
            "/v1/stream-tokens".into(),
            Some(json!({"session_id": session})),
        ),
        (Method::GET, "/openapi.json".into(), None),
    ];
    for (method, path, body) in &routes {
        let (status, reply) = s.request(method.clone(), path, None, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "{method} {path} without a token: {reply}"
        );
        assert_eq!(reply["error"]["code"], "unauthorized", "{method} {path}");
        let (status, reply) = s
            .request(method.clone(), path, Some("wrong-token"), body.clone())
            .await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "{method} {path} with a wrong token: {reply}"
        );
    }
    // Another project's token: the session does not exist for it.
    for (method, path, body) in &routes {
        if !path.contains(&session) && !path.contains("/projects/") {
            continue;
        }
        let (status, reply) = s
            .request(method.clone(), path, Some(P2), body.clone())
            .await;
        if path == "/v1/stream-tokens" || path.contains(&session) || path.contains("/projects/") {
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{method} {path} with p2's token: {reply}"
            );
            assert_eq!(reply["error"]["code"], "not_found");
        }
    }
    // The project-limited token of the right project works.
    let (status, _) = s.get(&format!("/v1/sessions/{session}"), P1).await;
    assert_eq!(status, StatusCode::OK);
    // Creating a session in a project the token cannot see is forbidden.
    let (status, reply) = s
        .post(
            "/v1/sessions",
            P2,
            json!({"project_id": "p1", "root": s.workspace}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{reply}");
    // Lists show only the token's projects.
    let (_, list) = s.get("/v1/sessions", P2).await;
    assert!(list["sessions"].as_array().unwrap().is_empty());
    let (_, list) = s.get("/v1/sessions?project_id=p1", P2).await;
    assert!(list["sessions"].as_array().unwrap().is_empty());
    let (_, list) = s.get("/v1/sessions", P1).await;
    assert!(!list["sessions"].as_array().unwrap().is_empty());

    // Stream tokens: only on the stream routes, only for their session, not forged or expired.
    let token = s.stream_token(&session, P1).await;
    let (status, _) = s
        .request(
            Method::GET,
            &format!("/v1/sessions/{session}?token={token}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = s
        .request(
            Method::GET,
            &format!("/v1/sessions/{session}/events?token={token}"),
            None,
            None,
        )
        .await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "JSON pages need a bearer token"
    );
    let response = open_sse(s, &session, SseAuth::StreamToken(&token), None).await;
    assert_eq!(response.status(), StatusCode::OK);
    drop(response);
    let other = s.create_session("p1", ALL).await;
    let response = open_sse(s, &other, SseAuth::StreamToken(&token), None).await;
    assert_eq!(
        response.status(),
        StatusCode::UNAUTHORIZED,
        "token of another session"
    );
    let signer = keel_server::auth::StreamTokens::new(super::STREAM_KEY.as_bytes().to_vec(), 60);
    let expired = signer.sign(&session, chrono::Utc::now().timestamp() - 5);
    let response = open_sse(s, &session, SseAuth::StreamToken(&expired), None).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "expired token");
    let forged = keel_server::auth::StreamTokens::new(b"not-the-key".to_vec(), 60)
        .issue(&session)
        .token;
    let response = open_sse(s, &session, SseAuth::StreamToken(&forged), None).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "forged token");
    let response = open_sse(s, &session, SseAuth::StreamToken("garbage"), None).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    // The public routes need no token.
    let (status, _) = s.request(Method::GET, "/healthz", None, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// Create, show, list, run a turn idempotently, read its events.
pub async fn session_and_turn(s: &TestServer) {
    std::fs::write(s.workspace.join("a.txt"), "a").unwrap();
    let (status, created) = s
        .post(
            "/v1/sessions",
            P1,
            json!({"project_id": "p1", "root": s.workspace, "mode": "direct", "title": "First", "model": "scripted"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["status"], "idle");
    assert_eq!(created["mode"], "direct");
    assert_eq!(created["title"], "First");
    assert_eq!(created["last_seq"], 0);
    let (status, shown) = s.get(&format!("/v1/sessions/{id}"), P1).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["id"], created["id"]);

    let (status, files) = s.get(&format!("/v1/sessions/{id}/files"), P1).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        files["files"].as_array().unwrap().contains(&json!("a.txt")),
        "{files}"
    );
    assert_eq!(files["truncated"], false);

    let request_id = uuid::Uuid::now_v7().to_string();
    let body = json!({"request_id": request_id, "input": "say hello"});
    let (status, first) = s
        .post(&format!("/v1/sessions/{id}/turns"), P1, body.clone())
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    assert_eq!(first["created"], true);
    assert_eq!(first["turn"]["request_id"], request_id.as_str());
    let (status, again) = s.post(&format!("/v1/sessions/{id}/turns"), P1, body).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["created"], false);
    assert_eq!(again["turn"]["id"], first["turn"]["id"]);
    let (status, conflict) = s
        .post(
            &format!("/v1/sessions/{id}/turns"),
            P1,
            json!({"request_id": request_id, "input": "something else"}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{conflict}");
    assert_eq!(conflict["error"]["code"], "conflict");

    let turn = s
        .wait_turn(&id, first["turn"]["id"].as_str().unwrap())
        .await;
    assert_eq!(turn["status"], "completed", "{turn}");
    assert!(turn["ended_at"].is_string());
    let events = s.events(&id).await;
    assert_gap_free(&seqs(&events));
    assert_eq!(events.first().unwrap()["type"], "agent.start");
    let end = events.iter().find(|e| e["type"] == "agent.end").unwrap();
    assert_eq!(end["payload"]["status"], "completed");
    assert!(
        events
            .iter()
            .all(|e| e["session_id"] == id.as_str() && e["project_id"] == "p1")
    );
    // The turn's events carry the turn id the API returned.
    assert!(
        events.iter().all(|e| e["turn_id"] == first["turn"]["id"]),
        "{events:?}"
    );

    let (_, shown) = s.get(&format!("/v1/sessions/{id}"), P1).await;
    assert_eq!(shown["status"], "completed");
    assert_eq!(shown["last_seq"], events.len() as u64);
    let (_, turns) = s.get(&format!("/v1/sessions/{id}/turns"), P1).await;
    assert_eq!(turns["turns"].as_array().unwrap().len(), 1);

    // Paging.
    let (_, page) = s
        .get(&format!("/v1/sessions/{id}/events?after=1&limit=2"), P1)
        .await;
    assert_eq!(seqs(page["events"].as_array().unwrap()), vec![2, 3]);
    assert_eq!(page["next_after"], 3);
    assert_eq!(page["has_more"], true);

    // A second turn continues the conversation and the seq.
    let turn2 = s.start_turn(&id, "again").await;
    let turn2 = s.wait_turn(&id, turn2["id"].as_str().unwrap()).await;
    assert!(turn2["status"].is_string());
    let after = s.events(&id).await;
    assert_gap_free(&seqs(&after));
    assert!(after.len() > events.len());
    assert!(
        after[events.len()..]
            .iter()
            .all(|e| e["turn_id"] == turn2["id"])
    );

    // Newest first.
    let second = s.create_session("p1", P1).await;
    let (_, list) = s.get("/v1/sessions?project_id=p1&limit=2", P1).await;
    let list = list["sessions"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], second.as_str());
}

/// The status a bad request must get, and the error code where one is pinned.
type Refusal = (StatusCode, Option<&'static str>);

/// Malformed and invalid requests are 4xx in the error shape.
pub async fn bad_input(s: &TestServer) {
    let session = s.create_session("p1", ALL).await;
    let turns = format!("/v1/sessions/{session}/turns");
    let (status, body) = s.post_raw(&turns, ALL, b"{not json".to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], "invalid_json");
    let response = s
        .client
        .post(s.url(&turns))
        .bearer_auth(ALL)
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);

    let approval = format!("/v1/sessions/{session}/approvals/nope");
    let question = format!("/v1/sessions/{session}/questions/nope");
    let create = |root: Value| json!({"project_id": "p1", "root": root});
    let outside = format!("{}/../..", s.workspace.display());
    let missing = s.workspace.join("missing");
    let unprocessable = (StatusCode::UNPROCESSABLE_ENTITY, Some("unprocessable"));
    let invalid = (StatusCode::UNPROCESSABLE_ENTITY, None);
    let not_found = (StatusCode::NOT_FOUND, None);
    // JSON bodies refused: where, what, the status and (where pinned) the error code.
    let refused: Vec<(&str, Value, Refusal)> = vec![
        // Turns: wrong types, a missing or malformed request id, not an object, too big.
        (
            &turns,
            json!({"request_id": 5, "input": "x"}),
            unprocessable,
        ),
        (&turns, json!({"input": "x"}), invalid),
        (
            &turns,
            json!({"request_id": "not-a-uuid", "input": "x"}),
            invalid,
        ),
        (&turns, json!([1, 2]), invalid),
        (
            &turns,
            json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "x".repeat(200_000)}),
            (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large")),
        ),
        // Unknown ids.
        (
            "/v1/sessions/nope/turns",
            json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "x"}),
            not_found,
        ),
        (
            "/v1/stream-tokens",
            json!({"session_id": "nope"}),
            not_found,
        ),
        (&approval, json!({"decision": "approve"}), not_found),
        (&approval, json!({"decision": "perhaps"}), invalid),
        (&question, json!({"answer": "x"}), not_found),
        // Roots: outside the allowed roots, relative, missing; bad and unknown fields.
        (
            "/v1/sessions",
            create(json!("/")),
            (StatusCode::FORBIDDEN, Some("forbidden")),
        ),
        (
            "/v1/sessions",
            create(json!(outside)),
            (StatusCode::FORBIDDEN, None),
        ),
        ("/v1/sessions", create(json!("relative/dir")), invalid),
        ("/v1/sessions", create(json!(missing)), invalid),
        (
            "/v1/sessions",
            json!({"project_id": "p1", "root": s.workspace, "mode": "sideways"}),
            invalid,
        ),
        (
            "/v1/sessions",
            json!({"project_id": "p1", "root": s.workspace, "extra": 1}),
            invalid,
        ),
    ];
    for (path, request, (expected, code)) in refused {
        let (status, body) = s.post(path, ALL, request.clone()).await;
        assert_eq!(status, expected, "POST {path} {request}: {body}");
        if let Some(code) = code {
            assert_eq!(body["error"]["code"], code, "POST {path} {request}");
        }
    }

    for path in [
        "/v1/sessions/nope".to_owned(),
        "/v1/sessions/nope/turns".to_owned(),
        "/v1/sessions/nope/files".to_owned(),
        "/v1/sessions/nope/events".to_owned(),
        "/v1/nothing-here".to_owned(),
    ] {
        let (status, body) = s.get(&path, ALL).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
        assert_eq!(body["error"]["code"], "not_found");
    }
    for path in [
        format!("/v1/sessions/{session}/events?after=abc"),
        "/v1/sessions?limit=-3".to_owned(),
    ] {
        let (status, body) = s.get(&path, ALL).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {body}");
    }
    let response = s
        .client
        .get(s.url(&format!("/v1/sessions/{session}/events")))
        .bearer_auth(ALL)
        .header("accept", "text/event-stream")
        .header("last-event-id", "xyz")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (status, _) = s
        .request(Method::DELETE, "/v1/sessions", Some(ALL), None)
        .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);

    // File runs: outside the root, a folder, blank; a file that is not there is not found.
    let runs = format!("/v1/sessions/{session}/file-runs");
    for path in ["../etc/passwd", ".", ""] {
        let (status, body) = s.post(&runs, ALL, json!({"path": path})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {body}");
    }
    let (status, body) = s.post(&runs, ALL, json!({"path": "missing.sh"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "missing.sh: {body}");
    assert_eq!(body["error"]["code"], "not_found");
}

/// A turn waiting on a question: 409 for another turn, then answered idempotently.
pub async fn question_and_turn_running(s: &TestServer) {
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "ask me").await;
    let ask = s.wait_event(&id, "run.question.ask").await;
    let question_id = ask["payload"]["question_id"].as_str().unwrap().to_owned();
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/turns"),
            ALL,
            json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "second"}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "turn_running");
    let (_, shown) = s.get(&format!("/v1/sessions/{id}"), ALL).await;
    assert_eq!(shown["status"], "running");

    let path = format!("/v1/sessions/{id}/questions/{question_id}");
    let (status, body) = s.post(&path, ALL, json!({"answer": "blue"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"question_id": question_id, "answer": "blue", "applied": true})
    );
    let (status, body) = s.post(&path, ALL, json!({"answer": "blue"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["applied"], false);
    let (status, body) = s.post(&path, ALL, json!({"answer": "red"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let answer = s.wait_event(&id, "run.question.answer").await;
    assert_eq!(answer["payload"]["answer"], "blue");
    // After the turn the answer is still known (from memory or the store).
    let (status, body) = s.post(&path, ALL, json!({"answer": "blue"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["applied"], false);
}

/// A planning reply waits for the user like a question: answered on the questions route by
/// the `question_id` of its `run.plan.respond`, idempotently.
pub async fn planning_reply_answered(s: &TestServer) {
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "fix mean()").await;
    let respond = s.wait_event(&id, "run.plan.respond").await;
    assert_eq!(respond["payload"]["options"], json!(["patch", "rewrite"]));
    let question_id = respond["payload"]["question_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(question_id, "call_respond");
    let path = format!("/v1/sessions/{id}/questions/{question_id}");
    let (status, body) = s.post(&path, ALL, json!({"answer": "patch"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"question_id": question_id, "answer": "patch", "applied": true})
    );
    let (status, body) = s.post(&path, ALL, json!({"answer": "patch"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["applied"], false);
    let (status, body) = s.post(&path, ALL, json!({"answer": "rewrite"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let answer = s.wait_event(&id, "run.question.answer").await;
    assert_eq!(answer["payload"]["question_id"], question_id.as_str());
    assert_eq!(answer["payload"]["answer"], "patch");
    // The model saw the answer (its conditional reply ran) and the wait was reported.
    let events = s.events(&id).await;
    let ended = events
        .iter()
        .find(|e| e["type"] == "agent.end")
        .expect("agent.end");
    assert_eq!(ended["payload"]["result"], "Patching mean(), then.");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "system.status" && e["payload"]["kind"] == "waiting_for_answer")
    );
}

/// Approve and reject over HTTP; the engine records each decision.
pub async fn approvals(s: &TestServer) {
    // Approve.
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "make the marker").await;
    let request = s.wait_event(&id, "run.approval.request").await;
    let approval_id = request["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/v1/sessions/{id}/approvals/{approval_id}");
    let (status, body) = s.post(&path, ALL, json!({"decision": "approve"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"approval_id": approval_id, "decision": "approve", "applied": true})
    );
    let (status, body) = s.post(&path, ALL, json!({"decision": "approve"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["applied"], false);
    let (status, body) = s
        .post(&path, ALL, json!({"decision": "reject", "reason": "no"}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed");
    let resolve = s.wait_event(&id, "run.approval.resolve").await;
    assert_eq!(resolve["payload"]["decision"], "approve");
    assert_eq!(resolve["payload"]["approval_id"], approval_id.as_str());
    assert!(s.workspace.join("approved.txt").exists());
    std::fs::remove_file(s.workspace.join("approved.txt")).unwrap();

    // Reject.
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "make the marker").await;
    let request = s.wait_event(&id, "run.approval.request").await;
    let approval_id = request["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/v1/sessions/{id}/approvals/{approval_id}");
    let (status, body) = s.post(&path, ALL, json!({"decision": "modify"})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "modify needs `modified`: {body}"
    );
    let (status, body) = s
        .post(
            &path,
            ALL,
            json!({"decision": "reject", "reason": "not today"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["applied"], true);
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    let resolve = s.wait_event(&id, "run.approval.resolve").await;
    assert_eq!(resolve["payload"]["decision"], "reject");
    assert!(!s.workspace.join("approved.txt").exists());
    let tool_end = s
        .events(&id)
        .await
        .into_iter()
        .find(|e| e["type"] == "run.tool.end")
        .unwrap();
    assert_eq!(tool_end["payload"]["status"], "denied", "{tool_end}");
}

/// Cancelling a running turn.
pub async fn cancel(s: &TestServer) {
    let id = s.create_session("p1", ALL).await;
    let (status, body) = s
        .post(&format!("/v1/sessions/{id}/cancel"), ALL, json!({}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["cancelled"], false);
    let turn = s.start_turn(&id, "wait").await;
    s.wait_event(&id, "run.tool.start").await;
    let (status, body) = s
        .post(&format!("/v1/sessions/{id}/cancel"), ALL, json!({}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["cancelled"], true);
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "cancelled", "{turn}");
    let events = s.events(&id).await;
    assert_gap_free(&seqs(&events));
    let end = events.iter().find(|e| e["type"] == "agent.end").unwrap();
    assert_eq!(end["payload"]["status"], "cancelled");
    let (_, shown) = s.get(&format!("/v1/sessions/{id}"), ALL).await;
    assert_eq!(shown["status"], "cancelled");
}

/// A file run's events arrive on the session's stream.
pub async fn file_run(s: &TestServer) {
    std::fs::write(
        s.workspace.join("hello.sh"),
        "echo hello from the script\necho oops >&2\nexit 3\n",
    )
    .unwrap();
    let id = s.create_session("p1", ALL).await;
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/file-runs"),
            ALL,
            json!({"path": "hello.sh"}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let run_id = body["run_id"].as_str().unwrap().to_owned();
    let exit = s.wait_event(&id, "exec.file.exit").await;
    assert_eq!(exit["payload"]["run_id"], run_id.as_str());
    assert_eq!(exit["payload"]["exit_code"], 3);
    let events = s.events(&id).await;
    assert_gap_free(&seqs(&events));
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"exec.file.start"));
    let stdout: String = events
        .iter()
        .filter(|e| e["type"] == "exec.file.stdout")
        .map(|e| e["payload"]["content"].as_str().unwrap())
        .collect();
    assert!(stdout.contains("hello from the script"), "{stdout}");
    assert!(events.iter().any(|e| e["type"] == "exec.file.stderr"));
    // Arguments reach the script as argv, never through a shell.
    std::fs::write(
        s.workspace.join("args.sh"),
        "for a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\n",
    )
    .unwrap();
    let id = s.create_session("p1", ALL).await;
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/file-runs"),
            ALL,
            json!({"path": "args.sh", "args": ["a b", "$HOME", "; touch pwned"]}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let exit = s.wait_event(&id, "exec.file.exit").await;
    assert_eq!(exit["payload"]["exit_code"], 0);
    let events = s.events(&id).await;
    let start = events
        .iter()
        .find(|e| e["type"] == "exec.file.start")
        .unwrap();
    assert_eq!(
        start["payload"]["command"].as_array().unwrap()[1..],
        [
            json!("args.sh"),
            json!("a b"),
            json!("$HOME"),
            json!("; touch pwned")
        ]
    );
    let stdout: String = events
        .iter()
        .filter(|e| e["type"] == "exec.file.stdout")
        .map(|e| e["payload"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(stdout, "<a b>\n<$HOME>\n<; touch pwned>\n");
    assert!(!s.workspace.join("pwned").exists());
    // An argument no process can take is refused up front.
    let (status, body) = s
        .post(
            &format!("/v1/sessions/{id}/file-runs"),
            ALL,
            json!({"path": "args.sh", "args": ["a\0b"]}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
}

/// The project timeline shows a move as both halves.
pub async fn timeline(s: &TestServer) {
    std::fs::write(s.workspace.join("old.txt"), "moving").unwrap();
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "move it").await;
    let turn = s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let (status, body) = s.get("/v1/projects/p1/timeline?limit=100", P1).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let events = body["events"].as_array().unwrap();
    let call = events
        .iter()
        .find(|e| e["type"] == "tool_call" && e["payload"]["toolName"] == "move_file")
        .unwrap_or_else(|| panic!("no move_file tool_call in {body}"));
    assert_eq!(call["payload"]["fromPath"], "old.txt");
    assert_eq!(call["payload"]["toPath"], "new.txt");
    assert_eq!(call["projectId"], "p1");
    let update = events
        .iter()
        .find(|e| e["type"] == "file_update" && e["payload"]["op"] == "move")
        .unwrap();
    assert_eq!(update["payload"]["path"], "new.txt");
    let timestamps: Vec<&str> = events
        .iter()
        .map(|e| e["timestamp"].as_str().unwrap())
        .collect();
    let mut sorted = timestamps.clone();
    sorted.sort();
    assert_eq!(timestamps, sorted, "oldest first");
    let (status, body) = s.get("/v1/projects/p1/timeline?limit=2", ALL).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["events"].as_array().unwrap().len() <= 3);
    let (status, _) = s.get("/v1/projects/p1/timeline", P2).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s.get("/v1/projects/p1/timeline?limit=x", ALL).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// Reads an SSE stream (reconnecting with Last-Event-ID after `drop_after` messages, and
/// after every `lagged`) until `agent.end`; returns the seqs received and how many
/// `lagged` messages came.
pub async fn follow_sse(
    s: &TestServer,
    session: &str,
    drop_after: Option<usize>,
) -> (Vec<u64>, usize) {
    let mut received = Vec::new();
    let mut lagged = 0;
    let mut cursor: Option<u64> = None;
    let mut dropped = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    'connect: loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "SSE follow timed out"
        );
        let response = open_sse(s, session, SseAuth::Bearer(ALL), cursor).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(
            response
                .headers()
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        let mut reader = SseReader::new(response);
        let mut on_this = 0;
        while let Some(message) = reader.next_within(Duration::from_secs(30)).await {
            match message.event.as_deref() {
                Some("lagged") => {
                    lagged += 1;
                    let data: Value = serde_json::from_str(&message.data).unwrap();
                    assert_eq!(data["after_seq"].as_u64(), Some(cursor.unwrap_or(0)));
                    // The server closes the stream after `lagged`.
                    assert!(reader.next_within(Duration::from_secs(5)).await.is_none());
                    continue 'connect;
                }
                Some("reload") => panic!("unexpected reload"),
                _ => {}
            }
            let seq: u64 = message.id.as_deref().unwrap().parse().unwrap();
            let event: Value = serde_json::from_str(&message.data).unwrap();
            assert_eq!(event["seq"], seq);
            assert_eq!(message.event.as_deref(), event["type"].as_str());
            received.push(seq);
            cursor = Some(seq);
            on_this += 1;
            if event["type"] == "agent.end" {
                return (received, lagged);
            }
            if let Some(n) = drop_after
                && !dropped
                && on_this == n
            {
                dropped = true;
                continue 'connect;
            }
        }
        // Ended without agent.end: reconnect.
    }
}

/// SSE: a dropped connection resumes from Last-Event-ID with nothing lost or repeated.
pub async fn sse_resume(s: &TestServer) {
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "talk a lot").await;
    let (received, _) = follow_sse(s, &id, Some(40)).await;
    s.wait_turn(&id, turn["id"].as_str().unwrap()).await;
    let stored = seqs(&s.events(&id).await);
    let unique: BTreeSet<u64> = received.iter().copied().collect();
    assert_eq!(unique.len(), received.len(), "duplicates");
    assert_gap_free(&received);
    assert_eq!(received.last(), stored.last());
    // A late client gets the whole backlog; `?after=` resumes exclusively.
    let (all, _) = follow_sse(s, &id, None).await;
    assert_eq!(all, stored);
    let response = s
        .client
        .get(s.url(&format!("/v1/sessions/{id}/events?stream=sse&after=5")))
        .bearer_auth(ALL)
        .send()
        .await
        .unwrap();
    let mut reader = SseReader::new(response);
    let first = reader.next_within(Duration::from_secs(5)).await.unwrap();
    assert_eq!(first.id.as_deref(), Some("6"));
}
