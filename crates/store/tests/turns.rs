//! Turns: begin (idempotent by request id), finish, list, and failing interrupted turns.

use crate::common;

use common::{session, store_tests};
use std::time::Duration;

use keel_store::{INTERRUPTED_ERROR, NewTurn, StoreError, TurnLease, TurnOutcome, TurnStatus};

fn lease(owner: &str, millis: u64) -> TurnLease {
    TurnLease::new(owner, Duration::from_millis(millis))
}

store_tests! {
    #[tokio::test]
    async fn begin_then_finish(db, store) {
        session(store.as_ref(), "s").await;
        let start = store
            .begin_turn(NewTurn::new("s", "write tests").with_id("t1"))
            .await
            .unwrap();
        assert!(start.created);
        let turn = start.turn;
        assert_eq!(turn.id, "t1");
        assert_eq!(turn.status, TurnStatus::Running);
        assert_eq!(turn.ended_at, None);
        assert_eq!(store.get_turn("t1").await.unwrap(), turn);

        let done = store
            .finish_turn("t1", TurnOutcome::Completed, None)
            .await
            .unwrap();
        assert_eq!(done.status, TurnStatus::Completed);
        assert!(done.ended_at.is_some_and(|end| end >= done.started_at));
        assert_eq!(store.get_turn("t1").await.unwrap(), done);

        let err = store
            .finish_turn("t1", TurnOutcome::Failed, Some("late".to_owned()))
            .await
            .unwrap_err();
        assert!(
            matches!(
                &err,
                StoreError::TurnNotRunning {
                    status: TurnStatus::Completed,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(err.to_string(), "turn `t1` has already ended (completed)");
        assert!(
            store
                .finish_turn("nope", TurnOutcome::Failed, None)
                .await
                .unwrap_err()
                .is_not_found()
        );
    }


    #[tokio::test]
    async fn request_id_makes_begin_idempotent(db, store) {
        session(store.as_ref(), "s").await;
        session(store.as_ref(), "other").await;
        let first = store
            .begin_turn(NewTurn::new("s", "fix the bug").with_request_id("req-1"))
            .await
            .unwrap();
        assert!(first.created);

        // A client retry gets the same turn back, not a second one.
        let retry = store
            .begin_turn(NewTurn::new("s", "fix the bug").with_request_id("req-1"))
            .await
            .unwrap();
        assert!(!retry.created);
        assert_eq!(retry.turn, first.turn);
        assert_eq!(store.list_turns("s").await.unwrap().len(), 1);
        assert_eq!(
            store.turn_by_request_id("s", "req-1").await.unwrap(),
            Some(first.turn.clone())
        );
        assert_eq!(store.turn_by_request_id("s", "req-2").await.unwrap(), None);

        // The key is per session.
        let elsewhere = store
            .begin_turn(NewTurn::new("other", "fix the bug").with_request_id("req-1"))
            .await
            .unwrap();
        assert!(elsewhere.created);
        assert_ne!(elsewhere.turn.id, first.turn.id);

        // Reusing a key for a different request is refused.
        let err = store
            .begin_turn(NewTurn::new("s", "something else").with_request_id("req-1"))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::RequestConflict { turn_id, .. } if *turn_id == first.turn.id),
            "{err}"
        );

        // Turns without a key never collide.
        for _ in 0..3 {
            assert!(
                store
                    .begin_turn(NewTurn::new("s", "again"))
                    .await
                    .unwrap()
                    .created
            );
        }
        assert_eq!(store.list_turns("s").await.unwrap().len(), 4);
    }


    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_retries_create_one_turn(db, store) {
        session(store.as_ref(), "s").await;
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                store
                    .begin_turn(NewTurn::new("s", "once").with_request_id("req"))
                    .await
                    .unwrap()
            }));
        }
        let mut created = 0;
        let mut ids = std::collections::BTreeSet::new();
        for task in tasks {
            let start = task.await.unwrap();
            created += usize::from(start.created);
            ids.insert(start.turn.id);
        }
        assert_eq!(created, 1);
        assert_eq!(ids.len(), 1);
    }


    #[tokio::test]
    async fn turn_errors_are_typed(db, store) {
        session(store.as_ref(), "s").await;
        let err = store
            .begin_turn(NewTurn::new("ghost", "x"))
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "session `ghost` not found");
        store
            .begin_turn(NewTurn::new("s", "x").with_id("t"))
            .await
            .unwrap();
        let err = store
            .begin_turn(NewTurn::new("s", "y").with_id("t"))
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::DuplicateTurn(ref id) if id == "t"),
            "{err}"
        );
        assert!(store.get_turn("missing").await.unwrap_err().is_not_found());
    }

    #[tokio::test]
    async fn fail_running_turns_after_a_restart(db, store) {
        session(store.as_ref(), "a").await;
        session(store.as_ref(), "b").await;
        for (id, session) in [("t1", "a"), ("t2", "a"), ("t3", "b"), ("t4", "b")] {
            store
                .begin_turn(NewTurn::new(session, "work").with_id(id))
                .await
                .unwrap();
        }
        store
            .finish_turn("t2", TurnOutcome::Completed, None)
            .await
            .unwrap();
        store
            .finish_turn("t4", TurnOutcome::Cancelled, None)
            .await
            .unwrap();
        store.close().await;
        drop(store);

        // A new process opens the same database.
        let store = db.open().await;
        let failed = store.fail_running_turns().await.unwrap();
        assert_eq!(
            failed.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["t1", "t3"]
        );
        for turn in &failed {
            assert_eq!(turn.status, TurnStatus::Failed);
            assert_eq!(turn.error.as_deref(), Some(INTERRUPTED_ERROR));
            assert!(turn.ended_at.is_some());
            assert_eq!(store.get_turn(&turn.id).await.unwrap(), *turn);
        }
        assert_eq!(
            store.get_turn("t2").await.unwrap().status,
            TurnStatus::Completed
        );
        assert_eq!(
            store.get_turn("t4").await.unwrap().status,
            TurnStatus::Cancelled
        );
        assert!(store.fail_running_turns().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn only_lapsed_leases_and_the_restarted_owners_turns_are_failed(db, store) {
        session(store.as_ref(), "s").await;
        let begin = |id: &'static str, lease: Option<TurnLease>| {
            let store = store.clone();
            async move {
                let mut new = NewTurn::new("s", "work").with_id(id);
                new.lease = lease;
                store.begin_turn(new).await.unwrap().turn
            }
        };
        let short = begin("short", Some(lease("a", 300))).await;
        assert_eq!(short.owner.as_deref(), Some("a"));
        assert!(short.lease_until.is_some_and(|until| until > short.started_at));
        begin("long", Some(lease("b", 60_000))).await;
        begin("unleased", None).await;
        let revived = begin("revived", Some(lease("c", 300))).await;
        assert_eq!(store.get_turn("revived").await.unwrap(), revived);

        // Nothing has lapsed yet.
        assert!(store.fail_expired_turns(None).await.unwrap().is_empty());
        tokio::time::sleep(Duration::from_millis(450)).await;
        // `c` renews after its lease lapsed but before anyone swept: it keeps its turn.
        assert_eq!(store.renew_turn_leases(&lease("c", 60_000)).await.unwrap(), ["revived"]);
        let failed = store.fail_expired_turns(None).await.unwrap();
        assert_eq!(failed.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["short"]);
        assert_eq!(failed[0].status, TurnStatus::Failed);
        assert_eq!(failed[0].error.as_deref(), Some(INTERRUPTED_ERROR));
        // `a` comes back too late: the turn is no longer its.
        assert!(store.renew_turn_leases(&lease("a", 60_000)).await.unwrap().is_empty());

        // `b` restarted: its own turns go at once, lease or not; the unleased turn stays.
        let failed = store.fail_expired_turns(Some("b")).await.unwrap();
        assert_eq!(failed.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["long"]);
        assert_eq!(store.get_turn("unleased").await.unwrap().status, TurnStatus::Running);
        assert_eq!(store.get_turn("revived").await.unwrap().status, TurnStatus::Running);
        assert!(store.fail_expired_turns(Some("b")).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn concurrent_sweeps_fail_each_turn_once(db, store) {
        session(store.as_ref(), "s").await;
        let ids: Vec<String> = (0..20).map(|i| format!("t{i:02}")).collect();
        for (i, id) in ids.iter().enumerate() {
            let new = NewTurn::new("s", "work")
                .with_id(id)
                .with_lease(lease(&format!("owner{}", i % 3), 1));
            store.begin_turn(new).await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        // Two processes sweep at the same time.
        let other = db.open().await;
        let (mine, theirs) = tokio::join!(
            store.fail_expired_turns(None),
            other.fail_expired_turns(None)
        );
        let mut swept: Vec<String> = mine
            .unwrap()
            .into_iter()
            .chain(theirs.unwrap())
            .map(|t| t.id)
            .collect();
        swept.sort();
        assert_eq!(swept, ids);
    }
}
