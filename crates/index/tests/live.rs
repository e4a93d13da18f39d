//! A live index: kept current by the repo map's watcher, changed files only; `.gitignore`
//! honoured for single paths.

use std::path::Path;
use std::time::{Duration, Instant};

use keel_index::{IndexOptions, LiveIndex, ProjectIndex, SearchRequest};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Searches until `done` holds for the hit paths (or panics after a bound); returns how many
/// files the watcher re-indexed or dropped meanwhile.
fn search_until(live: &mut LiveIndex, query: &str, done: impl Fn(&[String]) -> bool) -> u64 {
    let started = Instant::now();
    let mut changed = 0;
    loop {
        let (outcome, currency) = live.search(&SearchRequest::new(query)).unwrap();
        assert!(currency.watched);
        assert!(currency.warnings.is_empty(), "{:?}", currency.warnings);
        changed += currency
            .updates
            .iter()
            .map(|u| u.indexed + u.removed)
            .sum::<u64>();
        let paths: Vec<String> = outcome.hits.iter().map(|h| h.path.clone()).collect();
        if done(&paths) {
            return changed;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{query}: still {paths:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_watcher_reindexes_changed_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "build/\n");
    write(root, "src/a.rs", "/// Alpha.\npub fn alpha() {}\n");
    write(root, "src/b.rs", "/// Beta.\npub fn beta() {}\n");
    write(root, "docs/guide.md", "# Guide\n\nNothing yet.\n");
    let index = ProjectIndex::open(root, IndexOptions::default()).unwrap();
    let mut live = LiveIndex::start(index, Duration::from_millis(50)).unwrap();
    assert!(live.is_watched());
    let (_, currency) = live.search(&SearchRequest::new("alpha")).unwrap();
    assert_eq!(currency.files, 3, "the hidden .gitignore is not indexed");
    assert_eq!(currency.updates[0].indexed, 3);
    std::thread::sleep(Duration::from_millis(200));

    // A Markdown edit (no language of the map's) and a code edit: those two only.
    write(root, "docs/guide.md", "# Guide\n\nThe walrus protocol.\n");
    write(
        root,
        "src/a.rs",
        "/// Alpha.\npub fn alpha() {}\n/// Walrus.\npub fn walrus() {}\n",
    );
    write(
        root,
        "build/out.rs",
        "/// Walrus output.\npub fn walrus_out() {}\n",
    );
    let changed = search_until(&mut live, "walrus", |paths| {
        paths.contains(&"docs/guide.md".to_owned()) && paths.contains(&"src/a.rs".to_owned())
    });
    assert_eq!(changed, 2);
    let (outcome, _) = live.search(&SearchRequest::new("walrus")).unwrap();
    assert!(outcome.hits.iter().all(|h| !h.path.starts_with("build/")));

    // A deleted folder drops its files.
    std::fs::remove_dir_all(root.join("docs")).unwrap();
    let changed = search_until(&mut live, "walrus", |paths| {
        !paths.contains(&"docs/guide.md".to_owned())
    });
    assert_eq!(changed, 1);
}

#[test]
fn a_search_sees_a_file_written_just_before_it_without_waiting_for_the_debounce() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.rs", "/// Alpha.\npub fn alpha() {}\n");
    let index = ProjectIndex::open(root, IndexOptions::default()).unwrap();
    // A debounce far longer than the test: only the search's flush can apply the edit.
    let mut live = LiveIndex::start(index, Duration::from_secs(60)).unwrap();
    assert!(live.is_watched());
    live.search(&SearchRequest::new("alpha")).unwrap();

    write(root, "src/b.rs", "/// Narwhal.\npub fn narwhal() {}\n");
    // Let the OS report the write (the flush applies what it has reported).
    std::thread::sleep(Duration::from_millis(50));
    let started = Instant::now();
    let (outcome, currency) = live.search(&SearchRequest::new("narwhal")).unwrap();
    let paths: Vec<&str> = outcome.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths.first(), Some(&"src/b.rs"), "{paths:?}");
    assert_eq!(
        currency.updates.iter().map(|u| u.indexed).sum::<u64>(),
        1,
        "only the new file was indexed"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
