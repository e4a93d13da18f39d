//! Python's tokens: names, keywords, numbers, strings (calls inside f-string replacement fields
//! noted as they go by), operators, comments and logical line ends — or `None` for anything
//! this tokenizer does not model, so the caller can parse the file instead.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Name,
    Keyword,
    Number,
    Str,
    Op,
    Comment,
    /// The end of a logical line.
    Newline,
}

/// One token.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
    /// Row of its first byte (0-based).
    pub row: u32,
    /// Row of its last byte.
    pub end_row: u32,
    /// Column of its first byte, for the first token on a physical line.
    pub col: u32,
    /// Whether it starts a physical line (a comment alone on its line, a logical line's first token).
    pub first_in_line: bool,
}

/// The tokens of a file, and the names called inside f-string replacement fields.
pub(super) struct Tokens {
    pub tokens: Vec<Token>,
    pub interpolated_calls: Vec<(u32, u32)>,
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

const THREE_CHAR_OPS: &[&[u8]] = &[b"**=", b"//=", b">>=", b"<<=", b"..."];
const TWO_CHAR_OPS: &[&[u8]] = &[
    b"->", b":=", b"**", b"//", b"==", b"!=", b"<=", b">=", b"<<", b">>", b"+=", b"-=", b"*=",
    b"/=", b"%=", b"&=", b"|=", b"^=", b"@=",
];

/// Whether `text` is a keyword.
pub(super) fn is_keyword(text: &str) -> bool {
    KEYWORDS.contains(&text)
}

fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte >= 0x80
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80
}

/// Whether `prefix` may stand before a string's opening quote, and whether it makes an f-string.
fn string_prefix(prefix: &[u8]) -> Option<bool> {
    if prefix.len() > 2 {
        return None;
    }
    let mut formatted = false;
    let mut seen = [false; 4];
    for byte in prefix {
        let slot = match byte.to_ascii_lowercase() {
            b'r' => 0,
            b'u' => 1,
            b'b' => 2,
            b'f' | b't' => {
                formatted = true;
                3
            }
            _ => return None,
        };
        if seen[slot] {
            return None;
        }
        seen[slot] = true;
    }
    // `u` stands alone; bytes are never formatted.
    if (seen[1] && prefix.len() > 1) || (seen[2] && seen[3]) {
        return None;
    }
    Some(formatted)
}

/// Splits `source` into tokens.
pub(super) fn tokenize(source: &[u8]) -> Option<Tokens> {
    let mut lexer = Lexer {
        src: source,
        pos: 0,
        row: 0,
        brackets: Vec::new(),
        out: Tokens {
            tokens: Vec::with_capacity(source.len() / 4),
            interpolated_calls: Vec::new(),
        },
        line_has_code: false,
        next_first: None,
    };
    lexer.run()?;
    Some(lexer.out)
}

struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
    row: u32,
    brackets: Vec<u8>,
    out: Tokens,
    line_has_code: bool,
    /// The column of the next token when it is the first of its line.
    next_first: Option<u32>,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    fn push(&mut self, kind: Kind, start: usize, start_row: u32) -> Option<()> {
        let (first_in_line, col) = match self.next_first.take() {
            Some(col) => (true, col),
            None => (false, 0),
        };
        self.out.tokens.push(Token {
            kind,
            start: u32::try_from(start).ok()?,
            end: u32::try_from(self.pos).ok()?,
            row: start_row,
            end_row: self.row,
            col,
            first_in_line,
        });
        Some(())
    }

    fn run(&mut self) -> Option<()> {
        let mut line_start = true;
        while !self.at_end() {
            if line_start && self.brackets.is_empty() {
                line_start = self.line_indent()?;
                continue;
            }
            let byte = self.peek(0);
            match byte {
                b' ' | b'\t' | b'\x0c' => self.pos += 1,
                b'\r' if self.peek(1) == b'\n' => self.pos += 1,
                b'\r' => return None,
                b'\n' => {
                    if self.brackets.is_empty() {
                        self.end_logical_line()?;
                        line_start = true;
                    }
                    self.pos += 1;
                    self.row += 1;
                }
                b'#' => {
                    let start = self.pos;
                    self.skip_to_line_end();
                    if self.brackets.is_empty() {
                        self.push(Kind::Comment, start, self.row)?;
                    }
                }
                b'\\' => self.continuation()?,
                _ => self.token()?,
            }
        }
        if !self.brackets.is_empty() {
            return None;
        }
        self.end_logical_line()
    }

    /// Reads a physical line's indentation; a blank or comment-only line is consumed whole.
    /// Returns whether the next line still starts fresh.
    fn line_indent(&mut self) -> Option<bool> {
        let mut col = 0u32;
        while self.peek(0) == b' ' {
            col += 1;
            self.pos += 1;
        }
        match self.peek(0) {
            b'\t' | b'\x0c' => None,
            b'\r' if self.peek(1) == b'\n' => {
                self.pos += 2;
                self.row += 1;
                Some(true)
            }
            b'\n' => {
                self.pos += 1;
                self.row += 1;
                Some(true)
            }
            0 if self.at_end() => Some(true),
            b'#' => {
                let start = self.pos;
                self.skip_to_line_end();
                self.next_first = Some(col);
                self.push(Kind::Comment, start, self.row)?;
                Some(true)
            }
            b'\\' => None,
            _ => {
                self.next_first = Some(col);
                Some(false)
            }
        }
    }

    fn skip_to_line_end(&mut self) {
        while !self.at_end() && !matches!(self.peek(0), b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn end_logical_line(&mut self) -> Option<()> {
        if self.line_has_code {
            self.line_has_code = false;
            let start = self.pos;
            self.push(Kind::Newline, start, self.row)?;
        }
        Some(())
    }

    /// A backslash joining this line to the next.
    fn continuation(&mut self) -> Option<()> {
        match (self.peek(1), self.peek(2)) {
            (b'\n', _) => self.pos += 2,
            (b'\r', b'\n') => self.pos += 3,
            _ => return None,
        }
        self.row += 1;
        Some(())
    }

    fn token(&mut self) -> Option<()> {
        let start = self.pos;
        let start_row = self.row;
        let byte = self.peek(0);
        self.line_has_code = true;
        if is_name_start(byte) {
            while is_name_byte(self.peek(0)) {
                self.pos += 1;
            }
            if matches!(self.peek(0), b'"' | b'\'') {
                let formatted = string_prefix(&self.src[start..self.pos])?;
                self.string(formatted)?;
                return self.push(Kind::Str, start, start_row);
            }
            let text = std::str::from_utf8(&self.src[start..self.pos]).ok()?;
            let kind = if is_keyword(text) {
                Kind::Keyword
            } else {
                Kind::Name
            };
            return self.push(kind, start, start_row);
        }
        if byte.is_ascii_digit() || (byte == b'.' && self.peek(1).is_ascii_digit()) {
            self.number();
            return self.push(Kind::Number, start, start_row);
        }
        if matches!(byte, b'"' | b'\'') {
            self.string(false)?;
            return self.push(Kind::Str, start, start_row);
        }
        self.operator()?;
        self.push(Kind::Op, start, start_row)
    }

    fn number(&mut self) {
        loop {
            let byte = self.peek(0);
            let exponent_sign = matches!(byte, b'+' | b'-')
                && matches!(self.src.get(self.pos.wrapping_sub(1)), Some(b'e' | b'E'))
                && self.peek(1).is_ascii_digit();
            if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.' || exponent_sign {
                self.pos += 1;
            } else {
                return;
            }
        }
    }

    fn operator(&mut self) -> Option<()> {
        let rest = &self.src[self.pos..];
        if THREE_CHAR_OPS.iter().any(|op| rest.starts_with(op)) {
            self.pos += 3;
            return Some(());
        }
        if TWO_CHAR_OPS.iter().any(|op| rest.starts_with(op)) {
            self.pos += 2;
            return Some(());
        }
        let byte = self.peek(0);
        match byte {
            b'(' | b'[' | b'{' => self.brackets.push(byte),
            b')' | b']' | b'}' => {
                let open = self.brackets.pop()?;
                let expected = match open {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                if byte != expected {
                    return None;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'@' | b'&' | b'|' | b'^' | b'~' | b'<' | b'>'
            | b'=' | b'.' | b',' | b':' | b';' | b'!' => {}
            _ => return None,
        }
        self.pos += 1;
        Some(())
    }

    /// A string literal from its opening quote; in an f-string, the calls in its replacement
    /// fields are noted.
    fn string(&mut self, formatted: bool) -> Option<()> {
        let quote = self.peek(0);
        let triple = self.peek(1) == quote && self.peek(2) == quote;
        self.pos += if triple { 3 } else { 1 };
        loop {
            let byte = self.peek(0);
            if self.at_end() {
                return None;
            }
            match byte {
                b'\\' => {
                    if self.peek(1) == b'\n' {
                        self.row += 1;
                    }
                    self.pos += 2;
                }
                b'\n' => {
                    if !triple {
                        return None;
                    }
                    self.row += 1;
                    self.pos += 1;
                }
                _ if byte == quote => {
                    if !triple {
                        self.pos += 1;
                        return Some(());
                    }
                    if self.peek(1) == quote && self.peek(2) == quote {
                        self.pos += 3;
                        return Some(());
                    }
                    self.pos += 1;
                }
                b'{' if formatted => {
                    if self.peek(1) == b'{' {
                        self.pos += 2;
                    } else {
                        self.pos += 1;
                        self.replacement_field()?;
                    }
                }
                b'}' if formatted => {
                    if self.peek(1) != b'}' {
                        return None;
                    }
                    self.pos += 2;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// An f-string's `{…}` after its brace: the expression (names followed by `(` noted as
    /// calls), a conversion and a format spec, which may hold fields of its own.
    fn replacement_field(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            if self.at_end() {
                return None;
            }
            let byte = self.peek(0);
            match byte {
                b'\n' => {
                    self.row += 1;
                    self.pos += 1;
                }
                b'#' | b'\\' => return None,
                b'"' | b'\'' => self.string(false)?,
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.pos += 1;
                }
                b'}' if depth > 0 => {
                    depth -= 1;
                    self.pos += 1;
                }
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                b'!' if depth == 0 && self.peek(1) != b'=' => {
                    self.pos += 1;
                    while is_name_byte(self.peek(0)) {
                        self.pos += 1;
                    }
                }
                b':' if depth == 0 => {
                    self.pos += 1;
                    return self.format_spec();
                }
                _ if is_name_start(byte) => self.interpolated_name()?,
                _ if byte.is_ascii_digit() => self.number(),
                _ => self.pos += 1,
            }
        }
    }

    fn interpolated_name(&mut self) -> Option<()> {
        let start = self.pos;
        while is_name_byte(self.peek(0)) {
            self.pos += 1;
        }
        if matches!(self.peek(0), b'"' | b'\'') {
            let formatted = string_prefix(&self.src[start..self.pos])?;
            return self.string(formatted);
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).ok()?;
        let mut next = self.pos;
        while matches!(self.src.get(next), Some(b' ')) {
            next += 1;
        }
        if self.src.get(next) == Some(&b'(') && !is_keyword(text) {
            self.out
                .interpolated_calls
                .push((u32::try_from(start).ok()?, u32::try_from(self.pos).ok()?));
        }
        Some(())
    }

    /// A format spec up to the field's closing brace; nested fields are replacement fields.
    fn format_spec(&mut self) -> Option<()> {
        loop {
            if self.at_end() {
                return None;
            }
            match self.peek(0) {
                b'{' => {
                    self.pos += 1;
                    self.replacement_field()?;
                }
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\n' | b'\\' | b'"' | b'\'' => return None,
                _ => self.pos += 1,
            }
        }
    }
}
