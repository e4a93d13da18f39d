//! Building, searching and refreshing an index over real files.

use std::path::Path;

use keel_index::{IndexOptions, ProjectIndex, SearchRequest, render_hits};

/// A small project: Rust with doc comments, Python, Markdown.
pub fn write_project(root: &Path) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/csrf.rs"),
        "use std::collections::HashMap;\n\n/// Rejects a forged cross-site POST whose token does not match the cookie.\npub fn check_csrf_token(cookie: &str, form: &str) -> bool {\n    cookie == form\n}\n\n/// Parses a header line.\npub fn parse_header(line: &str) -> Option<(&str, &str)> {\n    line.split_once(':')\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/hashers.py"),
        "import hashlib\n\n\nclass PasswordHasher:\n    \"\"\"Hashes passwords with a salt before they are stored.\"\"\"\n\n    def encode(self, password, salt):\n        return hashlib.sha256((salt + password).encode()).hexdigest()\n",
    )
    .unwrap();
    std::fs::write(
        root.join("README.md"),
        "# Demo\n\nIntro.\n\n## Deployment\n\nRun it behind nginx as a reverse proxy.\n",
    )
    .unwrap();
}

fn open(root: &Path) -> ProjectIndex {
    ProjectIndex::open(root, IndexOptions::default()).unwrap()
}

#[test]
fn finds_definitions_sections_and_says_when_nothing_matches() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let mut index = open(dir.path());
    let stats = index.refresh().unwrap();
    assert_eq!(stats.files, 3);
    assert_eq!(stats.indexed, 3);
    assert!(stats.rebuilt);
    assert!(dir.path().join(".keel/index/manifest.json").is_file());

    let outcome = index
        .search(&SearchRequest::new(
            "where is a forged cross-site POST rejected?",
        ))
        .unwrap();
    let top = &outcome.hits[0];
    assert_eq!(
        (
            top.path.as_str(),
            top.start_line,
            top.end_line,
            top.symbol.as_str()
        ),
        ("src/csrf.rs", 3, 6, "check_csrf_token")
    );
    assert_eq!(outcome.mode, "lexical");
    assert!(render_hits(&outcome).contains("src/csrf.rs:3-6 (score "));

    // camelCase / snake_case parts and stemming: "hashing passwords" finds PasswordHasher.
    let outcome = index
        .search(&SearchRequest::new("hashing passwords"))
        .unwrap();
    assert_eq!(outcome.hits[0].path, "src/hashers.py");

    let outcome = index
        .search(&SearchRequest::new("nginx deployment"))
        .unwrap();
    assert_eq!(outcome.hits[0].path, "README.md");
    assert_eq!(outcome.hits[0].symbol, "Demo Deployment");

    let outcome = index
        .search(&SearchRequest::new("zeppelin xylophone"))
        .unwrap();
    assert!(outcome.hits.is_empty());
    assert!(render_hits(&outcome).contains("No indexed chunk matches \"zeppelin xylophone\""));
}

#[test]
fn refresh_reindexes_only_changed_files_and_drops_deleted_ones() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let mut index = open(dir.path());
    index.refresh().unwrap();

    // Nothing changed: nothing re-indexed, also after reopening.
    let mut index = open(dir.path());
    let stats = index.refresh().unwrap();
    assert_eq!((stats.indexed, stats.removed, stats.rebuilt), (0, 0, false));

    std::fs::write(
        dir.path().join("src/hashers.py"),
        "def rotate_signing_keys():\n    \"\"\"Rotates the zeppelin keys.\"\"\"\n",
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("README.md")).unwrap();
    let stats = index.refresh().unwrap();
    assert_eq!((stats.indexed, stats.removed, stats.files), (1, 1, 2));
    let outcome = index.search(&SearchRequest::new("zeppelin keys")).unwrap();
    assert_eq!(outcome.hits[0].symbol, "rotate_signing_keys");
    let outcome = index.search(&SearchRequest::new("nginx")).unwrap();
    assert!(outcome.hits.is_empty(), "{:?}", outcome.hits);
}

#[test]
fn update_paths_reindexes_one_file_with_the_given_map() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let mut index = open(dir.path());
    index.refresh().unwrap();
    let mut map =
        keel_repomap::RepoMap::open(dir.path(), keel_repomap::MapOptions::default()).unwrap();
    map.refresh().unwrap();
    let path = dir.path().join("src/csrf.rs");
    std::fs::write(
        &path,
        "/// Signs the session cookie.\npub fn sign_cookie() {}\n",
    )
    .unwrap();
    map.update_paths(std::slice::from_ref(&path)).unwrap();
    let stats = index.update_paths(&[path], &map).unwrap();
    assert_eq!(stats.indexed, 1);
    let outcome = index
        .search(&SearchRequest::new("session cookie signed"))
        .unwrap();
    assert_eq!(
        (outcome.hits[0].path.as_str(), outcome.hits[0].start_line),
        ("src/csrf.rs", 1)
    );
}

#[test]
fn results_fit_the_token_budget() {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    let mut index = open(dir.path());
    index.refresh().unwrap();
    let request = SearchRequest {
        query: "password header cookie nginx".to_owned(),
        limit: 10,
        token_budget: 40,
    };
    let outcome = index.search(&request).unwrap();
    let rendered = render_hits(&outcome);
    assert!(!outcome.hits.is_empty());
    assert!(
        keel_repomap::count_tokens(&rendered) <= 40 + 10 * outcome.notes.len() + 40,
        "{rendered}"
    );
    let full = index
        .search(&SearchRequest {
            token_budget: 100_000,
            ..request
        })
        .unwrap();
    assert!(full.hits.len() >= outcome.hits.len());
}

/// Files are ranked as wholes: the file whose definitions together answer the question comes
/// before one that repeats a single word of it, the guide in `docs/` below the code it
/// describes, and a file's chunks come together.
#[test]
fn files_rank_as_wholes_with_their_chunks_together_and_docs_below_code() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("pkg/fields.py"),
        "class Field:\n    \"\"\"A model field: a column, its default, its validators.\"\"\"\n\n    def clean(self, value):\n        return value\n",
    )
    .unwrap();
    std::fs::write(
        root.join("pkg/paginator.py"),
        "class Paginator:\n    \"\"\"Splits a list of objects into pages.\"\"\"\n\n    def page(self, number):\n        \"\"\"The objects on page `number`.\"\"\"\n        return self.objects[number]\n\n\ndef count_pages(objects, per_page):\n    \"\"\"How many pages a list of objects fills.\"\"\"\n    return -(-len(objects) // per_page)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("docs/pagination.rst"),
        "Pagination\n==========\n\nThe paginator splits a list of objects into pages: objects, pages, pages.\n",
    )
    .unwrap();
    let mut index = open(root);
    index.refresh().unwrap();
    let outcome = index
        .search(&SearchRequest::new(
            "how does the paginator split a list of objects into pages?",
        ))
        .unwrap();
    let paths: Vec<&str> = outcome.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths.first(), Some(&"pkg/paginator.py"), "{paths:?}");
    assert_eq!(paths.get(1), Some(&"pkg/paginator.py"), "{paths:?}");
    let docs = paths.iter().position(|p| *p == "docs/pagination.rst");
    assert!(docs.is_none_or(|at| at >= 2), "{paths:?}");
}
