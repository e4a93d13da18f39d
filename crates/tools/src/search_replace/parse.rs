//! Parsing SEARCH/REPLACE blocks.
//!
//! ```text
//! <<<<<<< SEARCH
//! lines to find
//! =======
//! lines to put instead
//! >>>>>>> REPLACE
//! ```
//!
//! Markers may use any run of three or more of the same character (`<<< SEARCH`, `===`,
//! `>>> REPLACE`), or the `------- SEARCH` / `+++++++ REPLACE` style. A git conflict marker's
//! run of seven `<` or `>` opens or closes a block whatever word follows it (`<<<<<<< HEAD`,
//! `>>>>>>> updated`), as models used to merge conflicts write them. Text outside blocks (code
//! fences, blank lines) is ignored; a marker in the wrong place is an error naming its line.

/// One SEARCH/REPLACE block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// 1-based line of the diff holding the SEARCH marker.
    pub line: usize,
    /// Lines to find (without line endings).
    pub search: Vec<String>,
    /// Lines to put in their place.
    pub replace: Vec<String>,
}

/// A malformed diff.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A marker where it does not belong, or a block left open.
    #[error("malformed diff at line {line}: {message}")]
    Malformed {
        /// 1-based line of the diff.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// No block at all.
    #[error(
        "the diff holds no SEARCH/REPLACE block; write each edit as `<<<<<<< SEARCH`, the lines to find, `=======`, the new lines, `>>>>>>> REPLACE`"
    )]
    NoBlocks,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Search,
    Divider,
    Replace,
}

/// Whether `line` is a run of three or more of `c` and nothing else.
fn is_run(s: &str, c: char) -> bool {
    s.chars().count() >= 3 && s.chars().all(|x| x == c)
}

fn marker(line: &str) -> Option<Marker> {
    let line = line.trim_end();
    if is_run(line, '=') {
        return Some(Marker::Divider);
    }
    let (run, word) = line
        .split_once(' ')
        .map_or((line, ""), |(r, w)| (r, w.trim()));
    let conflict = |c: char| run.chars().count() == 7 && is_run(run, c);
    if (word == "SEARCH" && (is_run(run, '<') || is_run(run, '-'))) || conflict('<') {
        return Some(Marker::Search);
    }
    if (word == "REPLACE" && (is_run(run, '>') || is_run(run, '+'))) || conflict('>') {
        return Some(Marker::Replace);
    }
    None
}

enum State {
    Outside,
    Search {
        line: usize,
        search: Vec<String>,
    },
    Replace {
        line: usize,
        search: Vec<String>,
        replace: Vec<String>,
    },
}

/// Parses every block of `diff`.
pub fn parse(diff: &str) -> Result<Vec<Block>, ParseError> {
    let mut blocks = Vec::new();
    let mut state = State::Outside;
    let malformed = |line: usize, message: &str| ParseError::Malformed {
        line,
        message: message.to_owned(),
    };
    for (index, raw) in diff.split('\n').enumerate() {
        let n = index + 1;
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        state = match (state, marker(text)) {
            (State::Outside, Some(Marker::Search)) => State::Search {
                line: n,
                search: Vec::new(),
            },
            (State::Outside, Some(Marker::Divider)) => {
                return Err(malformed(
                    n,
                    "`=======` outside a block; every block starts with `<<<<<<< SEARCH`",
                ));
            }
            (State::Outside, Some(Marker::Replace)) => {
                return Err(malformed(
                    n,
                    "`>>>>>>> REPLACE` without a block to close; every block starts with `<<<<<<< SEARCH`",
                ));
            }
            (State::Outside, None) => State::Outside,
            (State::Search { line, search }, Some(Marker::Divider)) => State::Replace {
                line,
                search,
                replace: Vec::new(),
            },
            (State::Search { line, .. }, Some(Marker::Search)) => {
                return Err(malformed(
                    n,
                    &format!(
                        "a second SEARCH marker inside the block opened at line {line}; separate SEARCH from REPLACE with `=======`"
                    ),
                ));
            }
            (State::Search { line, .. }, Some(Marker::Replace)) => {
                return Err(malformed(
                    n,
                    &format!("REPLACE marker before `=======` in the block opened at line {line}"),
                ));
            }
            (State::Search { line, mut search }, None) => {
                search.push(text.to_owned());
                State::Search { line, search }
            }
            (
                State::Replace {
                    line,
                    search,
                    replace,
                },
                Some(Marker::Replace),
            ) => {
                blocks.push(Block {
                    line,
                    search,
                    replace,
                });
                State::Outside
            }
            (State::Replace { line, .. }, Some(Marker::Divider)) => {
                return Err(malformed(
                    n,
                    &format!(
                        "a second `=======` in the block opened at line {line}; close it with `>>>>>>> REPLACE`"
                    ),
                ));
            }
            (State::Replace { line, .. }, Some(Marker::Search)) => {
                return Err(malformed(
                    n,
                    &format!(
                        "SEARCH marker before the block opened at line {line} was closed with `>>>>>>> REPLACE`"
                    ),
                ));
            }
            (
                State::Replace {
                    line,
                    search,
                    mut replace,
                },
                None,
            ) => {
                replace.push(text.to_owned());
                State::Replace {
                    line,
                    search,
                    replace,
                }
            }
        };
    }
    match state {
        State::Outside if blocks.is_empty() => Err(ParseError::NoBlocks),
        State::Outside => Ok(blocks),
        State::Search { line, .. } => Err(malformed(
            line,
            "block opened here has no `=======` and no `>>>>>>> REPLACE`",
        )),
        State::Replace { line, .. } => Err(malformed(
            line,
            "block opened here is never closed with `>>>>>>> REPLACE`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_styles() {
        let conflict =
            parse("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> updated\n<<<<<<<\nc\n=======\nd\n>>>>>>>")
                .unwrap();
        assert_eq!(conflict.len(), 2);
        assert_eq!(conflict[1].search, vec!["c".to_owned()]);
        // Only a conflict marker's seven: a heredoc or a shift is not a marker.
        assert!(parse("<<< EOF\na\n").is_err());
        let diff = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n------- SEARCH\nc\n===\n+++++++ REPLACE";
        let blocks = parse(diff).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].search, vec!["a"]);
        assert_eq!(blocks[0].replace, vec!["b"]);
        assert_eq!(blocks[1].line, 6);
        assert_eq!(blocks[1].search, vec!["c"]);
        assert!(blocks[1].replace.is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse("x\n=======\n").unwrap_err();
        assert_eq!(
            err,
            ParseError::Malformed {
                line: 2,
                message: "`=======` outside a block; every block starts with `<<<<<<< SEARCH`"
                    .into()
            }
        );
        assert!(matches!(
            parse("<<< SEARCH\na\n"),
            Err(ParseError::Malformed { line: 1, .. })
        ));
        assert_eq!(parse("just text"), Err(ParseError::NoBlocks));
    }
}
