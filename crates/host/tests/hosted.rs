//! A session hosted by one process: its session row, status and turn row are written by
//! keel-host, not by the front end.

use std::sync::{Arc, Mutex};

use keel_engine::{Script, ScriptedProvider};
use keel_events::AgentStatus;
use keel_host::{AgentSettings, Interaction, SessionHost, SessionSource, TurnEnd};
use keel_protocol::{CannotAnswer, CannotAsk, Mode};
use keel_store::{NewSession, SessionStatus, SqliteStore, Store, TurnStatus, default_db_path};

fn provider(answer: &str) -> Arc<ScriptedProvider> {
    let script = serde_json::json!({
        "turns": [{"text": answer, "finish_reason": "stop"}]
    });
    Arc::new(ScriptedProvider::new(
        Script::from_json(&script.to_string()).unwrap(),
    ))
}

#[tokio::test]
async fn a_turn_writes_the_session_row_its_status_and_the_turn_row() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut host = SessionHost::open(SessionSource::New(NewSession::new("proj", &root))).await;
    assert_eq!(host.take_warnings(), Vec::<String>::new());
    let settings = AgentSettings {
        mode: Mode::Direct,
        repo_map: false,
        ..AgentSettings::new(&root, vec!["scripted".to_owned()])
    };
    let warnings: Arc<Mutex<Vec<String>>> = Arc::default();
    let told = Arc::clone(&warnings);
    let mut session = host
        .start(
            &settings,
            provider("all done"),
            &Default::default(),
            Interaction {
                approver: Arc::new(CannotAsk),
                answerer: Arc::new(CannotAnswer),
            },
            Arc::new(move |w: String| told.lock().unwrap().push(w)),
        )
        .await
        .unwrap();
    let id = session.session_id().to_owned();

    let end = session
        .turn("Say hello\nand more", std::future::pending())
        .await
        .expect("the turn ran to its end");
    assert!(
        matches!(
            &end,
            TurnEnd::Finished {
                status: AgentStatus::Completed,
                ..
            }
        ),
        "{end:?}"
    );
    session.end_turn(&end).await;
    session.close().await;
    assert_eq!(*warnings.lock().unwrap(), Vec::<String>::new());

    let store = SqliteStore::open(default_db_path(&root)).await.unwrap();
    let row = store.get_session(&id).await.unwrap();
    assert_eq!(row.title, "Say hello");
    assert_eq!(row.status, SessionStatus::Completed);
    let turns = keel_host::session_turns(&store, &id).await.unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].status, TurnStatus::Completed);
    assert_eq!(turns[0].input, "Say hello\nand more");
    assert!(store.load_conversation(&id).await.unwrap().is_some());
}
