//! Append notices on both backends: one per session and committed append (never for
//! display-only events or failed batches), fed to every watcher; on PostgreSQL across store
//! instances (LISTEN/NOTIFY), with a resync notice after the listener reconnects.

use crate::common;

use std::time::Duration;

use common::{TestDb, display_event, session, status_event, status_events, store_tests};
use keel_store::{
    AppendNotice, AppendWatch, ControlKind, ControlMessage, EventRange, MAX_CONTROL_BYTES, Store,
    StoreError, WatchNotice,
};

/// How long a test waits for a notice that must come.
const ARRIVES: Duration = Duration::from_secs(10);
/// How long a test waits to be sure a notice does not come.
const QUIET: Duration = Duration::from_millis(300);

fn appended(session_id: &str, seq: u64) -> WatchNotice {
    WatchNotice::Appended(AppendNotice {
        session_id: session_id.to_owned(),
        seq,
    })
}

#[allow(clippy::expect_used)] // a test helper
async fn next(watch: &mut AppendWatch) -> WatchNotice {
    tokio::time::timeout(ARRIVES, watch.recv())
        .await
        .expect("a notice within 10 s")
        .expect("the watch is still open")
}

async fn assert_quiet(watch: &mut AppendWatch) {
    if let Ok(notice) = tokio::time::timeout(QUIET, watch.recv()).await {
        panic!("expected no notice, got {notice:?}");
    }
}

fn approval(session_id: &str) -> ControlMessage {
    let mut message = ControlMessage::new(session_id, ControlKind::Approval);
    message.id = Some("appr_1".into());
    message.decision = Some("approve".into());
    message.modified = Some(serde_json::json!({"path": "a.txt"}));
    message
}

store_tests! {
    #[tokio::test]
    async fn one_notice_per_session_and_append_with_its_highest_seq(db, store) {
        session(store.as_ref(), "a").await;
        session(store.as_ref(), "b").await;
        let mut watch = store.watch().await.unwrap();
        let mut other = store.watch().await.unwrap();

        // 50 events in one batch: one notice.
        store.append_events(&status_events("a", 50)).await.unwrap();
        assert_eq!(next(&mut watch).await, appended("a", 50));
        assert_eq!(next(&mut other).await, appended("a", 50));
        assert_quiet(&mut watch).await;

        // One batch touching two sessions: one notice each.
        let batch = vec![
            status_event("b", 1, "b1"),
            status_event("a", 51, "a51"),
            status_event("b", 2, "b2"),
        ];
        store.append_events(&batch).await.unwrap();
        let mut got = vec![next(&mut watch).await, next(&mut watch).await];
        got.sort_by_key(|n| format!("{n:?}"));
        assert_eq!(got, [appended("a", 51), appended("b", 2)]);

        // Display-only events and failed batches announce nothing.
        assert!(!store.append_event(&display_event("a", 51)).await.unwrap());
        let err = store.append_events(&status_events("a", 3)).await;
        assert!(err.is_err());
        assert_quiet(&mut watch).await;

        // Single appends announce too; the watcher reads what it missed from the store.
        store.append_event(&status_event("a", 52, "one")).await.unwrap();
        let WatchNotice::Appended(notice) = next(&mut watch).await else {
            panic!("expected an append notice");
        };
        let missed = store
            .read_events(&notice.session_id, EventRange::after(50))
            .await
            .unwrap();
        assert_eq!(missed.iter().map(|e| e.seq).collect::<Vec<_>>(), [51, 52]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_watch_started_before_the_writer_sees_every_batch(db, store) {
        session(store.as_ref(), "s").await;
        let mut watch = store.watch().await.unwrap();
        let writer = keel_store::EventWriter::spawn(
            std::sync::Arc::clone(&store),
            keel_store::WriterOptions::default(),
        )
        .unwrap();
        for event in status_events("s", 2_000) {
            writer.send(event).unwrap();
        }
        let report = writer.close().await.unwrap();
        assert_eq!(report.stored, 2_000);
        // Batches make far fewer notices than events; the last one names the last seq.
        let mut notices = 0;
        let mut last = 0;
        while last < 2_000 {
            match next(&mut watch).await {
                WatchNotice::Appended(notice) => {
                    assert!(notice.seq > last, "{} after {last}", notice.seq);
                    last = notice.seq;
                    notices += 1;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(notices <= report.batches as usize, "{notices} notices");
    }

    #[tokio::test]
    async fn control_messages_reach_every_watch_and_oversized_ones_are_refused(db, store) {
        let mut watch = store.watch().await.unwrap();
        let mut other = store.watch().await.unwrap();
        store.send_control(&approval("s")).await.unwrap();
        assert_eq!(next(&mut watch).await, WatchNotice::Control(approval("s")));
        assert_eq!(next(&mut other).await, WatchNotice::Control(approval("s")));

        let mut big = ControlMessage::new("s", ControlKind::Answer);
        big.answer = Some("x".repeat(MAX_CONTROL_BYTES));
        assert!(matches!(
            store.send_control(&big).await,
            Err(StoreError::ControlTooLarge { .. })
        ));
        assert_quiet(&mut watch).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_control_messages_reach_another_instance() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let one = db.open().await;
    let two = db.open().await;
    let mut watch_two = two.watch().await.unwrap();
    let mut cancel = ControlMessage::new("s", ControlKind::Cancel);
    one.send_control(&cancel).await.unwrap();
    assert_eq!(
        next(&mut watch_two).await,
        WatchNotice::Control(cancel.clone())
    );
    // Just under the limit still fits in one NOTIFY.
    cancel.reason = Some(String::new());
    let room = MAX_CONTROL_BYTES - cancel.encode().unwrap().len();
    cancel.reason = Some("r".repeat(room));
    one.send_control(&cancel).await.unwrap();
    assert_eq!(next(&mut watch_two).await, WatchNotice::Control(cancel));
    one.close().await;
    two.close().await;
}

#[tokio::test]
async fn sqlite_notices_stay_in_process() {
    let db = TestDb::sqlite().await;
    let first = db.open().await;
    let second = db.open().await;
    session(first.as_ref(), "s").await;
    let mut watch = second.watch().await.unwrap();
    first.append_events(&status_events("s", 2)).await.unwrap();
    assert_quiet(&mut watch).await;
    second
        .append_event(&status_event("s", 3, "here"))
        .await
        .unwrap();
    assert_eq!(next(&mut watch).await, appended("s", 3));
    drop(second);
    assert_eq!(watch.recv().await, None, "the watch ends with the store");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_appends_reach_another_instances_watch() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    // Two pools on one database: two server instances.
    let one = db.open().await;
    let two = db.open().await;
    session(one.as_ref(), "s").await;
    let mut watch_two = two.watch().await.unwrap();
    let mut watch_one = one.watch().await.unwrap();

    one.append_events(&status_events("s", 20)).await.unwrap();
    assert_eq!(next(&mut watch_two).await, appended("s", 20));
    assert_eq!(next(&mut watch_one).await, appended("s", 20));
    assert_eq!(
        two.read_events("s", EventRange::all()).await.unwrap().len(),
        20
    );

    // Out of order: the notice carries the highest seq stored, not the batch's.
    two.append_event(&status_event("s", 40, "late"))
        .await
        .unwrap();
    assert_eq!(next(&mut watch_one).await, appended("s", 40));
    one.append_event(&status_event("s", 30, "early"))
        .await
        .unwrap();
    assert_eq!(next(&mut watch_two).await, appended("s", 40));
    assert_eq!(next(&mut watch_two).await, appended("s", 40));

    // Closing a store ends its watches.
    two.close().await;
    let end = tokio::time::timeout(ARRIVES, async {
        loop {
            if watch_two.recv().await.is_none() {
                break;
            }
        }
    })
    .await;
    assert!(end.is_ok(), "the watch ended");
    one.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_listener_reconnects_and_asks_for_a_resync() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let store = db.open().await;
    let admin = db.postgres_store().await;
    session(store.as_ref(), "s").await;
    let mut watch = store.watch().await.unwrap();

    // Kill the listening connection, as a network failure or a restart would.
    let killed: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN %keel_events%' \
         AND pid <> pg_backend_pid()",
    )
    .fetch_all(admin.pool())
    .await
    .unwrap();
    assert_eq!(killed, [true]);

    assert_eq!(next(&mut watch).await, WatchNotice::Resync);
    // Listening again: later appends arrive.
    admin.append_events(&status_events("s", 4)).await.unwrap();
    assert_eq!(next(&mut watch).await, appended("s", 4));
    store.close().await;
    admin.close().await;
}
