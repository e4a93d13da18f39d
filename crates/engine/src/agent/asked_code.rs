//! The definitions a question about the code is most likely about ("how is the `__init__`
//! made?" → `_make_init`), found by the words of the question that their names hold: a
//! small model answers from what it is shown, so a question's answer must be in view. A word
//! few definitions' names hold counts for more than one many hold; a word of a definition's
//! doc line counts for half.

use std::collections::HashMap;

use keel_repomap::{RepoMap, Symbol};

use super::auto_focus::{MAX_WORD_DEFINITIONS, MIN_WORD_CHARS, TASK_WORDS};
use super::left_out::code_names;
use super::test_files::is_test_path;

/// Most definitions a question brings as excerpts by its words.
const MAX_ASKED: usize = 2;

/// How much more a word of a name the question gives (`__init__` → `init`) weighs: it is what
/// the question is about.
const NAMED_WORD_WEIGHT: f64 = 2.0;

/// Words of a question that say how it is asked rather than what it is about (beside
/// [`TASK_WORDS`]), in their normal forms.
const QUESTION_WORDS: &str = "about actual actually answer anything change checkout code does \
    doesn explain file find function happen just know library like look method please \
    project really that their them then there these they thing this trying understand want what \
    when where which while with would";

/// Past forms a question uses for the verbs definitions are named with ("how is it made" →
/// `make_…`, "where is it stored" → `store`): the irregular ones and a few common regular
/// ones whose stem a plain suffix rule would get wrong.
const VERB_FORMS: &[(&str, &str)] = &[
    ("made", "make"),
    ("built", "build"),
    ("wrote", "write"),
    ("written", "write"),
    ("found", "find"),
    ("sent", "send"),
    ("kept", "keep"),
    ("chosen", "choose"),
    ("chose", "choose"),
    ("given", "give"),
    ("taken", "take"),
    ("stored", "store"),
    ("parsed", "parse"),
];

/// The definitions outside test files whose names best match the words of `question`, best
/// first, all the definitions of at most [`MAX_ASKED`] names; none when no name holds one of its
/// words. The words of the identifiers it writes as code (`` `__init__` ``, `parse_cfg`) weigh
/// [`NAMED_WORD_WEIGHT`] times as much.
pub(crate) fn asked_definitions<'m>(
    map: &'m RepoMap,
    question: &str,
) -> Vec<(&'m str, &'m Symbol)> {
    let words = question_words(question);
    let named_words = code_words(question);
    if words.is_empty() {
        return Vec::new();
    }
    let candidates: Vec<Candidate<'m>> = map
        .files()
        .filter(|(path, _)| !is_test_path(path))
        .flat_map(|(path, tags)| tags.symbols.iter().map(move |symbol| (path, symbol)))
        .filter(|(_, symbol)| symbol.kind.defines_name())
        .map(|(path, symbol)| Candidate::new(path, symbol))
        .collect();
    // A name defined everywhere (`__init__`, `new`) is not what a question asks for.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for candidate in &candidates {
        *counts.entry(candidate.symbol.name.as_str()).or_default() += 1;
    }
    let candidates: Vec<Candidate<'m>> = candidates
        .into_iter()
        .filter(|c| counts[c.symbol.name.as_str()] <= MAX_WORD_DEFINITIONS)
        .collect();
    let total = candidates.len() as f64;
    let weight = |word: &str| {
        let holders = candidates.iter().filter(|c| c.holds(word)).count();
        let subject = if named_words.iter().any(|w| w == word) {
            NAMED_WORD_WEIGHT
        } else {
            1.0
        };
        if holders == 0 {
            0.0
        } else {
            subject * (1.0 + total / holders as f64).ln()
        }
    };
    let weights: Vec<(&str, f64)> = words.iter().map(|w| (w.as_str(), weight(w))).collect();
    let mut scored: Vec<(f64, &Candidate<'m>)> = candidates
        .iter()
        .filter(|c| {
            weights
                .iter()
                .any(|(w, _)| c.name_words.iter().any(|n| n == w))
        })
        .map(|c| (c.score(&weights), c))
        .collect();
    scored.sort_by(|(a, x), (b, y)| {
        b.total_cmp(a)
            .then_with(|| x.lines().cmp(&y.lines()))
            .then_with(|| x.path.cmp(y.path))
            .then_with(|| x.symbol.start_line.cmp(&y.symbol.start_line))
    });
    let mut asked: Vec<&str> = Vec::new();
    let mut found = Vec::new();
    for (_, candidate) in scored {
        let name = candidate.symbol.name.as_str();
        if !asked.contains(&name) {
            if asked.len() == MAX_ASKED {
                break;
            }
            asked.push(name);
        }
        found.push((candidate.path, candidate.symbol));
    }
    found
}

/// One definition with the words of its name and doc line.
struct Candidate<'m> {
    path: &'m str,
    symbol: &'m Symbol,
    name_words: Vec<String>,
    doc_words: Vec<String>,
}

impl<'m> Candidate<'m> {
    fn new(path: &'m str, symbol: &'m Symbol) -> Self {
        let name_words = name_words(&symbol.name);
        let doc_words = symbol
            .doc
            .as_deref()
            .map(question_words)
            .unwrap_or_default();
        Self {
            path,
            symbol,
            name_words,
            doc_words,
        }
    }

    fn holds(&self, word: &str) -> bool {
        self.name_words.iter().any(|w| w == word) || self.doc_words.iter().any(|w| w == word)
    }

    /// The weights of the words its name holds, and half those only its doc line holds.
    fn score(&self, weights: &[(&str, f64)]) -> f64 {
        weights
            .iter()
            .map(|(word, weight)| {
                if self.name_words.iter().any(|w| w == word) {
                    *weight
                } else if self.doc_words.iter().any(|w| w == word) {
                    weight / 2.0
                } else {
                    0.0
                }
            })
            .sum()
    }

    fn lines(&self) -> u32 {
        self.symbol.end_line.saturating_sub(self.symbol.start_line)
    }
}

/// The words of the identifier `name` in their normal forms (`_make_init` → `make`, `init`).
fn name_words(name: &str) -> Vec<String> {
    keel_index::split_identifier(name)
        .into_iter()
        .map(|part| normal_form(&part.to_lowercase()))
        .collect()
}

/// The words of the identifiers `question` writes as code ([`code_names`]: `__init__` →
/// `init`; `parseConfig` → `parse`, `config`).
fn code_words(question: &str) -> Vec<String> {
    code_names(question)
        .iter()
        .flat_map(|name| name_words(name))
        .collect()
}

/// The words of `text` that may name what it is about, in their normal forms, each once.
fn question_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| w.chars().all(char::is_alphabetic))
        .map(|w| normal_form(&w))
        .filter(|w| {
            w.chars().count() >= MIN_WORD_CHARS
                && !QUESTION_WORDS.split_whitespace().any(|q| q == w)
                && !TASK_WORDS.contains(&w.as_str())
        })
        .collect();
    words.sort();
    words.dedup();
    words
}

/// `word` (lower case) with an irregular verb form made regular and a plural's `s` dropped.
fn normal_form(word: &str) -> String {
    let word = VERB_FORMS
        .iter()
        .find(|(form, _)| *form == word)
        .map_or(word, |(_, verb)| verb);
    match word.strip_suffix('s') {
        Some(stem) if !stem.ends_with(['s', 'u', 'i', 'a']) && stem.chars().count() >= 3 => {
            stem.to_owned()
        }
        _ => word.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_repomap::MapOptions;

    fn map_of(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoMap) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
        map.refresh().unwrap();
        (dir, map)
    }

    fn names<'m>(found: &[(&'m str, &'m Symbol)]) -> Vec<&'m str> {
        found.iter().map(|(_, s)| s.name.as_str()).collect()
    }

    #[test]
    fn a_question_finds_the_definitions_its_words_name() {
        let (_dir, map) = map_of(&[
            (
                "pkg/make.py",
                "def _make_repr(cls):\n    return 1\n\n\ndef _make_init(cls):\n    return 2\n\n\n\
                 def _make_eq(cls):\n    return 3\n\n\ndef _default_alias(name):\n    return name\n",
            ),
            (
                "pkg/other.py",
                "class A:\n    def __init__(self):\n        self.x = 1\n\n\n\
                 class B:\n    def __init__(self):\n        self.x = 2\n\n\n\
                 class C:\n    def __init__(self):\n        self.x = 3\n\n\n\
                 class D:\n    def __init__(self):\n        self.x = 4\n",
            ),
            (
                "tests/test_make.py",
                "def test_make_init():\n    assert True\n",
            ),
        ]);
        let found = asked_definitions(&map, "How is the `__init__` that the library adds made?");
        assert_eq!(names(&found)[0], "_make_init");
        // Tests aside, and a name defined everywhere is not what is asked.
        assert!(found.iter().all(|(path, _)| !path.starts_with("tests/")));
        assert!(!names(&found).contains(&"__init__"), "{:?}", names(&found));
    }

    #[test]
    fn a_rare_word_outweighs_a_common_one() {
        let (_dir, map) = map_of(&[(
            "acct/passwords.py",
            "def check_user(u):\n    return u\n\n\ndef check_email(e):\n    return e\n\n\n\
             def check_name(n):\n    return n\n\n\ndef is_strong_password(p):\n    return len(p) > 9\n",
        )]);
        let found = asked_definitions(
            &map,
            "Which check decides whether a password is acceptable?",
        );
        assert_eq!(names(&found)[0], "is_strong_password");
    }

    #[test]
    fn a_question_whose_words_no_name_holds_finds_nothing() {
        let (_dir, map) = map_of(&[("a.py", "def alpha():\n    return 1\n")]);
        assert!(asked_definitions(&map, "What does this project do?").is_empty());
        assert!(asked_definitions(&map, "").is_empty());
    }

    #[test]
    fn words_take_their_normal_forms() {
        assert_eq!(normal_form("made"), "make");
        assert_eq!(normal_form("passwords"), "password");
        assert_eq!(normal_form("class"), "class");
        assert_eq!(
            question_words("Which function builds the `__init__` source?"),
            vec!["build", "init", "source"]
        );
    }
}
