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

/// Every file under `dir` with its bytes (`.git` included: it is what is compared).
fn git_tree(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn checkpoints_of_a_repository_leave_git_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let git = root.join(".git");
    std::fs::create_dir_all(git.join("objects/ab")).unwrap();
    std::fs::create_dir_all(git.join("refs/heads")).unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(git.join("config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(git.join("objects/ab/cdef"), [0u8, 1, 2, 255]).unwrap();
    std::fs::write(git.join("refs/heads/main"), "0123abcd\n").unwrap();
    let before = git_tree(&git);
    let store = CheckpointStore::open(root)
        .unwrap()
        .with_max_bytes(8 * 1024);
    std::fs::write(root.join("a.txt"), vec![1u8; 6 * 1024]).unwrap();
    let first = turn(&store, root, "t1", "a.txt", &[2u8; 6 * 1024]);
    turn(&store, root, "t2", "a.txt", b"3");
    let third = turn(&store, root, "t3", "b.txt", b"new");
    // Pruned past the bound, listed, rolled back: `.git` is never written.
    assert!(matches!(
        store.get(&first),
        Err(CheckpointError::NotFound(_))
    ));
    store.usage().unwrap();
    store.rollback(&third).unwrap();
    assert!(store.dir().starts_with(root.join(".keel")));
    assert_eq!(git_tree(&git), before);

    // A checkpoint file naming a path inside `.git` is refused before anything is restored.
    std::fs::write(root.join("a.txt"), "changed").unwrap();
    let id = turn(&store, root, "t4", "a.txt", b"again");
    let path = store.dir().join(format!("{id}.json"));
    let json = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, json.replace("\"a.txt\"", "\".git/HEAD\"")).unwrap();
    let err = store.rollback(&id).unwrap_err();
    assert!(err.to_string().contains(".git"), "{err}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "again"
    );
    assert_eq!(git_tree(&git), before);
}

#[test]
fn only_files_that_differ_are_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store = CheckpointStore::open(root).unwrap();
    std::fs::write(root.join("same.txt"), "same\n").unwrap();
    std::fs::write(root.join("changed.txt"), "before\n").unwrap();
    let id = store
        .begin_turn("t1", "s", 0, "conv_1", 0, b"{}")
        .unwrap()
        .id;
    for name in ["same.txt", "changed.txt"] {
        store.record_before("t1", &root.join(name)).unwrap();
    }
    std::fs::write(root.join("changed.txt"), "after\n").unwrap();
    // The unchanged file's blob is damaged: it is not needed, so the rollback goes ahead.
    let blob = store.get(&id).unwrap().files[0].blob.clone().unwrap();
    std::fs::write(store.dir().join("blobs").join(&blob), "tampered").unwrap();
    let mtime = |name: &str| {
        std::fs::metadata(root.join(name))
            .unwrap()
            .modified()
            .unwrap()
    };
    let same_before = mtime("same.txt");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let report = store.rollback(&id).unwrap();
    assert_eq!(report.restored, ["changed.txt", "same.txt"]);
    assert_eq!(
        std::fs::read_to_string(root.join("changed.txt")).unwrap(),
        "before\n"
    );
    assert_eq!(
        mtime("same.txt"),
        same_before,
        "an unchanged file is not rewritten"
    );
}
