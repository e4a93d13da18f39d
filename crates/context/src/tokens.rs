//! Real token counts with tiktoken-rs, the encoding chosen by model name (o200k by default).
//!
//! The BPE tables are built once per process (tiktoken-rs keeps them in lazily initialised
//! statics) and shared by every [`TokenCounter`], which is a cheap `Copy` handle.
//!
//! Counts of longer texts are memoised by a 128-bit content hash: the engine rebuilds the prompt
//! before every model call and history messages never change, so without the memo each request
//! would re-encode the whole conversation and a long turn would cost time quadratic in its
//! length.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use crate::message::ChatMessage;

/// Tokens a chat message costs besides its text (role and separators), as in OpenAI's
/// published counting recipe.
pub const TOKENS_PER_MESSAGE: usize = 3;
/// Tokens one image costs, whatever its size: OpenAI's price of a 1024×1024 image at high
/// detail (85 + 4 × 170). Providers count images their own way (by tiles, by pixels); a fixed
/// figure keeps budgets simple and errs large for the small screenshots people mostly send.
pub const TOKENS_PER_IMAGE: usize = 765;
/// Tokens each tool call costs besides its name and arguments (id, type, framing).
pub const TOKENS_PER_TOOL_CALL: usize = 8;
/// Tokens that prime the model's reply, counted once per request.
pub const TOKENS_REPLY_PRIMING: usize = 3;

/// Texts at least this long have their counts memoised (shorter ones encode faster than a hash
/// lookup pays for).
const MEMO_MIN_BYTES: usize = 256;
/// The memo is emptied when it reaches this many entries, bounding its memory.
const MEMO_MAX_ENTRIES: usize = 65_536;

/// Memoised counts, keyed by encoding and a 128-bit BLAKE3 hash of the text.
fn memo() -> &'static Mutex<HashMap<[u8; 16], usize>> {
    static MEMO: OnceLock<Mutex<HashMap<[u8; 16], usize>>> = OnceLock::new();
    MEMO.get_or_init(|| Mutex::new(HashMap::new()))
}

fn memo_key(encoding: Encoding, text: &str) -> [u8; 16] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(encoding.name().as_bytes());
    hasher.update(&[0]);
    hasher.update(text.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&hasher.finalize().as_bytes()[..16]);
    key
}

/// Above this many bytes a piece of text is counted in chunks split at line starts, which keeps
/// the count exact while bounding the cost of pathological inputs (one enormous line is split
/// at a character boundary instead, where the count may differ by a token per chunk).
const CHUNK_BYTES: usize = 16 * 1024;

/// A tiktoken encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series; the default for unknown models).
    O200kBase,
    /// `o200k_harmony` (gpt-oss).
    O200kHarmony,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
    /// `p50k_base` (Codex-era completions).
    P50kBase,
    /// `p50k_edit`.
    P50kEdit,
    /// `r50k_base` (GPT-3, GPT-2).
    R50kBase,
}

impl Encoding {
    /// The encoding tiktoken uses for `model`; `o200k_base` when it does not know the model.
    /// Provider prefixes such as `openai/` are ignored.
    pub fn for_model(model: &str) -> Self {
        let name = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase();
        match get_tokenizer(&name) {
            Some(Tokenizer::O200kHarmony) => Encoding::O200kHarmony,
            Some(Tokenizer::Cl100kBase) => Encoding::Cl100kBase,
            Some(Tokenizer::P50kBase) => Encoding::P50kBase,
            Some(Tokenizer::P50kEdit) => Encoding::P50kEdit,
            Some(Tokenizer::R50kBase | Tokenizer::Gpt2) => Encoding::R50kBase,
            Some(Tokenizer::O200kBase) | None => Encoding::O200kBase,
        }
    }

    /// The encoding's tiktoken name, e.g. `o200k_base`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::O200kHarmony => "o200k_harmony",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::P50kEdit => "p50k_edit",
            Encoding::R50kBase => "r50k_base",
        }
    }

    /// Starts building the encoding's tables on a background thread, so the first count (often
    /// on the way to a model's first request) does not wait for them; a no-op once built.
    pub fn preload(self) {
        // If no thread can be spawned, the first count builds the tables instead.
        let _ = std::thread::Builder::new()
            .name("keel-tokenizer".to_owned())
            .spawn(move || {
                self.bpe();
            });
    }

    fn bpe(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::O200kHarmony => tiktoken_rs::o200k_harmony_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::P50kEdit => tiktoken_rs::p50k_edit_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        }
    }
}

/// Counts tokens for one encoding. Cheap to copy; the first counter of an encoding builds its
/// tables (tens of milliseconds), later ones reuse them.
#[derive(Clone, Copy)]
pub struct TokenCounter {
    encoding: Encoding,
    bpe: &'static CoreBPE,
}

impl fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenCounter")
            .field("encoding", &self.encoding.name())
            .finish()
    }
}

impl Default for TokenCounter {
    fn default() -> Self {
        Self::new(Encoding::O200kBase)
    }
}

impl TokenCounter {
    /// A counter for `encoding`.
    pub fn new(encoding: Encoding) -> Self {
        Self {
            encoding,
            bpe: encoding.bpe(),
        }
    }

    /// A counter for the encoding `model` uses (see [`Encoding::for_model`]).
    pub fn for_model(model: &str) -> Self {
        Self::new(Encoding::for_model(model))
    }

    /// The encoding counted with.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Tokens in `text`. Special-token markers in the text are counted as ordinary text, as a
    /// provider does with user-supplied content.
    pub fn count(&self, text: &str) -> usize {
        if text.len() < MEMO_MIN_BYTES {
            return self.encode_count(text);
        }
        let key = memo_key(self.encoding, text);
        if let Some(&count) = memo().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return count;
        }
        let count = self.encode_count(text);
        let mut memo = memo().lock().unwrap_or_else(|p| p.into_inner());
        if memo.len() >= MEMO_MAX_ENTRIES {
            memo.clear();
        }
        memo.insert(key, count);
        count
    }

    fn encode_count(&self, text: &str) -> usize {
        if text.len() <= CHUNK_BYTES {
            return self.bpe.encode_ordinary(text).len();
        }
        chunks(text)
            .map(|chunk| self.bpe.encode_ordinary(chunk).len())
            .sum()
    }

    /// Tokens a message costs in a request: its text, its tool calls, and the framing.
    pub fn count_message(&self, message: &ChatMessage) -> usize {
        let calls: usize = message
            .tool_calls
            .iter()
            .map(|call| TOKENS_PER_TOOL_CALL + self.count(&call.name) + self.count(&call.arguments))
            .sum();
        let name = message.name.as_deref().map_or(0, |name| self.count(name));
        let images = message.images.len() * TOKENS_PER_IMAGE;
        TOKENS_PER_MESSAGE + self.count(&message.content) + calls + name + images
    }

    /// Tokens a whole request costs: every message plus the reply priming.
    pub fn count_messages(&self, messages: &[ChatMessage]) -> usize {
        TOKENS_REPLY_PRIMING
            + messages
                .iter()
                .map(|message| self.count_message(message))
                .sum::<usize>()
    }
}

/// Splits `text` into pieces of about [`CHUNK_BYTES`], each ending just after a newline where
/// tiktoken's pre-tokenizer always ends a piece (the next line is not blank and does not start
/// with `/`), so counting the pieces separately gives the same total; a line longer than a chunk
/// is cut at a character boundary.
fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.len() <= CHUNK_BYTES {
            let all = rest;
            rest = "";
            return Some(all);
        }
        let cut = split_point(rest);
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

fn split_point(text: &str) -> usize {
    let bytes = text.as_bytes();
    let limit = CHUNK_BYTES.min(bytes.len());
    let mut i = limit;
    while i > CHUNK_BYTES / 4 {
        i -= 1;
        if bytes[i] == b'\n' && is_clean_line_start(&bytes[i + 1..]) {
            return i + 1;
        }
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut.max(1)
}

/// Whether a line starting at `rest` begins a fresh pre-tokenizer piece: it does not start with
/// `/` (which `[\r\n/]*` would glue to the previous piece) and is not blank.
fn is_clean_line_start(rest: &[u8]) -> bool {
    if rest.first().is_none_or(|b| *b == b'/') {
        return false;
    }
    match rest.iter().find(|b| **b != b' ' && **b != b'\t') {
        Some(b) => *b != b'\n' && *b != b'\r',
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_encoding_by_model() {
        assert_eq!(Encoding::for_model("gpt-4o-mini"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("gpt-4-0613"), Encoding::Cl100kBase);
        assert_eq!(Encoding::for_model("gpt-3.5-turbo"), Encoding::Cl100kBase);
        assert_eq!(Encoding::for_model("openai/gpt-4"), Encoding::Cl100kBase);
        assert_eq!(Encoding::for_model("claude-sonnet-4"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model(""), Encoding::O200kBase);
    }

    #[test]
    fn counts_known_strings() {
        let counter = TokenCounter::default();
        assert_eq!(counter.count(""), 0);
        assert_eq!(counter.count("hello world"), 2);
        let cl = TokenCounter::new(Encoding::Cl100kBase);
        assert_eq!(cl.count("hello world"), 2);
    }

    #[test]
    fn memoised_counts_equal_fresh_counts() {
        let text = "fn main() { println!(\"hello\"); }\n".repeat(40);
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let counter = TokenCounter::new(encoding);
            let fresh = counter.encode_count(&text);
            assert_eq!(counter.count(&text), fresh);
            assert_eq!(counter.count(&text), fresh, "second, memoised count");
        }
        let o200k = TokenCounter::new(Encoding::O200kBase);
        let cl100k = TokenCounter::new(Encoding::Cl100kBase);
        assert_ne!(
            memo_key(Encoding::O200kBase, &text),
            memo_key(Encoding::Cl100kBase, &text)
        );
        assert_eq!(o200k.count(&text), o200k.encode_count(&text));
        assert_eq!(cl100k.count(&text), cl100k.encode_count(&text));
    }

    #[test]
    fn special_token_text_is_ordinary() {
        let counter = TokenCounter::default();
        assert!(counter.count("<|endoftext|>") > 1);
    }

    #[test]
    fn chunked_count_equals_whole_count_for_source_text() {
        let lines = [
            "    let value = compute(alpha, beta); // explain the 42 things\n",
            "};\n",
            "//! docs\n",
            "   \n",
            "\n",
            "\t\tif x {\r\n",
            "/* block */ fn main() {}\n",
            "中文注释 和 émoji 🎉\n",
        ];
        let text: String = (0..4_000)
            .map(|i| lines[(i * 7 + i / 3) % lines.len()])
            .collect();
        assert!(text.len() > CHUNK_BYTES * 4);
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let counter = TokenCounter::new(encoding);
            let whole = counter.bpe.encode_ordinary(&text).len();
            assert_eq!(counter.count(&text), whole, "{}", encoding.name());
        }
    }

    #[test]
    fn chunks_cover_the_text_exactly() {
        let text = format!("{}\n{}", "é".repeat(20_000), "x\n y\nz".repeat(5_000));
        let joined: String = chunks(&text).collect();
        assert_eq!(joined, text);
        assert!(chunks(&text).all(|c| c.len() <= CHUNK_BYTES));
    }

    #[test]
    fn one_huge_line_is_counted_quickly() {
        let counter = TokenCounter::default();
        let text = "a".repeat(400_000);
        let started = std::time::Instant::now();
        let n = counter.count(&text);
        assert!(n > 0);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn message_framing_is_counted() {
        let counter = TokenCounter::default();
        let plain = ChatMessage::user("hello world");
        assert_eq!(counter.count_message(&plain), TOKENS_PER_MESSAGE + 2);
        let png = keel_protocol::Image::from_bytes("a.png", b"\x89PNG\r\n\x1a\n")
            .expect("a PNG signature is a PNG");
        let with_images = ChatMessage::user_with_images("hello world", vec![png.clone(), png]);
        assert_eq!(
            counter.count_message(&with_images),
            TOKENS_PER_MESSAGE + 2 + 2 * TOKENS_PER_IMAGE
        );
        assert_eq!(
            counter.count_messages(std::slice::from_ref(&plain)),
            TOKENS_PER_MESSAGE + 2 + TOKENS_REPLY_PRIMING
        );
    }
}
