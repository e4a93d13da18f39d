//! Sessions: create, get, list (newest first, by project, by status), update, conversation,
//! delete (with its events and turns).

use crate::common;

use std::path::PathBuf;

use common::{session, status_events, store_tests, temp_store};
use keel_store::{
    EventRange, NewSession, NewTurn, SessionFilter, SessionOrder, SessionStatus, SessionUpdate,
    Store, StoreError,
};
use serde_json::json;

#[tokio::test]
async fn corrupt_session_row_is_a_typed_error() {
    let (_dir, store) = temp_store().await;
    session(&store, "s").await;
    sqlx::query("UPDATE sessions SET status = 'dreaming' WHERE id = 's'")
        .execute(store.pool())
        .await
        .unwrap();
    let err = store.get_session("s").await.unwrap_err();
    assert!(
        matches!(&err, StoreError::CorruptRow { table: "session", id, column: "status", .. } if id == "s"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("unknown session status `dreaming`"),
        "{err}"
    );
}

store_tests! {
    #[tokio::test]
    async fn create_then_get_returns_what_was_stored(db, store) {
        let metadata = json!({"client": "cli", "tags": ["a"]})
            .as_object()
            .cloned()
            .unwrap();
        let created = store
            .create_session(
                NewSession::new("proj-1", "/work/app")
                    .with_title("add a login page")
                    .with_model("gpt-x")
                    .with_mode("plan")
                    .with_metadata(metadata.clone()),
            )
            .await
            .unwrap();
        assert_eq!(created.status, SessionStatus::Idle);
        assert_eq!(created.created_at, created.updated_at);
        assert!(uuid::Uuid::parse_str(&created.id).is_ok(), "{}", created.id);

        let got = store.get_session(&created.id).await.unwrap();
        assert_eq!(got, created);
        assert_eq!(got.project_id, "proj-1");
        assert_eq!(got.root, PathBuf::from("/work/app"));
        assert_eq!(got.title, "add a login page");
        assert_eq!(got.model.as_deref(), Some("gpt-x"));
        assert_eq!(got.mode.as_deref(), Some("plan"));
        assert_eq!(got.metadata, metadata);
    }


    #[tokio::test]
    async fn duplicate_id_and_unknown_id_are_typed_errors(db, store) {
        session(store.as_ref(), "s1").await;
        let err = store
            .create_session(NewSession::new("p", "/x").with_id("s1"))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::DuplicateSession(id) if id == "s1"),
            "{err}"
        );
        assert_eq!(err.to_string(), "session `s1` already exists");

        let err = store.get_session("nope").await.unwrap_err();
        assert!(err.is_not_found());
        assert_eq!(err.to_string(), "session `nope` not found");
        assert!(
            store
                .update_session("nope", SessionUpdate::status(SessionStatus::Running))
                .await
                .unwrap_err()
                .is_not_found()
        );
        assert!(
            store
                .save_conversation("nope", &json!([]))
                .await
                .unwrap_err()
                .is_not_found()
        );
        assert!(
            store
                .load_conversation("nope")
                .await
                .unwrap_err()
                .is_not_found()
        );
        assert!(
            store
                .delete_session("nope")
                .await
                .unwrap_err()
                .is_not_found()
        );
    }


    #[tokio::test]
    async fn list_is_newest_first_and_filters_by_project_status_and_limit(db, store) {
        for (id, project) in [("a", "p1"), ("b", "p2"), ("c", "p1"), ("d", "p1")] {
            store
                .create_session(NewSession::new(project, "/w").with_id(id))
                .await
                .unwrap();
        }
        let ids =
            |sessions: Vec<keel_store::Session>| sessions.into_iter().map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(
            ids(store.list_sessions(&SessionFilter::all()).await.unwrap()),
            ["d", "c", "b", "a"]
        );
        assert_eq!(
            ids(store
                .list_sessions(&SessionFilter::project("p1"))
                .await
                .unwrap()),
            ["d", "c", "a"]
        );
        assert_eq!(
            ids(store
                .list_sessions(&SessionFilter::project("p1").with_limit(2))
                .await
                .unwrap()),
            ["d", "c"]
        );
        assert!(
            store
                .list_sessions(&SessionFilter::project("p9"))
                .await
                .unwrap()
                .is_empty()
        );

        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        store
            .set_session_status("a", SessionStatus::Running)
            .await
            .unwrap();
        assert_eq!(
            ids(store
                .list_sessions(&SessionFilter::all().with_status(SessionStatus::Running))
                .await
                .unwrap()),
            ["a"]
        );
        // `a` was touched last, so it leads when ordering by update.
        assert_eq!(
            ids(store
                .list_sessions(&SessionFilter::all().with_order(SessionOrder::RecentlyUpdated))
                .await
                .unwrap())[0],
            "a"
        );
    }


    #[tokio::test]
    async fn update_changes_only_given_fields_and_moves_updated_at(db, store) {
        let created = store
            .create_session(
                NewSession::new("p", "/w")
                    .with_title("first")
                    .with_model("m1"),
            )
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let updated = store
            .update_session(
                &created.id,
                SessionUpdate {
                    status: Some(SessionStatus::Failed),
                    mode: Some("direct".to_owned()),
                    ..SessionUpdate::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(updated.status, SessionStatus::Failed);
        assert_eq!(updated.mode.as_deref(), Some("direct"));
        assert_eq!(updated.title, "first");
        assert_eq!(updated.model.as_deref(), Some("m1"));
        assert_eq!(updated.created_at, created.created_at);
        assert!(updated.updated_at > created.updated_at);
        assert_eq!(store.get_session(&created.id).await.unwrap(), updated);
    }


    #[tokio::test]
    async fn conversation_is_opaque_json_saved_and_loaded(db, store) {
        session(store.as_ref(), "s").await;
        assert_eq!(store.load_conversation("s").await.unwrap(), None);
        let conversation = json!({
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello", "tool_calls": []}
            ],
            "focused_files": ["src/main.rs"],
            "unicode": "日本語 ✓"
        });
        store.save_conversation("s", &conversation).await.unwrap();
        assert_eq!(
            store.load_conversation("s").await.unwrap(),
            Some(conversation)
        );
        store.save_conversation("s", &json!([1, 2])).await.unwrap();
        assert_eq!(
            store.load_conversation("s").await.unwrap(),
            Some(json!([1, 2]))
        );
    }


    #[tokio::test]
    async fn delete_removes_the_session_its_events_and_turns(db, store) {
        session(store.as_ref(), "gone").await;
        session(store.as_ref(), "kept").await;
        store
            .append_events(&status_events("gone", 3))
            .await
            .unwrap();
        store
            .append_events(&status_events("kept", 2))
            .await
            .unwrap();
        store
            .begin_turn(NewTurn::new("gone", "do it"))
            .await
            .unwrap();

        store.delete_session("gone").await.unwrap();
        assert!(store.get_session("gone").await.unwrap_err().is_not_found());
        assert_eq!(store.count_events("gone").await.unwrap(), 0);
        assert!(store.list_turns("gone").await.unwrap().is_empty());
        assert_eq!(
            store
                .read_events("kept", EventRange::all())
                .await
                .unwrap()
                .len(),
            2
        );
    }

}
