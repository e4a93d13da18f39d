//! The HTTP contract on SQLite: every route, auth, bad input, turns, approvals, questions,
//! cancellation, file runs and the timeline, over real HTTP on loopback.

use crate::common;

use common::{ALL, Options, TestServer, scenarios};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_openapi() {
    let s = TestServer::start(Options::new("simple.json")).await;
    scenarios::health_and_openapi(&s, "sqlite").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_on_every_route() {
    let s = TestServer::start(Options::new("simple.json")).await;
    scenarios::auth_everywhere(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_and_idempotent_turns() {
    let s = TestServer::start(Options::new("simple.json")).await;
    scenarios::session_and_turn(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_4xx() {
    let s = TestServer::start(Options::new("simple.json")).await;
    scenarios::bad_input(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_and_turn_running() {
    let s = TestServer::start(Options::new("question.json")).await;
    scenarios::question_and_turn_running(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planning_replies_are_answered_like_questions() {
    let s = TestServer::start(Options::new("plan-respond.json")).await;
    scenarios::planning_reply_answered(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_approve_and_reject() {
    let s = TestServer::start(Options::new("approval.json")).await;
    scenarios::approvals(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_a_running_turn() {
    let s = TestServer::start(Options::new("sleep.json")).await;
    scenarios::cancel(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_runs_stream_exec_events() {
    let s = TestServer::start(Options::new("simple.json")).await;
    scenarios::file_run(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_timeline() {
    let s = TestServer::start(Options::new("move.json")).await;
    scenarios::timeline(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_without_a_token() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let response = s.client.get(s.url("/")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = response.text().await.unwrap();
    let script = page
        .split('"')
        .find(|s| s.starts_with("/assets/") && s.ends_with(".js"))
        .expect("the page references a script");
    let response = s.client.get(s.url(script)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let response = s
        .client
        .get(s.url("/assets/missing.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_route_without_a_handshake_is_the_documented_400() {
    // Issue 28 §4: a plain GET (no `Upgrade`) is answered 400, and the document says that a
    // handshake's headers are required and what their absence gets.
    let s = TestServer::start(Options::new("simple.json")).await;
    let id = s.create_session("p1", ALL).await;
    let (status, body) = s.get(&format!("/v1/sessions/{id}/ws"), ALL).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], "bad_request", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("upgrade"),
        "{body}"
    );

    // A handshake whose key is not 16 bytes in base64 is refused the same way.
    let response = keel_test_support::http_client()
        .get(s.url(&format!("/v1/sessions/{id}/ws")))
        .bearer_auth(ALL)
        .header("Upgrade", "websocket")
        .header("Connection", "Upgrade")
        .header("Sec-WebSocket-Version", "13")
        .header("Sec-WebSocket-Key", "too-short")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Sec-WebSocket-Key"),
        "{body}"
    );

    let doc: serde_json::Value = serde_json::from_str(&keel_server::openapi_json()).unwrap();
    let operation = &doc["paths"]["/v1/sessions/{id}/ws"]["get"];
    let bad_request = &operation["responses"]["400"];
    assert!(
        bad_request["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .is_some_and(|r| r.ends_with("/ErrorBody")),
        "{bad_request}"
    );
    let headers: Vec<(&str, bool)> = operation["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["in"] == "header")
        .map(|p| (p["name"].as_str().unwrap(), p["required"] == true))
        .collect();
    for name in [
        "Upgrade",
        "Connection",
        "Sec-WebSocket-Version",
        "Sec-WebSocket-Key",
    ] {
        assert!(
            headers.contains(&(name, true)),
            "{name} not required: {headers:?}"
        );
    }
}

#[test]
fn openapi_json_is_committed_and_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.json");
    let generated = keel_server::openapi_json();
    if std::env::var_os("KEEL_UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "crates/server/openapi.json is out of date: run \
         `KEEL_UPDATE_OPENAPI=1 cargo test -p keel-server --test integration openapi` (or `cargo xtask codegen`)"
    );
}

/// A turn the database no longer gives this instance (another swept it while this one
/// stalled) is stopped here, and nothing more of it is written from here: no cancellation, no
/// `agent.end`, no end of its row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_another_instance_took_is_stopped_here_and_writes_nothing() {
    let mut options = Options::new("sleep.json");
    options.turn_lease = Some(std::time::Duration::from_millis(600));
    let s = TestServer::start(options).await;
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "wait").await;
    let turn_id = turn["id"].as_str().unwrap();
    s.wait_event(&id, "run.tool.start").await;
    let before = s.events(&id).await.len();
    // As if this instance had stalled past its lease and another had swept the turn.
    let swept = s
        .store
        .fail_expired_turns(Some(&s.instance_id))
        .await
        .unwrap();
    assert_eq!(swept.len(), 1);
    assert_eq!(swept[0].id, turn_id);
    // The next renewal no longer covers it: the run stops here (`sleep 30` is not left
    // running), so the session takes a new turn here within a few renewals.
    let started = std::time::Instant::now();
    loop {
        let (status, body) = s
            .post(
                &format!("/v1/sessions/{id}/turns"),
                ALL,
                serde_json::json!({"request_id": uuid::Uuid::now_v7().to_string(), "input": "again"}),
            )
            .await;
        if status == reqwest::StatusCode::ACCEPTED {
            break;
        }
        assert_eq!(status, reqwest::StatusCode::CONFLICT, "{body}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the turn was not stopped"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let turn = s.wait_turn(&id, turn_id).await;
    assert_eq!(turn["status"], "failed", "{turn}");
    let events = s.events(&id).await;
    let stale: Vec<&serde_json::Value> = events[before..]
        .iter()
        .filter(|e| e["turn_id"] == turn_id)
        .collect();
    assert!(stale.is_empty(), "written after the takeover: {stale:?}");
    scenarios::assert_gap_free(&scenarios::seqs(&events));
}

/// After a turn that changed files, the server distils it into the project's memory: the
/// memory event follows the turn's `agent.end` (without a turn id) and the turn ends after it.
/// A turn that changed nothing makes no distillation call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_that_change_files_are_distilled_into_memory() {
    let s = TestServer::start(Options::new("remember.json")).await;
    let session = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&session, "start the notes").await;
    let ended = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let events = s.events(&session).await;
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let end = types.iter().position(|t| *t == "agent.end").unwrap();
    assert_eq!(types[end + 1..], ["run.usage.report", "run.memory.update"]);
    let update = &events[end + 2];
    assert!(update.get("turn_id").is_none(), "{update}");
    assert_eq!(update["payload"]["source"], "distill");
    assert_eq!(
        update["payload"]["entries"][0]["text"],
        "Project notes live in notes.md"
    );
    let memory = keel_context::MemoryStore::for_project(&s.workspace)
        .read()
        .unwrap();
    assert_eq!(
        memory.entries()[0].id,
        update["payload"]["entries"][0]["id"]
    );

    // The next turn writes nothing: its answer is the script's last turn, no distillation.
    let turn = s.start_turn(&session, "anything new?").await;
    s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    let events = s.events(&session).await;
    assert_eq!(events.last().unwrap()["type"], "agent.end");
    let memory_events = events
        .iter()
        .filter(|e| e["type"] == "run.memory.update")
        .count();
    assert_eq!(memory_events, 1);
}

/// The server's `[provider]` settings reach its sessions as the CLI's reach its own: the
/// context window, extra instruction files and prices; a session's tokens and cost are in
/// its view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_settings_reach_the_session_and_usage_is_reported() {
    let mut options = Options::new("simple.json");
    options.provider = |provider| {
        provider.context_window = Some(12_345);
        provider.instructions_files = vec!["CLAUDE.md".to_owned()];
        provider.pricing = provider.pricing.clone().with_override(
            "scripted",
            keel_engine::ModelPrice {
                input: 2.0,
                cached_input: None,
                output: 4.0,
            },
        );
    };
    let s = TestServer::start(options).await;
    std::fs::write(s.workspace.join("CLAUDE.md"), "Answer in one line.\n").unwrap();
    let session = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&session, "hello").await;
    let ended = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let events = s.events(&session).await;
    let of_type = |kind: &str| {
        events
            .iter()
            .find(|e| e["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind} in {events:#?}"))
    };
    assert_eq!(of_type("run.context.window")["payload"]["limit"], 12_345);
    let loaded = &of_type("prepare.instructions.load")["payload"];
    assert!(loaded.to_string().contains("CLAUDE.md"), "{loaded}");
    let report = &of_type("run.usage.report")["payload"];
    assert!(
        report["cost_usd"].as_f64().is_some_and(|c| c > 0.0),
        "{report}"
    );

    let (status, view) = s.get(&format!("/v1/sessions/{session}"), ALL).await;
    assert_eq!(status, StatusCode::OK);
    let usage = &view["usage"];
    assert_eq!(usage["model_calls"], 1, "{view}");
    assert!(
        usage["total_tokens"].as_u64().is_some_and(|t| t > 0),
        "{view}"
    );
    assert_eq!(usage["cost_usd"], report["cost_usd"], "{view}");
}

/// `[images]` and `[context] libraries` in the server's config file reach each session: the
/// library's docs are preloaded into the system prompt and `generate_image` asks the configured
/// endpoint (a mock over loopback returning a real PNG) and writes the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_and_libraries_from_the_config_file_reach_the_session() {
    use keel_test_support::mock_openai::{ImageReply, MockServer, ServerInfo, text_answer};
    let png = keel_test_support::png::solid_png(4, 3, [200, 30, 30]);
    let images = MockServer::start_with(
        ServerInfo::images(ImageReply::B64Json(png.clone())),
        |_, _| text_answer(&["unused"]),
    )
    .await;
    let mut options = Options::new("image.json");
    options.config_file = Some(format!(
        "[provider]\ninclude_system_prompt = true\n[images]\nbase_url = \"{}\"\nmodel = \"test-image-1\"\n[context]\nlibraries = [\"left-pad\"]\n",
        images.base_url
    ));
    let s = TestServer::start(options).await;
    let pad = s.workspace.join("node_modules/left-pad");
    std::fs::create_dir_all(&pad).unwrap();
    std::fs::write(
        pad.join("package.json"),
        r#"{"name":"left-pad","version":"1.3.0","description":"String left pad"}"#,
    )
    .unwrap();
    std::fs::write(
        pad.join("README.md"),
        "# left-pad\n\nPads the left side of a string with the quokka character.\n",
    )
    .unwrap();
    let session = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&session, "draw an icon").await;
    let ended = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let events = s.events(&session).await;
    let start = events
        .iter()
        .find(|e| e["type"] == "run.llm.start")
        .unwrap_or_else(|| panic!("no run.llm.start in {events:#?}"));
    let prompt = start["payload"]["system_prompt"].as_str().unwrap_or("");
    assert!(prompt.contains("quokka character"), "{prompt}");
    assert_eq!(
        std::fs::read(s.workspace.join("assets/icon.png")).unwrap(),
        png
    );
    let sent = images.image_requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body["model"], "test-image-1");
    assert_eq!(sent[0].body["prompt"], "a red square");
}

/// Approval rules over real HTTP: listed for the session's root, revoked one at a time with
/// the file's comments kept; a broken file is named with its line and left alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_are_listed_and_revoked() {
    use reqwest::{Method, StatusCode};
    let s = TestServer::start(Options::new("simple.json")).await;
    let session = s.create_session("p1", ALL).await;
    let file = s.workspace.join(".keel/rules.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "# team rules\n[[rule]]\nmatch = [\"git\", \"push\"]\ndecision = \"ask\"\n\n\
         [[rule]]  # no migrations by hand\ntool = \"write_file\"\npaths = [\"migrations/**\"]\n\
         decision = \"deny\"\n",
    )
    .unwrap();
    let path = format!("/v1/sessions/{session}/rules");
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let rules = body["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 2, "{body}");
    assert_eq!(rules[0]["match"], json!(["git", "push"]));
    assert_eq!(rules[0]["decision"], "ask");
    assert_eq!(rules[0]["scope"], "project");
    assert_eq!(rules[1]["tool"], "write_file");
    assert_eq!(rules[1]["paths"], json!(["migrations/**"]));
    assert_eq!(rules[1]["line"], 6);
    assert_eq!(rules[1]["summary"], "deny tool write_file migrations/**");

    let (status, _) = s.request(Method::GET, &path, None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (status, body) = s
        .request(
            Method::DELETE,
            &format!("{path}/project/1"),
            Some(ALL),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["summary"], "ask git push");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("# no migrations by hand"), "{text}");
    assert!(!text.contains("push"), "{text}");
    let (_, body) = s.get(&path, ALL).await;
    assert_eq!(body["rules"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(body["rules"][0]["index"], 1);

    let (status, body) = s
        .request(
            Method::DELETE,
            &format!("{path}/project/9"),
            Some(ALL),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = s
        .request(
            Method::DELETE,
            &format!("{path}/elsewhere/1"),
            Some(ALL),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    let broken = "[[rule]]\nmatch = [\"ls\"]\ndecision = 7\n";
    std::fs::write(&file, broken).unwrap();
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body.to_string().contains("rules.toml:3"), "{body}");
    let (status, _) = s
        .request(
            Method::DELETE,
            &format!("{path}/project/1"),
            Some(ALL),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}

/// A shadow session over real HTTP (`"shadow": true`): its turn stages the changes, `GET
/// /shadow` shows them, `/shadow/apply` applies some paths, reports an outside edit as a
/// conflict (not overwritten, a `system.log` warning stored; every apply leaves one) and
/// `/shadow/discard` throws away the paths asked for (refusing unknown or outside ones).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shadow_routes_stage_apply_and_discard() {
    use reqwest::{Method, StatusCode};
    let s = TestServer::start(Options::new("shadow.json")).await;
    std::fs::write(s.workspace.join("keep.txt"), "keep\n").unwrap();
    let (status, body) = s
        .post(
            "/v1/sessions",
            ALL,
            json!({"project_id": "p1", "root": s.workspace.to_str().unwrap(), "shadow": true}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["shadow"], true, "{body}");
    let session = body["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/sessions/{session}/shadow");

    // Nothing staged before the first turn.
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    let turn = s.start_turn(&session, "write two files").await;
    let turn = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    assert!(!s.workspace.join("a.txt").exists());
    assert!(!s.workspace.join("b.txt").exists());

    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["changes"][0]["path"], "a.txt");
    assert_eq!(body["changes"][0]["kind"], "created");
    assert_eq!(body["changes"][1]["path"], "b.txt");
    assert!(body["diff"].as_str().unwrap().contains("+beta"), "{body}");
    let (status, _) = s.request(Method::GET, &path, None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = s.get("/v1/sessions/nope/shadow", ALL).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A path not staged: 422, nothing applied. Malformed JSON: 400.
    let apply = format!("{path}/apply");
    let (status, body) = s
        .post(&apply, ALL, json!({"paths": ["a.txt", "nope.txt"]}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope.txt"),
        "{body}"
    );
    assert!(!s.workspace.join("a.txt").exists());
    let (status, body) = s.post_raw(&apply, ALL, b"{\"paths\": [".to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    let (status, body) = s.post(&apply, ALL, json!({"paths": ["a.txt"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["applied"], json!(["a.txt"]));
    assert_eq!(body["remaining"], json!(["b.txt"]));
    assert_eq!(
        std::fs::read_to_string(s.workspace.join("a.txt")).unwrap(),
        "alpha\n"
    );

    // Someone else writes b.txt: applying the rest reports it and leaves it alone.
    std::fs::write(s.workspace.join("b.txt"), "outside\n").unwrap();
    let (status, body) = s.request(Method::POST, &apply, Some(ALL), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["conflicts"][0]["path"], "b.txt", "{body}");
    assert_eq!(body["closed"], false);
    assert_eq!(
        std::fs::read_to_string(s.workspace.join("b.txt")).unwrap(),
        "outside\n"
    );
    let warned = s.events(&session).await.into_iter().any(|e| {
        e["type"] == "system.log"
            && e["payload"]["level"] == "warn"
            && e["payload"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("b.txt")
    });
    assert!(warned, "no system.log warning for the conflict");

    let applied = s.events(&session).await.into_iter().any(|e| {
        e["type"] == "system.log"
            && e["payload"]["level"] == "info"
            && e["payload"]["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("shadow apply: 1 change(s) applied to the real tree: a.txt")
    });
    assert!(applied, "no system.log naming what was applied");

    // Discard some paths: unknown or outside ones are refused naming them, nothing discarded.
    let discard = format!("{path}/discard");
    for bad in ["nope.txt", "../outside.txt"] {
        let (status, body) = s.post(&discard, ALL, json!({"paths": [bad]})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(bad),
            "{body}"
        );
    }
    let (status, body) = s.post(&discard, ALL, json!({"path": ["b.txt"]})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unknown field: {body}"
    );
    let (status, body) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["changes"][0]["path"], "b.txt", "{body}");

    let (status, body) = s.post(&discard, ALL, json!({"paths": ["b.txt"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["discarded"], true);
    assert_eq!(body["paths"], json!(["b.txt"]));
    assert_eq!(body["closed"], true);
    let traced = s.events(&session).await.into_iter().any(|e| {
        e["type"] == "system.log"
            && e["payload"]["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("shadow discard: 1 staged change(s) thrown away: b.txt")
    });
    assert!(traced, "no system.log naming what was discarded");
    assert_eq!(
        std::fs::read_to_string(s.workspace.join("b.txt")).unwrap(),
        "outside\n"
    );
    let (status, _) = s.get(&path, ALL).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    for route in [&apply, &format!("{path}/discard")] {
        let (status, body) = s.request(Method::POST, route, Some(ALL), None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{route}: {body}");
    }
    s.stop().await;
}

/// What the property tester found the document and the server disagreeing on: a JSON value
/// other than an object is refused (serde alone reads `[]` as a struct), unknown query
/// parameters are refused, a log import needs a `text/plain` body, and `null` (which the
/// document allows) applies a shadow batch like no body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_and_queries_are_what_the_document_says() {
    let s = TestServer::start(Options::new("simple.json")).await;
    let session = s.create_session("p1", ALL).await;
    for (path, body) in [
        (format!("/v1/sessions/{session}/fork"), "[]"),
        ("/v1/sessions".to_owned(), "[\"p1\", \"/\"]"),
        (format!("/v1/sessions/{session}/turns"), "null"),
        ("/v1/stream-tokens".to_owned(), "\"x\""),
    ] {
        let (status, reply) = s.post_raw(&path, ALL, body.as_bytes().to_vec()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{path} {body}: {reply}"
        );
        assert_eq!(reply["error"]["code"], "unprocessable", "{path} {body}");
    }
    for path in [
        "/v1/sessions?limit=2&colour=red".to_owned(),
        format!("/v1/sessions/{session}/events?after=0&=null"),
        "/v1/projects/p1/timeline?window=3".to_owned(),
    ] {
        let (status, reply) = s.get(&path, ALL).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {reply}");
        assert_eq!(reply["error"]["code"], "bad_request", "{path}");
    }
    let response = s
        .client
        .post(s.url("/v1/projects/p1/timeline/import"))
        .bearer_auth(ALL)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let reply: serde_json::Value = response.json().await.unwrap();
    assert_eq!(reply["error"]["code"], "unsupported_media_type");
    let (status, reply) = s
        .post_raw(
            &format!("/v1/sessions/{session}/shadow/apply"),
            ALL,
            b"null".to_vec(),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no batch to apply: {reply}");
    assert_eq!(reply["error"]["code"], "not_found");
}

/// A relayed cancel names the turn that ran when it was sent: one sent with no turn running
/// (it still reaches file runs) and delivered late does not cancel a turn started since.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_cancel_relay_leaves_a_newer_turn_running() {
    use keel_store::{ControlKind, ControlMessage};
    let s = TestServer::start(Options::new("sleep.json")).await;
    let id = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&id, "wait").await;
    s.wait_event(&id, "run.tool.start").await;
    let turn_id = turn["id"].as_str().unwrap().to_owned();
    // As a cancel sent before this turn began arrives: no turn named.
    s.store
        .send_control(&ControlMessage::new(&id, ControlKind::Cancel))
        .await
        .unwrap();
    // So is one naming another turn.
    let mut other = ControlMessage::new(&id, ControlKind::Cancel);
    other.id = Some("an-earlier-turn".to_owned());
    s.store.send_control(&other).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (_, turns) = s.get(&format!("/v1/sessions/{id}/turns"), ALL).await;
    let running = turns["turns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == turn_id.as_str())
        .unwrap();
    assert_eq!(running["status"], "running", "{running}");
    // The turn itself, named, is cancelled.
    let mut this = ControlMessage::new(&id, ControlKind::Cancel);
    this.id = Some(turn_id.clone());
    s.store.send_control(&this).await.unwrap();
    let ended = s.wait_turn(&id, &turn_id).await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
}

/// With an OTLP endpoint, a turn run over HTTP is exported as GenAI spans.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_is_exported_as_traces() {
    let sink = keel_test_support::http_sink::HttpSink::start();
    let mut options = Options::new("edit.json");
    options.otlp_endpoint = Some(sink.base.clone());
    let s = TestServer::start(options).await;
    let session = s.create_session("p1", ALL).await;
    let turn = s.start_turn(&session, "number the second line").await;
    let ended = s.wait_turn(&session, turn["id"].as_str().unwrap()).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    s.stop_gracefully().await;
    let exported = sink.drain(std::time::Duration::from_secs(1));
    assert!(exported.iter().all(|r| r.path == "/v1/traces"));
    for span in ["invoke_agent keel", "chat ", "execute_tool write_file"] {
        assert!(
            exported.iter().any(|r| r.contains(span)),
            "no `{span}` span"
        );
    }
    assert!(
        exported.iter().any(|r| r.contains(&session)),
        "spans name the session"
    );
}
