//! The persistent cache: a second run parses nothing, an edited file re-parses alone,
//! deleted files drop out, and the rendered map is reused when nothing changed.

use std::path::PathBuf;

use keel_repomap::{MapOptions, MapRequest, RepoMap};
use keel_test_support::copy_dir;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    copy_dir(&fixtures.join("rust"), dir.path()).unwrap();
    copy_dir(&fixtures.join("python"), dir.path()).unwrap();
    dir
}

#[test]
fn second_run_parses_nothing_and_one_edit_parses_one_file() {
    let dir = project();
    let mut first = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    let stats = first.refresh().unwrap();
    assert_eq!(stats.files, 4);
    assert_eq!(stats.parsed, 4);
    assert!(!stats.cached);
    let map = first.render(&MapRequest::default());
    first.save().unwrap();
    assert!(dir.path().join(".keel/cache").is_dir());

    let mut second = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    let stats = second.refresh().unwrap();
    assert_eq!(stats.parsed, 0);
    assert!(stats.cached);
    assert_eq!(stats.files, 4);
    assert_eq!(second.render(&MapRequest::default()), map);

    // Edit one file: only it is parsed again.
    let main = dir.path().join("src/main.rs");
    let mut text = std::fs::read_to_string(&main).unwrap();
    text.push_str("\nfn added_later() {}\n");
    std::fs::write(&main, text).unwrap();
    let mut third = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    let stats = third.refresh().unwrap();
    assert_eq!(stats.parsed, 1);
    assert!(!stats.cached);
    let symbols = &third.file("src/main.rs").unwrap().symbols;
    assert!(symbols.iter().any(|s| s.name == "added_later"));
    assert!(
        third
            .render(&MapRequest::default())
            .text
            .contains("added_later")
    );
}

#[test]
fn deleted_and_ignored_files_drop_out() {
    let dir = project();
    let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    map.refresh().unwrap();
    map.save().unwrap();
    std::fs::remove_file(dir.path().join("pkg/main.py")).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "src/shapes.rs\n").unwrap();
    let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    let stats = map.refresh().unwrap();
    assert_eq!(stats.removed, 2);
    assert_eq!(stats.files, 2);
    assert!(map.file("pkg/main.py").is_none());
    assert!(map.file("src/shapes.rs").is_none());
}

#[test]
fn update_paths_touches_only_the_given_files() {
    let dir = project();
    let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    map.refresh().unwrap();
    let models = dir.path().join("pkg/models.py");
    std::fs::write(&models, "def replaced():\n    pass\n").unwrap();
    let stats = map.update_paths(&[models]).unwrap();
    assert_eq!(stats.parsed, 1);
    let names: Vec<&str> = map
        .file("pkg/models.py")
        .unwrap()
        .symbols
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["replaced"]);
    // An unchanged file given again is hashed, not parsed.
    let stats = map.update_paths(&[PathBuf::from("src/main.rs")]).unwrap();
    assert_eq!(stats.parsed, 0);
    // A deleted file is dropped; a path outside the root is ignored.
    std::fs::remove_file(dir.path().join("src/main.rs")).unwrap();
    let stats = map
        .update_paths(&[dir.path().join("src/main.rs"), PathBuf::from("/etc/passwd")])
        .unwrap();
    assert_eq!(stats.removed, 1);
    assert_eq!(stats.files, 3);
}

#[test]
fn huge_and_binary_files_are_skipped() {
    let dir = project();
    std::fs::write(dir.path().join("binary.c"), b"int x;\0\0\0").unwrap();
    let options = MapOptions {
        max_file_bytes: 300,
        use_cache: false,
    };
    let mut map = RepoMap::open(dir.path(), options).unwrap();
    map.refresh().unwrap();
    assert!(map.file("binary.c").is_none());
    // shapes.rs is larger than 300 bytes.
    assert!(map.file("src/shapes.rs").is_none());
    assert!(map.file("pkg/main.py").is_some());
}
