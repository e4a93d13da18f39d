//! One writer per session: claims, their epochs, fenced appends and turn ends, and turns
//! handed over to continue them.

use crate::common;

use common::{session, status_event, status_events, store_tests};
use std::sync::Arc;
use std::time::Duration;

use keel_store::{
    EventRange, EventWriter, FencedTurnEnd, NewTurn, SessionStatus, StoreError, TurnLease,
    TurnOutcome, TurnStatus, WriterOptions,
};

fn lease(owner: &str, millis: u64) -> TurnLease {
    TurnLease::new(owner, Duration::from_millis(millis))
}

fn end(turn_id: &str) -> FencedTurnEnd<'_> {
    FencedTurnEnd {
        conversation: None,
        session_status: SessionStatus::Completed,
        turn_id: Some(turn_id),
        outcome: TurnOutcome::Completed,
        error: None,
    }
}

store_tests! {
    #[tokio::test]
    async fn a_claim_is_held_until_released_or_lapsed(db, store) {
        session(store.as_ref(), "s").await;
        assert_eq!(store.writer_of("s").await.unwrap(), None);
        let a = store.claim_writer("s", &lease("a", 60_000)).await.unwrap();
        assert_eq!((a.owner.as_str(), a.epoch), ("a", 1));
        // The holder claims again: the same epoch.
        assert_eq!(store.claim_writer("s", &lease("a", 60_000)).await.unwrap(), a);
        let held = store.claim_writer("s", &lease("b", 60_000)).await.unwrap_err();
        assert!(
            matches!(&held, StoreError::WriterHeld { holder, .. } if holder == "a"),
            "{held}"
        );
        assert_eq!(held.to_string(), "session `s` is being written by `a`");
        assert_eq!(store.writer_of("s").await.unwrap().as_deref(), Some("a"));
        assert!(store.release_writer(&a).await.unwrap());
        assert!(!store.release_writer(&a).await.unwrap());
        let b = store.claim_writer("s", &lease("b", 200)).await.unwrap();
        assert_eq!(b.epoch, 2);
        assert_eq!(store.renew_writers(&lease("b", 200)).await.unwrap(), std::slice::from_ref(&b));
        // b stops renewing: once its claim lapses, a takes the session over.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let a2 = store.claim_writer("s", &lease("a", 60_000)).await.unwrap();
        assert_eq!(a2.epoch, 3);
        assert!(store.renew_writers(&lease("b", 60_000)).await.unwrap().is_empty());
        assert!(
            store
                .claim_writer("missing", &lease("a", 1_000))
                .await
                .unwrap_err()
                .is_not_found()
        );
    }

    #[tokio::test]
    async fn a_stale_claim_appends_nothing(db, store) {
        session(store.as_ref(), "s").await;
        let a = store.claim_writer("s", &lease("a", 100)).await.unwrap();
        let events = status_events("s", 3);
        let refs: Vec<_> = events.iter().collect();
        assert_eq!(store.append_fenced(&a, &refs[..2]).await.unwrap(), 2);
        tokio::time::sleep(Duration::from_millis(250)).await;
        let b = store.claim_writer("s", &lease("b", 60_000)).await.unwrap();
        let refused = store.append_fenced(&a, &refs[2..]).await.unwrap_err();
        match &refused {
            StoreError::Fenced { owner, epoch, holder, .. } => {
                assert_eq!((owner.as_str(), *epoch, holder.as_deref()), ("a", 1, Some("b")));
            }
            other => panic!("{other}"),
        }
        assert_eq!(store.last_seq("s").await.unwrap(), 2);
        // The new writer continues the stored seq; a batch of another session is refused.
        assert_eq!(store.append_fenced(&b, &refs[2..]).await.unwrap(), 1);
        let other = status_event("t", 1, "elsewhere");
        assert!(matches!(
            store.append_fenced(&b, &[&other]).await.unwrap_err(),
            StoreError::InvalidInput { .. }
        ));
        // Released: even the former holder's epoch is refused.
        store.release_writer(&b).await.unwrap();
        let late = status_event("s", 4, "late");
        assert!(store.append_fenced(&b, &[&late]).await.unwrap_err().is_fenced());
        assert_eq!(store.read_events("s", EventRange::all()).await.unwrap().len(), 3);
    }

    #[tokio::test]
    async fn a_fenced_writer_stops_and_says_so(db, store) {
        session(store.as_ref(), "s").await;
        let a = store.claim_writer("s", &lease("a", 100)).await.unwrap();
        let failures = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&failures);
        let writer = EventWriter::spawn(
            Arc::clone(&store),
            WriterOptions {
                claim: Some(keel_store::SharedClaim::new(Some(a))),
                on_failure: Some(Arc::new(move |error: &StoreError| {
                    assert!(error.is_fenced(), "{error}");
                    counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                })),
                ..WriterOptions::default()
            },
        )
        .unwrap();
        let events = status_events("s", 6);
        for event in &events[..3] {
            writer.send(event.clone()).unwrap();
        }
        writer.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(250)).await;
        store.claim_writer("s", &lease("b", 60_000)).await.unwrap();
        for event in &events[3..] {
            writer.send(event.clone()).unwrap();
        }
        let failed = writer.flush().await.unwrap_err();
        assert!(failed.to_string().contains("stale"), "{failed}");
        let report = writer.close().await.unwrap();
        assert!(report.fenced);
        assert_eq!((report.stored, report.failed), (3, 3));
        assert!(failures.load(std::sync::atomic::Ordering::SeqCst) >= 1);
        assert_eq!(store.last_seq("s").await.unwrap(), 3);
    }

    #[tokio::test]
    async fn a_writer_without_its_claim_stores_nothing(db, store) {
        session(store.as_ref(), "s").await;
        let a = store.claim_writer("s", &lease("a", 60_000)).await.unwrap();
        let cell = keel_store::SharedClaim::new(Some(a.clone()));
        let writer = EventWriter::spawn(
            Arc::clone(&store),
            WriterOptions {
                claim: Some(cell.clone()),
                ..WriterOptions::default()
            },
        )
        .unwrap();
        let events = status_events("s", 4);
        writer.send(events[0].clone()).unwrap();
        writer.flush().await.unwrap();
        // Given up between two pieces of work: nothing is stored until it is taken again.
        assert_eq!(cell.take(), Some(a.clone()));
        store.release_writer(&a).await.unwrap();
        writer.send(events[1].clone()).unwrap();
        let refused = writer.flush().await.unwrap_err();
        assert!(refused.to_string().contains("holds no writer claim"), "{refused}");
        cell.set(store.claim_writer("s", &lease("a", 60_000)).await.unwrap());
        writer.send(events[1].clone()).unwrap();
        writer.send(events[2].clone()).unwrap();
        writer.flush().await.unwrap();
        let report = writer.close().await.unwrap();
        assert_eq!((report.stored, report.failed), (3, 1));
        assert!(!report.fenced);
        assert_eq!(store.last_seq("s").await.unwrap(), 3);
    }

    #[tokio::test]
    async fn a_turn_ends_only_under_a_current_claim(db, store) {
        session(store.as_ref(), "s").await;
        let new = NewTurn::new("s", "go").with_id("t1").with_lease(lease("a", 100));
        store.begin_turn(new).await.unwrap();
        let a = store.claim_writer("s", &lease("a", 100)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(250)).await;
        let b = store.claim_writer("s", &lease("b", 60_000)).await.unwrap();
        assert_eq!(store.take_over_turns(&lease("b", 60_000), false).await.unwrap().len(), 1);
        let conversation = serde_json::json!({"messages": []});
        let mut stale = end("t1");
        stale.conversation = Some(&conversation);
        stale.session_status = SessionStatus::Cancelled;
        assert!(store.end_turn_fenced(&a, stale).await.unwrap_err().is_fenced());
        assert_eq!(store.get_turn("t1").await.unwrap().status, TurnStatus::Running);
        assert_eq!(store.load_conversation("s").await.unwrap(), None);
        assert_eq!(store.get_session("s").await.unwrap().status, SessionStatus::Idle);
        store.end_turn_fenced(&b, end("t1")).await.unwrap();
        assert_eq!(store.get_turn("t1").await.unwrap().status, TurnStatus::Completed);
        assert_eq!(store.get_session("s").await.unwrap().status, SessionStatus::Completed);
        assert!(matches!(
            store.end_turn_fenced(&b, end("t1")).await.unwrap_err(),
            StoreError::TurnNotRunning { .. }
        ));
    }

    #[tokio::test]
    async fn a_lapsed_turn_is_handed_over_once(db, store) {
        session(store.as_ref(), "s").await;
        let begin = |id: &'static str, owner: &'static str, millis: u64| {
            let store = Arc::clone(&store);
            async move {
                let new = NewTurn::new("s", id).with_id(id).with_lease(lease(owner, millis));
                store.begin_turn(new).await.unwrap();
            }
        };
        begin("lapsing", "a", 100).await;
        begin("alive", "c", 60_000).await;
        store.begin_turn(NewTurn::new("s", "unleased").with_id("unleased")).await.unwrap();
        assert!(store.take_over_turns(&lease("b", 60_000), false).await.unwrap().is_empty());
        tokio::time::sleep(Duration::from_millis(250)).await;
        let other = db.open().await;
        let (b, d) = (lease("b", 60_000), lease("d", 60_000));
        let (mine, theirs) = tokio::join!(
            store.take_over_turns(&b, false),
            other.take_over_turns(&d, false),
        );
        let mut all = mine.unwrap();
        all.extend(theirs.unwrap());
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!(all[0].turn.id, "lapsing");
        assert_eq!(all[0].previous_owner.as_deref(), Some("a"));
        assert_eq!(all[0].turn.status, TurnStatus::Running);
        let owner = all[0].turn.owner.clone().unwrap();
        // Its new owner's lease holds; a restarted `c` takes its own turn back at once.
        assert!(store.take_over_turns(&lease("e", 60_000), false).await.unwrap().is_empty());
        let own = store.take_over_turns(&lease("c", 60_000), true).await.unwrap();
        assert_eq!(own.len(), 1);
        assert_eq!(own[0].turn.id, "alive");
        assert_eq!(own[0].previous_owner.as_deref(), Some("c"));
        let renewed = store.renew_turn_leases(&lease(&owner, 60_000)).await.unwrap();
        assert_eq!(renewed, ["lapsing"]);
        assert!(store.renew_turn_leases(&lease("a", 60_000)).await.unwrap().is_empty());
        // A draining owner lets its turn go: the next sweep takes it at once.
        assert!(!store.release_turn_lease("alive", "x").await.unwrap());
        assert!(store.release_turn_lease("alive", "c").await.unwrap());
        let drained = store.take_over_turns(&lease("e", 60_000), false).await.unwrap();
        assert_eq!(drained.len(), 1);
        assert_eq!(drained[0].previous_owner.as_deref(), Some("c"));
    }
}
