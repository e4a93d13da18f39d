//! A forgiving quote-aware splitter, used when tree-sitter-bash reports a syntax error, so a
//! misparse (e.g. `[ -d / ] && rm -rf /`) cannot hide a dangerous command.
//!
//! It understands `'…'`, `"…"`, backslashes and comments, and splits on `;`, `&`, `&&`, `||`,
//! `|`, `|&`, newlines, parentheses, `$(` and backticks. Redirection targets are kept apart.

/// One command of a pipeline.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Stage {
    /// Its words, quotes removed (leading `VAR=x` assignments and keywords dropped).
    pub argv: Vec<String>,
    /// Targets of output redirections (`> x`, `>> x`, `&> x`).
    pub writes: Vec<String>,
}

/// Splits `src` into pipelines of stages.
pub(crate) fn pipelines(src: &str) -> Vec<Vec<Stage>> {
    let mut lexer = Lexer::default();
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\r' => lexer.end_word(),
            '\n' | ';' | '(' | ')' | '`' => lexer.end_pipeline(),
            '#' if lexer.word.is_none() => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        break;
                    }
                }
                lexer.end_pipeline();
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(next) => lexer.push(next),
            },
            '\'' => {
                lexer.start_word();
                for next in chars.by_ref() {
                    if next == '\'' {
                        break;
                    }
                    lexer.push(next);
                }
            }
            '"' => {
                lexer.start_word();
                while let Some(next) = chars.next() {
                    match next {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('$' | '`' | '"' | '\\') => {
                                if let Some(escaped) = chars.next() {
                                    lexer.push(escaped);
                                }
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => lexer.push('\\'),
                        },
                        other => lexer.push(other),
                    }
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                lexer.end_pipeline();
            }
            '|' => {
                if chars.peek() == Some(&'|') {
                    chars.next();
                    lexer.end_pipeline();
                } else {
                    if chars.peek() == Some(&'&') {
                        chars.next();
                    }
                    lexer.end_stage();
                }
            }
            '&' => match chars.peek() {
                Some('&') => {
                    chars.next();
                    lexer.end_pipeline();
                }
                Some('>') => {
                    chars.next();
                    if chars.peek() == Some(&'>') {
                        chars.next();
                    }
                    lexer.redirect(true);
                }
                _ => lexer.end_pipeline(),
            },
            '>' => {
                // A word of digits right before is the descriptor (`2>`), not an argument.
                if lexer
                    .word
                    .as_deref()
                    .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
                {
                    lexer.word = None;
                }
                if matches!(chars.peek(), Some('>' | '|')) {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    // `>&2`: duplicates a descriptor, no file.
                    chars.next();
                    lexer.redirect(false);
                } else {
                    lexer.redirect(true);
                }
            }
            '<' => lexer.redirect(false),
            other => lexer.push(other),
        }
    }
    lexer.end_pipeline();
    lexer.out
}

#[derive(Default)]
struct Lexer {
    out: Vec<Vec<Stage>>,
    pipeline: Vec<Stage>,
    stage: Stage,
    word: Option<String>,
    /// The next word is a redirection target (`Some(true)`: written to).
    target: Option<bool>,
}

impl Lexer {
    fn start_word(&mut self) {
        self.word.get_or_insert_with(String::new);
    }

    fn push(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn redirect(&mut self, writes: bool) {
        self.end_word();
        self.target = Some(writes);
    }

    fn end_word(&mut self) {
        let Some(word) = self.word.take() else {
            return;
        };
        match self.target.take() {
            Some(true) => self.stage.writes.push(word),
            Some(false) => {}
            None => {
                let leading = self.stage.argv.is_empty();
                let keyword = matches!(
                    word.as_str(),
                    "if" | "then"
                        | "else"
                        | "elif"
                        | "fi"
                        | "do"
                        | "done"
                        | "while"
                        | "until"
                        | "{"
                        | "}"
                        | "!"
                        | "[["
                        | "]]"
                );
                if !(leading && (keyword || super::wrappers::is_assignment(&word))) {
                    self.stage.argv.push(word);
                }
            }
        }
    }

    fn end_stage(&mut self) {
        self.end_word();
        self.target = None;
        let stage = std::mem::take(&mut self.stage);
        self.pipeline.push(stage);
    }

    fn end_pipeline(&mut self) {
        self.end_stage();
        let pipeline: Vec<Stage> = std::mem::take(&mut self.pipeline)
            .into_iter()
            .filter(|s| !s.argv.is_empty() || !s.writes.is_empty())
            .collect();
        if !pipeline.is_empty() {
            self.out.push(pipeline);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(src: &str) -> Vec<Vec<Vec<String>>> {
        pipelines(src)
            .into_iter()
            .map(|p| p.into_iter().map(|s| s.argv).collect())
            .collect()
    }

    #[test]
    fn splits_operators_and_quotes() {
        assert_eq!(
            argvs(r#"[ -d / ] && rm -rf "/" ; echo 'a;b' | sh"#),
            vec![
                vec![vec!["[", "-d", "/", "]"]],
                vec![vec!["rm", "-rf", "/"]],
                vec![vec!["echo", "a;b"], vec!["sh"]],
            ]
        );
    }

    #[test]
    fn redirects_are_kept_apart() {
        let p = pipelines("echo hi 2>&1 > /dev/sda");
        assert_eq!(p[0][0].argv, vec!["echo", "hi"]);
        assert_eq!(p[0][0].writes, vec!["/dev/sda"]);
    }

    #[test]
    fn unterminated_quotes_do_not_panic() {
        assert_eq!(argvs("echo 'abc"), vec![vec![vec!["echo", "abc"]]]);
        assert_eq!(argvs("echo \"abc\\"), vec![vec![vec!["echo", "abc\\"]]]);
    }
}
