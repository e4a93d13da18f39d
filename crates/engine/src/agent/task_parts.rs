//! The separate requests of a task that asks for more than one thing: "Add a `decimal_sep`
//! parameter to `format_amount` … and make German invoices use a comma" is two, a bullet list
//! under "Extend `parse_size`:" is one per bullet. Small models often do the first and stop;
//! `parts_review` has the model check each part once the tests pass.
//!
//! A plain reading: the task's sentences (and bullet lines) are split again before "and"
//! followed by a verb asking for a change; a part is a piece that opens with such a verb
//! ("please", "also", "then" aside), or a bullet of a task that asks for changes.

use super::task_intent::is_change_word;

/// Words that may open a request before its verb.
const OPENERS: &[&str] = &["please", "also", "then", "and"];

/// The task's separate requests, in order, when it has at least two (else empty).
pub(crate) fn requests(task: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for segment in segments(task) {
        match segment {
            Segment::Bullet(text) => parts.push(text),
            Segment::Sentence(text) => parts.extend(
                split_before_and(&text)
                    .into_iter()
                    .filter(|piece| opens_with_change(piece)),
            ),
        }
    }
    if parts.len() < 2 { Vec::new() } else { parts }
}

/// A piece of a task's text.
#[derive(Debug, PartialEq, Eq)]
enum Segment {
    /// A line that starts with `-`, `*` or `N.`.
    Bullet(String),
    /// A sentence of running text.
    Sentence(String),
}

/// The task's bullet lines and the sentences of its other text.
fn segments(task: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut prose = String::new();
    for line in task.lines() {
        match bullet_text(line) {
            Some(text) => {
                out.extend(sentences(&std::mem::take(&mut prose)));
                if !text.is_empty() {
                    out.push(Segment::Bullet(text.to_owned()));
                }
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    out.extend(sentences(&prose));
    out
}

/// The text of a bullet line, if `line` is one.
fn bullet_text(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
    {
        return Some(rest.trim());
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &trimmed[digits..];
        if let Some(text) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(text.trim());
        }
    }
    None
}

/// `text` split into sentences (at `.`, `!`, `?` or `;` followed by white space, and at blank
/// lines), outside backticks and parentheses.
fn sentences(text: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_code = false;
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        match c {
            '`' => in_code = !in_code,
            '(' if !in_code => depth += 1,
            ')' if !in_code => depth = depth.saturating_sub(1),
            _ => {}
        }
        let ends = matches!(c, '.' | '!' | '?' | ';' | ':')
            && !in_code
            && depth == 0
            && chars.peek().is_none_or(|next| next.is_whitespace());
        if ends {
            push_sentence(&mut out, &mut current);
        }
    }
    push_sentence(&mut out, &mut current);
    out
}

fn push_sentence(out: &mut Vec<Segment>, current: &mut String) {
    let sentence = current.split_whitespace().collect::<Vec<_>>().join(" ");
    current.clear();
    if !sentence.is_empty() {
        out.push(Segment::Sentence(sentence));
    }
}

/// `sentence` split before each " and " (outside backticks and parentheses) that is followed
/// by a verb asking for a change.
fn split_before_and(sentence: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    let mut depth = 0usize;
    for (at, c) in sentence.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '(' if !in_code => depth += 1,
            ')' if !in_code => depth = depth.saturating_sub(1),
            ' ' if !in_code && depth == 0 => {
                let rest = &sentence[at + 1..];
                if let Some(after) = rest.strip_prefix("and ")
                    && first_word(after).is_some_and(|w| is_change_word(&w))
                {
                    pieces.push(sentence[start..at].trim_end_matches(',').trim().to_owned());
                    start = at + 1 + "and ".len();
                }
            }
            _ => {}
        }
    }
    pieces.push(sentence[start..].trim().to_owned());
    pieces.retain(|p| !p.is_empty());
    pieces
}

/// Whether `piece` opens with a verb asking for a change (after [`OPENERS`]).
fn opens_with_change(piece: &str) -> bool {
    piece
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .find(|w| !OPENERS.contains(&w.as_str()))
        .is_some_and(|w| is_change_word(&w))
}

/// The first word of `text`, lower case.
fn first_word(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .find(|w| !w.is_empty())
        .map(str::to_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_and_its_use_are_two_requests() {
        let task = "German customers complain that their invoices show amounts like \"361.50 EUR\" instead of \"361,50 EUR\". Add a `decimal_sep` parameter to `format_amount` (keep \".\" as the default so nothing else changes) and make German invoices (lang=\"de\") use a comma.";
        assert_eq!(
            requests(task),
            vec![
                "Add a `decimal_sep` parameter to `format_amount` (keep \".\" as the default so nothing else changes)",
                "make German invoices (lang=\"de\") use a comma.",
            ]
        );
    }

    #[test]
    fn a_move_and_its_imports_are_two_requests() {
        let task = "tasklog/utils.py is becoming a junk drawer. Move `parse_duration` and `format_duration` (and whatever they need) into a new module tasklog/durations.py and update every import in the package and the tests.";
        assert_eq!(
            requests(task),
            vec![
                "Move `parse_duration` and `format_duration` (and whatever they need) into a new module tasklog/durations.py",
                "update every import in the package and the tests.",
            ]
        );
    }

    #[test]
    fn bullets_are_one_request_each() {
        let task = "Extend `parse_size` so people can write sizes the way they are used to:\n- binary units KiB, MiB, GiB and TiB (powers of 1024);\n- units are case-insensitive (\"10kb\" is \"10KB\");\n- an optional space between number and unit.";
        let parts = requests(task);
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert!(parts[0].starts_with("binary units"));
    }

    #[test]
    fn a_single_request_is_not_split() {
        for task in [
            "Rename the function `parse_cfg` to `parse_config` everywhere in this project: the definition, every import and call, the tests and the docs. Don't keep the old name around as an alias.",
            "The test `test_median_even_length` in tests/test_central.py fails. Please fix the bug in the code (the test is right).",
            "Fix the failing test",
            "",
        ] {
            assert_eq!(requests(task), Vec::<String>::new(), "{task}");
        }
    }
}
