//! Ranking: referenced files rise, mentioned identifiers and focused files pull the ranking
//! toward them.

use keel_repomap::{MapOptions, MapRequest, RepoMap};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "core.py",
            "def shared_helper():\n    pass\n\ndef core_thing():\n    pass\n",
        ),
        ("rare.py", "def rarely_used_function():\n    pass\n"),
        (
            "a.py",
            "from core import shared_helper\n\ndef a():\n    shared_helper()\n    core_thing()\n",
        ),
        (
            "b.py",
            "def b():\n    shared_helper()\n    shared_helper()\n",
        ),
        (
            "c.py",
            "def c():\n    shared_helper()\n    rarely_used_function()\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn position(map: &RepoMap, request: &MapRequest, path: &str) -> usize {
    map.render(request)
        .files
        .iter()
        .position(|f| f.path == path)
        .unwrap()
}

fn open(dir: &tempfile::TempDir) -> RepoMap {
    let options = MapOptions {
        use_cache: false,
        ..MapOptions::default()
    };
    let mut map = RepoMap::open(dir.path(), options).unwrap();
    map.refresh().unwrap();
    map
}

#[test]
fn the_most_referenced_file_ranks_first() {
    let dir = project();
    let map = open(&dir);
    assert_eq!(position(&map, &MapRequest::default(), "core.py"), 0);
    let text = map.render(&MapRequest::default()).text;
    assert!(text.starts_with("core.py:\n"), "{text}");
}

#[test]
fn a_mentioned_identifiers_file_rises() {
    let dir = project();
    let map = open(&dir);
    let before = position(&map, &MapRequest::default(), "rare.py");
    let request = MapRequest {
        mentions: vec!["rarely_used_function".into()],
        ..MapRequest::default()
    };
    let after = position(&map, &request, "rare.py");
    assert!(after < before, "{before} -> {after}");
    assert_eq!(after, 0);
    // With a tiny budget, the mentioned definition is what is shown.
    let tiny = MapRequest {
        token_budget: 20,
        ..request
    };
    assert!(map.render(&tiny).text.contains("rarely_used_function"));
}

#[test]
fn focused_files_pull_what_they_reference() {
    let dir = project();
    let map = open(&dir);
    let rank_of = |request: &MapRequest, path: &str| {
        map.render(request)
            .files
            .iter()
            .find(|f| f.path == path)
            .unwrap()
            .rank
    };
    let request = MapRequest {
        focus: vec!["c.py".into()],
        ..MapRequest::default()
    };
    let before = rank_of(&MapRequest::default(), "rare.py");
    let after = rank_of(&request, "rare.py");
    assert!(after > before, "{before} -> {after}");
    // b.py is neither focused nor referenced by the focused file: it sinks.
    assert!(rank_of(&request, "b.py") < rank_of(&MapRequest::default(), "b.py"));
}
