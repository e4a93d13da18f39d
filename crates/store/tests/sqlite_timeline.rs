//! SQLite only: seed 003's `agent_events` table on the embedded store (rows written with each
//! append, the same UUIDs as PostgreSQL, cleanup on prune and delete, the type constraint, and
//! the rows of events stored before the table existed written when the store is next opened).

use crate::common;

use common::{TestDb, kind, session, turn_events};
use keel_events::Sequencer;
use keel_events::projection::{AgentEventRow, TimelineEvent, to_timeline_all};
use keel_store::{SqliteStore, Store, project_uuid, task_uuid};
use pretty_assertions::assert_eq;

type Row = (
    String,
    Option<String>,
    String,
    String,
    String,
    String,
    Option<i64>,
);

async fn agent_rows(store: &SqliteStore) -> Vec<Row> {
    sqlx::query_as(
        "SELECT id, task_id, project_id, type, payload, created_at, seq \
         FROM agent_events ORDER BY seq, type",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
}

async fn sqlite() -> (TestDb, SqliteStore) {
    let db = TestDb::sqlite().await;
    let store = SqliteStore::open(db.sqlite_path()).await.unwrap();
    (db, store)
}

/// The rows read back as timeline records, task ids mapped back to `turn`.
fn records(rows: &[Row], turn: &str) -> Vec<TimelineEvent> {
    let mut read: Vec<TimelineEvent> = rows
        .iter()
        .map(|(id, task_id, _, ty, payload, created_at, _)| {
            let record = TimelineEvent::try_from(&AgentEventRow {
                id: id.clone(),
                task_id: task_id.clone(),
                project_id: "my-project".to_owned(),
                event_type: ty.clone(),
                payload: serde_json::from_str(payload).unwrap(),
                created_at: created_at.clone(),
            })
            .unwrap();
            TimelineEvent {
                task_id: if task_id.is_some() {
                    turn.to_owned()
                } else {
                    String::new()
                },
                ..record
            }
        })
        .collect();
    read.sort_by(|a, b| a.id.cmp(&b.id));
    read
}

#[tokio::test]
async fn appends_write_the_timeline_rows_of_their_events() {
    let (_db, store) = sqlite().await;
    session(&store, "s").await;
    let events = turn_events("s", "turn-7");
    assert_eq!(store.append_events(&events).await.unwrap(), 5);

    let mut expected: Vec<TimelineEvent> = events.iter().flat_map(to_timeline_all).collect();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    let rows = agent_rows(&store).await;
    assert_eq!(
        rows.len(),
        5,
        "tool_call, file_update, debugger enter, self_repair, log"
    );
    // The same UUIDs PostgreSQL stores, as text.
    let project = project_uuid("my-project").to_string();
    let task = task_uuid("turn-7").to_string();
    for (_, task_id, project_id, ty, ..) in &rows {
        assert_eq!(project_id, &project);
        assert_eq!(
            task_id.as_deref(),
            (ty != "log").then_some(task.as_str()),
            "the status outside the turn has no task"
        );
    }
    assert_eq!(records(&rows, "turn-7"), expected);

    // The camelCase payload of the move, as seed 003 §6 shows it; `seq` is the event's.
    let (_, _, _, _, payload, _, seq) = rows.iter().find(|r| r.3 == "tool_call").unwrap();
    let payload: serde_json::Value = serde_json::from_str(payload).unwrap();
    assert_eq!(payload["toolName"], "move_file");
    assert_eq!(payload["fromPath"], "src/old.ts");
    assert_eq!(payload["toPath"], "src/new.ts");
    assert_eq!(payload["success"], true);
    assert_eq!(*seq, Some(2));

    // A single event with a timeline row is written with its row (one transaction).
    let one = Sequencer::resume("s", "my-project", 5).stamp(
        None,
        kind(
            "system.error",
            serde_json::json!({"error": "boom", "error_type": "tool", "recoverable": true}),
        ),
    );
    store.append_event(&one).await.unwrap();
    let rows = agent_rows(&store).await;
    assert_eq!(rows.len(), 6);
    assert_eq!(rows.last().map(|r| r.3.as_str()), Some("error"));
    store.close().await;
}

#[tokio::test]
async fn a_failed_append_writes_no_timeline_row() {
    let (_db, store) = sqlite().await;
    session(&store, "s").await;
    let events = turn_events("s", "turn-7");
    store.append_events(&events[..2]).await.unwrap();
    let before = agent_rows(&store).await.len();
    // The batch repeats a stored seq: nothing of it is written, timeline rows included.
    let err = store.append_events(&events[1..]).await.unwrap_err();
    assert!(err.to_string().contains("seq"), "{err}");
    assert_eq!(agent_rows(&store).await.len(), before);
    store.close().await;
}

#[tokio::test]
async fn prune_and_delete_take_the_rows_along() {
    let (_db, store) = sqlite().await;
    session(&store, "s").await;
    session(&store, "other").await;
    store.append_events(&turn_events("s", "t1")).await.unwrap();
    store
        .append_events(&turn_events("other", "t2"))
        .await
        .unwrap();
    assert_eq!(agent_rows(&store).await.len(), 10);

    // Events 1..=3 go, with the tool call's and the move's rows; the repair (two rows: the
    // debugger's phase and the attempt) and the status stay.
    assert_eq!(store.prune_events("s", 3).await.unwrap(), 3);
    let left: Vec<Option<i64>> = sqlx::query_scalar(
        "SELECT seq FROM agent_events a JOIN sessions s ON s.id = a.session_id \
         WHERE s.id = 's' ORDER BY seq",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert_eq!(left, vec![Some(4), Some(4), Some(5)]);

    store.delete_session("s").await.unwrap();
    let rows = agent_rows(&store).await;
    assert_eq!(rows.len(), 5, "only the other session's rows are left");
    store.close().await;
}

#[tokio::test]
async fn the_type_is_constrained_as_on_postgres() {
    let (_db, store) = sqlite().await;
    sqlx::query("INSERT INTO agent_events (id, project_id, type) VALUES ('a', 'p', 'log')")
        .execute(store.pool())
        .await
        .unwrap();
    let err =
        sqlx::query("INSERT INTO agent_events (id, project_id, type) VALUES ('b', 'p', 'chat')")
            .execute(store.pool())
            .await
            .unwrap_err();
    assert!(err.to_string().contains("CHECK"), "{err}");
    store.close().await;
}

#[tokio::test]
async fn a_store_from_before_the_table_gets_the_rows_of_its_events() {
    let (db, store) = sqlite().await;
    session(&store, "s").await;
    let events = turn_events("s", "turn-7");
    store.append_events(&events).await.unwrap();
    // Back to schema version 4: no table, no record of the migration.
    sqlx::query("DROP TABLE agent_events")
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 5")
        .execute(store.pool())
        .await
        .unwrap();
    // A corrupt event is skipped, not a reason to refuse to open.
    sqlx::query("UPDATE events SET data = '{' WHERE seq = 4")
        .execute(store.pool())
        .await
        .unwrap();
    store.close().await;

    let store = SqliteStore::open(db.sqlite_path()).await.unwrap();
    let rows = agent_rows(&store).await;
    let mut expected: Vec<TimelineEvent> = events
        .iter()
        .filter(|e| e.seq != 4)
        .flat_map(to_timeline_all)
        .collect();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(records(&rows, "turn-7"), expected);
    store.close().await;

    // Opened again, nothing is written twice.
    let store = SqliteStore::open(db.sqlite_path()).await.unwrap();
    assert_eq!(agent_rows(&store).await.len(), expected.len());
    store.close().await;
}
