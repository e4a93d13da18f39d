use std::fmt;

/// A parse error, with the 1-based line number where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// A `[section` header without the closing `]`.
    BadSection { line: usize },
    /// A line that is neither a header nor `key = value`.
    MissingEquals { line: usize },
    /// `= value` with nothing before the `=`.
    EmptyKey { line: usize },
    /// A double-quoted value without its closing quote.
    UnterminatedQuote { line: usize },
    /// Text after the closing quote of a value (other than a comment).
    TrailingCharacters { line: usize },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::BadSection { line } => write!(f, "line {line}: unclosed section header"),
            ParseError::MissingEquals { line } => write!(f, "line {line}: expected key = value"),
            ParseError::EmptyKey { line } => write!(f, "line {line}: empty key"),
            ParseError::UnterminatedQuote { line } => write!(f, "line {line}: unterminated quote"),
            ParseError::TrailingCharacters { line } => {
                write!(f, "line {line}: unexpected text after the closing quote")
            }
        }
    }
}

impl std::error::Error for ParseError {}
