//! Which parts of a task the turn has plainly not touched, for the part-by-part check
//! ([`super::parts_review`]): asked whether each part is done, a small model answers "DONE"
//! with the second half of the task undone. A part names code — `plainTextSummary`, a
//! `lang="de"` — and when nothing it names has changed since the turn began (a function it
//! names is as it was; the files using a name it gives are all unchanged), the check says so
//! instead of asking.
//!
//! Only the project's code counts (test files aside): a name found nowhere in it says nothing.

use std::collections::BTreeMap;
use std::path::Path;

use keel_repomap::{Language, extract};

use super::left_out::code_names;
use super::test_files::is_test_path;

/// A file's text when the turn began and now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileThen {
    /// When the turn began (`None`: the file did not exist).
    pub(crate) before: Option<String>,
    /// Now (`None`: the file is gone).
    pub(crate) now: Option<String>,
}

/// Most files named in one part's note.
const MAX_FILES: usize = 2;

/// For each of `parts`, why it is plainly not done yet (`None`: it may be), from the project's
/// code `files` by path.
pub(crate) fn undone_parts(
    parts: &[String],
    files: &BTreeMap<String, FileThen>,
) -> Vec<Option<String>> {
    parts.iter().map(|part| undone(part, files)).collect()
}

/// Why `part` is plainly not done: every name it gives is found in the code and none of it
/// changed.
fn undone(part: &str, files: &BTreeMap<String, FileThen>) -> Option<String> {
    let names = part_names(part);
    if names.is_empty() {
        return None;
    }
    let mut reasons = Vec::new();
    for name in &names {
        reasons.push(untouched(name, files)?);
    }
    Some(reasons.join("; "))
}

/// The code names `part` gives: [`code_names`], and a word set to a value (`lang="de"`).
fn part_names(part: &str) -> Vec<String> {
    let mut names = code_names(part);
    for piece in part.split('=').rev().skip(1) {
        let word: String = piece
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if word.len() >= 3 && !names.contains(&word) {
            names.push(word);
        }
    }
    names
}

/// Why `name` is untouched: a definition of it is as it was, or the files using it are all
/// unchanged; `None` when something of it changed or the code does not have it.
fn untouched(name: &str, files: &BTreeMap<String, FileThen>) -> Option<String> {
    let mut using = Vec::new();
    for (path, file) in files {
        let (Some(before), Some(now)) = (&file.before, &file.now) else {
            if uses(file.before.as_deref(), name) || uses(file.now.as_deref(), name) {
                return None;
            }
            continue;
        };
        if !uses(Some(before), name) && !uses(Some(now), name) {
            continue;
        }
        match (definition(path, before, name), definition(path, now, name)) {
            (Some(old), Some(new)) if old == new => {
                return Some(format!("`{name}` in {path} is as it was"));
            }
            (Some(_), _) | (_, Some(_)) => return None,
            (None, None) if before != now => return None,
            (None, None) => using.push(path.as_str()),
        }
    }
    if using.is_empty() {
        return None;
    }
    let shown: Vec<&str> = using.iter().take(MAX_FILES).copied().collect();
    Some(format!(
        "{} using `{name}` {} not changed",
        shown.join(", "),
        if shown.len() == 1 { "is" } else { "are" }
    ))
}

/// Whether `text` has `name` as a word.
fn uses(text: Option<&str>, name: &str) -> bool {
    text.is_some_and(|text| {
        text.match_indices(name).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + name.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The lines of the definition of `name` in `source` (the file at `path`), when it has one.
fn definition(path: &str, source: &str, name: &str) -> Option<String> {
    let language = Language::from_path(Path::new(path))?;
    let tags = extract(language, source.as_bytes()).ok()?;
    let symbol = tags.symbols.into_iter().find(|s| s.name == name)?;
    let lines: Vec<&str> = source.lines().collect();
    let start = (symbol.start_line as usize).checked_sub(1)?;
    let end = (symbol.end_line as usize).min(lines.len());
    Some(lines.get(start..end)?.join("\n"))
}

/// Whether the file at `path` is code the check looks at: a language the map knows, not a
/// test.
pub(crate) fn is_checked_code(path: &str) -> bool {
    Language::from_path(Path::new(path)).is_some() && !is_test_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) -> FileThen {
        FileThen {
            before: Some(text.to_owned()),
            now: Some(text.to_owned()),
        }
    }

    fn changed(before: &str, now: &str) -> FileThen {
        FileThen {
            before: Some(before.to_owned()),
            now: Some(now.to_owned()),
        }
    }

    const MONEY: &str = "def format_amount(cents, currency=\"EUR\"):\n    return f\"{cents / 100:.2f} {currency}\"\n";
    const MONEY_NEW: &str = "def format_amount(cents, currency=\"EUR\", decimal_sep=\".\"):\n    return f\"{cents / 100:.2f} {currency}\".replace(\".\", decimal_sep)\n";
    const RENDER: &str = "from .money import format_amount\n\n\ndef render(lines, lang=\"en\"):\n    return [format_amount(c) for c in lines]\n";

    #[test]
    fn a_part_whose_files_are_unchanged_is_undone() {
        let files = BTreeMap::from([
            ("invoicer/money.py".to_owned(), changed(MONEY, MONEY_NEW)),
            ("invoicer/render.py".to_owned(), same(RENDER)),
        ]);
        let parts = vec![
            "Add a `decimal_sep` parameter to `format_amount`".to_owned(),
            "make German invoices (lang=\"de\") use a comma.".to_owned(),
        ];
        assert_eq!(
            undone_parts(&parts, &files),
            vec![
                None,
                Some("invoicer/render.py using `lang` is not changed".to_owned())
            ]
        );
    }

    #[test]
    fn a_function_as_it_was_is_undone_even_when_its_file_changed() {
        let feed = "export function renderCard(x: string): string {\n  return truncate(x, 60);\n}\n\nexport function plainTextSummary(x: string): string {\n  return truncate(x, 40);\n}\n";
        let feed_new = feed.replace("truncate(x, 60)", "truncate(x, 60, \"…\")");
        let files = BTreeMap::from([("src/feed.ts".to_owned(), changed(feed, &feed_new))]);
        let parts = vec!["make `plainTextSummary` use \"...\" instead.".to_owned()];
        assert_eq!(
            undone_parts(&parts, &files),
            vec![Some(
                "`plainTextSummary` in src/feed.ts is as it was".to_owned()
            )]
        );
        let done = feed.replace("truncate(x, 40)", "truncate(x, 40, \"...\")");
        let files = BTreeMap::from([("src/feed.ts".to_owned(), changed(feed, &done))]);
        assert_eq!(undone_parts(&parts, &files), vec![None]);
    }

    #[test]
    fn names_the_code_does_not_have_say_nothing() {
        let files = BTreeMap::from([("invoicer/render.py".to_owned(), same(RENDER))]);
        let parts = vec!["update every import in the package and the tests.".to_owned()];
        assert_eq!(undone_parts(&parts, &files), vec![None]);
        let parts = vec!["add a `vat_rate` setting".to_owned()];
        assert_eq!(undone_parts(&parts, &files), vec![None]);
    }

    #[test]
    fn code_is_what_a_language_is_known_for_and_not_a_test() {
        assert!(is_checked_code("src/feed.ts"));
        assert!(!is_checked_code("tests/test_money.py"));
        assert!(!is_checked_code("README.md"));
    }
}
