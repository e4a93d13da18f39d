//! SEARCH/REPLACE edits: parse the blocks, find each in the file, apply all or nothing.

pub mod matcher;
pub mod parse;

use std::fmt::Write as _;

pub use matcher::Strategy;
pub use parse::{Block, ParseError, parse};

use crate::file_text::Lines;

/// Why an edit could not be applied (the file is then left untouched).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The diff is malformed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A block's SEARCH lines are not in the file.
    #[error(
        "SEARCH/REPLACE block {block} of {total} (SEARCH at diff line {line}) matches nothing in the file, so no block was applied and the file is unchanged.{closest}\nCopy the SEARCH lines exactly from the file (read it again if unsure) and retry."
    )]
    NoMatch {
        /// 1-based block number.
        block: usize,
        /// Number of blocks.
        total: usize,
        /// Diff line of its SEARCH marker.
        line: usize,
        /// The closest lines actually in the file, formatted for the message.
        closest: String,
    },
    /// An empty SEARCH on a file that has content.
    #[error(
        "SEARCH/REPLACE block {block} (SEARCH at diff line {line}) has an empty SEARCH, which only creates content in an empty or missing file; this file is not empty, so nothing was changed. Put the lines to replace in SEARCH (or use write_file to replace the whole file)."
    )]
    EmptySearch {
        /// 1-based block number.
        block: usize,
        /// Diff line of its SEARCH marker.
        line: usize,
    },
}

/// An applied edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The new file text.
    pub text: String,
    /// How each block matched (`None` for an empty SEARCH that created content), in order.
    pub strategies: Vec<Option<Strategy>>,
}

/// Applies every block of `diff` to `original` (`None` for a missing file), keeping its line
/// endings and final-newline state. All or nothing.
pub fn apply(original: Option<&str>, diff: &str) -> Result<Applied, EditError> {
    let blocks = parse(diff)?;
    let mut doc = match original {
        Some(text) => Lines::parse(text),
        None => Lines::parse(""),
    };
    let untouched = doc.lines.clone();
    let total = blocks.len();
    let mut strategies = Vec::with_capacity(total);
    let mut cursor = 0;
    for (i, block) in blocks.iter().enumerate() {
        let search_is_empty = block.search.iter().all(|l| l.trim().is_empty());
        if search_is_empty {
            let file_is_empty = doc.lines.iter().all(|l| l.trim().is_empty());
            if !file_is_empty {
                return Err(EditError::EmptySearch {
                    block: i + 1,
                    line: block.line,
                });
            }
            doc.lines = block.replace.clone();
            doc.final_newline = true;
            cursor = doc.lines.len();
            strategies.push(None);
            continue;
        }
        let Some(found) = matcher::locate(&doc.lines, cursor, &block.search) else {
            return Err(EditError::NoMatch {
                block: i + 1,
                total,
                line: block.line,
                closest: closest_text(&untouched, &doc.lines, &block.search),
            });
        };
        let end = found.at + block.search.len();
        let replacement = if found.strategy.reindents() {
            matcher::reindent(&doc.lines[found.at..end], &block.search, &block.replace)
        } else {
            block.replace.clone()
        };
        cursor = found.at + replacement.len();
        doc.lines.splice(found.at..end, replacement);
        strategies.push(Some(found.strategy));
    }
    Ok(Applied {
        text: doc.render(),
        strategies,
    })
}

/// Files up to this many lines are shown whole when a SEARCH misses: the lines to copy are
/// then all in front of the model.
const SHOW_WHOLE_LINES: usize = 80;

/// For a failure message: a small file whole as it is on disk (`untouched`), else the lines
/// most like `search` in the file as the earlier blocks left it (`lines`), numbered.
fn closest_text(untouched: &[String], lines: &[String], search: &[String]) -> String {
    if !untouched.is_empty() && untouched.len() <= SHOW_WHOLE_LINES {
        let fence = "`".repeat(
            untouched
                .iter()
                .map(|l| l.chars().take_while(|c| *c == '`').count())
                .max()
                .unwrap_or(0)
                .max(2)
                + 1,
        );
        return format!(
            "\nThe file as it is now:\n{fence}\n{}\n{fence}",
            untouched.join("\n")
        );
    }
    let Some((start, len)) = matcher::closest(lines, search) else {
        return if lines.is_empty() {
            " The file is empty.".to_owned()
        } else {
            String::new()
        };
    };
    let mut out = format!(
        "\nThe closest lines in the file (lines {}-{}):\n",
        start + 1,
        start + len
    );
    for (n, line) in lines[start..start + len].iter().enumerate() {
        let shown: String = line.chars().take(300).collect();
        let _ = writeln!(out, "{:>6} | {shown}", start + n + 1);
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_miss_in_a_small_file_shows_the_file() {
        let text = "def mean(values):\n    return sum(values) / (len(values) - 1)\n";
        let err = apply(
            Some(text),
            "<<<<<<< SEARCH\nreturn 0\n=======\nreturn 1\n>>>>>>> REPLACE",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("The file as it is now:\n```\ndef mean(values):\n    return sum(values) / (len(values) - 1)\n```"),
            "{err}"
        );
        let long: String = (0..200).map(|i| format!("line {i}\n")).collect();
        let err = apply(
            Some(&long),
            "<<<<<<< SEARCH\nline 10x\n=======\nx\n>>>>>>> REPLACE",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("The closest lines in the file"), "{err}");
    }

    #[test]
    fn applies_in_order_and_keeps_crlf() {
        let text = "a\r\nb\r\nc\r\n";
        let diff = "<<<<<<< SEARCH\nb\n=======\nB\nB2\n>>>>>>> REPLACE\n";
        let out = apply(Some(text), diff).unwrap();
        assert_eq!(out.text, "a\r\nB\r\nB2\r\nc\r\n");
    }
}
