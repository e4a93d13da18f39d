//! The files a task is about, put in front of the model before it asks: with the compact tool
//! profile (small models, which explore badly and pay for every call), the turn's focused files
//! start with the files the task names (and the code naming a config file it names), the files
//! defining the identifiers it names, the files using them, then the files those depend on (the code a named test exercises), and — for a
//! project small enough — every source file (also when the task names only documents), within
//! a token budget. A named definition in a
//! file too large to show whole is shown as an excerpt (its own lines) instead, and so is one
//! whose name holds a word of the task that few names hold ("a caret range" → `replaceCaret`).
//! A question starts from the definitions its words point at ([`super::asked_code`]) and
//! what they use. The model then starts from the code instead of from a search.

use std::path::Path;

use keel_context::TokenCounter;
use keel_repomap::{FileTags, RepoMap, Symbol};

use super::asked_code::asked_definitions;
use super::left_out::code_names;
use super::repo_map::mentions;

/// Most tokens the task's files may take together.
pub(crate) const FOCUS_BUDGET_TOKENS: usize = 3_000;

/// A file larger than this is left for the model to read in ranges.
const MAX_FILE_TOKENS: usize = 1_500;

/// Files of the project whose total is at most this are all shown when the task names none.
const SMALL_PROJECT_TOKENS: usize = 2_000;

/// Most tokens the excerpts of named definitions in large files may take together.
pub(crate) const EXCERPT_BUDGET_TOKENS: usize = 1_500;

/// Most lines of one excerpt (a long class is cut after this many).
const MAX_EXCERPT_LINES: usize = 80;

/// Most lines of an excerpt of what an asked-about definition uses: its signature and doc
/// say what it is for, and the budget is better spent on more of them.
const MAX_USED_EXCERPT_LINES: usize = 30;

/// The definitions `input` names that live in files not in `shown`, as excerpts (a markdown
/// section, `None` when there is none), within [`EXCERPT_BUDGET_TOKENS`]: those of the names
/// it gives — for a `question`, after those it asks about by its words
/// ([`asked_definitions`]) — then what those use, then those whose names hold a word it uses
/// that few definitions' names hold ("a caret range" → `replaceCaret`, `replaceCarets`). A
/// question naming a name defined everywhere (`__init__`) gets none of its definitions.
pub(crate) fn task_excerpts(
    map: &RepoMap,
    root: &Path,
    input: &str,
    question: bool,
    shown: &[String],
    counter: TokenCounter,
) -> Option<String> {
    let mut named = mentions(root, input).identifiers;
    let mut asked = Vec::new();
    let mut asked_names: Vec<String> = Vec::new();
    if question {
        asked = asked_definitions(map, input);
        for (_, symbol) in &asked {
            if !asked_names.contains(&symbol.name) {
                asked_names.push(symbol.name.clone());
            }
        }
        named = question_names(map, input, named, &asked_names);
    }
    let named_definitions = named.iter().flat_map(|name| {
        map.files().flat_map(move |(path, tags)| {
            tags.symbols
                .iter()
                .filter(move |s| &s.name == name)
                .map(move |s| (path, s))
        })
    });
    // What each asked-about definition uses, best first, then what all the names use.
    let mut used: Vec<(&str, &Symbol)> = asked_names
        .iter()
        .flat_map(|name| used_by_named(map, root, std::slice::from_ref(name)))
        .collect();
    used.extend(used_by_named(map, root, &named));
    // An asked-about definition used by another is shown whole, not cut as a used one.
    used.retain(|(_, symbol)| !asked_names.contains(&symbol.name));
    let used_lines = if question {
        MAX_USED_EXCERPT_LINES
    } else {
        MAX_EXCERPT_LINES
    };
    let mut excerpts = Excerpts::new(root, counter, shown);
    if question {
        // What the asked-about code calls first: the helpers' doc lines say what each step
        // does, and a small model names the first definition it reads.
        excerpts.add_all(used.iter().copied(), used_lines);
        excerpts.add_all(
            asked.into_iter().chain(named_definitions),
            MAX_EXCERPT_LINES,
        );
    } else {
        excerpts.add_all(
            asked.into_iter().chain(named_definitions),
            MAX_EXCERPT_LINES,
        );
        excerpts.add_all(used.iter().copied(), used_lines);
    }
    excerpts.add_all(named_by_word(map, input), MAX_EXCERPT_LINES);
    excerpts.section()
}

/// The names a question's excerpts start from: those it asks about ([`asked_definitions`]),
/// then of those it `named`, only the ones written as code and not defined everywhere
/// (`__init__`): a word of its prose may name a definition ("attrs"), and the ranking of its
/// words as a whole says more.
fn question_names(
    map: &RepoMap,
    input: &str,
    mut named: Vec<String>,
    asked_names: &[String],
) -> Vec<String> {
    let written = code_names(input);
    named.retain(|name| {
        written.contains(name)
            && !asked_names.contains(name)
            && definitions_of(map, name).len() <= MAX_WORD_DEFINITIONS
    });
    asked_names.iter().cloned().chain(named).collect()
}

/// The definitions that the definitions `named` use (the classes a named test's cases build,
/// the helper a named function calls), for names with at most [`MAX_WORD_DEFINITIONS`]
/// definitions: a name defined everywhere (`convert`, `new`) points at nothing.
fn used_by_named<'m>(
    map: &'m RepoMap,
    root: &Path,
    named: &[String],
) -> Vec<(&'m str, &'m Symbol)> {
    let mut used: Vec<&str> = Vec::new();
    for (path, tags) in map.files() {
        if !tags.symbols.iter().any(|s| named.contains(&s.name)) {
            continue;
        }
        for name in used_names(root, path, tags, named) {
            if !named.iter().any(|n| n == name) && !used.contains(&name) {
                used.push(name);
            }
        }
    }
    let mut found = Vec::new();
    let mut names = 0;
    for name in used {
        let definitions = definitions_of(map, name);
        if !definitions.is_empty() && definitions.len() <= MAX_WORD_DEFINITIONS {
            found.extend(definitions);
            names += 1;
            if names == MAX_USED_NAMES {
                break;
            }
        }
    }
    found
}

/// The definitions of `name` in the project.
fn definitions_of<'m>(map: &'m RepoMap, name: &str) -> Vec<(&'m str, &'m Symbol)> {
    map.files()
        .flat_map(|(path, tags)| tags.symbols.iter().map(move |s| (path, s)))
        .filter(|(_, s)| s.name == name && s.kind.defines_name())
        .collect()
}

/// Most names a named definition uses that bring their definitions as excerpts (the first
/// it uses): a long function uses many, and the first say most about what it does.
const MAX_USED_NAMES: usize = 4;

/// Most definitions a word may name a part of and still point at them.
pub(crate) const MAX_WORD_DEFINITIONS: usize = 3;

/// Shortest task word looked up among the parts of definitions' names.
pub(crate) const MIN_WORD_CHARS: usize = 4;

/// Words of a task that say what to do rather than what it is about.
pub(crate) const TASK_WORDS: &[&str] = &[
    "about", "add", "after", "all", "also", "any", "before", "both", "branch", "broken", "bug",
    "but", "case", "cases", "change", "code", "copy", "does", "doesn", "each", "error", "fail",
    "failing", "fails", "file", "files", "find", "first", "fix", "from", "function", "have",
    "into", "it's", "just", "keep", "library", "make", "must", "need", "only", "other", "please",
    "return", "returns", "right", "same", "says", "should", "started", "still", "test", "tests",
    "than", "that", "the", "their", "them", "then", "there", "this", "used", "uses", "value",
    "what", "when", "where", "which", "while", "with", "without", "work", "works", "would",
    "write", "wrong",
];

/// The definitions whose names hold, as a part (`replace` + `Caret`), a word of `input` that
/// the names of at most [`MAX_WORD_DEFINITIONS`] definitions hold; a plural's `s` aside.
fn named_by_word<'m>(map: &'m RepoMap, input: &str) -> Vec<(&'m str, &'m Symbol)> {
    let stem = |word: &str| word.trim_end_matches('s').to_owned();
    let mut words: Vec<String> = input
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= MIN_WORD_CHARS && w.chars().all(char::is_alphabetic))
        .map(str::to_lowercase)
        .filter(|w| !TASK_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect();
    words.sort();
    words.dedup();
    let mut found = Vec::new();
    for word in words {
        let holders: Vec<(&str, &Symbol)> = map
            .files()
            .flat_map(|(path, tags)| tags.symbols.iter().map(move |s| (path, s)))
            .filter(|(_, symbol)| {
                let parts = keel_index::split_identifier(&symbol.name);
                parts.len() > 1 && parts.iter().any(|p| stem(&p.to_lowercase()) == word)
            })
            .collect();
        if holders.len() <= MAX_WORD_DEFINITIONS {
            found.extend(holders);
        }
    }
    found
}

/// Excerpts of definitions gathered within [`EXCERPT_BUDGET_TOKENS`].
struct Excerpts<'a> {
    root: &'a Path,
    counter: TokenCounter,
    /// Files shown whole: nothing of theirs is excerpted.
    shown: &'a [String],
    sections: Vec<String>,
    /// (path, first line, end line) of each excerpt, 0-based, end exclusive.
    taken: Vec<(String, usize, usize)>,
    used: usize,
}

impl<'a> Excerpts<'a> {
    fn new(root: &'a Path, counter: TokenCounter, shown: &'a [String]) -> Self {
        Self {
            root,
            counter,
            shown,
            sections: Vec::new(),
            taken: Vec::new(),
            used: 0,
        }
    }

    /// Adds `symbol` of the file at `path` (its first `max_lines` lines) unless the file is
    /// shown whole, an excerpt holds it already or the budget is spent.
    fn add(&mut self, path: &str, symbol: &Symbol, max_lines: usize) {
        if self.shown.iter().any(|s| s == path) {
            return;
        }
        let Ok(text) = std::fs::read_to_string(self.root.join(path)) else {
            return;
        };
        let lines: Vec<&str> = text.lines().collect();
        let start = symbol.decorated_start(&lines);
        let end = (symbol.end_line as usize)
            .min(lines.len())
            .min(start + max_lines);
        let inside = self
            .taken
            .iter()
            .any(|(p, s, e)| p == path && *s <= start && end <= *e);
        if start >= end || inside {
            return;
        }
        let body = lines[start..end].join("\n");
        let cut = if end < symbol.end_line as usize {
            "\n…"
        } else {
            ""
        };
        let section = format!(
            "### {path} (lines {}-{end})\n```{}\n{body}{cut}\n```",
            start + 1,
            keel_context::prompt::language_of(path)
        );
        let tokens = self.counter.count(&section);
        if self.used + tokens > EXCERPT_BUDGET_TOKENS {
            return;
        }
        self.used += tokens;
        self.taken.push((path.to_owned(), start, end));
        self.sections.push(section);
    }

    /// Adds each of `definitions` ([`Excerpts::add`]).
    fn add_all<'m>(
        &mut self,
        definitions: impl IntoIterator<Item = (&'m str, &'m Symbol)>,
        max_lines: usize,
    ) {
        for (path, symbol) in definitions {
            self.add(path, symbol, max_lines);
        }
    }

    /// The excerpts as the context's section.
    fn section(self) -> Option<String> {
        (!self.sections.is_empty()).then(|| {
            format!(
                "## Code the task names\n\nFrom files too large to show whole; read_file shows more.\n\n{}",
                self.sections.join("\n\n")
            )
        })
    }
}

/// The files `input` is about, with their content, best first, within the budget.
pub(crate) fn task_files(
    map: &RepoMap,
    root: &Path,
    input: &str,
    counter: TokenCounter,
) -> Vec<(String, String)> {
    let mentioned = mentions(root, input);
    let mut ranks = map.file_ranks();
    ranks.sort_by(|a, b| b.rank.total_cmp(&a.rank).then_with(|| a.path.cmp(&b.path)));
    let ranked: Vec<String> = ranks.into_iter().map(|r| r.path).collect();
    let defines = |path: &str, name: &str| {
        map.file(path)
            .is_some_and(|tags| tags.symbols.iter().any(|s| s.name == name))
    };
    let references = |path: &str, name: &str| {
        map.file(path).is_some_and(|tags| {
            tags.references
                .binary_search_by(|(r, _)| r.as_str().cmp(name))
                .is_ok()
        })
    };
    let mut candidates: Vec<String> = mentioned.files.clone();
    // A named file that is not code (a config file, say) is read by the code that names it.
    for named in &mentioned.files {
        if keel_repomap::Language::from_path(Path::new(named)).is_some() {
            continue;
        }
        let Some(name) = Path::new(named).file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        candidates.extend(
            ranked
                .iter()
                .filter(|p| {
                    std::fs::read_to_string(root.join(p.as_str()))
                        .is_ok_and(|text| text.contains(name))
                })
                .cloned(),
        );
    }
    for name in &mentioned.identifiers {
        candidates.extend(ranked.iter().filter(|p| defines(p, name)).cloned());
    }
    for name in &mentioned.identifiers {
        if ranked.iter().any(|p| defines(p, name)) {
            candidates.extend(ranked.iter().filter(|p| references(p, name)).cloned());
        }
    }
    // What the files found so far use: the code under a named test, a caller's callee.
    let found = candidates.clone();
    for path in &found {
        let Some(tags) = map.file(path) else {
            continue;
        };
        for name in used_names(root, path, tags, &mentioned.identifiers) {
            candidates.extend(
                ranked
                    .iter()
                    .filter(|p| *p != path && defines(p, name))
                    .cloned(),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|p| seen.insert(p.clone()));
    let mut files = within_budget(root, &candidates, counter, FOCUS_BUDGET_TOKENS);
    // A task that names only documents (the README it says the code does not follow) is about
    // the code: a small project's files join them.
    let is_code = |path: &str| keel_repomap::Language::from_path(Path::new(path)).is_some();
    if candidates.iter().all(|path| !is_code(path)) {
        let all = within_budget(root, &ranked, counter, usize::MAX);
        let total: usize = all.iter().map(|(_, _, tokens)| tokens).sum();
        if total <= SMALL_PROJECT_TOKENS {
            let named: Vec<String> = files.iter().map(|(p, _, _)| p.clone()).collect();
            files.extend(all.into_iter().filter(|(p, _, _)| !named.contains(p)));
        }
    }
    files
        .into_iter()
        .map(|(path, content, _)| (path, content))
        .collect()
}

/// The names the file at `path` uses that may lead to other files: those in the definitions
/// the task names when the file holds some (a stub's signature, a named test's body, not
/// the rest of its file), in the order they use them, else all it references.
fn used_names<'t>(root: &Path, path: &str, tags: &'t FileTags, named: &[String]) -> Vec<&'t str> {
    let all = tags.references.iter().map(|(name, _)| name.as_str());
    let definitions: Vec<&Symbol> = tags
        .symbols
        .iter()
        .filter(|s| named.contains(&s.name))
        .collect();
    if definitions.is_empty() {
        return all.collect();
    }
    let Ok(text) = std::fs::read_to_string(root.join(path)) else {
        return all.collect();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut used: Vec<&'t str> = Vec::new();
    let parameters: Vec<&str> = definitions
        .iter()
        .flat_map(|symbol| parameter_names(&symbol.signature))
        .collect();
    let words = definitions
        .iter()
        .flat_map(|symbol| symbol.decorated_lines_in(&lines))
        .flat_map(|line| line.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        // A parameter named like a definition elsewhere (`attrs`) is a local.
        .filter(|word| !parameters.contains(word));
    // In the order the definitions use them: the class a test's first case builds first.
    for word in words {
        let Ok(at) = tags
            .references
            .binary_search_by(|(name, _)| name.as_str().cmp(word))
        else {
            continue;
        };
        let name = tags.references[at].0.as_str();
        if !used.contains(&name) {
            used.push(name);
        }
    }
    used
}

/// The names of the parameters `signature` declares (`def f(self, attrs, *, kw=1)` → `self`,
/// `attrs`, `kw`; `fn f(a: &T)` → `a`; a Go method's receiver too): the first identifier of
/// each, types and defaults aside.
fn parameter_names(signature: &str) -> Vec<&str> {
    let Some(open) = signature.find('(') else {
        return Vec::new();
    };
    let (mut names, end) = parameters_from(signature, open);
    // A Go method: its receiver, then its parameters (`func (s *Store) Get(key string)`).
    if signature.trim_start().starts_with("func (")
        && let Some(next) = signature[end..].find('(')
    {
        names.extend(parameters_from(signature, end + next).0);
    }
    names
}

/// The parameter names of the list opening at `open` in `signature`, and where it ends.
fn parameters_from(signature: &str, open: usize) -> (Vec<&str>, usize) {
    let mut names = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    for (at, c) in signature[open..].char_indices().map(|(i, c)| (open + i, c)) {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    names.extend(first_identifier(&signature[start..at]));
                    return (names, at + 1);
                }
            }
            ',' if depth == 1 => {
                names.extend(first_identifier(&signature[start..at]));
                start = at + 1;
            }
            _ => {}
        }
    }
    (names, signature.len())
}

/// The first identifier of a parameter (`*args` → `args`, `mut a: u32` → `a`).
fn first_identifier(parameter: &str) -> Option<&str> {
    parameter
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|w| !w.is_empty() && *w != "mut" && !w.starts_with(|c: char| c.is_ascii_digit()))
}

/// The readable files of `paths` in order, each at most [`MAX_FILE_TOKENS`], until `budget`.
fn within_budget(
    root: &Path,
    paths: &[String],
    counter: TokenCounter,
    budget: usize,
) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut used = 0usize;
    for path in paths {
        let Ok(content) = std::fs::read_to_string(root.join(path)) else {
            continue;
        };
        let tokens = counter.count(&content);
        if tokens > MAX_FILE_TOKENS || used.saturating_add(tokens) > budget {
            continue;
        }
        used += tokens;
        out.push((path.clone(), content, tokens));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_repomap::MapOptions;

    fn project() -> (tempfile::TempDir, RepoMap) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("shop")).unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(
            root.join("shop/cart.py"),
            "from shop.money import fmt\n\n\ndef total(items):\n    return fmt(sum(items))\n",
        )
        .unwrap();
        std::fs::write(
            root.join("shop/money.py"),
            "def fmt(cents):\n    return str(cents)\n",
        )
        .unwrap();
        std::fs::write(
            root.join("tests/test_cart.py"),
            "from shop.cart import total\n\n\ndef test_total():\n    assert total([1]) == '1'\n",
        )
        .unwrap();
        // A large module: too big to focus whole.
        let mut big = String::new();
        for i in 0..400 {
            big.push_str(&format!("def helper_{i}(x):\n    return x + {i}\n\n\n"));
        }
        big.push_str("class IntRange:\n    def clamp(self, v):\n        return v\n");
        std::fs::write(root.join("shop/big.py"), big).unwrap();
        let mut map = RepoMap::open(root, MapOptions::default()).unwrap();
        map.refresh().unwrap();
        (dir, map)
    }

    #[test]
    fn parameters_are_read_from_signatures() {
        assert_eq!(
            parameter_names("def _make_init(cls, attrs, *args, kw=(1, 2), **rest)"),
            vec!["cls", "attrs", "args", "kw", "rest"]
        );
        assert_eq!(
            parameter_names("fn parse(mut a: Vec<u8>, b: &HashMap<K, V>) -> u32"),
            vec!["a", "b"]
        );
        assert_eq!(
            parameter_names("func (s *Store) Get(key string) string"),
            vec!["s", "key"]
        );
        assert!(parameter_names("class Thing").is_empty());
    }

    #[test]
    fn a_named_test_brings_the_code_it_uses() {
        let (dir, map) = project();
        let files = task_files(
            &map,
            dir.path(),
            "test_total fails, fix it",
            TokenCounter::default(),
        );
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths[0], "tests/test_cart.py");
        assert!(paths.contains(&"shop/cart.py"), "{paths:?}");
        assert!(!paths.contains(&"shop/big.py"), "{paths:?}");
    }

    #[test]
    fn a_named_stub_brings_what_it_uses_not_what_its_file_uses() {
        let (dir, _) = project();
        std::fs::write(
            dir.path().join("shop/cart.py"),
            "from shop.money import fmt\nfrom shop.tax import rate\n\n\ndef total(items):\n    return fmt(sum(items))\n\n\ndef with_tax(items):\n    raise NotImplementedError\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("shop/tax.py"),
            "def rate():\n    return 7\n",
        )
        .unwrap();
        let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
        map.refresh().unwrap();
        let paths = |task: &str| -> Vec<String> {
            task_files(&map, dir.path(), task, TokenCounter::default())
                .into_iter()
                .map(|(p, _)| p)
                .collect()
        };
        // Named by its stub: the file, not the money formatting `total` uses.
        assert_eq!(
            paths("Implement `with_tax` in shop/cart.py."),
            ["shop/cart.py"]
        );
        // Named as a file: what all of it uses.
        let whole = paths("Tidy up shop/cart.py.");
        assert!(whole.contains(&"shop/money.py".to_owned()), "{whole:?}");
    }

    #[test]
    fn a_named_config_file_brings_the_code_reading_it() {
        let (dir, _) = project();
        std::fs::write(dir.path().join("shop.toml"), "[money]\nsymbol = \"€\"\n").unwrap();
        std::fs::write(
            dir.path().join("shop/settings.py"),
            "PATH = \"shop.toml\"\n\n\ndef load():\n    return open(PATH).read()\n",
        )
        .unwrap();
        let mut map = RepoMap::open(dir.path(), keel_repomap::MapOptions::default()).unwrap();
        map.refresh().unwrap();
        let files = task_files(
            &map,
            dir.path(),
            "I set `symbol = \"$\"` in shop.toml but prices still show €",
            TokenCounter::default(),
        );
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths[..2], ["shop.toml", "shop/settings.py"], "{paths:?}");
    }

    #[test]
    fn a_task_naming_only_a_document_brings_a_small_projects_code() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("README.md"),
            "Set `APP_PORT`; the default is 8080.\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/config.js"),
            "function port (env) {\n  return Number(env.PORT || 3000)\n}\nmodule.exports = { port }\n",
        )
        .unwrap();
        let mut map = RepoMap::open(dir.path(), keel_repomap::MapOptions::default()).unwrap();
        map.refresh().unwrap();
        let files = task_files(
            &map,
            dir.path(),
            "The server doesn't follow its README: make it behave as README.md documents.",
            TokenCounter::default(),
        );
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["README.md", "src/config.js"]);
    }

    #[test]
    fn a_word_few_names_hold_brings_their_definitions() {
        let dir = tempfile::tempdir().unwrap();
        let mut big = String::new();
        for i in 0..400 {
            big.push_str(&format!(
                "def range_helper_{i}(x):\n    return x + {i}\n\n\n"
            ));
        }
        big.push_str("def replace_caret(comp):\n    return comp\n\n\ndef replace_carets(comps):\n    return [replace_caret(c) for c in comps]\n");
        std::fs::write(dir.path().join("ranges.py"), big).unwrap();
        let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
        map.refresh().unwrap();
        let excerpts = task_excerpts(
            &map,
            dir.path(),
            "A caret range on 0.x versions must only allow patch updates; fix the bug.",
            false,
            &[],
            TokenCounter::default(),
        )
        .unwrap();
        assert!(excerpts.contains("def replace_caret(comp):"), "{excerpts}");
        assert!(
            excerpts.contains("def replace_carets(comps):"),
            "{excerpts}"
        );
        // "range" is a part of 400 names: it points at none of them.
        assert!(!excerpts.contains("range_helper_"), "{excerpts}");
    }

    #[test]
    fn what_a_named_test_uses_in_a_large_file_is_an_excerpt() {
        let (dir, _) = project();
        std::fs::write(
            dir.path().join("tests/test_big.py"),
            "import pytest\nfrom shop.big import IntRange\n\n\n@pytest.mark.parametrize(\n    \"r\",\n    [IntRange()],\n)\ndef test_clamp(r):\n    assert r.clamp(1) == 1\n",
        )
        .unwrap();
        let mut map = RepoMap::open(dir.path(), MapOptions::default()).unwrap();
        map.refresh().unwrap();
        let shown = ["tests/test_big.py".to_owned()];
        let excerpts = task_excerpts(
            &map,
            dir.path(),
            "test_clamp fails",
            false,
            &shown,
            TokenCounter::default(),
        )
        .unwrap_or_default();
        // The class its cases build (with the method it calls inside), from a file too large
        // to show.
        assert!(
            excerpts.contains("class IntRange:\n    def clamp(self, v):"),
            "{excerpts}"
        );
        assert_eq!(excerpts.matches("### ").count(), 1, "{excerpts}");
        // The test itself, were it not shown, comes with its decorator.
        let excerpts = task_excerpts(
            &map,
            dir.path(),
            "test_clamp fails",
            false,
            &[],
            TokenCounter::default(),
        )
        .unwrap_or_default();
        assert!(
            excerpts.contains(
                "### tests/test_big.py (lines 5-10)\n```python\n@pytest.mark.parametrize("
            ),
            "{excerpts}"
        );
    }

    #[test]
    fn a_named_file_too_large_to_show_does_not_bring_the_rest_of_the_project() {
        let (dir, map) = project();
        let files = task_files(
            &map,
            dir.path(),
            "Tidy up shop/big.py.",
            TokenCounter::default(),
        );
        assert!(
            files.is_empty(),
            "{:?}",
            files.iter().map(|(p, _)| p).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_question_brings_what_it_asks_about_not_a_name_defined_everywhere() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        let mut big = String::new();
        for i in 0..40 {
            big.push_str(&format!(
                "class Thing{i}:\n    def __init__(self, attrs):\n        self.attrs = attrs\n\n\n"
            ));
        }
        big.push_str(
            "def attrs(cls):\n    return cls\n\n\n\
             def _make_init(cls, attrs):\n    script = _attrs_to_init_script(attrs)\n    \
             return _make_method(\"__init__\", script)\n\n\n\
             def _attrs_to_init_script(attrs):\n    \"\"\"Return the source of an initializer.\"\"\"\n    \
             return \"def __init__(self): pass\"\n\n\n\
             def _make_method(name, script):\n    return compile(script, name, \"exec\")\n",
        );
        for i in 0..300 {
            big.push_str(&format!("\n\ndef helper_{i}(x):\n    return x + {i}\n"));
        }
        std::fs::write(root.join("lib/make.py"), big).unwrap();
        let mut map = RepoMap::open(root, MapOptions::default()).unwrap();
        map.refresh().unwrap();
        let question = "How is the `__init__` that attrs adds to a class made? Which function \
                        generates its source? Just answer.";
        let excerpts =
            task_excerpts(&map, root, question, true, &[], TokenCounter::default()).unwrap();
        let first = excerpts
            .find("def _make_init(cls, attrs):")
            .expect(&excerpts);
        assert!(
            excerpts.contains("def _attrs_to_init_script(attrs):"),
            "{excerpts}"
        );
        assert!(!excerpts.contains("class Thing"), "{excerpts}");
        // `attrs` is a parameter of `_make_init` there, not the decorator: after what is asked.
        assert!(
            excerpts.find("def attrs(cls):").is_none_or(|at| at > first),
            "{excerpts}"
        );
        // The same words as a change request keep the names they give.
        let change = task_excerpts(
            &map,
            root,
            "Fix `__init__` of Thing3",
            false,
            &[],
            TokenCounter::default(),
        )
        .unwrap();
        assert!(change.contains("class Thing3"), "{change}");
    }

    #[test]
    fn a_definition_in_a_large_file_is_an_excerpt() {
        let (dir, map) = project();
        let excerpts = task_excerpts(
            &map,
            dir.path(),
            "IntRange.clamp is wrong",
            false,
            &[],
            TokenCounter::default(),
        )
        .unwrap();
        assert!(excerpts.starts_with("## Code the task names"), "{excerpts}");
        assert!(
            excerpts.contains("### shop/big.py (lines 1601-1603)"),
            "{excerpts}"
        );
        assert!(
            excerpts.contains("class IntRange:\n    def clamp(self, v):"),
            "{excerpts}"
        );
        assert_eq!(
            excerpts.matches("### ").count(),
            1,
            "the method is inside the class: {excerpts}"
        );
        // A file shown whole is not excerpted again; nothing named, nothing shown.
        assert!(
            task_excerpts(
                &map,
                dir.path(),
                "IntRange",
                false,
                &["shop/big.py".to_owned()],
                TokenCounter::default()
            )
            .is_none()
        );
        assert!(
            task_excerpts(
                &map,
                dir.path(),
                "tidy up",
                false,
                &[],
                TokenCounter::default()
            )
            .is_none()
        );
    }
}
