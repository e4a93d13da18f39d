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
//! A diff with no such block but unified-diff hunks (`@@ … @@`, `-`/`+`/` ` lines) is read as
//! one block per hunk.
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
        State::Outside if blocks.is_empty() => unified(diff).ok_or(ParseError::NoBlocks),
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

/// The blocks of a unified diff (`@@ … @@` hunks, with or without the `diff`/`---`/`+++`
/// header), as models used to `git diff` write: each hunk's context and removed lines are the
/// SEARCH, its context and added lines the REPLACE. `None` when `diff` has no hunk.
fn unified(diff: &str) -> Option<Vec<Block>> {
    let lines: Vec<&str> = diff
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let hunked = lines.iter().any(|l| l.starts_with("@@"));
    let headed =
        lines.iter().any(|l| l.starts_with("--- ")) && lines.iter().any(|l| l.starts_with("+++ "));
    if !hunked && !headed {
        return None;
    }
    let mut blocks = Vec::new();
    let mut current: Option<Block> = None;
    let mut in_header = true;
    for (index, line) in lines.iter().enumerate() {
        if line.starts_with("@@") {
            blocks.extend(current.take());
            current = Some(Block {
                line: index + 1,
                search: Vec::new(),
                replace: Vec::new(),
            });
            in_header = false;
            continue;
        }
        let header = [
            "diff ",
            "index ",
            "--- ",
            "+++ ",
            "new file",
            "deleted file",
        ]
        .iter()
        .any(|h| line.starts_with(h));
        if header && (in_header || current.is_none()) {
            blocks.extend(current.take());
            in_header = true;
            continue;
        }
        if line.starts_with('\\') {
            // "\ No newline at end of file".
            continue;
        }
        let block = current.get_or_insert_with(|| Block {
            line: index + 1,
            search: Vec::new(),
            replace: Vec::new(),
        });
        in_header = false;
        match line.chars().next() {
            Some('-') => block.search.push(line[1..].to_owned()),
            Some('+') => block.replace.push(line[1..].to_owned()),
            Some(' ') => {
                block.search.push(line[1..].to_owned());
                block.replace.push(line[1..].to_owned());
            }
            // A blank context line whose leading space was lost.
            None => {
                block.search.push(String::new());
                block.replace.push(String::new());
            }
            Some(_) => return None,
        }
    }
    blocks.extend(current);
    // Trailing blank lines of a hunk are the diff's end, not the file's.
    for block in &mut blocks {
        while block.search.last().is_some_and(String::is_empty)
            && block.replace.last().is_some_and(String::is_empty)
        {
            block.search.pop();
            block.replace.pop();
        }
    }
    blocks.retain(|b| b.search != b.replace);
    (!blocks.is_empty()).then_some(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unified_diff_is_read_as_blocks() {
        let diff = "diff --git a/api/h.go b/api/h.go\nindex 1234567..89abcdef 100644\n--- a/api/h.go\n+++ b/api/h.go\n@@ -12,3 +12,3 @@ func f() {\n   a := 1\n-  b := s.Fetch(a)\n+  b := s.Get(a)\n   return b\n@@ -40,2 +40,2 @@\n-x\n+y\n";
        let blocks = parse(diff).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            blocks[0].search,
            ["  a := 1", "  b := s.Fetch(a)", "  return b"]
        );
        assert_eq!(
            blocks[0].replace,
            ["  a := 1", "  b := s.Get(a)", "  return b"]
        );
        assert_eq!(
            (blocks[1].search.clone(), blocks[1].replace.clone()),
            (vec!["x".to_owned()], vec!["y".to_owned()])
        );
        // Headers without @@ (a model's short form).
        let short = parse("--- a/x.py\n+++ b/x.py\n-return 1\n+return 2").unwrap();
        assert_eq!(short[0].search, ["return 1"]);
        // Prose is still no diff.
        assert_eq!(
            parse("just some text\nwith lines"),
            Err(ParseError::NoBlocks)
        );
        // Hunks that change nothing are none.
        assert_eq!(parse("@@ -1 +1 @@\n same\n"), Err(ParseError::NoBlocks));
    }

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
