//! Golden maps: each fixture project's rendered map, snapshotted.

use std::path::PathBuf;

use keel_repomap::{MapOptions, MapRequest, RepoMap};

fn fixture(lang: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(lang)
}

fn map_of(lang: &str) -> String {
    let options = MapOptions {
        use_cache: false,
        ..MapOptions::default()
    };
    let mut map = RepoMap::open(fixture(lang), options).unwrap();
    map.refresh().unwrap();
    let rendered = map.render(&MapRequest::default());
    assert!(rendered.tokens <= 4096);
    rendered.text
}

#[test]
fn rust_map() {
    insta::assert_snapshot!(map_of("rust"));
}

#[test]
fn python_map() {
    insta::assert_snapshot!(map_of("python"));
}

#[test]
fn javascript_map() {
    insta::assert_snapshot!(map_of("javascript"));
}

#[test]
fn typescript_map() {
    insta::assert_snapshot!(map_of("typescript"));
}

#[test]
fn go_map() {
    insta::assert_snapshot!(map_of("go"));
}

#[test]
fn java_map() {
    insta::assert_snapshot!(map_of("java"));
}

#[test]
fn c_map() {
    insta::assert_snapshot!(map_of("c"));
}

#[test]
fn cpp_map() {
    insta::assert_snapshot!(map_of("cpp"));
}
