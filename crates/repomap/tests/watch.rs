//! The watcher: an edited file shows up in the map within a bounded time.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use keel_repomap::{MapOptions, MapRequest, RepoMap, RepoWatcher};

#[test]
fn an_edit_updates_the_map_within_a_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let lib = dir.path().join("src/lib.rs");
    std::fs::write(&lib, "pub fn original() {}\n").unwrap();
    std::fs::write(dir.path().join("src/other.rs"), "pub fn other() {}\n").unwrap();

    let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    map.refresh().unwrap();
    let map = Arc::new(Mutex::new(map));
    let (sender, receiver) = mpsc::channel();
    let _watcher = RepoWatcher::start(map.clone(), Duration::from_millis(100), move |stats| {
        let _ = sender.send(stats.clone());
    })
    .unwrap();

    // Give the OS watch a moment to be registered.
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    std::fs::write(&lib, "pub fn original() {}\npub fn appeared() {}\n").unwrap();
    let bound = Duration::from_secs(10);
    let mut parsed = 0;
    while started.elapsed() < bound {
        if let Ok(stats) = receiver.recv_timeout(Duration::from_millis(100)) {
            parsed += stats.parsed;
            let text = map.lock().unwrap().render(&MapRequest::default()).text;
            if text.contains("appeared") {
                break;
            }
        }
    }
    let elapsed = started.elapsed();
    let guard = map.lock().unwrap();
    let names: Vec<&str> = guard
        .file("src/lib.rs")
        .unwrap()
        .symbols
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["original", "appeared"], "after {elapsed:?}");
    // Only the edited file was parsed.
    assert_eq!(parsed, 1);
    assert!(elapsed < bound);
}

#[test]
fn flush_applies_a_write_at_once_and_a_busy_folder_is_still_updated() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.rs");
    std::fs::write(&lib, "pub fn original() {}\n").unwrap();
    let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
    map.refresh().unwrap();
    let map = Arc::new(Mutex::new(map));
    let names = |map: &Mutex<RepoMap>| -> Vec<String> {
        let guard = map.lock().unwrap();
        guard
            .file("lib.rs")
            .map(|f| f.symbols.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default()
    };

    // Flushed: a debounce far longer than the test cannot be what applied the write.
    let watcher = RepoWatcher::start(map.clone(), Duration::from_secs(60), |_| {}).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    std::fs::write(&lib, "pub fn original() {}\npub fn flushed() {}\n").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    watcher.flush();
    assert_eq!(names(&map), ["original", "flushed"]);
    drop(watcher);

    // Never quiet for the debounce: a write every 20 ms against 100 ms. The batch is still
    // applied, at most ten debounces after its first event.
    let (sender, receiver) = mpsc::channel();
    let _watcher = RepoWatcher::start(map.clone(), Duration::from_millis(100), move |stats| {
        let _ = sender.send(stats.parsed);
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let mut n = 0;
    let applied_while_busy = loop {
        n += 1;
        std::fs::write(&lib, format!("pub fn busy{n}() {{}}\n")).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        if receiver.try_recv().is_ok() {
            break true;
        }
        if started.elapsed() > Duration::from_secs(5) {
            break false;
        }
    };
    assert!(applied_while_busy, "no update during {n} writes");
}
