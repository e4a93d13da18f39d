//! Which parts of a task the turn has plainly not touched, for the part-by-part check
//! ([`super::parts_review`]): asked whether each part is done, a small model answers "DONE"
//! with the second half of the task undone. A part names code — `plainTextSummary`, a
//! `lang="de"` — and when nothing it names has changed since the turn began (a function it
//! names is as it was; the files using a name it gives are all unchanged), the check says so
//! instead of asking. A part that quotes a string the code must hold ("use \"...\" instead")
//! is not done while no code file has that string as a literal.
//!
//! Only the project's code counts (test files aside): a name found nowhere in it says nothing.

use std::collections::BTreeMap;
use std::path::Path;

use keel_repomap::{Language, extract};

use super::left_out::code_names;
use super::look_alike::{LookAlike, look_alikes};
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

/// Most look-alike literals named in one part's note.
const MAX_LOOK_ALIKES: usize = 2;

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
    let untouched: Option<Vec<String>> = (!names.is_empty())
        .then(|| names.iter().map(|name| untouched(name, files)).collect())
        .flatten();
    if let Some(reasons) = untouched {
        return Some(reasons.join("; "));
    }
    let mut strings = quoted(part);
    strings.extend(named_marks(part));
    let missing: Vec<String> = strings
        .into_iter()
        .filter(|text| {
            !files
                .values()
                .any(|file| has_literal(file.now.as_deref(), text))
        })
        .map(|text| {
            let mut why = format!("no code file has the string \"{text}\"");
            for (path, found) in look_alikes_of(&text, files, &names) {
                why.push_str(&format!(
                    " ({path} line {} has \"{}\", {}, which only looks like it)",
                    found.line,
                    found.found,
                    found.marks(),
                ));
            }
            why
        })
        .collect();
    (!missing.is_empty()).then(|| missing.join("; "))
}

/// The literals in the code now that look like `text` and are not it (see
/// [`super::look_alike`]), at most [`MAX_LOOK_ALIKES`] of them, with their paths.
fn look_alikes_of(
    text: &str,
    files: &BTreeMap<String, FileThen>,
    names: &[String],
) -> Vec<(String, LookAlike)> {
    files
        .iter()
        .filter_map(|(path, file)| Some((path, file.before.as_deref(), file.now.as_deref()?)))
        .flat_map(|(path, before, now)| {
            look_alikes(text, path, before, now, names)
                .into_iter()
                .map(move |found| (path.clone(), found))
        })
        .take(MAX_LOOK_ALIKES)
        .collect()
}

/// Most characters of a quoted string the check looks for.
const MAX_QUOTED: usize = 24;

/// The short strings `part` quotes ("..." or “...”), outside backticks and outside a
/// `name="value"` setting (a value the code compares with, not one it must hold).
pub(crate) fn quoted(part: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = part;
    let mut in_code = false;
    while let Some(at) = rest.find(['"', '“', '`']) {
        let c = rest[at..].chars().next().unwrap_or('"');
        let before = rest[..at].chars().next_back();
        rest = &rest[at + c.len_utf8()..];
        if c == '`' {
            in_code = !in_code;
            continue;
        }
        let close = if c == '“' { '”' } else { '"' };
        let Some(end) = rest.find(close) else {
            break;
        };
        let text = &rest[..end];
        rest = &rest[end + close.len_utf8()..];
        if in_code || before == Some('=') || text.is_empty() || text.chars().count() > MAX_QUOTED {
            continue;
        }
        if !out.iter().any(|t| t == text) {
            out.push(text.to_owned());
        }
    }
    out
}

/// Punctuation a part names in words ("use a comma"), as the string the code must hold.
fn named_marks(part: &str) -> Vec<String> {
    const MARKS: &[(&str, &str)] = &[("comma", ","), ("semicolon", ";")];
    let lower = part.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    MARKS
        .iter()
        .filter(|(name, _)| words.contains(name))
        .map(|(_, mark)| (*mark).to_owned())
        .collect()
}

/// Whether `text` has `literal` as a string or character literal (in any quotes).
fn has_literal(text: Option<&str>, literal: &str) -> bool {
    text.is_some_and(|text| {
        ['"', '\'', '`']
            .iter()
            .any(|q| text.contains(&format!("{q}{literal}{q}")))
    })
}

/// The code names `part` gives: [`code_names`], and a word set to a value (`lang="de"`).
pub(crate) fn part_names(part: &str) -> Vec<String> {
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
    Some(symbol.lines_in(&lines).join("\n"))
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
    fn a_quoted_string_no_code_has_is_undone() {
        let feed =
            "export function plainTextSummary(x: string): string {\n  return truncate(x, 40);\n}\n";
        let wrong = feed.replace("truncate(x, 40)", "truncate(x, 40, \"…\")");
        let files = BTreeMap::from([("src/feed.ts".to_owned(), changed(feed, &wrong))]);
        let parts = vec!["make `plainTextSummary` use \"...\" instead.".to_owned()];
        assert_eq!(
            undone_parts(&parts, &files),
            vec![Some(
                "no code file has the string \"...\" (src/feed.ts line 2 has \"…\", U+2026 HORIZONTAL ELLIPSIS, which only looks like it)"
                    .to_owned()
            )]
        );
        let right = feed.replace("truncate(x, 40)", "truncate(x, 40, '...')");
        let files = BTreeMap::from([("src/feed.ts".to_owned(), changed(feed, &right))]);
        assert_eq!(undone_parts(&parts, &files), vec![None]);
    }

    #[test]
    fn a_mark_named_in_words_must_be_in_the_code() {
        let render_new = RENDER.replace("format_amount(c)", "format_amount(c, decimal_sep=sep)");
        let files = BTreeMap::from([
            ("invoicer/money.py".to_owned(), changed(MONEY, MONEY_NEW)),
            (
                "invoicer/render.py".to_owned(),
                changed(RENDER, &render_new),
            ),
        ]);
        let parts = vec!["make German invoices (lang=\"de\") use a comma.".to_owned()];
        assert_eq!(
            undone_parts(&parts, &files),
            vec![Some("no code file has the string \",\"".to_owned())]
        );
        let done = render_new.replace(
            "lang=\"en\"):",
            "lang=\"en\"):\n    sep = \",\" if lang == \"de\" else \".\"",
        );
        let files = BTreeMap::from([("invoicer/render.py".to_owned(), changed(RENDER, &done))]);
        assert_eq!(undone_parts(&parts, &files), vec![None]);
    }

    #[test]
    fn quoted_strings_skip_code_and_settings() {
        assert_eq!(
            quoted("make German invoices (lang=\"de\") use \",\" and `x = \"y\"`, “…”"),
            vec![",".to_owned(), "…".to_owned()]
        );
        assert!(quoted("say \"a very long sentence that nobody writes as a literal\"").is_empty());
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
