//! The shadow workspace on real files: whatever a session does to its view (writes, creations,
//! deletions, moves, in any order), the real tree is untouched until `apply`, which makes it
//! equal to the view; the tools' reads see the session's changes and, for every other path, the
//! real file as it is now; moves are staged as moves; some paths discard alone; symlinks are
//! staged as links; paths are normalised; bad paths and a damaged manifest change nothing.

use std::path::Path;

use keel_events::{Bus, Emitter, Sequencer};
use keel_test_support::tree_bytes;
use keel_tools::{ChangeKind, PathError, Shadow, ShadowError, ToolContext, ToolRegistry};
use proptest::prelude::*;
use serde_json::json;

const NAMES: &[&str] = &["a.txt", "src/b.rs", "src/deep/c.md", "d.bin", "new/e.txt"];

fn project(root: &Path) {
    for name in &NAMES[..4] {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{name}\n")).unwrap();
    }
}

/// One thing a session does to a path of its copy.
#[derive(Debug, Clone)]
enum Op {
    Write(usize, String),
    Delete(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..NAMES.len(), "[a-z\n]{0,12}").prop_map(|(i, text)| Op::Write(i, text)),
        (0..NAMES.len()).prop_map(Op::Delete),
    ]
}

fn run(tree: &Path, ops: &[Op]) {
    for op in ops {
        match op {
            Op::Write(i, text) => {
                let path = tree.join(NAMES[*i]);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            Op::Delete(i) => {
                let _ = std::fs::remove_file(tree.join(NAMES[*i]));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn apply_makes_the_real_tree_equal_to_the_copy(ops in prop::collection::vec(op(), 0..10)) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        project(&root);
        let before = tree_bytes(&root).unwrap();
        let mut shadow = Shadow::open_or_create(&root, "prop").unwrap();
        let tree = shadow.tree();
        run(&tree, &ops);
        prop_assert_eq!(&tree_bytes(&root).unwrap(), &before);
        let copy = tree_bytes(&tree).unwrap();
        let staged = shadow.batch().unwrap();
        match shadow.apply(&[]) {
            Ok(report) => {
                prop_assert!(report.conflicts.is_empty());
                prop_assert!(report.closed);
                prop_assert_eq!(report.applied, staged.paths());
            }
            Err(ShadowError::NothingToApply(_)) => prop_assert!(staged.changes.is_empty()),
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        }
        prop_assert_eq!(tree_bytes(&root).unwrap(), copy);
    }
}

#[tokio::test]
async fn tools_in_the_shadow_read_the_copy_and_leave_the_tree_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let before = tree_bytes(&root).unwrap();
    let shadow = Shadow::open_or_create(&root, "tools").unwrap();
    let ctx = ToolContext::new(
        &root,
        Emitter::new(Sequencer::new("tools", "p"), Bus::default()),
    )
    .in_shadow(shadow.tree());
    let tools = ToolRegistry::builtin();
    let wrote = tools
        .call(
            &ctx,
            "write_file",
            json!({"path": "a.txt", "content": "changed\n"}),
        )
        .await;
    assert!(wrote.success, "{}", wrote.message);
    let deleted = tools
        .call(&ctx, "delete_file", json!({"path": "src/b.rs"}))
        .await;
    assert!(deleted.success, "{}", deleted.message);
    let read = tools
        .call(&ctx, "read_file", json!({"path": "a.txt"}))
        .await;
    assert!(read.content.unwrap_or_default().contains("changed"));
    let gone = tools
        .call(&ctx, "read_file", json!({"path": "src/b.rs"}))
        .await;
    assert!(!gone.success, "a deleted path reads as absent");
    let listed = tools
        .call(&ctx, "list_files", json!({"path": ".", "recursive": true}))
        .await;
    let listing = listed.content.unwrap_or_default();
    assert!(
        !listing.contains("b.rs") && listing.contains("c.md"),
        "{listing}"
    );
    assert_eq!(tree_bytes(&root).unwrap(), before);
    // Nothing of the copy's own folder leaks into what the tools see.
    assert!(!listing.contains(".keel"), "{listing}");
}

#[test]
fn symlinks_are_staged_as_links_and_paths_are_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let mut shadow = Shadow::open_or_create(&root, "links").unwrap();
    std::os::unix::fs::symlink("a.txt", shadow.tree().join("link")).unwrap();
    let batch = shadow.batch().unwrap();
    assert_eq!(batch.paths(), vec!["link".to_owned()]);
    let report = shadow.apply(&["./link".to_owned()]).unwrap();
    assert_eq!(report.applied, vec!["link".to_owned()]);
    assert_eq!(
        std::fs::read_link(root.join("link")).unwrap(),
        Path::new("a.txt")
    );
}

#[test]
fn bad_session_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["../escape", "a/b", ""] {
        let err = Shadow::open_or_create(dir.path(), bad).unwrap_err();
        assert!(
            matches!(err, ShadowError::InvalidSession(_)),
            "{bad}: {err}"
        );
    }
    assert!(!dir.path().join(".keel").exists());
}

#[tokio::test]
async fn commands_in_the_shadow_run_in_the_copy_and_cannot_reach_the_real_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(init.success());
    let mut shadow = Shadow::open_or_create(&root, "cmd").unwrap();
    let ctx = ToolContext::new(
        &root,
        Emitter::new(Sequencer::new("cmd", "p"), Bus::default()),
    )
    .in_shadow(shadow.tree());
    let tools = ToolRegistry::builtin();
    let ran = tools
        .call(
            &ctx,
            "execute_command",
            json!({"command": "pwd; echo made > made.txt; git status", "requires_approval": false}),
        )
        .await;
    let output = ran.content.unwrap_or_default();
    assert!(
        output.contains(&shadow.tree().display().to_string()),
        "{output}"
    );
    assert!(output.contains("not a git repository"), "{output}");
    assert!(!root.join("made.txt").exists());
    assert_eq!(shadow.batch().unwrap().paths(), vec!["made.txt".to_owned()]);
}

fn shadow_ctx(root: &Path, shadow: &Shadow) -> ToolContext {
    ToolContext::new(root, Emitter::new(Sequencer::new("s", "p"), Bus::default()))
        .in_shadow(shadow.tree())
}

fn content(result: keel_protocol::ToolResult) -> String {
    assert!(result.success, "{}", result.message);
    result.content.unwrap_or_default()
}

#[tokio::test]
async fn reads_fall_through_to_the_real_tree_until_the_session_changes_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let mut shadow = Shadow::open_or_create(&root, "fall").unwrap();
    let ctx = shadow_ctx(&root, &shadow);
    let tools = ToolRegistry::builtin();
    let read = |path: &'static str| tools.call(&ctx, "read_file", json!({ "path": path }));

    // Someone edits, creates and deletes real files while the session runs.
    std::fs::write(root.join("a.txt"), "edited outside\n").unwrap();
    std::fs::write(root.join("fresh.txt"), "new outside\n").unwrap();
    std::fs::remove_file(root.join("src/deep/c.md")).unwrap();
    shadow.sync().unwrap();
    assert!(content(read("a.txt").await).contains("edited outside"));
    assert!(content(read("fresh.txt").await).contains("new outside"));
    assert!(!read("src/deep/c.md").await.success);
    let listing = content(
        tools
            .call(&ctx, "list_files", json!({"path": ".", "recursive": true}))
            .await,
    );
    assert!(
        listing.contains("fresh.txt") && !listing.contains("c.md"),
        "{listing}"
    );
    let found = content(
        tools
            .call(
                &ctx,
                "search_files",
                json!({"path": ".", "regex": "outside"}),
            )
            .await,
    );
    assert!(
        found.contains("a.txt") && found.contains("fresh.txt"),
        "{found}"
    );

    // Once the session changed a path, its version wins over later outside edits…
    let wrote = tools
        .call(
            &ctx,
            "write_file",
            json!({"path": "src/b.rs", "content": "mine\n"}),
        )
        .await;
    assert!(wrote.success, "{}", wrote.message);
    shadow.sync().unwrap();
    std::fs::write(root.join("src/b.rs"), "theirs\n").unwrap();
    shadow.sync().unwrap();
    assert!(content(read("src/b.rs").await).contains("mine"));
    // …and only the session's changes are staged; the outside edit of a changed path is a
    // conflict, and nothing of the real tree was written.
    let batch = shadow.batch().unwrap();
    assert_eq!(batch.paths(), vec!["src/b.rs".to_owned()]);
    assert!(batch.changes[0].conflict.is_some(), "{batch:?}");
    let report = Shadow::open(&root, "fall").unwrap().apply(&[]).unwrap();
    assert!(
        report.applied.is_empty() && report.conflicts.len() == 1,
        "{report:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/b.rs")).unwrap(),
        "theirs\n"
    );
}

#[tokio::test]
async fn an_edit_based_on_a_stale_read_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let shadow = Shadow::open_or_create(&root, "stale").unwrap();
    let ctx = shadow_ctx(&root, &shadow);
    // The real file changes after the view was refreshed and before the session writes it.
    std::fs::write(root.join("a.txt"), "outside, unseen\n").unwrap();
    let wrote = ToolRegistry::builtin()
        .call(
            &ctx,
            "write_file",
            json!({"path": "a.txt", "content": "mine\n"}),
        )
        .await;
    assert!(wrote.success, "{}", wrote.message);
    let report = Shadow::open(&root, "stale").unwrap().apply(&[]).unwrap();
    assert_eq!(report.conflicts.len(), 1, "{report:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "outside, unseen\n"
    );
}

#[tokio::test]
async fn a_move_is_staged_as_a_move_and_applied_as_one() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let inode = std::fs::metadata(root.join("src/b.rs")).unwrap().ino();
    let mut shadow = Shadow::open_or_create(&root, "move").unwrap();
    let ctx = shadow_ctx(&root, &shadow);
    let moved = ToolRegistry::builtin()
        .call(
            &ctx,
            "move_file",
            json!({"fromPath": "src/b.rs", "toPath": "lib/b.rs"}),
        )
        .await;
    assert!(moved.success, "{}", moved.message);
    let batch = shadow.batch().unwrap();
    assert_eq!(batch.changes.len(), 1, "{batch:?}");
    let change = &batch.changes[0];
    assert_eq!(change.kind, ChangeKind::Moved);
    assert_eq!(change.path, "lib/b.rs");
    assert_eq!(change.from.as_deref(), Some("src/b.rs"));
    assert!(root.join("src/b.rs").exists() && !root.join("lib").exists());
    // Either path names the move.
    let report = shadow.apply(&["src/b.rs".to_owned()]).unwrap();
    assert_eq!(report.applied, vec!["lib/b.rs".to_owned()]);
    assert!(report.closed);
    assert!(!root.join("src/b.rs").exists());
    let meta = std::fs::metadata(root.join("lib/b.rs")).unwrap();
    assert_eq!(meta.ino(), inode, "applied as a rename, not a copy");
    assert_eq!(
        std::fs::read_to_string(root.join("lib/b.rs")).unwrap(),
        "src/b.rs\n"
    );
}

#[test]
fn some_paths_discard_alone_and_bad_paths_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let before = tree_bytes(&root).unwrap();
    let mut shadow = Shadow::open_or_create(&root, "some").unwrap();
    let tree = shadow.tree();
    std::fs::write(tree.join("a.txt"), "changed\n").unwrap();
    std::fs::remove_file(tree.join("src/b.rs")).unwrap();
    std::fs::write(tree.join("new.txt"), "new\n").unwrap();
    let staged = shadow.batch().unwrap().paths();
    assert_eq!(staged, vec!["a.txt", "new.txt", "src/b.rs"]);

    let outside = dir.path().parent().unwrap().join("elsewhere.txt");
    for bad in ["../escape.txt", outside.to_str().unwrap()] {
        for result in [
            Shadow::open(&root, "some")
                .unwrap()
                .discard_paths(&[bad.to_owned()])
                .map(|_| ()),
            Shadow::open(&root, "some")
                .unwrap()
                .apply(&[bad.to_owned()])
                .map(|_| ()),
        ] {
            assert!(
                matches!(
                    result,
                    Err(ShadowError::Root(
                        PathError::ClimbsOut { .. } | PathError::OutsideRoot { .. }
                    ))
                ),
                "{bad}: {result:?}"
            );
        }
    }
    let err = Shadow::open(&root, "some")
        .unwrap()
        .discard_paths(&["a.txt".to_owned(), "never.txt".to_owned()])
        .unwrap_err();
    assert!(
        err.to_string().contains("never.txt") && err.to_string().contains("nothing was discarded"),
        "{err}"
    );
    assert_eq!(
        Shadow::open(&root, "some")
            .unwrap()
            .batch()
            .unwrap()
            .paths(),
        staged
    );

    let report = Shadow::open(&root, "some")
        .unwrap()
        .discard_paths(&["./a.txt".to_owned(), "src/b.rs".to_owned()])
        .unwrap();
    assert_eq!(report.discarded, vec!["a.txt", "src/b.rs"]);
    assert_eq!(report.remaining, vec!["new.txt"]);
    assert!(!report.closed);
    // The view has the real files back; only the new file is still staged.
    assert_eq!(std::fs::read(tree.join("a.txt")).unwrap(), b"a.txt\n");
    assert!(tree.join("src/b.rs").exists());
    assert_eq!(
        Shadow::open(&root, "some")
            .unwrap()
            .batch()
            .unwrap()
            .paths(),
        vec!["new.txt"]
    );
    let last = Shadow::open(&root, "some")
        .unwrap()
        .discard_paths(&["new.txt".to_owned()])
        .unwrap();
    assert!(last.closed);
    assert!(!tree.exists());
    assert_eq!(tree_bytes(&root).unwrap(), before);
}

#[test]
fn a_damaged_manifest_is_reported_and_can_be_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let shadow = Shadow::open_or_create(&root, "broken").unwrap();
    let dir_of = Shadow::dir_for(&root, "broken").unwrap();
    std::fs::write(shadow.tree().join("a.txt"), "staged\n").unwrap();
    std::fs::write(dir_of.join("base.json"), "{\"version\": 2, \"touched\": 7").unwrap();
    let err = Shadow::open(&root, "broken").unwrap_err();
    assert!(matches!(err, ShadowError::Damaged { .. }), "{err}");
    assert!(err.to_string().contains("keel shadow discard"), "{err}");
    // A manifest of the earlier format is reported the same way.
    std::fs::write(dir_of.join("base.json"), "{\"version\": 1, \"files\": {}}").unwrap();
    let err = Shadow::open(&root, "broken").unwrap_err();
    assert!(err.to_string().contains("format version 1"), "{err}");
    assert_eq!(
        keel_tools::shadow::discard(&root, Some("broken")).unwrap(),
        "broken"
    );
    assert!(!dir_of.exists());
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a.txt\n");
}

#[test]
fn a_shadow_being_made_is_never_seen_half_made() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // Enough files that making the view takes a while.
    for i in 0..400 {
        let path = root.join(format!("src/m{}/f{i}.txt", i % 20));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{i}\n")).unwrap();
    }
    let reader_root = root.clone();
    let reader = std::thread::spawn(move || {
        // Until the session's shadow can be opened: "none yet" is fine, "damaged" is not.
        for _ in 0..1_000_000 {
            match Shadow::open(&reader_root, "racing") {
                Ok(shadow) => return shadow.tree().join("src/m0/f0.txt").is_file(),
                Err(ShadowError::NoPending { .. }) => std::thread::yield_now(),
                Err(e) => panic!("a reader saw the shadow half made: {e}"),
            }
        }
        panic!("the shadow was never made");
    });
    let shadow = Shadow::open_or_create(&root, "racing").unwrap();
    assert!(reader.join().unwrap());
    // Only the session's folder is left: the one it was made in is gone.
    let folders: Vec<String> =
        std::fs::read_dir(Shadow::dir_for(&root, "racing").unwrap().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
    assert_eq!(folders, vec!["racing".to_owned()]);
    assert_eq!(
        keel_tools::shadow::pending_sessions(&root).unwrap(),
        vec!["racing".to_owned()]
    );
    drop(shadow);
    // Made again for an existing folder: opened, not remade.
    assert!(Shadow::open_or_create(&root, "racing").is_ok());
}

/// One thing done while a session runs: by the session in its view, or by someone else in the
/// real tree, or the sync that precedes a tool call.
#[derive(Debug, Clone)]
enum Step {
    Session(Op),
    Outside(Op),
    Sync,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        op().prop_map(Step::Session),
        op().prop_map(Step::Outside),
        Just(Step::Sync),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// After a sync, every path the session never changed reads as the real file is now, and
    /// every path it changed reads as the session left it; the real tree only ever holds what
    /// was done to it outside.
    #[test]
    fn after_a_sync_unchanged_paths_fall_through_and_changed_ones_do_not(
        steps in prop::collection::vec(step(), 0..16)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        project(&root);
        let mut shadow = Shadow::open_or_create(&root, "cow").unwrap();
        let tree = shadow.tree();
        let view = |tree: &Path| -> Vec<Option<Vec<u8>>> {
            NAMES.iter().map(|name| std::fs::read(tree.join(name)).ok()).collect()
        };
        // The paths the session changed: their view differed from the last sync's.
        let mut mine = std::collections::BTreeSet::new();
        let mut last = view(&tree);
        let mut expected_real = tree_bytes(&root).unwrap();
        for step in &steps {
            match step {
                Step::Session(op) => run(&tree, std::slice::from_ref(op)),
                Step::Outside(op) => {
                    run(&root, std::slice::from_ref(op));
                    expected_real = tree_bytes(&root).unwrap();
                }
                Step::Sync => {
                    let before = view(&tree);
                    for (i, name) in NAMES.iter().enumerate() {
                        if before[i] != last[i] {
                            mine.insert(*name);
                        }
                    }
                    shadow.sync().unwrap();
                    let after = view(&tree);
                    for (i, name) in NAMES.iter().enumerate() {
                        let want = if mine.contains(name) {
                            before[i].clone()
                        } else {
                            std::fs::read(root.join(name)).ok()
                        };
                        prop_assert_eq!(&after[i], &want, "{}", name);
                    }
                    last = after;
                }
            }
            prop_assert_eq!(&tree_bytes(&root).unwrap(), &expected_real);
        }
    }
}
