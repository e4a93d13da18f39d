//! Stored conversations in every shape a front end ever wrote load into the same history, in a
//! real SQLite store; anything else is an error naming the session, never an empty history.

use keel_context::Conversation;
use keel_host::{HostError, SavedConversation, open_session};
use keel_store::{NewSession, SqliteStore, Store};
use serde_json::{Value, json};

/// A store in a temp dir with one session whose metadata may carry a conversation id.
async fn store_with_session(metadata: Value) -> (tempfile::TempDir, SqliteStore, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("keel.db")).await.unwrap();
    let new = NewSession::new("p1", dir.path())
        .with_metadata(metadata.as_object().cloned().unwrap_or_default());
    let session = store.create_session(new).await.unwrap();
    (dir, store, session.id)
}

fn two_turns() -> Conversation {
    let mut conversation = Conversation::new();
    conversation.push_user("first task");
    conversation
        .push_assistant("first answer", Vec::new())
        .unwrap();
    conversation.push_user("second task");
    conversation
        .push_assistant("second answer", Vec::new())
        .unwrap();
    conversation
}

/// Saves `row` as the session's conversation column and opens the session.
async fn open_with(row: Value, metadata: Value) -> (String, Result<SavedConversation, HostError>) {
    let (_dir, store, id) = store_with_session(metadata).await;
    store.save_conversation(&id, &row).await.unwrap();
    let opened = open_session(&store, &id).await;
    (id, opened.map(|o| o.saved.expect("a saved conversation")))
}

#[tokio::test]
async fn the_current_shape_round_trips() {
    let (_dir, store, id) = store_with_session(json!({})).await;
    let saved = SavedConversation::new("conv_abc", two_turns());
    let value = saved.to_value(&id).unwrap();
    assert_eq!(value["version"], 1);
    store.save_conversation(&id, &value).await.unwrap();
    let opened = open_session(&store, &id).await.unwrap();
    assert_eq!(opened.saved, Some(saved));
    assert_eq!(opened.last_seq, 0);
}

#[tokio::test]
async fn the_servers_unversioned_shape_loads() {
    let written = two_turns();
    let conversation = serde_json::to_value(&written).unwrap();
    let row = json!({"conversation_id": "conv_server", "conversation": conversation});
    let (_, saved) = open_with(row, json!({})).await;
    let saved = saved.unwrap();
    assert_eq!(saved.conversation_id, "conv_server");
    assert_eq!(saved.conversation, written);
}

#[tokio::test]
async fn the_clis_bare_conversation_loads_with_the_id_from_metadata() {
    let row = serde_json::to_value(two_turns()).unwrap();
    let (_, saved) = open_with(row, json!({"conversation_id": "conv_cli"})).await;
    let saved = saved.unwrap();
    assert_eq!(saved.conversation_id, "conv_cli");
    assert_eq!(saved.conversation.len(), 4);
}

#[tokio::test]
async fn a_bare_conversation_without_metadata_gets_an_id_from_the_session() {
    let row = serde_json::to_value(two_turns()).unwrap();
    let (id, saved) = open_with(row, json!({})).await;
    let saved = saved.unwrap();
    assert_eq!(
        saved.conversation_id,
        format!("conv_{}", id.replace('-', ""))
    );
}

#[tokio::test]
async fn a_session_without_a_conversation_opens_with_none() {
    let (_dir, store, id) = store_with_session(json!({})).await;
    let opened = open_session(&store, &id).await.unwrap();
    assert!(opened.saved.is_none());
}

#[tokio::test]
async fn unreadable_rows_are_errors_naming_the_session() {
    let conversation = serde_json::to_value(two_turns()).unwrap();
    let cases = [
        (
            json!({"version": 2, "conversation_id": "c", "conversation": conversation}),
            "version 2 is not supported",
        ),
        (json!({"version": "1"}), "is not supported"),
        (json!({"history": []}), "unrecognised shape (keys: history)"),
        (json!({}), "unrecognised shape"),
        (json!([1, 2]), "expected a JSON object, found a list"),
        (json!("text"), "expected a JSON object, found a string"),
        (
            json!({"version": 1, "conversation": conversation}),
            "`conversation_id` is missing",
        ),
        (
            json!({"version": 1, "conversation_id": "c", "conversation": {}}),
            "`conversation.messages` is missing",
        ),
        (
            json!({"conversation_id": "c", "conversation": {"messages": "no"}}),
            "`conversation.messages` is missing or not a list",
        ),
        (
            json!({"messages": [{"role": "wizard"}]}),
            "bad conversation",
        ),
    ];
    for (row, expected) in cases {
        let (id, saved) = open_with(row.clone(), json!({})).await;
        let error = saved
            .expect_err(&format!("{row} should not load"))
            .to_string();
        assert!(
            error.contains(&format!("session `{id}`")) && error.contains(expected),
            "{row}: {error}"
        );
    }
}
