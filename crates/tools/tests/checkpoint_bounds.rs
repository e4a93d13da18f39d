//! Checkpoints beyond files: the conversation mark of a turn, the fork's merged state, the size
//! bound (oldest pruned, the newest kept) and damaged stores refused before anything changes.

use std::path::Path;

use keel_tools::{CheckpointError, CheckpointStore};
use pretty_assertions::assert_eq;

/// Records turn `turn` of session `s`: its mark, then `path` about to become `content`.
fn turn(store: &CheckpointStore, root: &Path, turn: &str, path: &str, content: &[u8]) -> String {
    let id = store
        .begin_turn(turn, "s", 10, "conv_1", 2, br#"{"messages":[]}"#)
        .unwrap()
        .id;
    let file = root.join(path);
    store.record_before(turn, &file).unwrap();
    std::fs::write(&file, content).unwrap();
    id
}

#[test]
fn a_turn_checkpoint_keeps_the_conversation_and_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = CheckpointStore::open(dir.path()).unwrap();
    std::fs::write(dir.path().join("a.txt"), "before\n").unwrap();
    let id = turn(&store, dir.path(), "t1", "a.txt", b"after\n");
    let checkpoint = store.get(&id).unwrap();
    assert_eq!(checkpoint.session_id(), Some("s"));
    let mark = checkpoint.conversation.as_ref().unwrap();
    assert_eq!((mark.seq_before, mark.messages), (10, 2));
    assert_eq!(
        checkpoint.files.len(),
        1,
        "the file joins the turn's checkpoint"
    );
    assert_eq!(
        store.conversation(&checkpoint).unwrap().unwrap(),
        br#"{"messages":[]}"#
    );
}

#[test]
fn the_fork_state_holds_each_file_as_it_was_before_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store = CheckpointStore::open(root).unwrap();
    std::fs::write(root.join("a.txt"), "0\n").unwrap();
    let first = turn(&store, root, "t1", "a.txt", b"1\n");
    let second = turn(&store, root, "t2", "a.txt", b"2\n");
    turn(&store, root, "t3", "b.txt", b"new\n");
    let fork = store.fork_state(&second, "fork", "conv_2").unwrap();
    assert_eq!(fork.session_id(), Some("fork"));
    let paths: Vec<_> = fork.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "b.txt"]);
    // Restoring the fork's checkpoint gives the state before t2, and keeps t1..t3.
    store.rollback(&fork.id).unwrap();
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "1\n");
    assert!(!root.join("b.txt").exists());
    assert_eq!(store.list().unwrap().len(), 3);
    assert!(store.get(&first).is_ok());
}

#[test]
fn past_the_limit_the_oldest_checkpoints_are_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store = CheckpointStore::open(root)
        .unwrap()
        .with_max_bytes(64 * 1024);
    let mut ids = Vec::new();
    for n in 0..6u8 {
        let name = format!("f{n}.bin");
        // 20 KB of distinct content per turn: the before-content of the previous turn's file.
        std::fs::write(root.join(&name), vec![n; 20 * 1024]).unwrap();
        ids.push(turn(&store, root, &format!("t{n}"), &name, b"x"));
    }
    let (sizes, total) = store.sizes().unwrap();
    assert!(total <= 64 * 1024, "{total} bytes kept");
    let kept: Vec<_> = sizes.iter().map(|s| s.id.clone()).collect();
    assert!(kept.len() < ids.len(), "nothing pruned: {kept:?}");
    assert_eq!(
        kept,
        ids[ids.len() - kept.len()..],
        "the newest are kept, in order"
    );
    assert!(sizes.iter().all(|s| s.bytes > 20 * 1024));
    assert!(matches!(
        store.get(&ids[0]),
        Err(CheckpointError::NotFound(_))
    ));
    let blobs = std::fs::read_dir(store.dir().join("blobs"))
        .unwrap()
        .count();
    assert_eq!(blobs, kept.len() + 1, "pruned checkpoints' blobs are gone");
    // What is kept still rolls back.
    store.rollback(&kept[0]).unwrap();
    assert_eq!(
        std::fs::read(root.join("f5.bin")).unwrap(),
        vec![5; 20 * 1024]
    );
}

#[test]
fn a_single_checkpoint_over_the_limit_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store = CheckpointStore::open(root).unwrap().with_max_bytes(1);
    std::fs::write(root.join("big.bin"), vec![7; 4096]).unwrap();
    let id = turn(&store, root, "t1", "big.bin", b"x");
    assert_eq!(store.list().unwrap().len(), 1);
    store.rollback(&id).unwrap();
    assert_eq!(std::fs::read(root.join("big.bin")).unwrap(), vec![7; 4096]);
}

#[test]
fn a_missing_blob_is_found_before_anything_is_restored() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store = CheckpointStore::open(root).unwrap();
    std::fs::write(root.join("a.txt"), "a0\n").unwrap();
    std::fs::write(root.join("b.txt"), "b0\n").unwrap();
    let first = turn(&store, root, "t1", "a.txt", b"a1\n");
    let second = turn(&store, root, "t2", "b.txt", b"b1\n");
    // Damage the older checkpoint's blob: the newer one must not be restored either.
    let blob = store.get(&first).unwrap().files[0].blob.clone().unwrap();
    std::fs::write(store.dir().join("blobs").join(&blob), "tampered").unwrap();
    let err = store.rollback(&first).unwrap_err();
    assert!(matches!(err, CheckpointError::Damaged { .. }), "{err}");
    assert!(err.to_string().contains("nothing was restored"), "{err}");
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "b1\n");
    assert_eq!(store.list().unwrap().len(), 2);
    assert!(store.get(&second).is_ok());
}

#[test]
fn a_root_inside_git_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let git = dir.path().join(".git/objects");
    std::fs::create_dir_all(&git).unwrap();
    let err = CheckpointStore::open(&git).unwrap_err();
    assert!(matches!(err, CheckpointError::InsideGit(_)), "{err}");
}
