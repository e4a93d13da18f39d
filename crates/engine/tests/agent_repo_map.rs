//! The repo map in turns: built at the start of each turn (`prepare.repomap.build`), shown in
//! the system prompt, cached under `.keel/cache`, switched off by the config, and a failure to
//! build never fails the turn.

use crate::agent_common;
use crate::support;

use std::sync::Arc;

use agent_common::*;
use keel_engine::{OpenAiConfig, OpenAiProvider, RepoMapConfig};
use keel_events::{AgentStatus, EventKind, LogLevel, StatusKind};
use keel_protocol::Mode;
use keel_test_support::sample_project;
use support::*;

async fn one_turn(
    tune: impl FnOnce(&mut keel_engine::AgentConfig),
    prepare: impl FnOnce(&std::path::Path),
) -> (
    Vec<keel_events::Event>,
    Vec<Recorded>,
    AgentStatus,
    keel_test_support::SampleProject,
) {
    let ws = sample_project();
    prepare(ws.path());
    let server = MockServer::sequence(vec![
        text_answer(&["It divides by n - 1."]),
        text_answer(&["Still n - 1."]),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
        tune(c);
    });
    let first = session
        .run_turn("What is wrong with mean in calc/stats.py?")
        .await;
    assert_eq!(first.status, AgentStatus::Completed, "{}", first.result);
    let second = session.run_turn("And now?").await;
    (collector.events(), server.requests(), second.status, ws)
}

/// The turn's context: the turn's first message, which the repo map opens (the system prompt
/// stays the same from turn to turn).
fn turn_context(request: &Recorded) -> String {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn each_turn_builds_the_map_into_the_turns_context() {
    let (events, requests, status, ws) = one_turn(|c| c.repo_map.token_budget = 512, |_| {}).await;
    assert_eq!(status, AgentStatus::Completed);
    let builds: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::PrepareRepomapBuild(b) => Some(b.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(builds.len(), 2, "one build per turn");
    assert!(!builds[0].cached && builds[1].cached, "{builds:?}");
    assert!(builds[0].files >= 2 && builds[0].symbols >= 2);
    assert!(builds[0].tokens > 0 && builds[0].tokens <= 512);
    // Before the turn runs, after the model is chosen.
    let types = types(&events);
    let at = types
        .iter()
        .position(|t| *t == "prepare.repomap.build")
        .unwrap();
    assert_eq!(types[at - 2], "prepare.model.select");
    // The build is announced as a wait that the build ends.
    match &events[at - 1].kind {
        EventKind::SystemStatus(status) => {
            assert_eq!(status.kind, Some(StatusKind::Indexing));
            assert_eq!(status.message, "indexing the repository");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(types[at + 1], "run.response.start");
    let indexing: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemStatus(s) if s.kind == Some(StatusKind::Indexing) => {
                Some(s.message.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        indexing,
        ["indexing the repository", "refreshing the repository map"]
    );

    let context = turn_context(&requests[0]);
    assert!(
        !requests[0].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("## Repository map")
    );
    let map = context
        .split("## Repository map")
        .nth(1)
        .expect("a map section");
    assert!(map.contains("calc/stats.py"), "{map}");
    assert!(map.contains("mean"), "{map}");
    // No system.error for the map, and the cache file is on disk.
    assert!(!types.contains(&"system.error"));
    assert!(ws.path().join(".keel/cache/repomap-v1.postcard").is_file());
}

#[tokio::test]
async fn the_map_can_be_switched_off() {
    let (events, requests, status, ws) =
        one_turn(|c| c.repo_map = RepoMapConfig::disabled(), |_| {}).await;
    assert_eq!(status, AgentStatus::Completed);
    assert!(!types(&events).contains(&"prepare.repomap.build"));
    assert!(!turn_context(&requests[0]).contains("## Repository map"));
    assert!(!ws.path().join(".keel/cache").exists());
}

#[tokio::test]
async fn a_cache_that_cannot_be_written_is_a_warning() {
    // The cache directory is a file: the map is built and shown but cannot be saved.
    let (events, requests, status, _ws) = one_turn(
        |_| {},
        |root| {
            std::fs::create_dir_all(root.join(".keel")).unwrap();
            std::fs::write(root.join(".keel/cache"), "not a directory").unwrap();
        },
    )
    .await;
    assert_eq!(status, AgentStatus::Completed);
    let types = types(&events);
    assert_eq!(
        types
            .iter()
            .filter(|t| **t == "prepare.repomap.build")
            .count(),
        2
    );
    assert!(!types.contains(&"system.error"));
    let warnings = warnings(&events);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("repo map cache not saved"),
        "{warnings:?}"
    );
    assert!(turn_context(&requests[0]).contains("## Repository map"));
}

#[tokio::test]
async fn a_map_that_cannot_be_built_is_a_warning_not_a_failure() {
    let ws = sample_project();
    let server = MockServer::sequence(vec![text_answer(&["No files to look at."])]).await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "mock-model")).unwrap(),
    );
    let (mut session, collector) = session_with(ws.path(), provider, &["mock-model"], |c| {
        c.mode = Mode::Direct;
    });
    // The workspace disappears before the turn: the map cannot even be opened.
    std::fs::remove_dir_all(ws.path()).unwrap();
    let outcome = session.run_turn("What is in here?").await;
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    let events = collector.events();
    let types = types(&events);
    assert!(!types.contains(&"prepare.repomap.build"));
    assert!(!types.contains(&"system.error"));
    // Two warnings, neither a failure: the map, and the turn's checkpoint (which must not
    // recreate the vanished root to write itself).
    let warnings = warnings(&events);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("this turn cannot be rewound")
            && warnings[0].contains("the workspace root no longer exists"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with("repo map not built"),
        "{warnings:?}"
    );
    assert!(!ws.path().exists(), "the vanished root was recreated");
    let requests = server.requests();
    assert!(!turn_context(&requests[0]).contains("## Repository map"));
}

fn warnings(events: &[keel_events::Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log) if log.level == LogLevel::Warn => Some(log.message.clone()),
            _ => None,
        })
        .collect()
}
