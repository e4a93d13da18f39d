//! Checkpoints: per-turn before-content, rollback of edits, deletes, moves and creations,
//! persisted for a later process.

use crate::common;

use common::Harness;
use keel_tools::{CheckpointError, CheckpointStore};
use pretty_assertions::assert_eq;
use serde_json::json;

fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

#[tokio::test]
async fn several_edits_of_one_file_in_one_turn() {
    let h = Harness::new();
    h.write("a.txt", "v1\n");
    for (from, to) in [("v1", "v2"), ("v2", "v3"), ("v3", "v4")] {
        let r = h
            .call(
                "replace_in_file",
                json!({"path": "a.txt", "diff": block(from, to)}),
            )
            .await;
        assert!(r.success, "{r:?}");
    }
    h.call("write_file", json!({"path": "a.txt", "content": "v5\n"}))
        .await;
    let list = h.store.list().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].turn_id, "turn-1");
    assert_eq!(
        list[0].files.len(),
        1,
        "only the first before-content is kept"
    );
    assert_eq!(list[0].files[0].path, "a.txt");
    let report = h.store.rollback(&list[0].id).unwrap();
    assert_eq!(h.read("a.txt"), "v1\n");
    assert_eq!(report.restored, vec!["a.txt"]);
    assert!(h.store.list().unwrap().is_empty());
}

#[tokio::test]
async fn rollback_after_delete_and_creation() {
    let h = Harness::new();
    h.write("keep.txt", "precious\n");
    h.call("delete_file", json!({"path": "keep.txt"})).await;
    h.call(
        "write_file",
        json!({"path": "made/here/new.txt", "content": "new\n"}),
    )
    .await;
    assert!(!h.exists("keep.txt"));
    let id = h.store.list().unwrap()[0].id.clone();
    let report = h.store.rollback(&id).unwrap();
    assert_eq!(h.read("keep.txt"), "precious\n");
    assert!(!h.exists("made/here/new.txt"));
    assert!(
        !h.exists("made"),
        "folders created with the file are removed too"
    );
    assert_eq!(report.restored, vec!["keep.txt"]);
    assert_eq!(report.removed, vec!["made/here/new.txt"]);
}

#[tokio::test]
async fn rollback_after_move_with_overwrite() {
    let h = Harness::new();
    h.write("from.txt", "F\n");
    h.write("to.txt", "T\n");
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "from.txt", "toPath": "to.txt", "overwrite": true}),
        )
        .await;
    assert!(r.success, "{r:?}");
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "to.txt", "toPath": "elsewhere/x.txt"}),
        )
        .await;
    assert!(r.success, "{r:?}");
    let id = h.store.list().unwrap()[0].id.clone();
    h.store.rollback(&id).unwrap();
    assert_eq!(h.read("from.txt"), "F\n");
    assert_eq!(h.read("to.txt"), "T\n");
    assert!(!h.exists("elsewhere"));
}

#[tokio::test]
async fn rollback_to_an_earlier_turn_undoes_later_ones() {
    let h = Harness::new();
    h.write("a.txt", "0\n");
    h.set_turn("t1");
    h.call("write_file", json!({"path": "a.txt", "content": "1\n"}))
        .await;
    h.set_turn("t2");
    h.call("write_file", json!({"path": "a.txt", "content": "2\n"}))
        .await;
    h.call("write_file", json!({"path": "b.txt", "content": "b\n"}))
        .await;
    h.set_turn("t3");
    h.call("delete_file", json!({"path": "a.txt"})).await;
    let list = h.store.list().unwrap();
    let turns: Vec<&str> = list.iter().map(|c| c.turn_id.as_str()).collect();
    assert_eq!(turns, ["t1", "t2", "t3"]);
    // Back to the start of t2: t3 and t2 undone, t1 kept.
    let report = h.store.rollback(&list[1].id).unwrap();
    assert_eq!(
        report.checkpoints,
        vec![list[2].id.clone(), list[1].id.clone()]
    );
    assert_eq!(h.read("a.txt"), "1\n");
    assert!(!h.exists("b.txt"));
    assert_eq!(h.store.list().unwrap().len(), 1);
}

#[tokio::test]
async fn persisted_for_a_later_process() {
    let h = Harness::new();
    h.write("a.txt", "before\n");
    h.call("write_file", json!({"path": "a.txt", "content": "after\n"}))
        .await;
    assert!(h.root().join(".keel/checkpoints").is_dir());
    // A fresh store (as in `keel rollback` run later) sees and applies it.
    let later = CheckpointStore::open(h.root()).unwrap();
    let list = later.list().unwrap();
    assert_eq!(list.len(), 1);
    assert!(list[0].created_at <= chrono::Utc::now());
    later.rollback(&list[0].id).unwrap();
    assert_eq!(h.read("a.txt"), "before\n");
    assert!(matches!(
        later.rollback("nope"),
        Err(CheckpointError::NotFound(_))
    ));
    assert!(matches!(
        later.get("../../etc"),
        Err(CheckpointError::NotFound(_))
    ));
}

#[tokio::test]
async fn failed_calls_record_nothing() {
    let h = Harness::new();
    h.call("delete_file", json!({"path": "missing"})).await;
    h.call("move_file", json!({"fromPath": "missing", "toPath": "x"}))
        .await;
    assert!(h.store.list().unwrap().is_empty());
}
