//! PostgreSQL only: seed 003's `agent_events` table (schema exactly as specified, rows written
//! with each append, uuid mapping, cleanup on prune and delete), the Supabase Realtime set-up
//! (with and without a `supabase_realtime` publication), the NOTIFY payloads, corrupt rows, and
//! NUL characters (which `jsonb` cannot hold).

use crate::common;

use common::{TestDb, kind, session, status_event, status_events, turn_events};
use keel_events::projection::{AgentEventRow, TimelineEvent, to_timeline_all};
use keel_events::{Event, Sequencer};
use keel_store::{EventRange, PostgresStore, Store, StoreError, project_uuid, task_uuid};
use pretty_assertions::assert_eq;
use sqlx::postgres::PgListener;
use uuid::Uuid;

async fn pg() -> Option<(TestDb, PostgresStore)> {
    let db = TestDb::postgres().await?;
    let store = db.postgres_store().await;
    Some((db, store))
}

type Row = (
    Uuid,
    Option<Uuid>,
    Uuid,
    String,
    String,
    String,
    Option<i64>,
);

async fn agent_rows(store: &PostgresStore) -> Vec<Row> {
    sqlx::query_as(
        "SELECT id, task_id, project_id, type, payload::text, \
         to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), seq \
         FROM agent_events ORDER BY seq, type",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
}

#[tokio::test]
async fn agent_events_schema_is_exactly_seed_003s() {
    let Some((_db, store)) = pg().await else {
        return;
    };
    let columns: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT column_name::text, data_type::text, is_nullable::text, column_default::text \
         FROM information_schema.columns WHERE table_name = 'agent_events' ORDER BY ordinal_position",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    let col = |name: &str, ty: &str, null: &str, default: Option<&str>| {
        (
            name.to_owned(),
            ty.to_owned(),
            null.to_owned(),
            default.map(str::to_owned),
        )
    };
    assert_eq!(
        columns,
        [
            col("id", "uuid", "NO", Some("gen_random_uuid()")),
            col("task_id", "uuid", "YES", None),
            col("project_id", "uuid", "NO", None),
            col("type", "text", "NO", None),
            col("payload", "jsonb", "NO", Some("'{}'::jsonb")),
            col(
                "created_at",
                "timestamp with time zone",
                "YES",
                Some("now()")
            ),
            col("seq", "bigint", "YES", None),
        ]
    );
    let indexes: Vec<(String, String)> = sqlx::query_as(
        "SELECT indexname::text, indexdef FROM pg_indexes WHERE tablename = 'agent_events' \
         ORDER BY indexname",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    let names: Vec<&str> = indexes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "agent_events_pkey",
            "idx_agent_events_created_at",
            "idx_agent_events_project_id",
            "idx_agent_events_task_id",
            "idx_agent_events_type",
        ]
    );
    assert!(
        indexes[1].1.ends_with("USING btree (created_at DESC)"),
        "{:?}",
        indexes[1]
    );
    let check: String = sqlx::query_scalar(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint \
         WHERE conrelid = 'agent_events'::regclass AND contype = 'c'",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    for ty in [
        "agent_phase",
        "tool_call",
        "file_update",
        "self_repair",
        "log",
        "error",
    ] {
        assert!(check.contains(&format!("'{ty}'::text")), "{check}");
    }
    // Defaults fill a bare row; the CHECK refuses other types.
    let (payload, has_time): (String, bool) = sqlx::query_as(
        "INSERT INTO agent_events (project_id, type) VALUES (gen_random_uuid(), 'log') \
         RETURNING payload::text, created_at IS NOT NULL",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!((payload.as_str(), has_time), ("{}", true));
    let err = sqlx::query(
        "INSERT INTO agent_events (project_id, type) VALUES (gen_random_uuid(), 'chat')",
    )
    .execute(store.pool())
    .await
    .unwrap_err();
    assert!(err.to_string().contains("agent_events_type_check"), "{err}");
    store.close().await;
}

#[tokio::test]
async fn appends_write_the_timeline_rows_of_their_events() {
    let Some((_db, store)) = pg().await else {
        return;
    };
    session(&store, "s").await;
    let events = turn_events("s", "turn-7");
    // Only the stored events' records; display-only events are skipped everywhere.
    assert_eq!(store.append_events(&events).await.unwrap(), 5);

    let expected: Vec<TimelineEvent> = events.iter().flat_map(to_timeline_all).collect();
    assert_eq!(
        expected.len(),
        5,
        "tool_call, file_update, debugger enter, self_repair, log"
    );
    let rows = agent_rows(&store).await;
    assert_eq!(rows.len(), expected.len());
    let project = project_uuid("my-project");
    let task = task_uuid("turn-7");
    assert_eq!(
        task,
        Uuid::new_v5(&keel_store::TASK_ID_NAMESPACE, b"turn-7")
    );
    for row in &rows {
        assert_eq!(row.2, project);
    }
    // Read back as timeline records, they equal the projection (ids, payloads, timestamps).
    let mut read: Vec<TimelineEvent> = rows
        .iter()
        .map(|(id, task_id, _, ty, payload, created_at, _)| {
            let record = TimelineEvent::try_from(&AgentEventRow {
                id: id.to_string(),
                task_id: task_id.map(|t| t.to_string()),
                project_id: "my-project".to_owned(),
                event_type: ty.clone(),
                payload: serde_json::from_str(payload).unwrap(),
                created_at: created_at.clone(),
            })
            .unwrap();
            assert_eq!(
                task_id.is_some(),
                record.payload.type_name() != "log",
                "the status outside the turn has no task"
            );
            TimelineEvent {
                task_id: if task_id.is_some() {
                    "turn-7".to_owned()
                } else {
                    String::new()
                },
                ..record
            }
        })
        .collect();
    let mut expected = expected;
    read.sort_by(|a, b| a.id.cmp(&b.id));
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(read, expected);

    // The camelCase payload of the move, as seed 003 §6 shows it; `seq` is the event's.
    let (_, _, _, _, payload, _, seq) = rows.iter().find(|r| r.3 == "tool_call").unwrap();
    let payload: serde_json::Value = serde_json::from_str(payload).unwrap();
    assert_eq!(payload["toolName"], "move_file");
    assert_eq!(payload["fromPath"], "src/old.ts");
    assert_eq!(payload["toPath"], "src/new.ts");
    assert_eq!(payload["success"], true);
    assert_eq!(*seq, Some(2));

    // A UUID project id is used as is.
    let uuid_project = "789e0123-e45b-67d8-a901-234567890abc";
    store
        .create_session(keel_store::NewSession::new(uuid_project, "/w").with_id("u"))
        .await
        .unwrap();
    let event = Sequencer::new("u", uuid_project).stamp(
        Some("123e4567-e89b-12d3-a456-426614174000"),
        kind("system.status", serde_json::json!({"message": "hi"})),
    );
    store.append_event(&event).await.unwrap();
    let (task_id, project_id): (Option<Uuid>, Uuid) =
        sqlx::query_as("SELECT task_id, project_id FROM agent_events WHERE id = $1")
            .bind(event.id)
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(project_id.to_string(), uuid_project);
    assert_eq!(
        task_id.map(|t| t.to_string()).as_deref(),
        Some("123e4567-e89b-12d3-a456-426614174000")
    );
    store.close().await;
}

#[tokio::test]
async fn failed_appends_leave_no_timeline_rows_and_cleanup_follows_the_events() {
    let Some((_db, store)) = pg().await else {
        return;
    };
    session(&store, "s").await;
    session(&store, "kept").await;
    store
        .append_event(&status_event("s", 3, "taken"))
        .await
        .unwrap();
    let err = store
        .append_events(&status_events("s", 5))
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::DuplicateSeq { seq: 3, .. }),
        "{err}"
    );
    assert_eq!(
        agent_rows(&store).await.len(),
        1,
        "the batch's rows rolled back"
    );

    let mut events = turn_events("s", "t");
    for (i, event) in events.iter_mut().enumerate() {
        event.seq = 10 + i as u64;
    }
    store.append_events(&events).await.unwrap();
    store
        .append_events(&turn_events("kept", "t2"))
        .await
        .unwrap();
    assert_eq!(agent_rows(&store).await.len(), 11);

    // Pruning drops the pruned events' rows, the repair attempt's phase row included.
    // Seqs 3 and 10..=13 go; their 5 rows (seq 13's repair attempt has two) go with them.
    assert_eq!(store.prune_events("s", 13).await.unwrap(), 5);
    assert_eq!(agent_rows(&store).await.len(), 6);
    let seqs: Vec<Option<i64>> = agent_rows(&store)
        .await
        .into_iter()
        .filter(|r| r.2 == project_uuid("my-project") && r.6 >= Some(10))
        .map(|r| r.6)
        .collect();
    assert_eq!(seqs.iter().filter(|s| **s == Some(14)).count(), 1);
    assert!(
        seqs.iter().all(|s| *s >= Some(14) || *s <= Some(5)),
        "{seqs:?}"
    );

    store.delete_session("s").await.unwrap();
    let left = agent_rows(&store).await;
    assert_eq!(left.len(), 5, "only session `kept`'s rows remain");
    store.close().await;
}

#[tokio::test]
async fn realtime_is_set_up_only_when_the_publication_exists() {
    let Some((db, store)) = pg().await else {
        return;
    };
    let published = |store: PostgresStore| async move {
        let in_publication: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_publication_tables \
             WHERE pubname = 'supabase_realtime' AND tablename = 'agent_events')",
        )
        .fetch_one(store.pool())
        .await
        .unwrap();
        let identity: i8 = sqlx::query_scalar(
            "SELECT relreplident::\"char\" FROM pg_class WHERE oid = 'agent_events'::regclass",
        )
        .fetch_one(store.pool())
        .await
        .unwrap();
        (in_publication, identity as u8 as char)
    };
    // No publication: nothing to do, default replica identity.
    assert!(!store.realtime());
    assert_eq!(published(store.clone()).await, (false, 'd'));

    // With the publication (as on Supabase), opening adds the table, FULL identity; reopening
    // is a no-op.
    sqlx::query("CREATE PUBLICATION supabase_realtime")
        .execute(store.pool())
        .await
        .unwrap();
    for _ in 0..2 {
        let again = db.postgres_store().await;
        assert!(again.realtime());
        assert_eq!(published(again.clone()).await, (true, 'f'));
        again.close().await;
    }

    // A publication FOR ALL TABLES already covers the table: only the identity is set.
    sqlx::query("DROP PUBLICATION supabase_realtime")
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("ALTER TABLE agent_events REPLICA IDENTITY DEFAULT")
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("CREATE PUBLICATION supabase_realtime FOR ALL TABLES")
        .execute(store.pool())
        .await
        .unwrap();
    let again = db.postgres_store().await;
    assert!(again.realtime());
    assert_eq!(published(again.clone()).await, (true, 'f'));
    again.close().await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_small_notification_per_session_and_batch() {
    let Some((db, store)) = pg().await else {
        return;
    };
    session(&store, "s").await;
    let mut listener = PgListener::connect_with(store.pool()).await.unwrap();
    listener.listen("keel_events").await.unwrap();

    // 500 token deltas (far more than NOTIFY's 8000 bytes) in one batch: one notification.
    let seq = Sequencer::new("s", "p");
    let deltas: Vec<Event> = (0..500)
        .map(|i| {
            seq.stamp(
                Some("t"),
                kind(
                    "run.llm.delta",
                    serde_json::json!({"text": format!("token {i} ")}),
                ),
            )
        })
        .collect();
    let other = db.postgres_store().await;
    other.append_events(&deltas).await.unwrap();
    let notification = tokio::time::timeout(std::time::Duration::from_secs(10), listener.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(notification.channel(), "keel_events");
    let payload: serde_json::Value = serde_json::from_str(notification.payload()).unwrap();
    assert_eq!(payload, serde_json::json!({"session_id": "s", "seq": 500}));
    let more = tokio::time::timeout(std::time::Duration::from_millis(300), listener.recv()).await;
    assert!(more.is_err(), "exactly one notification: {more:?}");
    // The listener holds one of the pool's connections: closing the pool waits for it.
    drop(listener);
    other.close().await;
    store.close().await;
}

#[tokio::test]
async fn corrupt_rows_are_typed_errors_naming_session_and_seq() {
    let Some((_db, store)) = pg().await else {
        return;
    };
    session(&store, "s").await;
    store.append_events(&status_events("s", 5)).await.unwrap();

    // Valid JSON, but a payload that does not fit its type.
    sqlx::query(
        "UPDATE events SET data = jsonb_set(data, '{payload}', '{\"message\": 7}') \
         WHERE session_id = 's' AND seq = 4",
    )
    .execute(store.pool())
    .await
    .unwrap();
    let err = store
        .read_events("s", EventRange::after(3))
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "stored event seq 4 of session `s` is corrupt: invalid `system.status` payload at `payload.message`"
        ),
        "{err}"
    );
    // JSON that disagrees with its indexed columns.
    sqlx::query("UPDATE events SET data = $1::jsonb WHERE session_id = 's' AND seq = 5")
        .bind(status_event("s", 99, "elsewhere").to_json())
        .execute(store.pool())
        .await
        .unwrap();
    let err = store
        .read_events("s", EventRange::after(4))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "stored event seq 5 of session `s` is corrupt: the stored JSON is session `s` seq 99"
    );
    // A session row with an unknown status.
    sqlx::query("UPDATE sessions SET status = 'dreaming' WHERE id = 's'")
        .execute(store.pool())
        .await
        .unwrap();
    let err = store.get_session("s").await.unwrap_err();
    assert!(
        matches!(
            &err,
            StoreError::CorruptRow {
                table: "session",
                column: "status",
                ..
            }
        ),
        "{err}"
    );
    store.close().await;
}

#[tokio::test]
async fn nul_characters_are_stored_as_replacement_characters() {
    let Some((_db, store)) = pg().await else {
        return;
    };
    session(&store, "s").await;
    let event = status_event("s", 1, "binary\u{0}output \\u0000 literal");
    store.append_event(&event).await.unwrap();
    let read = store.read_events("s", EventRange::all()).await.unwrap();
    assert_eq!(
        common::messages(&read),
        ["binary\u{fffd}output \\u0000 literal"]
    );
    // Conversations are kept as exact JSON text, NUL included.
    let conversation = serde_json::json!({"m": "a\u{0}b"});
    store.save_conversation("s", &conversation).await.unwrap();
    assert_eq!(
        store.load_conversation("s").await.unwrap(),
        Some(conversation)
    );
    store.close().await;
}
