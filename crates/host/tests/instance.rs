//! A server instance's turns: begun under its lease (the session marked running), ended under
//! the session's writer claim, and refused once another instance took the session over.

use std::sync::Arc;
use std::time::Duration;

use keel_events::AgentStatus;
use keel_host::{EndRecorded, InstanceHost, TurnEnd};
use keel_store::{NewSession, SessionStatus, SqliteStore, Store, TurnLease, TurnStatus};

async fn instances() -> (
    tempfile::TempDir,
    Arc<dyn Store>,
    InstanceHost,
    InstanceHost,
) {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> =
        Arc::new(SqliteStore::open(dir.path().join("keel.db")).await.unwrap());
    let a = InstanceHost::new(
        Arc::clone(&store),
        TurnLease::new("a", Duration::from_secs(30)),
    );
    let b = InstanceHost::new(
        Arc::clone(&store),
        TurnLease::new("b", Duration::from_secs(30)),
    );
    (dir, store, a, b)
}

fn completed() -> TurnEnd {
    TurnEnd::Finished {
        status: AgentStatus::Completed,
        result: "done".to_owned(),
    }
}

#[tokio::test]
async fn a_turn_is_begun_once_per_request_and_ended_under_the_claim() {
    let (dir, store, a, _) = instances().await;
    let session = a
        .create_session(NewSession::new("p", dir.path()))
        .await
        .unwrap();
    let claim = a.claim_writer(&session.id).await.unwrap();
    let start = a
        .begin_turn(&session.id, "r1".to_owned(), "task".to_owned())
        .await
        .unwrap();
    assert!(start.created);
    assert_eq!(start.turn.owner.as_deref(), Some("a"));
    assert_eq!(
        store.get_session(&session.id).await.unwrap().status,
        SessionStatus::Running
    );
    let again = a
        .begin_turn(&session.id, "r1".to_owned(), "task".to_owned())
        .await
        .unwrap();
    assert!(!again.created);
    assert_eq!(again.turn.id, start.turn.id);
    assert_eq!(
        a.running_turn(&session.id).await.unwrap().map(|t| t.id),
        Some(start.turn.id.clone())
    );

    let recorded = a.end_turn(&claim, &start.turn.id, &completed(), None).await;
    assert!(matches!(recorded, EndRecorded::Stored), "{recorded:?}");
    assert!(!a.is_running(&start.turn.id).await.unwrap());
    assert_eq!(
        store.get_turn(&start.turn.id).await.unwrap().status,
        TurnStatus::Completed
    );
    assert_eq!(
        store.get_session(&session.id).await.unwrap().status,
        SessionStatus::Completed
    );
}

#[tokio::test]
async fn an_instance_that_lost_the_session_records_nothing() {
    let (dir, store, a, b) = instances().await;
    let session = a
        .create_session(NewSession::new("p", dir.path()))
        .await
        .unwrap();
    let claim = a.claim_writer(&session.id).await.unwrap();
    let start = a
        .begin_turn(&session.id, "r1".to_owned(), "task".to_owned())
        .await
        .unwrap();
    assert!(b.claim_writer(&session.id).await.is_err());
    assert!(a.release_writer(&claim).await.unwrap());
    let _taken = b.claim_writer(&session.id).await.unwrap();

    let recorded = a.end_turn(&claim, &start.turn.id, &completed(), None).await;
    assert!(matches!(recorded, EndRecorded::Fenced(_)), "{recorded:?}");
    assert_eq!(
        store.get_turn(&start.turn.id).await.unwrap().status,
        TurnStatus::Running
    );
}
