//! Code-aware tokenising: words split at anything not alphanumeric (so paths and `a.b::c`
//! fall apart), identifiers kept whole and also split into their `snake_case` / `camelCase`
//! parts, all lower-cased; the registered analyzer then drops English stop words and stems.

use tantivy::tokenizer::{
    Language, LowerCaser, Stemmer, StopWordFilter, TextAnalyzer, TextAnalyzerBuilder, Token,
    TokenStream, Tokenizer,
};

/// The name the code analyzer is registered under in every index.
pub const CODE_TOKENIZER: &str = "keel_code";

/// Longest word indexed, in bytes (longer runs are hashes or data).
const MAX_WORD_BYTES: usize = 64;

/// Splits one identifier into its parts: `parse_HTTPResponse2` → `parse`, `HTTP`, `Response2`.
/// A word without case or underscore changes comes back whole.
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (at, c) = chars[i];
            let prev = chars[i - 1].1;
            let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
            let boundary = (c.is_uppercase() && prev.is_lowercase())
                || (c.is_uppercase() && prev.is_uppercase() && next_lower)
                || (c.is_alphabetic() && prev.is_ascii_digit() && c.is_uppercase());
            if boundary {
                parts.push(&piece[start..at]);
                start = at;
            }
        }
        parts.push(&piece[start..]);
    }
    parts
}

/// The terms the code tokenizer makes of `text` before stop words and stemming: each word
/// lower-cased, followed by its identifier parts when it has more than one.
pub fn code_terms(text: &str) -> Vec<String> {
    let mut tokenizer = CodeTokenizer;
    let mut stream = tokenizer.token_stream(text);
    let mut terms = Vec::new();
    while stream.advance() {
        terms.push(stream.token().text.to_lowercase());
    }
    terms
}

/// The analyzer used for every text field: [`CodeTokenizer`], lower-casing, English stop
/// words and the English stemmer.
pub fn code_analyzer() -> TextAnalyzer {
    stop_and_stem(TextAnalyzer::builder(CodeTokenizer).filter(LowerCaser))
}

/// `builder` followed by English stop words (when tantivy has them) and the English stemmer.
fn stop_and_stem<T: Tokenizer>(builder: TextAnalyzerBuilder<T>) -> TextAnalyzer {
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder
            .filter(stop)
            .filter(Stemmer::new(Language::English))
            .build(),
        None => builder.filter(Stemmer::new(Language::English)).build(),
    }
}

/// Words that make a sentence a question or point at the asker, dropped from queries (on top
/// of the English stop words): they say nothing about the code, yet match every heading and
/// comment phrased as a question ("How does it work?").
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "where", "which", "who", "whom", "whose", "why", "when", "do", "does", "did",
    "doing", "can", "could", "should", "would", "shall", "may", "might", "must", "am", "been",
    "being", "have", "has", "had", "i", "me", "my", "mine", "we", "us", "our", "you", "your",
    "its", "itself", "them",
];

/// The analyzer for queries: [`code_analyzer`] that also drops [`QUESTION_WORDS`].
pub fn query_analyzer() -> TextAnalyzer {
    let questions = StopWordFilter::remove(QUESTION_WORDS.iter().map(|w| (*w).to_owned()));
    stop_and_stem(
        TextAnalyzer::builder(CodeTokenizer)
            .filter(LowerCaser)
            .filter(questions),
    )
}

/// The terms a query searches for: `text` through [`query_analyzer`], each once, in order, at
/// most `max`.
pub fn query_terms(text: &str, max: usize) -> Vec<String> {
    let mut analyzer = query_analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut terms: Vec<String> = Vec::new();
    while terms.len() < max
        && let Some(token) = stream.next()
    {
        if !terms.contains(&token.text) {
            terms.push(token.text.clone());
        }
    }
    terms
}

/// The tokenizer: words and their identifier parts, with positions.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeTokenizer;

/// The tokens of one text, produced eagerly (texts are chunk-sized).
pub struct CodeTokenStream {
    tokens: Vec<Token>,
    next: usize,
    empty: Token,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream {
        let mut tokens = Vec::new();
        let mut position = 0;
        let push = |tokens: &mut Vec<Token>, from: usize, word: &str, position: usize| {
            tokens.push(Token {
                offset_from: from,
                offset_to: from + word.len(),
                position,
                text: word.to_owned(),
                position_length: 1,
            });
        };
        let mut start: Option<usize> = None;
        let bytes_end = text.len();
        let emit = |tokens: &mut Vec<Token>, from: usize, to: usize, position: &mut usize| {
            let word = &text[from..to];
            if word.len() > MAX_WORD_BYTES {
                return;
            }
            push(tokens, from, word, *position);
            let parts = split_identifier(word);
            if parts.len() > 1 {
                for part in parts {
                    let offset = part.as_ptr() as usize - word.as_ptr() as usize;
                    push(tokens, from + offset, part, *position);
                    *position += 1;
                }
            } else {
                *position += 1;
            }
        };
        for (at, c) in text.char_indices() {
            let in_word = c.is_alphanumeric() || c == '_';
            match (in_word, start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    emit(&mut tokens, from, at, &mut position);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            emit(&mut tokens, from, bytes_end, &mut position);
        }
        // Words made only of underscores split into nothing.
        tokens.retain(|t| t.text.chars().any(char::is_alphanumeric));
        CodeTokenStream {
            tokens,
            next: 0,
            empty: Token::default(),
        }
    }
}

impl TokenStream for CodeTokenStream {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        self.next
            .checked_sub(1)
            .and_then(|at| self.tokens.get(at))
            .unwrap_or(&self.empty)
    }

    fn token_mut(&mut self) -> &mut Token {
        match self
            .next
            .checked_sub(1)
            .and_then(|at| self.tokens.get_mut(at))
        {
            Some(token) => token,
            None => &mut self.empty,
        }
    }
}
