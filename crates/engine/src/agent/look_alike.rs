//! String literals that only look like the one a task quotes. Asked to "make
//! `plainTextSummary` use \"...\" instead", a small model copies the "…" (one character,
//! U+2026) the file already has, even when it restates the task, and cannot see why the
//! part stays not done, however plainly it is told. Typographic marks — the ellipsis, curly
//! quotes, dashes, a no-break space — fold to the ASCII they look like. A literal the turn
//! wrote that folds to a quoted string without being it is:
//! - in a whole file an answer gives, within a definition the same part of the task names,
//!   written as the task writes it ([`as_quoted`]): that much of the intent is not in doubt;
//! - elsewhere, named in the part-by-part check's note with its line ([`look_alikes`]).

use std::collections::HashSet;
use std::path::Path;

use keel_repomap::{Language, extract};

use super::task_parts::requests;
use super::undone_parts::{part_names, quoted};

/// Marks that look like ASCII, with what they look like and their Unicode names.
const MARKS: &[(char, &str, &str)] = &[
    ('…', "...", "U+2026 HORIZONTAL ELLIPSIS"),
    ('“', "\"", "U+201C LEFT DOUBLE QUOTATION MARK"),
    ('”', "\"", "U+201D RIGHT DOUBLE QUOTATION MARK"),
    ('„', "\"", "U+201E DOUBLE LOW-9 QUOTATION MARK"),
    ('‘', "'", "U+2018 LEFT SINGLE QUOTATION MARK"),
    ('’', "'", "U+2019 RIGHT SINGLE QUOTATION MARK"),
    ('‐', "-", "U+2010 HYPHEN"),
    ('‑', "-", "U+2011 NON-BREAKING HYPHEN"),
    ('–', "-", "U+2013 EN DASH"),
    ('—', "-", "U+2014 EM DASH"),
    ('−', "-", "U+2212 MINUS SIGN"),
    ('\u{a0}', " ", "U+00A0 NO-BREAK SPACE"),
];

/// Quotes a literal is written in.
const QUOTES: [char; 3] = ['"', '\'', '`'];

/// A literal in the code that looks like the quoted string and is not it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LookAlike {
    /// 1-based line number.
    pub(crate) line: usize,
    /// The literal as the code has it (without its quotes).
    pub(crate) found: String,
    /// That line with the literal as the task writes it.
    pub(crate) fixed: String,
}

impl LookAlike {
    /// What makes it look like `wanted`: the marks it has that `wanted` does not, by name.
    pub(crate) fn marks(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for c in self.found.chars() {
            if let Some((_, _, name)) = MARKS.iter().find(|(mark, _, _)| *mark == c)
                && !names.contains(name)
            {
                names.push(name);
            }
        }
        names.join(", ")
    }
}

/// `text` with each look-alike mark as the ASCII it looks like.
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match MARKS.iter().find(|(mark, _, _)| *mark == c) {
            Some((_, ascii, _)) => out.push_str(ascii),
            None => out.push(c),
        }
    }
    out
}

/// The literals of `now` (the file at `path`) that look like `wanted` and are not it, on lines
/// `before` (the file when the turn began) did not have; within the definitions of `names`
/// when some are there.
pub(crate) fn look_alikes(
    wanted: &str,
    path: &str,
    before: Option<&str>,
    now: &str,
    names: &[String],
) -> Vec<LookAlike> {
    let found = new_look_alikes(wanted, before, now);
    let inside = within_definitions(&found, path, now, names);
    if inside.is_empty() { found } else { inside }
}

/// `new`, the content an answer gives for `path` (whose content was `old`), with the strings
/// `task` quotes where the answer wrote look-alikes of them on its own lines, within the
/// definitions the same part of the task names (`make \`plainTextSummary\` use "..."`);
/// `None` when there is none. Also what was replaced, as `"…" for "..."`.
pub(crate) fn as_quoted(
    path: &str,
    old: &str,
    new: &str,
    task: &str,
) -> Option<(String, Vec<String>)> {
    let mut parts = requests(task);
    if parts.is_empty() {
        parts.push(task.to_owned());
    }
    let mut content = new.to_owned();
    let mut replaced: Vec<String> = Vec::new();
    for part in &parts {
        let names = part_names(part);
        if names.is_empty() {
            continue;
        }
        for wanted in quoted(part) {
            let found = new_look_alikes(&wanted, Some(old), &content);
            let inside = within_definitions(&found, path, &content, &names);
            if inside.is_empty() {
                continue;
            }
            let mut lines: Vec<String> = content.lines().map(str::to_owned).collect();
            for look_alike in inside {
                if let Some(line) = lines.get_mut(look_alike.line - 1) {
                    line.clone_from(&look_alike.fixed);
                }
                let what = format!("\"{}\" for \"{wanted}\"", look_alike.found);
                if !replaced.contains(&what) {
                    replaced.push(what);
                }
            }
            let ends_with_newline = content.ends_with('\n');
            content = lines.join("\n");
            if ends_with_newline {
                content.push('\n');
            }
        }
    }
    (!replaced.is_empty()).then_some((content, replaced))
}

/// The literals of `now` that look like `wanted` and are not it, on lines `before` did not
/// have.
fn new_look_alikes(wanted: &str, before: Option<&str>, now: &str) -> Vec<LookAlike> {
    let folded = fold(wanted);
    let old: HashSet<&str> = before.map(|b| b.lines().collect()).unwrap_or_default();
    now.lines()
        .enumerate()
        .filter(|(_, line)| !old.contains(line))
        .filter_map(|(n, line)| look_alike_in(line, wanted, &folded).map(|f| (n, line, f)))
        .map(|(n, line, (quote, found))| LookAlike {
            line: n + 1,
            fixed: line.replace(
                &format!("{quote}{found}{quote}"),
                &format!("{quote}{wanted}{quote}"),
            ),
            found,
        })
        .collect()
}

/// Those of `found` within the definitions of `names` in `source` (the file at `path`).
fn within_definitions(
    found: &[LookAlike],
    path: &str,
    source: &str,
    names: &[String],
) -> Vec<LookAlike> {
    if found.is_empty() || names.is_empty() {
        return Vec::new();
    }
    let spans = definition_spans(path, source, names);
    found
        .iter()
        .filter(|f| spans.iter().any(|(a, b)| (*a..=*b).contains(&f.line)))
        .cloned()
        .collect()
}

/// The first literal on `line` that folds to `folded` and is not `wanted`, with its quote.
fn look_alike_in(line: &str, wanted: &str, folded: &str) -> Option<(char, String)> {
    for quote in QUOTES {
        let pieces: Vec<&str> = line.split(quote).collect();
        // Between the 1st and 2nd quote, the 3rd and 4th, …
        for inside in pieces.iter().skip(1).step_by(2).take(pieces.len() / 2) {
            if *inside != wanted && fold(inside) == folded {
                return Some((quote, (*inside).to_owned()));
            }
        }
    }
    None
}

/// The (first, last) 1-based lines of the definitions of `names` in `source`.
fn definition_spans(path: &str, source: &str, names: &[String]) -> Vec<(usize, usize)> {
    let Some(language) = Language::from_path(Path::new(path)) else {
        return Vec::new();
    };
    let Ok(tags) = extract(language, source.as_bytes()) else {
        return Vec::new();
    };
    tags.symbols
        .iter()
        .filter(|s| names.contains(&s.name))
        .map(|s| (s.start_line as usize, s.end_line as usize))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEED: &str = "export function renderCard(x: string): string {\n  return truncate(x, 60);\n}\n\nexport function plainTextSummary(x: string): string {\n  return truncate(x, 40);\n}\n";

    #[test]
    fn marks_fold_to_the_ascii_they_look_like() {
        assert_eq!(fold("“a…b” – ‘c’"), "\"a...b\" - 'c'");
        assert_eq!(fold("plain"), "plain");
    }

    #[test]
    fn the_look_alike_in_the_named_definition_is_found_with_its_fix() {
        let now = FEED
            .replace("truncate(x, 60)", "truncate(x, 60, \"…\")")
            .replace("truncate(x, 40)", "truncate(x, 40, \"…\")");
        let names = vec!["plainTextSummary".to_owned()];
        let found = look_alikes("...", "src/feed.ts", Some(FEED), &now, &names);
        assert_eq!(
            found,
            vec![LookAlike {
                line: 6,
                found: "…".to_owned(),
                fixed: "  return truncate(x, 40, \"...\");".to_owned(),
            }]
        );
        assert_eq!(found[0].marks(), "U+2026 HORIZONTAL ELLIPSIS");
        // No name given: every new line with one.
        let all = look_alikes("...", "src/feed.ts", Some(FEED), &now, &[]);
        assert_eq!(all.iter().map(|f| f.line).collect::<Vec<_>>(), vec![2, 6]);
    }

    #[test]
    fn old_lines_the_string_itself_and_other_strings_are_not_look_alikes() {
        let before = "const a = \"…\";\n";
        let now = "const a = \"…\";\nconst b = \"...\";\nconst c = '--';\n";
        assert!(look_alikes("...", "a.ts", Some(before), now, &[]).is_empty());
        let now = "const d = '–';\n";
        let found = look_alikes("-", "a.ts", None, now, &[]);
        assert_eq!(found[0].fixed, "const d = '-';");
        assert_eq!(found[0].marks(), "U+2013 EN DASH");
        assert!(look_alikes("abc", "a.ts", None, "x = \"abd\"\n", &[]).is_empty());
    }

    #[test]
    fn a_rewrite_gets_the_quoted_string_within_the_definition_its_part_names() {
        let now = FEED
            .replace("truncate(x, 60)", "truncate(x, 60, \"…\")")
            .replace("truncate(x, 40)", "truncate(x, 40, \"…\")");
        let task = "Add a parameter to `truncate` (the default stays \"…\"), and make `plainTextSummary` use \"...\" instead.";
        let (fixed, replaced) = as_quoted("src/feed.ts", FEED, &now, task).unwrap_or_default();
        assert_eq!(
            fixed,
            FEED.replace("truncate(x, 60)", "truncate(x, 60, \"…\")")
                .replace("truncate(x, 40)", "truncate(x, 40, \"...\")")
        );
        assert_eq!(replaced, vec!["\"…\" for \"...\"".to_owned()]);
        // Without a name to place it, or on a line the file had, nothing is replaced.
        assert_eq!(
            as_quoted("src/feed.ts", FEED, &now, "use \"...\" instead"),
            None
        );
        assert_eq!(as_quoted("src/feed.ts", &now, &now, task), None);
    }
}
