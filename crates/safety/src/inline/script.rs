//! Perl, Ruby, PHP, Lua and awk inline code, for which the project has no grammar: a
//! quote-aware tokenizer (each language's strings, quote-like operators, `%`-literals,
//! regexes, comments and interpolation) and a scan for the calls that run commands, delete or
//! write files, or evaluate code — with or without parentheses (`unlink $f`, `system "ls"`,
//! `FileUtils.rm_rf "/"`), qualified (`File::Path::rmtree`, `FileUtils.rm_rf`, `os.execute`)
//! or not. Whatever is not one of those calls is ordinary code; code that picks what to run at
//! run time (`eval $s`, `&$f`, `send(name)`, `call_user_func($f)`, `$f()`) cannot be judged.

use std::collections::HashMap;

use super::{Effect, Effects, Lang, Value, join_path, unescape};

/// What `code` in `lang` (one of Perl, Ruby, PHP, Lua, awk) does.
pub(super) fn analyze(lang: Lang, code: &str) -> Vec<Effect> {
    let tokens = Lexer::new(lang, code).run();
    let mut scan = Scan {
        lang,
        tokens: &tokens,
        env: HashMap::new(),
        effects: Effects::default(),
    };
    scan.run();
    scan.effects.into_vec()
}

/// A piece of an interpolating string.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    /// Literal text.
    Text(String),
    /// A variable (`$name`, `@name`), with the key or index after it (`$ENV{HOME}`).
    Var(String, Option<String>),
    /// An expression (`#{Dir.home}`, PHP's `{$x}`), as source.
    Expr(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A name, joined with its qualifiers (`File::Path::rmtree`, `FileUtils.rm_rf`).
    Word(String),
    /// A string literal; `command` for backticks, `qx` and `%x`.
    Str { parts: Vec<Part>, command: bool },
    /// A list of words (`qw(a b)`, `%w[a b]`).
    Words(Vec<String>),
    /// A variable (`$x`, `@x`, `%x`, `$1`).
    Var(String),
    /// A Ruby symbol (`:system`).
    Sym(String),
    /// An integer.
    Num(i64),
    /// A Perl substitution whose replacement is code (`s/…/…/e`); `twice` for `ee`.
    CodeSubst { code: String, twice: bool },
    /// A regex (`/…/`, `m{…}`, `qr//`, `%r{}`, `tr///`), with its flags.
    Regex { flags: String },
    /// Punctuation or an operator.
    Punct(String),
}

impl Tok {
    fn is(&self, punct: &str) -> bool {
        matches!(self, Tok::Punct(p) if p == punct)
    }

    fn word(&self) -> Option<&str> {
        match self {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }
}

/// Words after which an operand (so a regex, a `%`-literal, a hash) starts.
const OPERAND_KEYWORDS: &[&str] = &[
    "and", "or", "not", "if", "unless", "while", "until", "return", "split", "grep", "map", "join",
    "push", "unshift", "print", "printf", "puts", "p", "when", "x", "lt", "gt", "le", "ge", "eq",
    "ne", "cmp", "then", "do", "elsif", "else", "case", "in", "getline", "sub", "gsub", "match",
    "index", "local", "my", "our", "echo",
];

/// Two-character operators.
const OPERATORS: &[&str] = &[
    "=>", "->", "||", "&&", "==", "!=", "=~", "!~", "<=", ">=", "<<", ">>", "..", "**", "+=", "-=",
    ".=", "//", "::", "|=", "&=",
];

struct Lexer {
    lang: Lang,
    chars: Vec<char>,
    at: usize,
    out: Vec<Tok>,
    /// Open `(` and `[` (a newline inside them does not end a statement).
    depth: usize,
}

impl Lexer {
    fn new(lang: Lang, src: &str) -> Self {
        Self {
            lang,
            chars: src.chars().collect(),
            at: 0,
            out: Vec::new(),
            depth: 0,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Whether the next token starts an operand (a regex rather than a division).
    fn operand_position(&self) -> bool {
        match self.out.last() {
            None => true,
            Some(Tok::Punct(p)) => !matches!(p.as_str(), ")" | "]" | "}"),
            Some(Tok::Word(w)) => OPERAND_KEYWORDS.contains(&w.as_str()),
            _ => false,
        }
    }

    fn run(mut self) -> Vec<Tok> {
        while let Some(c) = self.peek(0) {
            if self.out.len() > 20_000 {
                break;
            }
            match c {
                '\n' if matches!(self.lang, Lang::Ruby | Lang::Awk | Lang::Lua) => {
                    // A newline ends a statement, unless an operator or a bracket continues it.
                    self.at += 1;
                    let continues = self.depth > 0
                        || matches!(self.out.last(), Some(Tok::Punct(p)) if p != ")" && p != "]" && p != "}" && p != ";");
                    if !continues && !self.out.is_empty() {
                        self.out.push(Tok::Punct(";".into()));
                    }
                }
                c if c.is_whitespace() => self.at += 1,
                '#' if matches!(self.lang, Lang::Perl | Lang::Ruby | Lang::Php | Lang::Awk) => {
                    self.skip_line();
                }
                '/' if self.lang == Lang::Php && self.peek(1) == Some('/') => self.skip_line(),
                '/' if self.lang == Lang::Php && self.peek(1) == Some('*') => {
                    self.at += 2;
                    while self.peek(0).is_some()
                        && !(self.peek(0) == Some('*') && self.peek(1) == Some('/'))
                    {
                        self.at += 1;
                    }
                    self.at += 2;
                }
                '-' if self.lang == Lang::Lua && self.peek(1) == Some('-') => {
                    self.at += 2;
                    if self.peek(0) == Some('[') && self.long_bracket().is_some() {
                        continue;
                    }
                    self.skip_line();
                }
                '[' if self.lang == Lang::Lua && matches!(self.peek(1), Some('[' | '=')) => {
                    match self.long_bracket() {
                        Some(text) => self.out.push(Tok::Str {
                            parts: vec![Part::Text(text)],
                            command: false,
                        }),
                        None => {
                            self.at += 1;
                            self.out.push(Tok::Punct("[".into()));
                        }
                    }
                }
                '\'' if self.lang != Lang::Awk => {
                    self.at += 1;
                    let text = self.until('\'', self.lang == Lang::Lua);
                    let text = if self.lang == Lang::Lua {
                        unescape(&text)
                    } else {
                        text.replace("\\\\", "\\").replace("\\'", "'")
                    };
                    self.out.push(Tok::Str {
                        parts: vec![Part::Text(text)],
                        command: false,
                    });
                }
                '"' => {
                    self.at += 1;
                    let parts = self.interpolated('"', '"');
                    self.out.push(Tok::Str {
                        parts,
                        command: false,
                    });
                }
                '`' if matches!(self.lang, Lang::Perl | Lang::Ruby | Lang::Php) => {
                    self.at += 1;
                    let parts = self.interpolated('`', '`');
                    self.out.push(Tok::Str {
                        parts,
                        command: true,
                    });
                }
                '/' if matches!(self.lang, Lang::Perl | Lang::Ruby | Lang::Awk)
                    && self.operand_position() =>
                {
                    self.at += 1;
                    self.until('/', true);
                    let flags = self.word_chars();
                    self.out.push(Tok::Regex { flags });
                }
                '%' if self.lang == Lang::Ruby
                    && self.operand_position()
                    && self.percent_literal() => {}
                '$' | '@'
                    if matches!(self.lang, Lang::Perl | Lang::Php | Lang::Ruby | Lang::Awk) =>
                {
                    self.variable(c);
                }
                '%' if self.lang == Lang::Perl
                    && self.operand_position()
                    && self.peek(1).is_some_and(|n| n.is_alphabetic() || n == '_') =>
                {
                    self.variable(c);
                }
                ':' if self.lang == Lang::Ruby
                    && self.peek(1).is_some_and(|n| n.is_alphabetic() || n == '_')
                    && !matches!(self.out.last(), Some(Tok::Word(_)))
                    && self.peek(1) != Some(':') =>
                {
                    self.at += 1;
                    let name = self.word_chars();
                    self.out.push(Tok::Sym(name));
                }
                c if c.is_ascii_digit() => {
                    let digits = self.word_chars();
                    self.out
                        .push(Tok::Num(number(&digits, self.lang).unwrap_or(0)));
                }
                c if c.is_alphabetic() || c == '_' => self.word(),
                _ => {
                    let two: String = self.chars[self.at..].iter().take(2).collect();
                    if OPERATORS.contains(&two.as_str()) {
                        self.at += 2;
                        self.out.push(Tok::Punct(two));
                    } else {
                        self.at += 1;
                        match c {
                            '(' | '[' => self.depth += 1,
                            ')' | ']' => self.depth = self.depth.saturating_sub(1),
                            _ => {}
                        }
                        self.out.push(Tok::Punct(c.to_string()));
                    }
                }
            }
        }
        self.out
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            self.at += 1;
        }
    }

    fn word_chars(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek(0).filter(|c| c.is_alphanumeric() || *c == '_') {
            out.push(c);
            self.at += 1;
        }
        out
    }

    /// Text up to the unescaped `end` (consumed); with `keep_escapes` backslashes stay.
    fn until(&mut self, end: char, keep_escapes: bool) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            if c == '\\' {
                if let Some(next) = self.peek(0) {
                    self.at += 1;
                    if keep_escapes || next != end {
                        out.push('\\');
                    }
                    out.push(next);
                }
                continue;
            }
            if c == end {
                break;
            }
            out.push(c);
        }
        out
    }

    /// Text between `open` and its matching `close` (nesting when they differ); the opening
    /// delimiter is already consumed. Escapes are kept.
    fn delimited(&mut self, open: char, close: char) -> String {
        let mut depth = 0usize;
        let mut out = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            if c == '\\' {
                if let Some(next) = self.peek(0) {
                    self.at += 1;
                    out.push('\\');
                    out.push(next);
                }
                continue;
            }
            if c == close && depth == 0 {
                break;
            }
            if open != close {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth = depth.saturating_sub(1);
                }
            }
            out.push(c);
        }
        out
    }

    /// A Lua long bracket (`[[…]]`, `[==[…]==]`) at the cursor.
    fn long_bracket(&mut self) -> Option<String> {
        let start = self.at;
        if self.peek(0) != Some('[') {
            return None;
        }
        let mut level = 0;
        while self.peek(1 + level) == Some('=') {
            level += 1;
        }
        if self.peek(1 + level) != Some('[') {
            return None;
        }
        self.at += 2 + level;
        let close: String = std::iter::once(']')
            .chain(std::iter::repeat_n('=', level))
            .chain(std::iter::once(']'))
            .collect();
        let rest: String = self.chars[self.at..].iter().collect();
        match rest.find(&close) {
            Some(end) => {
                let text = rest[..end].to_owned();
                self.at += text.chars().count() + close.chars().count();
                Some(text)
            }
            None => {
                self.at = start;
                None
            }
        }
    }

    /// An interpolating string's parts, up to `close`.
    fn interpolated(&mut self, open: char, close: char) -> Vec<Part> {
        let raw = self.delimited(open, close);
        interpolate(self.lang, &raw)
    }

    /// A variable: `$x`, `@x`, `%x`, `$ENV{…}` (the braces are left as tokens), `$1`, `$$`.
    fn variable(&mut self, sigil: char) {
        self.at += 1;
        let mut name = String::from(sigil);
        if self.lang == Lang::Ruby && sigil == '@' && self.peek(0) == Some('@') {
            self.at += 1;
            name.push('@');
        }
        if self.lang == Lang::Perl && sigil == '$' && self.peek(0) == Some('#') {
            self.at += 1;
            name.push('#');
        }
        let word = self.word_chars();
        if word.is_empty()
            && let Some(c) = self
                .peek(0)
                .filter(|c| !c.is_whitespace() && *c != '{' && *c != '(')
        {
            self.at += 1;
            name.push(c);
        }
        name.push_str(&word);
        while self.lang == Lang::Perl && self.peek(0) == Some(':') && self.peek(1) == Some(':') {
            self.at += 2;
            name.push_str("::");
            name.push_str(&self.word_chars());
        }
        self.out.push(Tok::Var(name));
    }

    /// Ruby's `%q(…)`, `%w[…]`, `%x{…}`, `%(…)`; false (nothing consumed) when `%` is an
    /// operator.
    fn percent_literal(&mut self) -> bool {
        let (kind, delim_at) = match self.peek(1) {
            Some(k) if "qQwWiIxrs".contains(k) => (Some(k), 2),
            _ => (None, 1),
        };
        let Some(open) = self
            .peek(delim_at)
            .filter(|d| !d.is_alphanumeric() && !d.is_whitespace())
        else {
            return false;
        };
        let close = closing(open);
        self.at += delim_at + 1;
        let body = self.delimited(open, close);
        let tok = match kind {
            Some('w' | 'W' | 'i' | 'I') => {
                Tok::Words(body.split_whitespace().map(str::to_owned).collect())
            }
            Some('q' | 's') => Tok::Str {
                parts: vec![Part::Text(body)],
                command: false,
            },
            Some('x') => Tok::Str {
                parts: interpolate(self.lang, &body),
                command: true,
            },
            Some('r') => {
                let flags = self.word_chars();
                Tok::Regex { flags }
            }
            _ => Tok::Str {
                parts: interpolate(self.lang, &body),
                command: false,
            },
        };
        self.out.push(tok);
        true
    }

    /// A name, or a Perl quote-like operator (`q`, `qq`, `qw`, `qx`, `m`, `qr`, `s`, `tr`,
    /// `y`), joined with what qualifies it.
    fn word(&mut self) {
        let mut name = self.word_chars();
        if self.lang == Lang::Perl && self.quote_like(&name) {
            return;
        }
        if (name == "__END__" || name == "__DATA__") && matches!(self.lang, Lang::Perl | Lang::Ruby)
        {
            self.at = self.chars.len();
            return;
        }
        loop {
            let joiner: &[&str] = match self.lang {
                Lang::Perl => &["::", "->"],
                Lang::Ruby => &["::", "."],
                Lang::Php => &["::"],
                Lang::Lua => &[".", ":"],
                _ => &[],
            };
            let rest: String = self.chars[self.at..].iter().take(2).collect();
            let Some(join) = joiner.iter().find(|j| rest.starts_with(**j)) else {
                break;
            };
            let after = self.peek(join.chars().count());
            if !after.is_some_and(|c| c.is_alphabetic() || c == '_') {
                break;
            }
            self.at += join.chars().count();
            name.push_str(if *join == "->" || *join == ":" {
                "::"
            } else {
                join
            });
            if self.lang == Lang::Lua && *join == ":" {
                name = name.replace("::", ".");
            }
            name.push_str(&self.word_chars());
        }
        if self.lang == Lang::Ruby
            && let Some(c @ ('?' | '!')) = self.peek(0)
            && self.peek(1) != Some('=')
        {
            self.at += 1;
            name.push(c);
        }
        self.out.push(Tok::Word(name));
    }

    /// Perl's quote-like operators; false (nothing consumed) when `name` is not one here.
    fn quote_like(&mut self, name: &str) -> bool {
        if !matches!(
            name,
            "q" | "qq" | "qw" | "qx" | "m" | "qr" | "s" | "tr" | "y"
        ) {
            return false;
        }
        let mut look = self.at;
        while self.chars.get(look).is_some_and(|c| c.is_whitespace()) {
            look += 1;
        }
        let Some(open) = self.chars.get(look).copied() else {
            return false;
        };
        if open.is_alphanumeric()
            || open == '_'
            || matches!(open, ',' | ';' | ')')
            || (open == '=' && self.chars.get(look + 1) == Some(&'>'))
        {
            return false;
        }
        if open == '#' && look != self.at {
            return false;
        }
        self.at = look + 1;
        let close = closing(open);
        let first = self.delimited(open, close);
        match name {
            "q" => self.out.push(Tok::Str {
                parts: vec![Part::Text(first)],
                command: false,
            }),
            "qq" => self.out.push(Tok::Str {
                parts: interpolate(Lang::Perl, &first),
                command: false,
            }),
            "qx" => self.out.push(Tok::Str {
                parts: interpolate(Lang::Perl, &first),
                command: true,
            }),
            "qw" => self.out.push(Tok::Words(
                first.split_whitespace().map(str::to_owned).collect(),
            )),
            "m" | "qr" => {
                let flags = self.word_chars();
                self.out.push(Tok::Regex { flags });
            }
            _ => {
                // s, tr, y: a second part, after its own opening delimiter when bracketed.
                let second = if open == close {
                    self.delimited(open, close)
                } else {
                    while self.peek(0).is_some_and(char::is_whitespace) {
                        self.at += 1;
                    }
                    match self.peek(0) {
                        Some(o) => {
                            self.at += 1;
                            self.delimited(o, closing(o))
                        }
                        None => String::new(),
                    }
                };
                let flags = self.word_chars();
                let evals = flags.matches('e').count();
                if name == "s" && evals > 0 {
                    self.out.push(Tok::CodeSubst {
                        code: second,
                        twice: evals > 1,
                    });
                } else {
                    self.out.push(Tok::Regex { flags });
                }
            }
        }
        true
    }
}

/// The closing delimiter for `open`.
fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        other => other,
    }
}

/// An interpolating string's body (escapes still in it) as parts.
fn interpolate(lang: Lang, raw: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let chars: Vec<char> = raw.chars().collect();
    let mut i = 0;
    let flush = |literal: &mut String, parts: &mut Vec<Part>| {
        if !literal.is_empty() {
            parts.push(Part::Text(unescape(literal)));
            literal.clear();
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            literal.push(c);
            if let Some(next) = chars.get(i + 1) {
                literal.push(*next);
            }
            i += 2;
            continue;
        }
        let ident = |j: usize| {
            chars
                .get(j)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        };
        match lang {
            Lang::Perl | Lang::Php
                if (c == '$' || (c == '@' && lang == Lang::Perl))
                    && (ident(i + 1) || chars.get(i + 1) == Some(&'{')) =>
            {
                flush(&mut literal, &mut parts);
                let mut j = i + 1;
                let mut name = String::from(c);
                if chars.get(j) == Some(&'{') {
                    let end = chars[j..]
                        .iter()
                        .position(|c| *c == '}')
                        .map_or(chars.len(), |p| j + p);
                    name.extend(&chars[j + 1..end.min(chars.len())]);
                    j = end + 1;
                } else {
                    while ident(j)
                        || (lang == Lang::Perl
                            && chars.get(j) == Some(&':')
                            && chars.get(j + 1) == Some(&':'))
                    {
                        name.push(chars[j]);
                        j += 1;
                    }
                }
                let mut key = None;
                if let Some(open @ ('{' | '[')) = chars.get(j).copied() {
                    let close = closing(open);
                    if let Some(p) = chars[j..].iter().position(|c| *c == close) {
                        let inner: String = chars[j + 1..j + p].iter().collect();
                        key = Some(inner.trim_matches(['\'', '"']).to_owned());
                        j += p + 1;
                    }
                }
                parts.push(Part::Var(name, key));
                i = j;
            }
            Lang::Php if c == '{' && chars.get(i + 1) == Some(&'$') => {
                flush(&mut literal, &mut parts);
                let end = chars[i..]
                    .iter()
                    .position(|c| *c == '}')
                    .map_or(chars.len(), |p| i + p);
                parts.push(Part::Expr(chars[i + 1..end].iter().collect()));
                i = end + 1;
            }
            Lang::Ruby if c == '#' && chars.get(i + 1) == Some(&'{') => {
                flush(&mut literal, &mut parts);
                let mut depth = 0;
                let mut j = i + 2;
                while j < chars.len() {
                    match chars[j] {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                parts.push(Part::Expr(
                    chars[i + 2..j.min(chars.len())].iter().collect(),
                ));
                i = j + 1;
            }
            _ => {
                literal.push(c);
                i += 1;
            }
        }
    }
    flush(&mut literal, &mut parts);
    parts
}

/// An integer literal (Perl's and PHP's `0755` are octal).
fn number(digits: &str, lang: Lang) -> Option<i64> {
    let digits = digits.replace('_', "").to_ascii_lowercase();
    if let Some(hex) = digits.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(octal) = digits.strip_prefix("0o") {
        i64::from_str_radix(octal, 8).ok()
    } else if digits.len() > 1 && digits.starts_with('0') && lang != Lang::Awk && lang != Lang::Lua
    {
        i64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse().ok()
    }
}

/// What a dangerous function does with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `system`: one string is a shell line; several words are a program and its arguments.
    System,
    /// A shell line (`shell_exec`, `os.execute`, `readpipe`).
    Shell,
    /// A program and its arguments (`pcntl_exec`).
    Exec,
    /// Kernel#open / Perl's open: a pipe runs a command, a write mode writes a file.
    Open,
    /// Deletes each argument recursively.
    RemoveTree,
    /// Deletes each argument.
    Remove,
    /// Removes each empty folder.
    Rmdir,
    /// Moves the first argument to the second.
    Move,
    /// Copies the first argument to the second.
    Copy,
    /// Links the second argument to the first.
    Link,
    /// Writes the file its first argument names.
    Write,
    /// Truncates the file its first argument names.
    Truncate,
    /// Mode first, then files (`chmod 0777, $f`).
    ChmodModeFirst,
    /// File first, then mode (PHP's `chmod($f, 0777)`).
    ChmodPathFirst,
    /// Signal first, then process ids (Perl's `kill`, Ruby's `Process.kill`).
    KillSignalFirst,
    /// Process id first (PHP's `posix_kill`).
    KillPidFirst,
    /// Evaluates a string of code in the same language.
    Eval,
    /// Calls the function its first argument names (`send`, `call_user_func`).
    Dispatch,
    /// Not judged at all.
    Opaque,
}

/// The dangerous functions of `lang` by name.
fn kind(lang: Lang, name: &str) -> Option<Kind> {
    use Kind::*;
    let short = name.rsplit(['.', ':']).next().unwrap_or(name);
    Some(match lang {
        Lang::Perl => match name.trim_start_matches("CORE::") {
            "system" | "exec" => System,
            "readpipe" => Shell,
            "open" => Open,
            "unlink" => Remove,
            "rmdir" => Rmdir,
            "rmtree" | "remove_tree" | "File::Path::rmtree" | "File::Path::remove_tree" => {
                RemoveTree
            }
            "rename" | "File::Copy::move" | "move" => Move,
            "File::Copy::copy" | "copy" => Copy,
            "symlink" | "link" => Link,
            "truncate" => Truncate,
            "chmod" => ChmodModeFirst,
            "kill" => KillSignalFirst,
            "eval" => Eval,
            "syscall" => Opaque,
            _ => return None,
        },
        Lang::Ruby => match name {
            "system" | "exec" | "spawn" | "Kernel.system" | "Kernel.exec" | "Kernel.spawn"
            | "Process.spawn" | "Process.exec" | "PTY.spawn" | "Open3.capture2"
            | "Open3.capture2e" | "Open3.capture3" | "Open3.popen2" | "Open3.popen2e"
            | "Open3.popen3" | "Open3.pipeline" | "Open3.pipeline_r" | "Open3.pipeline_w"
            | "Open3.pipeline_rw" => System,
            "IO.popen" => System,
            "open" | "Kernel.open" | "IO.read" | "IO.readlines" | "IO.foreach" => Open,
            "FileUtils.rm_rf"
            | "FileUtils.rm_r"
            | "FileUtils.rmtree"
            | "FileUtils.remove_dir"
            | "FileUtils.remove_entry"
            | "FileUtils.remove_entry_secure"
            | "rm_rf"
            | "rm_r"
            | "rmtree" => RemoveTree,
            "FileUtils.rm"
            | "FileUtils.rm_f"
            | "FileUtils.remove"
            | "FileUtils.safe_unlink"
            | "FileUtils.remove_file"
            | "File.delete"
            | "File.unlink"
            | "rm_f" => Remove,
            "Dir.delete" | "Dir.rmdir" | "Dir.unlink" | "FileUtils.rmdir" => Rmdir,
            "FileUtils.mv" | "FileUtils.move" | "File.rename" => Move,
            "FileUtils.cp" | "FileUtils.cp_r" | "FileUtils.copy" | "FileUtils.install" => Copy,
            "FileUtils.ln_s" | "FileUtils.ln_sf" | "File.symlink" => Link,
            "File.write" | "IO.write" | "File.binwrite" | "IO.binwrite" => Write,
            "File.open" | "File.new" => Open,
            "File.truncate" => Truncate,
            "FileUtils.chmod" | "FileUtils.chmod_R" | "File.chmod" => ChmodModeFirst,
            "Process.kill" => KillSignalFirst,
            "eval"
            | "instance_eval"
            | "class_eval"
            | "module_eval"
            | "binding.eval"
            | "TOPLEVEL_BINDING.eval"
            | "Kernel.eval" => Eval,
            _ if matches!(short, "send" | "__send__" | "public_send") => Dispatch,
            "syscall" | "Fiddle.dlopen" | "Object.const_get" | "const_get" => Opaque,
            _ => return None,
        },
        Lang::Php => match name {
            "system" | "exec" | "passthru" | "shell_exec" | "popen" | "proc_open" => Shell,
            "pcntl_exec" => Exec,
            "unlink" => Remove,
            "rmdir" => Rmdir,
            "rename" => Move,
            "copy" => Copy,
            "symlink" | "link" => Link,
            "file_put_contents" => Write,
            "fopen" => Open,
            "chmod" => ChmodPathFirst,
            "posix_kill" => KillPidFirst,
            "eval" | "assert" => Eval,
            "call_user_func" | "call_user_func_array" | "forward_static_call" => Dispatch,
            "create_function" => Opaque,
            _ => return None,
        },
        Lang::Lua => match name {
            "os.execute" | "io.popen" => Shell,
            "os.remove" => Remove,
            "os.rename" => Move,
            "io.open" => Open,
            "load" | "loadstring" => Eval,
            _ => return None,
        },
        Lang::Awk => match name {
            "system" => Shell,
            _ => return None,
        },
        _ => return None,
    })
}

struct Scan<'t> {
    lang: Lang,
    tokens: &'t [Tok],
    /// Variables assigned one literal value (`my $d = "/"`, `d = "/"`).
    env: HashMap<String, Value>,
    effects: Effects,
}

/// Words that end an argument list written without parentheses.
const ARG_ENDERS: &[&str] = &[
    "if", "unless", "or", "and", "while", "until", "for", "foreach", "do", "then",
];

impl<'t> Scan<'t> {
    fn run(&mut self) {
        let tokens = self.tokens;
        let mut i = 0;
        while i < tokens.len() {
            self.assignment(i);
            self.dynamic(i);
            match &tokens[i] {
                Tok::Str {
                    parts,
                    command: true,
                } => {
                    let value = self.parts(parts);
                    self.effects.shell(&value, "backticks");
                }
                Tok::CodeSubst { code, twice } => {
                    if *twice {
                        self.effects
                            .unknown("runs code built at run time (`s///ee`)");
                    } else {
                        self.effects.push(Effect::Code(Lang::Perl, code.clone()));
                    }
                }
                Tok::Word(name) => {
                    let previous = i.checked_sub(1).map(|p| &tokens[p]);
                    // A method of something else (`$obj->unlink`, `x.delete`), a hash key
                    // (`system => 1`) or a sub's name is not a call of the function.
                    let method = previous.is_some_and(|p| p.is("->") || p.is(".") || p.is("::"))
                        && self.lang != Lang::Awk;
                    let key = tokens.get(i + 1).is_some_and(|t| t.is("=>"))
                        || (previous.is_some_and(|p| p.is("{"))
                            && tokens.get(i + 1).is_some_and(|t| t.is("}")));
                    let declared = previous
                        .and_then(Tok::word)
                        .is_some_and(|w| matches!(w, "sub" | "def" | "function"));
                    if !method
                        && !key
                        && !declared
                        && let Some(kind) = kind(self.lang, name)
                    {
                        let (args, block) = self.arguments(i + 1);
                        self.apply(name, kind, &args, block);
                    }
                }
                Tok::Punct(p) if p == "|" && self.lang == Lang::Awk => self.awk_pipe(i),
                Tok::Punct(p)
                    if (p == ">" || p == ">>")
                        && self.lang == Lang::Awk
                        && self.awk_in_print(i) =>
                {
                    let target = self.value(&self.operand_run(i + 1));
                    self.effects.on_path(&["tee"], &target, "print >", false);
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// `NAME = literal` (Perl `my $x = …`, Ruby/awk `x = …`, PHP `$x = …`).
    fn assignment(&mut self, i: usize) {
        let tokens = self.tokens;
        let name = match &tokens[i] {
            Tok::Var(v) => v.clone(),
            Tok::Word(w) if matches!(self.lang, Lang::Ruby | Lang::Awk | Lang::Lua) => w.clone(),
            _ => return,
        };
        if !tokens.get(i + 1).is_some_and(|t| t.is("=")) {
            return;
        }
        let end = (i + 2..tokens.len())
            .find(|&j| {
                tokens[j].is(";") || tokens[j].is(",") || tokens[j].is(")") || tokens[j].is("}")
            })
            .unwrap_or(tokens.len());
        let value = self.value(&tokens[i + 2..end]);
        let value = match self.env.get(&name) {
            Some(old) if *old != value => Value::Unknown,
            _ => value,
        };
        self.env.insert(name, value);
    }

    /// Calls whose target is chosen at run time.
    fn dynamic(&mut self, i: usize) {
        let tokens = self.tokens;
        let next = tokens.get(i + 1);
        let unknown = match (&tokens[i], self.lang) {
            // `&$code(…)`, `&{"name"}(…)`, `$code->(…)`, `$obj->$method(…)`.
            (Tok::Punct(p), Lang::Perl) if p == "&" => {
                matches!(next, Some(Tok::Var(v)) if v.starts_with('$'))
                    || next.is_some_and(|t| t.is("{"))
            }
            (Tok::Punct(p), Lang::Perl) if p == "->" => {
                next.is_some_and(|t| t.is("(")) || matches!(next, Some(Tok::Var(_)))
            }
            // `$f(…)`.
            (Tok::Var(_), Lang::Php) => next.is_some_and(|t| t.is("(")),
            // `_G[name](…)`.
            (Tok::Word(w), Lang::Lua) if w == "_G" || w == "_ENV" => {
                next.is_some_and(|t| t.is("["))
                    && !matches!(tokens.get(i + 2), Some(Tok::Str { .. }))
            }
            // `preg_replace('/…/e', …)`.
            (Tok::Word(w), Lang::Php) if w == "preg_replace" => {
                let (args, _) = self.arguments(i + 1);
                args.first()
                    .and_then(|a| self.value(a).str())
                    .is_some_and(|re| {
                        re.rsplit(['/', '#', '~'])
                            .next()
                            .is_some_and(|f| f.contains('e'))
                    })
            }
            // A dangerous function named as a callable: `array_map('system', $x)`.
            (
                Tok::Str {
                    parts,
                    command: false,
                },
                Lang::Php,
            ) => {
                let names_runner = matches!(
                    parts.as_slice(),
                    [Part::Text(t)] if matches!(kind(Lang::Php, t), Some(Kind::Shell | Kind::Exec | Kind::System))
                );
                // `call_user_func('system', …)` is judged as the call it makes.
                let dispatched = i >= 2
                    && tokens[i - 1].is("(")
                    && matches!(
                        tokens[i - 2].word(),
                        Some(
                            "call_user_func"
                                | "call_user_func_array"
                                | "forward_static_call"
                                | "function_exists"
                                | "is_callable"
                        )
                    );
                names_runner && !dispatched
            }
            (Tok::Word(w), Lang::Ruby)
                if (w == "method" || w.ends_with(".method")) && next.is_some_and(|t| t.is("(")) =>
            {
                matches!(tokens.get(i + 2), Some(Tok::Sym(s)) if kind(Lang::Ruby, s).is_some())
                    || !matches!(tokens.get(i + 2), Some(Tok::Sym(_) | Tok::Str { .. }))
            }
            _ => false,
        };
        if unknown {
            self.effects.unknown("calls a function chosen at run time");
        }
    }

    /// The arguments of a call whose name is just before `start`: each a token slice; and
    /// whether a block (`{` / `do`) follows instead (`eval { … }`, `instance_eval do`).
    fn arguments(&self, start: usize) -> (Vec<&'t [Tok]>, bool) {
        let tokens: &'t [Tok] = self.tokens;
        let Some(first) = tokens.get(start) else {
            return (Vec::new(), false);
        };
        if first.is("{") || first.word() == Some("do") {
            return (Vec::new(), true);
        }
        let (from, to) = if first.is("(") {
            let mut depth = 0usize;
            let mut end = tokens.len();
            for (j, t) in tokens.iter().enumerate().skip(start) {
                if t.is("(") || t.is("[") || t.is("{") {
                    depth += 1;
                } else if t.is(")") || t.is("]") || t.is("}") {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
            }
            (start + 1, end)
        } else {
            let mut depth = 0usize;
            let mut end = tokens.len();
            for (j, t) in tokens.iter().enumerate().skip(start) {
                if t.is("(") || t.is("[") || t.is("{") {
                    depth += 1;
                } else if t.is(")") || t.is("]") || t.is("}") {
                    if depth == 0 {
                        end = j;
                        break;
                    }
                    depth -= 1;
                } else if depth == 0
                    && (t.is(";")
                        || t.is("||")
                        || t.is("&&")
                        || t.word().is_some_and(|w| ARG_ENDERS.contains(&w)))
                {
                    end = j;
                    break;
                }
            }
            (start, end)
        };
        let slice = &tokens[from.min(to)..to];
        let mut args = Vec::new();
        let mut depth = 0usize;
        let mut begin = 0;
        for (j, t) in slice.iter().enumerate() {
            if t.is("(") || t.is("[") || t.is("{") {
                depth += 1;
            } else if t.is(")") || t.is("]") || t.is("}") {
                depth = depth.saturating_sub(1);
            } else if depth == 0 && (t.is(",") || t.is("=>")) {
                args.push(&slice[begin..j]);
                begin = j + 1;
            }
        }
        if begin < slice.len() {
            args.push(&slice[begin..]);
        }
        (args, false)
    }

    /// The value of an argument's tokens.
    fn value(&self, tokens: &[Tok]) -> Value {
        let tokens = match tokens {
            [Tok::Punct(open), inner @ .., Tok::Punct(close)] if open == "(" && close == ")" => {
                inner
            }
            other => other,
        };
        // Lists: `("a", "b")` in parentheses, `["a", "b"]`, `array(…)`, `qw(…)`.
        if let [Tok::Punct(open), inner @ .., Tok::Punct(close)] = tokens
            && open == "["
            && close == "]"
        {
            return self.list(inner);
        }
        if let [
            Tok::Word(w),
            Tok::Punct(open),
            inner @ ..,
            Tok::Punct(close),
        ] = tokens
            && w == "array"
            && open == "("
            && close == ")"
        {
            return self.list(inner);
        }
        if let [Tok::Words(words)] = tokens {
            return Value::List(words.iter().cloned().map(Value::Str).collect());
        }
        let (first, used) = self.operand(tokens);
        if used == 0 {
            return Value::Unknown;
        }
        if used >= tokens.len() {
            return first;
        }
        // Concatenation: `.` (Perl, PHP), `+` (Ruby), `..` (Lua), nothing (awk).
        let Some(mut out) = first.str() else {
            return Value::Unknown;
        };
        let mut i = used;
        while i < tokens.len() {
            match &tokens[i] {
                Tok::Punct(p)
                    if matches!(
                        (self.lang, p.as_str()),
                        (Lang::Perl | Lang::Php, ".") | (Lang::Ruby, "+") | (Lang::Lua, "..")
                    ) =>
                {
                    i += 1;
                }
                _ if self.lang == Lang::Awk => {}
                _ => return Value::Unknown,
            }
            let (piece, used) = self.operand(&tokens[i.min(tokens.len())..]);
            match piece.str() {
                Some(piece) if used > 0 => out.push_str(&piece),
                _ => return Value::Unknown,
            }
            i += used;
        }
        Value::Str(out)
    }

    fn list(&self, inner: &[Tok]) -> Value {
        let mut items = Vec::new();
        let mut begin = 0;
        let mut depth = 0usize;
        for (j, t) in inner.iter().enumerate() {
            if t.is("(") || t.is("[") || t.is("{") {
                depth += 1;
            } else if t.is(")") || t.is("]") || t.is("}") {
                depth = depth.saturating_sub(1);
            } else if depth == 0 && (t.is(",") || t.is("=>")) {
                items.push(self.value(&inner[begin..j]));
                begin = j + 1;
            }
        }
        if begin < inner.len() {
            items.push(self.value(&inner[begin..]));
        }
        Value::List(items)
    }

    /// One operand at the start of `tokens` and how many tokens it used.
    fn operand(&self, tokens: &[Tok]) -> (Value, usize) {
        let Some(first) = tokens.first() else {
            return (Value::Unknown, 0);
        };
        let key_after = |at: usize| -> Option<(String, usize)> {
            match (tokens.get(at), tokens.get(at + 1), tokens.get(at + 2)) {
                (Some(Tok::Punct(o)), Some(key), Some(Tok::Punct(c)))
                    if (o == "{" && c == "}") || (o == "[" && c == "]") =>
                {
                    let key = match key {
                        Tok::Word(w) => w.clone(),
                        Tok::Str { parts, .. } => match self.parts(parts) {
                            Value::Str(s) => s,
                            _ => return None,
                        },
                        _ => return None,
                    };
                    Some((key, 3))
                }
                _ => None,
            }
        };
        match first {
            Tok::Str {
                parts,
                command: false,
            } => (self.parts(parts), 1),
            Tok::Num(n) => (Value::Int(*n), 1),
            Tok::Punct(p) if p == "-" => match tokens.get(1) {
                Some(Tok::Num(n)) => (Value::Int(-n), 2),
                _ => (Value::Unknown, 1),
            },
            Tok::Sym(s) => (Value::Str(s.clone()), 1),
            Tok::Var(v) if v == "$ENV" || v == "$_SERVER" || v == "$_ENV" => match key_after(1) {
                Some((key, used)) => (Value::Str(format!("${key}")), 1 + used),
                None => (Value::Unknown, 1),
            },
            Tok::Var(v) => (self.env.get(v).cloned().unwrap_or(Value::Unknown), 1),
            Tok::Word(w) if w == "ENV" => match key_after(1) {
                Some((key, used)) => (Value::Str(format!("${key}")), 1 + used),
                None => (Value::Unknown, 1),
            },
            Tok::Word(w) => {
                let call_args = |at: usize| -> (Vec<Value>, usize) {
                    if !tokens.get(at).is_some_and(|t| t.is("(")) {
                        return match tokens.get(at) {
                            Some(Tok::Str { .. }) => (vec![self.operand(&tokens[at..]).0], 1),
                            _ => (Vec::new(), 0),
                        };
                    }
                    let mut depth = 0usize;
                    for (j, t) in tokens.iter().enumerate().skip(at) {
                        if t.is("(") {
                            depth += 1;
                        } else if t.is(")") {
                            depth -= 1;
                            if depth == 0 {
                                let inner = &tokens[at + 1..j];
                                let values = match self.list(inner) {
                                    Value::List(items) if !inner.is_empty() => items,
                                    _ => Vec::new(),
                                };
                                return (values, j - at + 1);
                            }
                        }
                    }
                    (Vec::new(), tokens.len() - at)
                };
                let (args, used) = call_args(1);
                let all: Option<Vec<String>> = args.iter().map(Value::str).collect();
                let value = match w.as_str() {
                    "Dir.home" => Value::Str("$HOME".to_owned()),
                    "Dir.pwd" | "Dir.getwd" => Value::Str(".".to_owned()),
                    "ENV.fetch" | "getenv" | "os.getenv" => match args.first().and_then(Value::str)
                    {
                        Some(key) => Value::Str(format!("${key}")),
                        None => Value::Unknown,
                    },
                    "File.expand_path" | "glob" | "realpath" | "File.absolute_path" => {
                        args.first().cloned().unwrap_or(Value::Unknown)
                    }
                    "File.join" => match all {
                        Some(parts) if !parts.is_empty() => Value::Str(
                            parts
                                .iter()
                                .skip(1)
                                .fold(parts[0].clone(), |a, b| join_path(&a, b)),
                        ),
                        _ => Value::Unknown,
                    },
                    _ => Value::Unknown,
                };
                (value, 1 + used)
            }
            _ => (Value::Unknown, 1),
        }
    }

    /// The value of an interpolating string's parts.
    fn parts(&self, parts: &[Part]) -> Value {
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Var(name, Some(key))
                    if matches!(name.as_str(), "$ENV" | "$_SERVER" | "$_ENV") =>
                {
                    out.push('$');
                    out.push_str(key);
                }
                Part::Var(name, None) => match self.env.get(name).and_then(Value::str) {
                    Some(s) => out.push_str(&s),
                    None => return Value::Unknown,
                },
                Part::Var(..) => return Value::Unknown,
                Part::Expr(source) => {
                    let tokens = Lexer::new(self.lang, source).run();
                    let tokens = match tokens.as_slice() {
                        [Tok::Var(v), rest @ ..] if self.lang == Lang::Php && rest.is_empty() => {
                            return match self.env.get(v).and_then(Value::str) {
                                Some(s) => {
                                    out.push_str(&s);
                                    continue;
                                }
                                None => Value::Unknown,
                            };
                        }
                        other => other,
                    };
                    match self.value(tokens).str() {
                        Some(s) => out.push_str(&s),
                        None => return Value::Unknown,
                    }
                }
            }
        }
        Value::Str(out)
    }

    /// Operands after `start` up to the end of the statement (awk's `print … > "file"`).
    fn operand_run(&self, start: usize) -> Vec<Tok> {
        self.tokens[start.min(self.tokens.len())..]
            .iter()
            .take_while(|t| {
                !(t.is(";") || t.is("}") || t.is(")") || t.is("|") || t.is(">") || t.is(">>"))
            })
            .cloned()
            .collect()
    }

    /// Whether token `i` is inside a `print`/`printf` statement (awk).
    fn awk_in_print(&self, i: usize) -> bool {
        self.tokens[..i]
            .iter()
            .rev()
            .take_while(|t| !(t.is(";") || t.is("{") || t.is("}")))
            .any(|t| matches!(t.word(), Some("print" | "printf")))
    }

    /// awk's `print … | "cmd"` and `"cmd" | getline`.
    fn awk_pipe(&mut self, i: usize) {
        let tokens = self.tokens;
        if tokens.get(i + 1).and_then(Tok::word) == Some("getline") {
            let begin = tokens[..i]
                .iter()
                .rposition(|t| {
                    !matches!(t, Tok::Str { .. } | Tok::Var(_) | Tok::Word(_))
                        || matches!(t.word(), Some("print" | "printf" | "while" | "if"))
                })
                .map_or(0, |p| p + 1);
            let command = self.value(&tokens[begin..i]);
            self.effects.shell(&command, "| getline");
        } else if self.awk_in_print(i) {
            let command = self.value(&self.operand_run(i + 1));
            self.effects.shell(&command, "print |");
        }
    }

    /// Records what a call of `name` (of `kind`) with `args` does.
    fn apply(&mut self, name: &str, kind: Kind, args: &[&[Tok]], block: bool) {
        if kind == Kind::Dispatch {
            let target = args.first().and_then(|a| self.value(a).str());
            match target {
                Some(target) => {
                    if let Some(inner) =
                        self::kind(self.lang, &target).filter(|k| *k != Kind::Dispatch)
                    {
                        self.apply(&target, inner, &args[1..], false);
                    }
                }
                None => self
                    .effects
                    .unknown(format!("calls a function chosen at run time (`{name}`)")),
            }
            return;
        }
        let values: Vec<Value> = args.iter().map(|a| self.value(a)).collect();
        let arg = |i: usize| values.get(i).cloned().unwrap_or(Value::Unknown);
        // Every argument's strings, lists flattened (`unlink @files` is unknown).
        let each = |from: usize| -> Value {
            let mut out = Vec::new();
            for v in values.iter().skip(from) {
                match v {
                    Value::List(items) => out.extend(items.iter().cloned()),
                    other => out.push(other.clone()),
                }
            }
            if out.is_empty() {
                Value::Unknown
            } else {
                Value::OneOf(out)
            }
        };
        let effects = &mut self.effects;
        match kind {
            Kind::System => {
                // A leading environment hash (`system({"A" => "1"}, "ls")`) is skipped.
                let skip = usize::from(
                    args.first()
                        .is_some_and(|a| a.first().is_some_and(|t| t.is("{"))),
                );
                let rest: Vec<Value> = values.iter().skip(skip).cloned().collect();
                match rest.as_slice() {
                    [] => {}
                    [list @ Value::List(_)] => effects.exec(list.words(), name),
                    [one] => effects.shell(one, name),
                    many => effects.exec(many.iter().map(Value::str).collect(), name),
                }
            }
            Kind::Shell => effects.shell(&arg(0), name),
            Kind::Exec => {
                let mut argv = arg(0).str().map(|p| vec![p]);
                if let (Some(v), Some(rest)) = (argv.as_mut(), arg(1).words()) {
                    v.extend(rest);
                }
                effects.exec(argv, name);
            }
            Kind::Open => {
                let (mode, target) = match self.lang {
                    Lang::Perl if values.len() >= 3 => (arg(1).str(), arg(2)),
                    Lang::Perl => (None, arg(1)),
                    Lang::Ruby if name == "File.open" || name == "File.new" => {
                        (arg(1).str(), arg(0))
                    }
                    _ => (arg(1).str(), arg(0)),
                };
                let target_text = target.str();
                match (mode.as_deref(), target_text.as_deref()) {
                    (Some("|-" | "-|"), _) => effects.shell(&target, name),
                    (None, Some(t)) if t.trim_start().starts_with('|') => {
                        effects.push(Effect::Shell(t.trim_start()[1..].trim().to_owned()));
                    }
                    (None, Some(t)) if t.trim_end().ends_with('|') && self.lang == Lang::Perl => {
                        let t = t.trim_end();
                        effects.push(Effect::Shell(t[..t.len() - 1].trim().to_owned()));
                    }
                    (None, Some(t))
                        if self.lang == Lang::Perl && t.trim_start().starts_with(['>', '+']) =>
                    {
                        let path = t.trim_start().trim_start_matches(['+', '>', '<']).trim();
                        effects.on_path(&["tee"], &Value::Str(path.to_owned()), name, false);
                    }
                    (Some(m), _) if m.contains(['>', 'w', 'a', '+', 'x', 'c']) => {
                        effects.on_path(&["tee"], &target, name, false);
                    }
                    _ => {}
                }
            }
            Kind::RemoveTree => effects.on_path(&["rm", "-rf"], &each(0), name, true),
            Kind::Remove => effects.on_path(&["rm", "-f"], &each(0), name, true),
            Kind::Rmdir => effects.on_path(&["rmdir"], &each(0), name, true),
            Kind::Move => effects.two_paths(&["mv"], &arg(0), &arg(1)),
            Kind::Copy => effects.two_paths(&["cp"], &arg(0), &arg(1)),
            Kind::Link => effects.two_paths(&["ln", "-s"], &arg(0), &arg(1)),
            Kind::Write => effects.on_path(&["tee"], &arg(0), name, false),
            Kind::Truncate => effects.on_path(&["truncate", "-s", "0"], &arg(0), name, false),
            Kind::ChmodModeFirst => effects.chmod(&arg(0), &each(1)),
            Kind::ChmodPathFirst => effects.chmod(&arg(1), &arg(0)),
            Kind::KillSignalFirst => {
                if let Value::OneOf(pids) = each(1) {
                    for pid in pids {
                        effects.kill(&pid);
                    }
                }
            }
            Kind::KillPidFirst => effects.kill(&arg(0)),
            Kind::Eval if block => {}
            Kind::Eval if args.is_empty() && self.lang == Lang::Perl => {
                effects.unknown("runs code built at run time (`eval` of `$_`)");
            }
            Kind::Eval => effects.code(self.lang, &arg(0), name),
            Kind::Dispatch => {}
            Kind::Opaque => {
                effects.unknown(format!("reaches past what the check reads (`{name}`)"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(words: &[&str]) -> Effect {
        Effect::Like(words.iter().map(|w| (*w).to_owned()).collect())
    }

    fn shell(line: &str) -> Effect {
        Effect::Shell(line.to_owned())
    }

    #[test]
    fn perl() {
        assert_eq!(
            analyze(Lang::Perl, r#"system("rm -rf /")"#),
            vec![shell("rm -rf /")]
        );
        assert_eq!(
            analyze(Lang::Perl, r#"system "rm", "-rf", "/""#),
            vec![Effect::Exec(vec!["rm".into(), "-rf".into(), "/".into()])]
        );
        assert_eq!(analyze(Lang::Perl, "`reboot`"), vec![shell("reboot")]);
        assert_eq!(
            analyze(Lang::Perl, "print qx{shutdown now}"),
            vec![shell("shutdown now")]
        );
        assert_eq!(
            analyze(Lang::Perl, r#"use File::Path; rmtree("$ENV{HOME}")"#),
            vec![like(&["rm", "-rf", "$HOME"])]
        );
        assert_eq!(
            analyze(Lang::Perl, r#"unlink "$ENV{HOME}/.ssh/id_rsa" or die"#),
            vec![like(&["rm", "-f", "$HOME/.ssh/id_rsa"])]
        );
        assert_eq!(
            analyze(Lang::Perl, r#"my $d = "/etc"; File::Path::remove_tree($d)"#),
            vec![like(&["rm", "-rf", "/etc"])]
        );
        assert_eq!(
            analyze(Lang::Perl, r#"open(my $f, ">", "/etc/passwd")"#),
            vec![like(&["tee", "/etc/passwd"])]
        );
        assert_eq!(
            analyze(Lang::Perl, "kill 9, -1"),
            vec![like(&["kill", "-9", "--", "-1"])]
        );
        assert_eq!(
            analyze(Lang::Perl, r#"s/x/system("id")/e"#),
            vec![Effect::Code(Lang::Perl, r#"system("id")"#.into())]
        );
        for code in [
            "eval $ARGV[0]",
            "&$f()",
            "$code->()",
            "system $cmd",
            "unlink @ARGV",
            "s/x/$y/ee",
        ] {
            let found = analyze(Lang::Perl, code);
            assert!(
                found.iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{code}: {found:?}"
            );
        }
        for code in [
            "print if /system/",
            "s/unlink/remove/g",
            "print join(',', map { $_ * 2 } 1..3)",
            "$h{system} = 1; print $h{unlink}",
            "eval { die 1 }; print $@",
            r#"while (<>) { s/foo/bar/; print }"#,
            "print \"system('rm -rf /')\"",
            "print 'unlink all the things'",
        ] {
            assert_eq!(analyze(Lang::Perl, code), vec![], "{code}");
        }
    }

    #[test]
    fn ruby() {
        assert_eq!(
            analyze(Lang::Ruby, r#"system("rm -rf ~")"#),
            vec![shell("rm -rf ~")]
        );
        assert_eq!(analyze(Lang::Ruby, "%x(halt)"), vec![shell("halt")]);
        assert_eq!(
            analyze(
                Lang::Ruby,
                r#"require "fileutils"; FileUtils.rm_rf(Dir.home)"#
            ),
            vec![like(&["rm", "-rf", "$HOME"])]
        );
        assert_eq!(
            analyze(
                Lang::Ruby,
                r##"File.delete("#{Dir.home}/.aws/credentials")"##
            ),
            vec![like(&["rm", "-f", "$HOME/.aws/credentials"])]
        );
        assert_eq!(
            analyze(Lang::Ruby, r#"Kernel.send(:system, "reboot")"#),
            vec![shell("reboot")]
        );
        for code in [
            "eval(ARGV[0])",
            "send(ARGV[0], 'x')",
            "system(ARGV[0])",
            "FileUtils.rm_rf(ARGV[0])",
        ] {
            let found = analyze(Lang::Ruby, code);
            assert!(
                found.iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{code}: {found:?}"
            );
        }
        for code in [
            "puts 1",
            "puts Dir.glob('*').size",
            "require 'json'; puts JSON.parse(STDIN.read)['x']",
            "x = 10 % 3; puts x",
            "puts 'system rm -rf /'",
            "$stdin.each_line { |l| puts l.upcase }",
            "[1,2].each do |i| puts i end",
        ] {
            assert_eq!(analyze(Lang::Ruby, code), vec![], "{code}");
        }
    }

    #[test]
    fn php_lua_awk() {
        assert_eq!(
            analyze(Lang::Php, "shell_exec('rm -rf /');"),
            vec![shell("rm -rf /")]
        );
        assert_eq!(
            analyze(Lang::Php, "unlink(getenv('HOME') . '/.ssh/id_rsa');"),
            vec![like(&["rm", "-f", "$HOME/.ssh/id_rsa"])]
        );
        for code in [
            "$f = $argv[1]; $f('x');",
            "array_map('system', $argv);",
            "eval($argv[1]);",
            "call_user_func($argv[1]);",
        ] {
            let found = analyze(Lang::Php, code);
            assert!(
                found.iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{code}: {found:?}"
            );
        }
        assert_eq!(analyze(Lang::Php, "echo json_encode([1, 2]);"), vec![]);
        assert_eq!(
            analyze(Lang::Lua, "os.execute('rm -rf /')"),
            vec![shell("rm -rf /")]
        );
        assert_eq!(
            analyze(Lang::Lua, "os.remove(os.getenv('HOME') .. '/.netrc')"),
            vec![like(&["rm", "-f", "$HOME/.netrc"])]
        );
        assert_eq!(analyze(Lang::Lua, "print(1 .. 2)"), vec![]);
        assert_eq!(
            analyze(Lang::Awk, r#"BEGIN { system("rm -rf /") }"#),
            vec![shell("rm -rf /")]
        );
        assert_eq!(analyze(Lang::Awk, r#"{ print | "sh" }"#), vec![shell("sh")]);
        assert_eq!(
            analyze(
                Lang::Awk,
                r#"BEGIN { while (("ls" | getline l) > 0) print l }"#
            ),
            vec![shell("ls")]
        );
        assert_eq!(
            analyze(Lang::Awk, r#"{ print > "/etc/hosts" }"#),
            vec![like(&["tee", "/etc/hosts"])]
        );
        let found = analyze(Lang::Awk, r#"{ system("rm " $1) }"#);
        assert!(
            found.iter().any(|e| matches!(e, Effect::Unknown(_))),
            "{found:?}"
        );
        for code in [
            "{print $1}",
            "-F: '{print $1}'",
            "NR > 1 { s += $2 } END { print s / NR }",
            "/error/ { n++ } END { print n }",
        ] {
            assert_eq!(analyze(Lang::Awk, code), vec![], "{code}");
        }
    }
}
