//! Bad input: a corrupt or outdated index, binary and huge files, a huge query.

use keel_index::{IndexOptions, MAX_QUERY_BYTES, ProjectIndex, SearchRequest};

use crate::project::write_project;

#[test]
fn a_corrupt_index_is_rebuilt_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    ProjectIndex::open(dir.path(), IndexOptions::default())
        .unwrap()
        .refresh()
        .unwrap();
    std::fs::write(
        dir.path().join(".keel/index/tantivy/meta.json"),
        "{not json",
    )
    .unwrap();
    let mut index = ProjectIndex::open(dir.path(), IndexOptions::default()).unwrap();
    let stats = index.refresh().unwrap();
    assert!(stats.rebuilt);
    assert!(
        stats.warnings[0].contains("corrupt"),
        "{:?}",
        stats.warnings
    );
    assert_eq!(stats.indexed, 3);
    let outcome = index
        .search(&SearchRequest::new("forged cross-site POST"))
        .unwrap();
    assert_eq!(outcome.hits[0].path, "src/csrf.rs");
}

#[test]
fn an_index_of_another_format_is_rebuilt_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    ProjectIndex::open(dir.path(), IndexOptions::default())
        .unwrap()
        .refresh()
        .unwrap();
    let manifest = dir.path().join(".keel/index/manifest.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    value["format"] = 999.into();
    std::fs::write(&manifest, value.to_string()).unwrap();
    let mut index = ProjectIndex::open(dir.path(), IndexOptions::default()).unwrap();
    let stats = index.refresh().unwrap();
    assert!(stats.rebuilt);
    assert!(
        stats.warnings[0].contains("format 999"),
        "{:?}",
        stats.warnings
    );
    assert_eq!(stats.files, 3);
}

#[test]
fn binary_and_huge_files_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    std::fs::write(
        dir.path().join("logo.png"),
        [0x89, b'P', b'N', b'G', 0, 0, 1, 2],
    )
    .unwrap();
    let huge = std::fs::File::create(dir.path().join("dump.sql")).unwrap();
    huge.set_len(50 * 1024 * 1024).unwrap();
    let mut index = ProjectIndex::open(dir.path(), IndexOptions::default()).unwrap();
    let stats = index.refresh().unwrap();
    assert_eq!(
        (stats.files, stats.skipped_binary, stats.skipped_too_large),
        (3, 1, 1)
    );
    // Skipped files are remembered: the next refresh reads neither again.
    let stats = index.refresh().unwrap();
    assert_eq!(
        (stats.indexed, stats.skipped_binary, stats.skipped_too_large),
        (0, 1, 1)
    );
}

#[test]
fn a_ten_kilobyte_query_is_truncated_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let mut index = ProjectIndex::open(dir.path(), IndexOptions::default()).unwrap();
    index.refresh().unwrap();
    let query = format!("forged cross-site POST {}", "é".repeat(5 * 1024));
    assert!(query.len() > 10 * 1024);
    let outcome = index.search(&SearchRequest::new(query.clone())).unwrap();
    assert!(outcome.query.len() <= MAX_QUERY_BYTES);
    assert!(outcome.notes[0].contains(&format!("the query was {} bytes", query.len())));
    assert_eq!(outcome.hits[0].path, "src/csrf.rs");
}

#[test]
fn a_query_without_words_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let mut index = ProjectIndex::open(dir.path(), IndexOptions::default()).unwrap();
    index.refresh().unwrap();
    let outcome = index.search(&SearchRequest::new("?? !! the")).unwrap();
    assert!(outcome.hits.is_empty());
    assert_eq!(
        outcome.notes,
        vec!["the query has no searchable words".to_owned()]
    );
}
