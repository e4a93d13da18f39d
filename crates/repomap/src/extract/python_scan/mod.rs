//! Python's tags read off its tokens and indentation, without building a tree.
//!
//! A cold map of a large Python project spends most of its time in tree-sitter's parser, yet
//! what Python's tags query finds — definitions with their lines, signatures, docs and nesting,
//! and the names called, decorated with, subclassed, annotated with and imported — can be read
//! from the token stream and the indentation in a fraction of the time. The scan finds exactly
//! what [`super::python`]'s walk over the parsed tree finds, and where it meets something it
//! does not model (a tab in indentation, a syntax error, soft keywords such as `match`, type
//! parameters) it returns `None` and the file is parsed instead. Tests check the two agree on
//! every Python fixture and on generated sources; `KEEL_PYTHON_CORPUS=DIR` adds a corpus.

mod tokens;

use std::collections::HashMap;

use self::tokens::{Kind, Token, Tokens, tokenize};
use super::RawDef;
use crate::signature::{doc_from_comment_texts, docstring_line, signature_of};
use crate::symbol::SymbolKind;

/// Definitions and reference counts of a Python file, or `None` when the scan cannot be sure
/// it would find what the parser finds.
pub(super) fn scan(source: &[u8]) -> Option<(Vec<RawDef>, HashMap<&str, u32>)> {
    let text = std::str::from_utf8(source).ok()?;
    if text.starts_with('\u{feff}') {
        return None;
    }
    let Tokens {
        tokens,
        interpolated_calls,
    } = tokenize(source)?;
    let mut scan = Scan {
        text,
        tokens: &tokens,
        defs: Vec::new(),
        references: HashMap::new(),
        blocks: vec![Block::module()],
    };
    for &(start, end) in &interpolated_calls {
        scan.reference(start, end);
    }
    scan.calls()?;
    scan.lines()?;
    Some((scan.defs, scan.references))
}

/// A suite being read: the module, or the body of a compound statement.
struct Block {
    /// Indentation of its header (-1 for the module).
    header_indent: i64,
    /// Indentation of its statements, once one is seen.
    body_indent: Option<u32>,
    /// Whether its body is on the header's line.
    inline: bool,
    /// The definition it is the body of.
    def: Option<usize>,
    /// Whether comments pending in it are siblings of its next statement (not so before the
    /// first statement of a body).
    had_statement: bool,
    /// Whether its first statement, if a lone string, is the definition's docstring.
    awaiting_docstring: bool,
    /// Comments since its last statement.
    pending: Vec<usize>,
    /// The first decorator of a decorated definition under way, and the comment doc above it.
    decorating: Option<Option<String>>,
    /// End byte and row of the last token inside it.
    last_end: (u32, u32),
    /// The clauses its last statement may still take.
    open_clauses: Clauses,
}

/// What clauses may follow the statement just read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clauses {
    /// None: the last statement was simple or is complete.
    None,
    /// `elif` or `else` (after `if` or `elif`).
    If,
    /// `else` (after `for` or `while`).
    Loop,
    /// `except` or `finally`, one of which must come (after `try`).
    Try,
    /// `except`, `else` or `finally` (after `except`).
    Except,
    /// `finally` (after a `try`'s `else`).
    TryElse,
}

impl Clauses {
    /// What may follow once `clause` is read, or `None` when `clause` may not come here.
    fn after(self, clause: &str) -> Option<Clauses> {
        Some(match (self, clause) {
            (Clauses::If, "elif") => Clauses::If,
            (Clauses::If | Clauses::Loop, "else") => Clauses::None,
            (Clauses::Except, "else") => Clauses::TryElse,
            (Clauses::Try | Clauses::Except, "except") => Clauses::Except,
            (Clauses::Try | Clauses::Except | Clauses::TryElse, "finally") => Clauses::None,
            _ => return None,
        })
    }

    /// What may follow the compound statement headed by `keyword` (`for` after `async` too).
    fn opened_by(keyword: &str) -> Clauses {
        match keyword {
            "if" => Clauses::If,
            "for" | "while" => Clauses::Loop,
            "try" => Clauses::Try,
            _ => Clauses::None,
        }
    }
}

impl Block {
    fn module() -> Self {
        Block {
            header_indent: -1,
            body_indent: Some(0),
            inline: false,
            def: None,
            // Comments before the module's first statement are its siblings too.
            had_statement: true,
            awaiting_docstring: false,
            pending: Vec::new(),
            decorating: None,
            last_end: (0, 0),
            open_clauses: Clauses::None,
        }
    }
}

struct Scan<'s, 't> {
    text: &'s str,
    tokens: &'t [Token],
    defs: Vec<RawDef>,
    references: HashMap<&'s str, u32>,
    blocks: Vec<Block>,
}

/// Whether `keyword` heads a compound statement or one of its clauses.
fn is_compound_keyword(keyword: &str) -> bool {
    matches!(
        keyword,
        "def"
            | "class"
            | "if"
            | "elif"
            | "else"
            | "for"
            | "while"
            | "try"
            | "except"
            | "finally"
            | "with"
            | "async"
    )
}

/// Whether `token` is the operator or keyword `text`.
fn is(text: &str, token: Option<&Token>, want: &str) -> bool {
    token.is_some_and(|t| {
        matches!(t.kind, Kind::Op | Kind::Keyword)
            && &text[t.start as usize..t.end as usize] == want
    })
}

/// The index just past the bracket closing the one at `open` in `tokens`.
fn after_closing(text: &str, tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate().skip(open) {
        if token.kind != Kind::Op {
            continue;
        }
        match &text[token.start as usize..token.end as usize] {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits `tokens` at the operator `at` outside brackets; a lambda's parameters are not split.
fn split_top<'t>(text: &str, tokens: &'t [Token], at: &str) -> Vec<&'t [Token]> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut in_lambda = false;
    for (index, token) in tokens.iter().enumerate() {
        let piece = &text[token.start as usize..token.end as usize];
        match token.kind {
            Kind::Keyword if piece == "lambda" && depth == 0 => in_lambda = true,
            Kind::Op => match piece {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                ":" if depth == 0 && in_lambda => in_lambda = false,
                _ if depth == 0 && !in_lambda && piece == at => {
                    parts.push(&tokens[start..index]);
                    start = index + 1;
                }
                _ => {}
            },
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts
}

/// The index of the first operator `want` outside brackets, and whether a `lambda` or an `=`
/// came before it.
fn find_top(text: &str, tokens: &[Token], want: &str) -> Option<(usize, bool)> {
    let mut depth = 0usize;
    let mut guarded = false;
    for (index, token) in tokens.iter().enumerate() {
        let piece = &text[token.start as usize..token.end as usize];
        match token.kind {
            Kind::Keyword if piece == "lambda" && depth == 0 => guarded = true,
            Kind::Op => match piece {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ if depth == 0 && piece == want => return Some((index, guarded)),
                "=" if depth == 0 => guarded = true,
                _ => {}
            },
            _ => {}
        }
    }
    None
}

impl<'s> Scan<'s, '_> {
    fn piece(&self, token: &Token) -> &'s str {
        &self.text[token.start as usize..token.end as usize]
    }

    fn reference(&mut self, start: u32, end: u32) {
        let name = &self.text[start as usize..end as usize];
        *self.references.entry(name).or_insert(0) += 1;
    }

    fn reference_token(&mut self, token: &Token) {
        self.reference(token.start, token.end);
    }

    /// `name(`: a call of `name` (or of the attribute `name`), wherever it is.
    fn calls(&mut self) -> Option<()> {
        let tokens = self.tokens;
        for (index, token) in tokens.iter().enumerate() {
            if token.kind == Kind::Name
                && is(self.text, tokens.get(index + 1), "(")
                && !(index > 0
                    && (is(self.text, tokens.get(index - 1), "def")
                        || is(self.text, tokens.get(index - 1), "class")))
            {
                if self.piece(token) == "print" && self.splats_arguments(index + 1)? {
                    // The parser, reading `print` as Python 2's statement as well, may take
                    // `print(a, *b.c())` for a call of `*b.c`.
                    return None;
                }
                self.reference_token(token);
            }
        }
        Some(())
    }

    /// Whether the argument list opening at `open` splats an argument.
    fn splats_arguments(&self, open: usize) -> Option<bool> {
        let close = after_closing(self.text, self.tokens, open)?;
        let arguments = &self.tokens[open + 1..close - 1];
        Some(split_top(self.text, arguments, ",").iter().any(|argument| {
            argument
                .first()
                .is_some_and(|t| t.kind == Kind::Op && matches!(self.piece(t), "*" | "**"))
        }))
    }

    /// Reads the file logical line by logical line.
    fn lines(&mut self) -> Option<()> {
        let tokens = self.tokens;
        let mut index = 0;
        while index < tokens.len() {
            let token = tokens[index];
            if token.kind == Kind::Comment {
                self.comment(index, token.first_in_line)?;
                index += 1;
                continue;
            }
            let end = tokens[index..]
                .iter()
                .position(|t| t.kind == Kind::Newline)
                .map_or(tokens.len(), |at| index + at);
            self.enter_line(&token)?;
            let line = &tokens[index..end];
            let code_len = line
                .iter()
                .rposition(|t| t.kind != Kind::Comment)
                .map_or(0, |at| at + 1);
            self.check_adjacent(&line[..code_len])?;
            self.logical_line(&line[..code_len])?;
            for (offset, comment) in line[code_len..].iter().enumerate() {
                if comment.kind == Kind::Comment {
                    self.comment(index + code_len + offset, false)?;
                }
            }
            index = end + 1;
        }
        while self.blocks.len() > 1 {
            self.close()?;
        }
        let module = self.blocks.last()?;
        if module.decorating.is_some() || module.open_clauses == Clauses::Try {
            return None;
        }
        Some(())
    }

    /// Two atoms side by side (`print x`, `match x:`) are syntax this scan leaves to the parser.
    fn check_adjacent(&self, line: &[Token]) -> Option<()> {
        for pair in line.windows(2) {
            let closes = |t: &Token| t.kind == Kind::Op && matches!(self.piece(t), ")" | "]" | "}");
            let (a, b) = (&pair[0], &pair[1]);
            let a_atom = matches!(a.kind, Kind::Name | Kind::Number | Kind::Str) || closes(a);
            let b_atom = match b.kind {
                Kind::Name | Kind::Number => true,
                Kind::Str => a.kind != Kind::Str,
                _ => false,
            };
            if a_atom && b_atom {
                return None;
            }
        }
        Some(())
    }

    /// A comment: the sibling of the statements of the innermost suite its indentation leaves open.
    fn comment(&mut self, index: usize, own_line: bool) -> Option<()> {
        let token = self.tokens[index];
        if own_line {
            self.close_before_comment(token.col)?;
        }
        let top = self.blocks.last_mut()?;
        top.pending.push(index);
        top.last_end = (token.end, token.end_row);
        Some(())
    }

    /// Closes the suites a comment on its own line at `col` is outside of: those whose
    /// statements are indented further. A comment between two suites' indentations is left to
    /// the parser.
    fn close_before_comment(&mut self, col: u32) -> Option<()> {
        let mut closed = false;
        loop {
            let top = self.blocks.last()?;
            match top.body_indent {
                None if !top.inline => {
                    return (i64::from(col) > top.header_indent).then_some(());
                }
                None => {
                    if i64::from(col) > top.header_indent {
                        return None;
                    }
                }
                Some(body) if col < body => {}
                Some(body) => return (!closed || col == body).then_some(()),
            }
            self.close()?;
            closed = true;
        }
    }

    /// Closes suites a logical line's indentation ends and checks it is where a statement may be.
    fn enter_line(&mut self, first: &Token) -> Option<()> {
        let col = first.col;
        let top = self.blocks.last_mut()?;
        if top.body_indent.is_none() && !top.inline {
            if i64::from(col) <= top.header_indent {
                return None;
            }
            top.body_indent = Some(col);
            return Some(());
        }
        while self.blocks.last()?.header_indent >= i64::from(col) {
            self.close()?;
        }
        let top = self.blocks.last()?;
        (top.body_indent == Some(col)).then_some(())
    }

    /// Closes the innermost suite: its definition ends where its last token does.
    fn close(&mut self) -> Option<()> {
        let block = self.blocks.pop()?;
        if (block.body_indent.is_none() && !block.inline)
            || block.decorating.is_some()
            || block.open_clauses == Clauses::Try
        {
            return None;
        }
        let (end, end_row) = block.last_end;
        if let Some(index) = block.def {
            let def = self.defs.get_mut(index)?;
            def.end_byte = end as usize;
            def.end_line = end_row + 1;
        }
        let parent = self.blocks.last_mut()?;
        if block.last_end.0 > parent.last_end.0 {
            parent.last_end = block.last_end;
        }
        Some(())
    }

    /// The comment doc of a statement starting on `row` in the innermost suite, which this
    /// statement's start makes no longer pending.
    fn start_statement(&mut self, row: u32) -> Option<Option<String>> {
        let top = self.blocks.last_mut()?;
        let pending = std::mem::take(&mut top.pending);
        if !top.had_statement {
            top.had_statement = true;
            return Some(None);
        }
        let tokens = self.tokens;
        let mut next_row = row;
        let mut first = pending.len();
        for (at, &index) in pending.iter().enumerate().rev() {
            let comment = tokens[index];
            if comment.end_row + 1 < next_row {
                break;
            }
            next_row = comment.row;
            first = at;
        }
        Some(doc_from_comment_texts(
            pending[first..]
                .iter()
                .map(|&index| self.piece(&tokens[index])),
        ))
    }

    fn logical_line(&mut self, line: &[Token]) -> Option<()> {
        let first = line.first()?;
        let last = line.last()?;
        let head = self.piece(first);
        let is_def = matches!(head, "def" | "class")
            || (head == "async" && is(self.text, line.get(1), "def"));
        let clause =
            first.kind == Kind::Keyword && matches!(head, "elif" | "else" | "except" | "finally");
        let decorator = first.kind == Kind::Op && head == "@";

        let keyword = if head == "async" && first.kind == Kind::Keyword {
            line.get(1).map_or("", |t| self.piece(t))
        } else {
            head
        };
        let comment_doc = {
            let top = self.blocks.last_mut()?;
            top.open_clauses = if clause {
                top.open_clauses.after(head)?
            } else if top.open_clauses == Clauses::Try {
                return None;
            } else {
                Clauses::opened_by(keyword)
            };
            if clause {
                top.pending.clear();
                None
            } else if let Some(doc) = top.decorating.take() {
                top.pending.clear();
                if decorator {
                    top.decorating = Some(doc);
                    None
                } else if is_def {
                    doc
                } else {
                    return None;
                }
            } else {
                let doc = self.start_statement(first.row)?;
                if decorator {
                    self.blocks.last_mut()?.decorating = Some(doc);
                    None
                } else {
                    doc
                }
            }
        };
        let awaiting_docstring = std::mem::take(&mut self.blocks.last_mut()?.awaiting_docstring);

        if decorator {
            if line.len() == 2 && line[1].kind == Kind::Name {
                self.reference_token(&line[1]);
            }
        } else if first.kind == Kind::Keyword && is_compound_keyword(head) {
            return self.compound(line, is_def, comment_doc);
        } else {
            self.simple_statements(line, awaiting_docstring)?;
        }
        let top = self.blocks.last_mut()?;
        top.last_end = (last.end, last.end_row);
        Some(())
    }

    /// A compound statement's header, and its body when that is on the same line.
    fn compound(
        &mut self,
        line: &[Token],
        is_def: bool,
        comment_doc: Option<String>,
    ) -> Option<()> {
        let (colon, lambda_before) = find_top(self.text, line, ":")?;
        let header = &line[..colon];
        let indent = i64::from(line.first()?.col);
        if lambda_before {
            return None;
        }
        let def = if is_def {
            Some(self.definition(header, line[colon].end, comment_doc)?)
        } else {
            None
        };
        let body = &line[colon + 1..];
        let colon_token = line[colon];
        self.blocks.push(Block {
            header_indent: indent,
            body_indent: None,
            inline: !body.is_empty(),
            def,
            had_statement: false,
            awaiting_docstring: is_def,
            pending: Vec::new(),
            decorating: None,
            last_end: (colon_token.end, colon_token.end_row),
            open_clauses: Clauses::None,
        });
        if let Some(last) = body.last() {
            self.start_statement(body[0].row)?;
            let awaiting = std::mem::take(&mut self.blocks.last_mut()?.awaiting_docstring);
            self.simple_statements(body, awaiting)?;
            self.blocks.last_mut()?.last_end = (last.end, last.end_row);
        }
        Some(())
    }

    /// A `def` or `class` header (up to its colon): the definition, and the names its
    /// parameters' and return annotations or its bases reference.
    fn definition(
        &mut self,
        header: &[Token],
        colon_end: u32,
        doc: Option<String>,
    ) -> Option<usize> {
        let start = header.first()?;
        let keyword_at = usize::from(self.piece(start) == "async");
        let keyword = self.piece(header.get(keyword_at)?);
        let name = header
            .get(keyword_at + 1)
            .filter(|t| t.kind == Kind::Name)?;
        let rest = &header[keyword_at + 2..];
        let kind = if keyword == "class" {
            if !rest.is_empty() {
                if !is(self.text, rest.first(), "(")
                    || after_closing(self.text, rest, 0)? != rest.len()
                {
                    return None;
                }
                self.bases(&rest[1..rest.len() - 1]);
            }
            SymbolKind::Class
        } else {
            if !is(self.text, rest.first(), "(") {
                return None;
            }
            let close = after_closing(self.text, rest, 0)?;
            self.parameters(&rest[1..close - 1])?;
            match &rest[close..] {
                [] => {}
                [arrow, annotation @ ..] if is(self.text, Some(arrow), "->") => {
                    self.annotation(annotation)?;
                }
                _ => return None,
            }
            SymbolKind::Function
        };
        let name_text = self.piece(name);
        let start_byte = start.start as usize;
        self.defs.push(RawDef {
            kind,
            name: name_text.to_owned(),
            signature: signature_of(
                self.text.as_bytes(),
                start_byte,
                Some(colon_end as usize),
                colon_end as usize,
                name_text,
            ),
            doc,
            start_byte,
            end_byte: colon_end as usize,
            start_line: start.row + 1,
            end_line: start.row + 1,
        });
        Some(self.defs.len() - 1)
    }

    /// `class C(Base, pkg.Mixin, metaclass=M)`: `Base` and `Mixin`.
    fn bases(&mut self, arguments: &[Token]) {
        for argument in split_top(self.text, arguments, ",") {
            if let Some(name) = self.dotted_name_end(argument) {
                self.reference_token(&name);
            }
        }
    }

    /// The last name of `a.b.name` when `tokens` is exactly that.
    fn dotted_name_end(&self, tokens: &[Token]) -> Option<Token> {
        let last = *tokens.last()?;
        if tokens.len().is_multiple_of(2) || last.kind != Kind::Name {
            return None;
        }
        for (index, token) in tokens.iter().enumerate() {
            let ok = if index % 2 == 0 {
                token.kind == Kind::Name
            } else {
                is(self.text, Some(token), ".")
            };
            if !ok {
                return None;
            }
        }
        Some(last)
    }

    /// A parameter list: the names its annotations reference.
    fn parameters(&mut self, parameters: &[Token]) -> Option<()> {
        for parameter in split_top(self.text, parameters, ",") {
            let mut rest = parameter;
            while rest
                .first()
                .is_some_and(|t| t.kind == Kind::Op && matches!(self.piece(t), "*" | "**"))
            {
                rest = &rest[1..];
            }
            if rest.len() >= 2 && rest[0].kind == Kind::Name && is(self.text, rest.get(1), ":") {
                let annotation = &rest[2..];
                let end =
                    find_top(self.text, annotation, "=").map_or(annotation.len(), |(at, _)| at);
                self.annotation(&annotation[..end])?;
            }
        }
        Some(())
    }

    /// An annotation's references, as the parser reads it: a lone name, or `Name[…]` whose
    /// parameters are annotations in turn; `A | B` is a union of such types when `A` is
    /// `Name[…]`, and otherwise an expression, which references nothing. `None` for a union
    /// member the scan does not know how the parser reads.
    fn annotation(&mut self, tokens: &[Token]) -> Option<()> {
        let parts = split_top(self.text, tokens, "|");
        let [first, rest @ ..] = parts.as_slice() else {
            return Some(());
        };
        if rest.is_empty() {
            return self.single_type(first);
        }
        if !self.is_generic(first) {
            return Some(());
        }
        for part in parts {
            match part {
                [name] if name.kind == Kind::Name => self.reference_token(name),
                [word] if matches!(word.kind, Kind::Str) || is(self.text, Some(word), "None") => {}
                _ if self.is_generic(part) => self.single_type(part)?,
                _ => return None,
            }
        }
        Some(())
    }

    /// Whether `tokens` is exactly `Name[…]`.
    fn is_generic(&self, tokens: &[Token]) -> bool {
        matches!(tokens, [name, open, .., close]
            if name.kind == Kind::Name
                && is(self.text, Some(open), "[")
                && is(self.text, Some(close), "]")
                && after_closing(self.text, tokens, 1) == Some(tokens.len()))
    }

    /// A type that is not a union: a lone name, or `Name[…]`.
    fn single_type(&mut self, tokens: &[Token]) -> Option<()> {
        match tokens {
            [name] if name.kind == Kind::Name => self.reference_token(name),
            _ if self.is_generic(tokens) => {
                for parameter in split_top(self.text, &tokens[2..tokens.len() - 1], ",") {
                    self.annotation(parameter)?;
                }
            }
            _ => {}
        }
        Some(())
    }

    /// Simple statements separated by `;`.
    fn simple_statements(&mut self, line: &[Token], awaiting_docstring: bool) -> Option<()> {
        let module_level = self.blocks.len() == 1;
        for (index, statement) in split_top(self.text, line, ";").into_iter().enumerate() {
            let Some(first) = statement.first() else {
                continue;
            };
            if index == 0
                && awaiting_docstring
                && let [string] = statement
                && string.kind == Kind::Str
                && let Some(def) = self.blocks.last().and_then(|b| b.def)
                && let Some(doc) = docstring_line(self.piece(string))
            {
                self.defs.get_mut(def)?.doc = Some(doc);
            }
            if first.kind == Kind::Keyword {
                let head = self.piece(first);
                if head == "from" {
                    self.import_from(statement)?;
                } else if is_compound_keyword(head)
                    || find_top(self.text, statement, ":").is_some_and(|(_, lambda)| !lambda)
                {
                    // A compound statement after `;` or a header's colon, or a colon no
                    // simple statement has: syntax errors.
                    return None;
                }
                continue;
            }
            if first.kind == Kind::Name
                && matches!(self.piece(first), "type" | "match" | "case")
                && !statement.get(1).is_some_and(|next| {
                    next.kind == Kind::Op
                        && matches!(self.piece(next), "=" | "." | "," | "+=" | "-=" | "|=")
                })
            {
                // Soft keywords: the parser may read a statement they start as a type alias,
                // a match or a case where Python would not (`type(x).attr = …`).
                return None;
            }
            if first.kind == Kind::Op
                && !matches!(
                    self.piece(first),
                    "(" | "[" | "{" | "-" | "+" | "~" | "*" | "..."
                )
            {
                return None;
            }
            self.expression_statement(statement, module_level)?;
        }
        Some(())
    }

    /// An expression statement or assignment: an annotation's references, and at module level
    /// `NAME = …` / `NAME: T …` as a constant.
    fn expression_statement(&mut self, statement: &[Token], module_level: bool) -> Option<()> {
        let colon = find_top(self.text, statement, ":");
        if let Some((at, guarded)) = colon {
            if guarded {
                // `x = lambda: …`, `f = {…}` and the like: no annotation.
            } else {
                let annotation = &statement[at + 1..];
                let end = find_top(self.text, annotation, "=").map_or(annotation.len(), |(e, _)| e);
                self.annotation(&annotation[..end])?;
            }
        }
        let first = statement.first()?;
        let last = statement.last()?;
        let assigns = match statement.get(1) {
            Some(next) if next.kind == Kind::Op => match self.piece(next) {
                "=" => true,
                ":" => colon.is_some_and(|(at, guarded)| at == 1 && !guarded),
                _ => false,
            },
            _ => false,
        };
        if module_level && first.kind == Kind::Name && assigns {
            let name = self.piece(first);
            let start = first.start as usize;
            let end = last.end as usize;
            self.defs.push(RawDef {
                kind: SymbolKind::Constant,
                name: name.to_owned(),
                signature: signature_of(self.text.as_bytes(), start, None, end, name),
                doc: None,
                start_byte: start,
                end_byte: end,
                start_line: first.row + 1,
                end_line: last.end_row + 1,
            });
        }
        Some(())
    }

    /// `from m import a, b as c, (d)`: `a` and `d`.
    fn import_from(&mut self, statement: &[Token]) -> Option<()> {
        let import = statement
            .iter()
            .position(|t| t.kind == Kind::Keyword && self.piece(t) == "import")?;
        if statement
            .get(1)
            .is_some_and(|module| self.piece(module) == "__future__")
        {
            // `from __future__ import …` is a statement of its own, not an import.
            return Some(());
        }
        let mut names = &statement[import + 1..];
        if is(self.text, names.first(), "(") {
            if after_closing(self.text, names, 0)? != names.len() {
                return None;
            }
            names = &names[1..names.len() - 1];
        }
        for item in split_top(self.text, names, ",") {
            match item {
                [name] if name.kind == Kind::Name => self.reference_token(name),
                [] => {}
                [star] if is(self.text, Some(star), "*") => {}
                [name, alias, _] if name.kind == Kind::Name && is(self.text, Some(alias), "as") => {
                }
                _ => return None,
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests;
