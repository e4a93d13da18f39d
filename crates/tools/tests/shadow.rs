//! The shadow workspace on real files: whatever a session does to its copy (writes, creations,
//! deletions, in any order), the real tree is untouched until `apply`, which makes it equal to
//! the copy; the tools' reads see the copy; symlinks are staged as links; paths are normalised.

use std::path::Path;

use keel_events::{Bus, Emitter, Sequencer};
use keel_test_support::tree_bytes;
use keel_tools::{Shadow, ShadowError, ToolContext, ToolRegistry};
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
        let shadow = Shadow::open_or_create(&root, "prop").unwrap();
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
    let shadow = Shadow::open_or_create(&root, "links").unwrap();
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
    let shadow = Shadow::open_or_create(&root, "cmd").unwrap();
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
