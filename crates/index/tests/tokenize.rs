//! The code-aware tokenizer: identifiers split at snake_case, camelCase and paths.

use keel_index::{code_terms, split_identifier};
use proptest::prelude::*;

#[test]
fn identifiers_split_into_their_parts() {
    assert_eq!(
        split_identifier("parse_HTTPResponse2"),
        vec!["parse", "HTTP", "Response2"]
    );
    assert_eq!(
        split_identifier("CsrfViewMiddleware"),
        vec!["Csrf", "View", "Middleware"]
    );
    assert_eq!(split_identifier("plain"), vec!["plain"]);
    assert_eq!(
        code_terms("crates/repo_map.rs::RepoMap"),
        vec![
            "crates", "repo_map", "repo", "map", "rs", "repomap", "repo", "map"
        ]
    );
}

proptest! {
    #[test]
    fn parts_join_back_to_the_identifier(word in "[A-Za-z0-9_]{1,40}") {
        let parts = split_identifier(&word);
        prop_assert_eq!(parts.concat(), word.replace('_', ""));
    }

    #[test]
    fn any_text_tokenizes_without_panicking(text in "\\PC{0,200}") {
        let terms = code_terms(&text);
        prop_assert!(terms.iter().all(|t| !t.is_empty()));
    }
}

#[test]
fn a_query_drops_question_words_and_keeps_what_it_asks_about() {
    assert_eq!(
        keel_index::query_terms(
            "How does the development server restart when a source file changes?",
            64
        ),
        vec!["develop", "server", "restart", "sourc", "file", "chang"]
    );
    assert_eq!(
        keel_index::query_terms("Where do I find my check_csrf token? My token!", 64),
        vec!["find", "check_csrf", "check", "csrf", "token"]
    );
    // An identifier is kept whole; only its question-word part is dropped.
    assert_eq!(
        keel_index::query_terms("when_ready", 64),
        vec!["when_readi", "readi"]
    );
    assert_eq!(keel_index::query_terms("a b c d e f", 2), vec!["b", "c"]);
}
