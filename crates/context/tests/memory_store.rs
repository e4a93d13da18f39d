//! The memory file: loading, atomic saving, merging at session end, and corrupt files.

use keel_context::memory::MEMORY_FILE;
use keel_context::{Decision, Memory, MemoryError, MemoryLimits, MemoryStore};

#[test]
fn a_missing_file_is_empty_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::for_project(dir.path());
    assert_eq!(store.path(), dir.path().join(MEMORY_FILE));
    assert_eq!(store.load().unwrap(), Memory::new());
}

#[test]
fn saves_atomically_and_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::for_project(dir.path());
    let mut memory = Memory::new();
    memory.merge(
        ["tests use pytest".to_owned()],
        [Decision::new("use a cache", "avoid recomputation")],
        &MemoryLimits::default(),
    );
    store.save(&memory).unwrap();
    assert_eq!(store.load().unwrap(), memory);
    // Only the memory file is left in .keel/ (no temporary files).
    let names: Vec<String> = std::fs::read_dir(dir.path().join(".keel"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["memory.json"]);
    let text = std::fs::read_to_string(store.path()).unwrap();
    assert!(text.contains("\"decision\": \"use a cache\""), "{text}");
}

#[test]
fn session_end_updates_merge_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::for_project(dir.path());
    store
        .update(
            ["Code style: black".to_owned()],
            [Decision::new("cache configs", "slow parsing")],
        )
        .unwrap();
    let (memory, outcome) = store
        .update(
            [
                "code style:   BLACK".to_owned(),
                "tests use pytest".to_owned(),
            ],
            [Decision::new("Cache configs", "")],
        )
        .unwrap();
    assert_eq!(outcome.conventions_added, 1);
    assert_eq!(
        memory.conventions,
        ["code style:   BLACK", "tests use pytest"]
    );
    assert_eq!(memory.decisions.len(), 1);
    assert_eq!(memory.decisions[0].reason, "slow parsing");
    assert_eq!(store.load().unwrap(), memory);
}

#[test]
fn a_corrupt_file_is_moved_aside_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::for_project(dir.path());
    std::fs::create_dir_all(dir.path().join(".keel")).unwrap();
    std::fs::write(store.path(), "{ not json").unwrap();
    let error = store.load().unwrap_err();
    let MemoryError::Corrupt { moved_to, .. } = &error else {
        panic!("expected Corrupt, got {error:?}");
    };
    let aside = dir.path().join(".keel/memory.json.bad");
    assert_eq!(moved_to.as_deref(), Some(aside.as_path()));
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), "{ not json");
    assert!(!store.path().exists());
    let message = error.to_string();
    assert!(
        message.contains("is corrupt") && message.contains("memory.json.bad"),
        "{message}"
    );
    // The next load starts empty; an update writes a fresh file.
    assert_eq!(store.load().unwrap(), Memory::new());
    std::fs::write(store.path(), "[1, 2]").unwrap();
    let (memory, _) = store.update(["fresh".to_owned()], Vec::new()).unwrap();
    assert_eq!(memory.conventions, ["fresh"]);
    assert_eq!(store.load().unwrap(), memory);
}

#[test]
fn loading_applies_the_limits_to_hand_edited_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::for_project(dir.path()).with_limits(MemoryLimits {
        max_conventions: 2,
        max_decisions: 1,
        max_entry_chars: 10,
    });
    std::fs::create_dir_all(dir.path().join(".keel")).unwrap();
    std::fs::write(
        store.path(),
        r#"{"conventions": ["a", "A", "b", "c", "a very long convention"],
            "decisions": [{"decision": "x", "reason": "y"}, {"decision": "z"}],
            "unknown_field": true}"#,
    )
    .unwrap();
    let memory = store.load().unwrap();
    assert_eq!(memory.conventions, ["c", "a very lon…"]);
    assert_eq!(memory.decisions.len(), 1);
    assert_eq!(memory.decisions[0].decision, "z");
}
