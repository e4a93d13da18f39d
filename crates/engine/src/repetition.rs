//! Answers caught in a loop: small models at low temperature sometimes write the same lines
//! again and again until the output limit (minutes on a local model). [`RepetitionGuard`] reads
//! a response as it streams and ends it with [`ProviderError::Repetition`] once its text — or a
//! tool call's arguments — ends in the same block of lines repeated
//! [`MIN_REPEATS`] times and at least [`MIN_REPEATED_CHARS`] long (a piece of one line too: the
//! same sentence again and again with no line break), or in one line's shape
//! (the same text with other numbers: `assert!(!is_leap(1901));`, `…(1902));`, …) written
//! [`MIN_SHAPE_REPEATS`] times running, or once a code block of [`MIN_CODE_BLOCK_LINES`] or
//! more is written a second time, line for line (a model that shows the fixed file, its tests,
//! then the file again, on and on: each round is longer than a block the line rules look
//! for). Dropping the stream closes the connection, so the
//! server stops generating. The error keeps the text written before the loop, so a caller can
//! still use what the answer said before it got stuck.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use futures::StreamExt;

use crate::error::ProviderError;
use crate::provider::{ChatRequest, ItemStream, Provider, StreamItem};

/// Times a block of lines must follow itself to be a loop (a single line: [`MIN_LINE_REPEATS`]).
pub const MIN_REPEATS: usize = 4;
/// Times a single line must follow itself to be a loop.
pub const MIN_LINE_REPEATS: usize = 16;
/// Times lines of one shape (equal but for their numbers) must follow each other to be a loop.
pub const MIN_SHAPE_REPEATS: usize = 32;
/// Characters blocks of the same shapes (not the same text) must hold together to be a loop.
pub const MIN_SHAPE_BLOCK_CHARS: usize = 2_000;
/// Characters the repeated blocks must hold together.
pub const MIN_REPEATED_CHARS: usize = 800;
/// Lines a code block must hold for writing it again to be a loop.
pub const MIN_CODE_BLOCK_LINES: usize = 8;
/// The longest piece, in bytes, looked for as repeated within one line (a sentence written
/// again and again with no line break: a small model explaining a bug).
const MAX_PIECE_BYTES: usize = 512;
/// The longest block, in lines, looked for.
const MAX_BLOCK_LINES: usize = 40;

/// A loop found in streamed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repetition {
    /// Lines in the repeated block (0: a piece of text repeated within one line).
    pub block_lines: usize,
    /// Times the block follows itself.
    pub times: usize,
    /// The block's first line.
    pub first_line: String,
    /// Where the repeated lines start in the text pushed, in bytes.
    pub start: usize,
    /// The loop is a code block written again (its fence is at `start`).
    pub code_block: bool,
}

impl std::fmt::Display for Repetition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.code_block {
            return write!(
                f,
                "the model wrote the same code block of {} lines again (from `{}`); its answer was stopped",
                self.block_lines,
                self.first_line.trim(),
            );
        }
        write!(
            f,
            "the model wrote the same {} again and again ({} times, from `{}`); its answer was stopped",
            if self.block_lines == 0 {
                "text within one line".to_owned()
            } else if self.block_lines == 1 {
                "line".to_owned()
            } else {
                format!("{} lines", self.block_lines)
            },
            self.times,
            self.first_line.trim(),
        )
    }
}

/// One complete line as the detector keeps it.
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Hash of the line's text (trailing white space left out).
    hash: u64,
    /// Hash of its shape: the text without its indentation, every run of digits taken as one
    /// digit.
    shape: u64,
    /// Length in bytes, line break included.
    len: usize,
}

/// Watches one stream of text, line by line.
#[derive(Debug, Default)]
pub struct LoopDetector {
    /// Each complete line.
    lines: Vec<Line>,
    /// Bytes in the complete lines.
    complete: usize,
    /// The first line of each distinct hash, for the report.
    first_seen: HashMap<u64, String>,
    /// The line being written.
    partial: String,
    /// The code block being written: the index of its opening fence line and where it starts.
    open_block: Option<(usize, usize)>,
    /// The hashes of the code blocks written so far.
    blocks: std::collections::HashSet<u64>,
}

impl LoopDetector {
    /// A detector with no text yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `text`; the loop its complete lines now end in, if any.
    pub fn push(&mut self, text: &str) -> Option<Repetition> {
        let mut found = None;
        for piece in text.split_inclusive('\n') {
            self.partial.push_str(piece);
            if piece.ends_with('\n') {
                let line = std::mem::take(&mut self.partial);
                found = found.or_else(|| self.complete_line(line));
            }
        }
        found.or_else(|| self.loop_in_partial_line())
    }

    /// A piece of text the line being written ends in, repeated over [`MIN_REPEATED_CHARS`]
    /// and at least [`MIN_REPEATS`] times (`0x00, 0x00, 0x00, …` or the same sentence again
    /// and again, with no line break).
    fn loop_in_partial_line(&self) -> Option<Repetition> {
        let bytes = self.partial.as_bytes();
        let n = bytes.len();
        if n < MIN_REPEATED_CHARS {
            return None;
        }
        let window = |p: usize| MIN_REPEATED_CHARS.max(p * MIN_REPEATS);
        let period = (1..=MAX_PIECE_BYTES)
            .take_while(|&p| window(p) <= n)
            .find(|&p| (n - window(p) + p..n).all(|i| bytes[i] == bytes[i - p]))?;
        let mut start = n - window(period);
        while start > 0 && bytes[start - 1] == bytes[start - 1 + period] {
            start -= 1;
        }
        while !self.partial.is_char_boundary(start) {
            start += 1;
        }
        let piece = &self.partial[start..n];
        Some(Repetition {
            block_lines: 0,
            times: piece.len() / period,
            first_line: piece.chars().take(period.min(40)).collect(),
            start: self.complete + start,
            code_block: false,
        })
    }

    fn complete_line(&mut self, line: String) -> Option<Repetition> {
        let text = line.trim_end();
        let hash = hash_of(text);
        let shape = hash_of(&shape_of(text.trim_start()));
        self.lines.push(Line {
            hash,
            shape,
            len: line.len(),
        });
        self.complete += line.len();
        let is_fence = text.trim_start().starts_with("```");
        self.first_seen.entry(hash).or_insert(line);
        let again = if is_fence { self.fence() } else { None };
        again
            .or_else(|| self.loop_at_end())
            .or_else(|| self.shape_loop_at_end())
    }

    /// At a fence line (the last line): opens a code block, or closes one; the closed block
    /// when it was written before.
    fn fence(&mut self) -> Option<Repetition> {
        let index = self.lines.len() - 1;
        let Some((open, start)) = self.open_block.take() else {
            let fence_len = self.lines[index].len;
            self.open_block = Some((index, self.complete - fence_len));
            return None;
        };
        let content = &self.lines[open + 1..index];
        if content.len() < MIN_CODE_BLOCK_LINES || self.blank(content) {
            return None;
        }
        let mut hasher = DefaultHasher::new();
        for line in content {
            line.hash.hash(&mut hasher);
        }
        if self.blocks.insert(hasher.finish()) {
            return None;
        }
        Some(Repetition {
            block_lines: content.len(),
            times: 2,
            first_line: self.first_seen[&content[0].hash].clone(),
            start,
            code_block: true,
        })
    }

    /// The shortest block the lines end in that repeats enough times: the same lines, or
    /// lines of the same shapes (a step list that shows one file again and again under
    /// "5. …", "6. …").
    fn loop_at_end(&self) -> Option<Repetition> {
        self.block_loop(|line| line.hash, MIN_REPEATS, MIN_REPEATED_CHARS)
            .or_else(|| self.block_loop(|line| line.shape, MIN_REPEATS, MIN_SHAPE_BLOCK_CHARS))
    }

    /// The shortest block (of two lines or more) the lines end in, compared by `key`, that
    /// follows itself `needed` times over `min_chars`; a single line by its exact text.
    fn block_loop(
        &self,
        key: impl Fn(&Line) -> u64,
        needed: usize,
        min_chars: usize,
    ) -> Option<Repetition> {
        let n = self.lines.len();
        for block in 1..=MAX_BLOCK_LINES.min(n / 2) {
            let tail = &self.lines[n - block..];
            if repeats_a_shorter_block(tail, &key) {
                continue;
            }
            let mut times = 1;
            while times * block + block <= n {
                let start = n - (times + 1) * block;
                if self.lines[start..start + block]
                    .iter()
                    .zip(tail)
                    .any(|(a, b)| key(a) != key(b))
                {
                    break;
                }
                times += 1;
            }
            let needed = if block == 1 { MIN_LINE_REPEATS } else { needed };
            let chars: usize = self.lines[n - block * times..].iter().map(|l| l.len).sum();
            if block == 1 && tail[0].hash != self.lines[n - times].hash {
                // A single line counting up is the shape rule's ([`MIN_SHAPE_REPEATS`]).
                continue;
            }
            if times >= needed && chars >= min_chars && !self.blank(tail) {
                return Some(self.found(block, times));
            }
        }
        None
    }

    /// A run of lines of one shape the lines end in, long enough to be a loop.
    fn shape_loop_at_end(&self) -> Option<Repetition> {
        let last = self.lines.last()?;
        let times = self
            .lines
            .iter()
            .rev()
            .take_while(|line| line.shape == last.shape)
            .count();
        let run = &self.lines[self.lines.len() - times..];
        let chars: usize = run.iter().map(|l| l.len).sum();
        (times >= MIN_SHAPE_REPEATS && chars >= MIN_REPEATED_CHARS && !self.blank(run))
            .then(|| self.found(1, times))
    }

    /// Whether every line of `lines` is blank.
    fn blank(&self, lines: &[Line]) -> bool {
        lines
            .iter()
            .all(|line| self.first_seen[&line.hash].trim().is_empty())
    }

    /// The loop of the last `block × times` lines.
    fn found(&self, block_lines: usize, times: usize) -> Repetition {
        let looped = &self.lines[self.lines.len() - block_lines * times..];
        let looped_len: usize = looped.iter().map(|l| l.len).sum();
        Repetition {
            block_lines,
            times,
            first_line: self.first_seen[&looped[0].hash].clone(),
            start: self.complete - looped_len,
            code_block: false,
        }
    }
}

/// A hash of `text`.
fn hash_of(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// `text` with each run of ASCII digits written as one `0`.
fn shape_of(text: &str) -> String {
    let mut shape = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        let digit = c.is_ascii_digit();
        if !(digit && in_digits) {
            shape.push(if digit { '0' } else { c });
        }
        in_digits = digit;
    }
    shape
}

/// Whether `block` is itself a shorter block written more than once (counted under that one).
fn repeats_a_shorter_block(block: &[Line], key: impl Fn(&Line) -> u64) -> bool {
    (1..block.len())
        .filter(|period| block.len().is_multiple_of(*period))
        .any(|period| (period..block.len()).all(|i| key(&block[i]) == key(&block[i - period])))
}

/// A provider wrapper that stops a response caught in a loop (see the module docs).
pub(crate) struct RepetitionGuard<'a> {
    inner: &'a dyn Provider,
}

impl<'a> RepetitionGuard<'a> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: &'a dyn Provider) -> Self {
        Self { inner }
    }
}

#[async_trait::async_trait]
impl Provider for RepetitionGuard<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn stream(&self, request: &ChatRequest) -> Result<ItemStream, ProviderError> {
        let inner = self.inner.stream(request).await?;
        Ok(guard(inner))
    }
}

/// `stream` until it ends or loops.
fn guard(stream: ItemStream) -> ItemStream {
    let mut text = LoopDetector::new();
    let mut written = String::new();
    let mut calls: HashMap<u32, LoopDetector> = HashMap::new();
    let mut ended = false;
    Box::pin(
        stream
            .map(move |item| {
                let repetition = match &item {
                    Ok(StreamItem::Text(piece)) => {
                        written.push_str(piece);
                        text.push(piece).map(|found| {
                            let kept = written.get(..found.start).unwrap_or_default().to_owned();
                            (found, kept)
                        })
                    }
                    Ok(StreamItem::ToolCall(delta)) => calls
                        .entry(delta.index)
                        .or_default()
                        .push(&delta.arguments)
                        .map(|found| (found, written.clone())),
                    _ => None,
                };
                match repetition {
                    Some((found, kept)) => {
                        tracing::warn!(%found, "stopping a response caught in a loop");
                        Err(ProviderError::Repetition {
                            why: found.to_string(),
                            kept,
                        })
                    }
                    None => item,
                }
            })
            // The item after the loop's error ends the stream, which drops the response.
            .take_while(move |item| {
                let go_on = !ended;
                ended |= matches!(item, Err(ProviderError::Repetition { .. }));
                std::future::ready(go_on)
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block() -> String {
        "self.assertEqual(mean([5]), 5)\n  File \"calc/stats.py\", line 8, in mean\n    return sum(values) / (len(values) - 1)\nZeroDivisionError: division by zero\n=======\n".to_owned()
    }

    #[test]
    fn a_block_written_again_and_again_is_a_loop() {
        let mut detector = LoopDetector::new();
        let mut found = None;
        let mut written = 0;
        while found.is_none() && written < 50 {
            // Streamed in odd pieces, as a server sends tokens.
            for piece in block().as_bytes().chunks(7) {
                found = found.or(detector.push(std::str::from_utf8(piece).unwrap_or("")));
            }
            written += 1;
        }
        let found = found.unwrap_or_else(|| panic!("no loop found after {written} blocks"));
        assert_eq!(found.block_lines, 5);
        assert!(found.times >= MIN_REPEATS, "{found:?}");
        assert!(written <= 8, "found only after {written} blocks");
    }

    #[test]
    fn a_code_block_written_a_second_time_is_a_loop() {
        let file: String = (0..10).map(|i| format!("    x{i} = {i}\n")).collect();
        let round = format!(
            "The fix:\n\n```python\ndef f():\n{file}```\n\nThe tests:\n\n```python\nassert f() is None\n```\n\n"
        );
        let mut detector = LoopDetector::new();
        assert_eq!(detector.push(&round), None);
        let found = detector
            .push(&round)
            .unwrap_or_else(|| panic!("the block written again was not found"));
        assert!(found.code_block);
        assert_eq!(found.block_lines, 11);
        // The loop starts at the second copy's fence: the first copy is kept.
        let text = format!("{round}{round}");
        assert_eq!(&text[found.start..found.start + 10], "```python\n");
        assert_eq!(found.start, round.find("```").unwrap_or(0) + round.len());
        // Short blocks written again (a one-line command) are not a loop.
        let mut detector = LoopDetector::new();
        let short = "Run:\n```\ncargo test\n```\n";
        assert_eq!(detector.push(&format!("{short}{short}{short}")), None);
    }

    #[test]
    fn ordinary_code_is_not_a_loop() {
        let mut detector = LoopDetector::new();
        // Stanzas alike but for their names (letters, not numbers): a file of small handlers.
        let name = |mut i: usize| {
            let mut name = String::new();
            loop {
                name.push(char::from(b'a' + (i % 26) as u8));
                i /= 26;
                if i == 0 {
                    break name;
                }
            }
        };
        let mut code = String::new();
        for i in 0..200 {
            let n = name(i);
            code.push_str(&format!(
                "def handle_{n}(request):\n    assert parse_size(\"{i}k\") == {}\n    return respond(request, \"{n}\")\n\n",
                i * 1024
            ));
        }
        assert_eq!(detector.push(&code), None);
        // A few tests alike but for their numbers are not a loop either.
        let mut detector = LoopDetector::new();
        let tests: String = (1..=6)
            .map(|i| {
                format!(
                    "#[test]\nfn case_{i}() {{\n    assert_eq!(parse(\"{i}\"), Ok({i}));\n}}\n\n"
                )
            })
            .collect();
        assert_eq!(detector.push(&tests), None);
    }

    #[test]
    fn short_repeats_and_blank_lines_are_not_a_loop() {
        let mut detector = LoopDetector::new();
        // A few identical lines (a table of zeros), blank lines, a closing brace run.
        let text = "0, 0, 0, 0,\n".repeat(10) + &"\n".repeat(300) + &"}\n".repeat(12);
        assert_eq!(detector.push(&text), None);
    }

    #[test]
    fn one_line_counting_up_is_a_loop_that_starts_at_its_first_line() {
        let mut detector = LoopDetector::new();
        let before = "pub fn is_leap_year(year: i32) -> bool {\n    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)\n}\n```\n\n```rust\n#[test]\nfn century_years() {\n";
        let mut found = detector.push(before);
        let mut year = 1900;
        while found.is_none() && year < 2400 {
            found = detector.push(&format!("    assert!(!is_leap_year({year}));\n"));
            year += 1;
        }
        let found = found.unwrap_or_else(|| panic!("no loop found up to {year}"));
        assert_eq!(found.block_lines, 1);
        assert!(found.times >= MIN_SHAPE_REPEATS, "{found:?}");
        assert!(year < 1900 + 40, "found only at {year}");
        assert_eq!(found.start, before.len());
    }

    #[test]
    fn a_short_table_of_numbers_is_not_a_loop() {
        let mut detector = LoopDetector::new();
        let table: String = (0..20)
            .map(|i| format!("    ({i}, \"{i}\", {}),\n", i * i))
            .collect();
        assert_eq!(detector.push(&table), None);
    }

    #[test]
    fn a_piece_repeated_within_one_line_is_a_loop() {
        let mut detector = LoopDetector::new();
        let before = "const TABLE: [u8; 256] = [\n    0x00, 0x01, ";
        let mut found = detector.push(before);
        let mut pushed = 0;
        while found.is_none() && pushed < 1000 {
            found = detector.push("0x00, ");
            pushed += 1;
        }
        let found = found.unwrap_or_else(|| panic!("no loop after {pushed} pieces"));
        assert_eq!(found.block_lines, 0);
        assert!(
            pushed * 6 < MIN_REPEATED_CHARS + 20,
            "found after {pushed} pieces"
        );
        assert!(found.to_string().contains("within one line"), "{found}");
        // The run of `, 0x00` starts right after the table's last other value, `0x01`.
        assert_eq!(found.start, before.len() - ", ".len());
    }

    #[test]
    fn a_sentence_repeated_within_one_line_is_a_loop() {
        // Recorded on py-itsdangerous-unsign: 15,000 characters of this, 400 s, one line.
        let mut detector = LoopDetector::new();
        let before = "The bug is in the `loads()` method of the `Serializer` class. ";
        let sentence = "The `loads()` method is supposed to check if the signature matches the payload, but it is not doing so correctly. ";
        let mut found = detector.push(before);
        let mut pushed = 0;
        while found.is_none() && pushed < 100 {
            for word in sentence.split_inclusive(' ') {
                found = found.or_else(|| detector.push(word));
            }
            pushed += 1;
        }
        let found = found.unwrap_or_else(|| panic!("no loop after {pushed} sentences"));
        assert_eq!(found.block_lines, 0);
        assert!(pushed <= 8, "found after {pushed} sentences");
        // The run starts at the ". " the text before it ends in, as each sentence does.
        assert_eq!(found.start, before.len() - ". ".len());
        // Three times is not yet a loop, however long the sentence; a fourth time is.
        let long: String = (0..70).map(|i| format!("w{i} ")).collect();
        assert!(long.len() * 3 > MIN_REPEATED_CHARS, "{}", long.len());
        let mut detector = LoopDetector::new();
        assert_eq!(detector.push(&long.repeat(3)), None);
        assert!(detector.push(&long).is_some());
    }

    #[test]
    fn a_long_line_of_varied_text_is_not_a_loop() {
        let mut detector = LoopDetector::new();
        let line: String = (0..400).map(|i| format!("{i}, ")).collect();
        assert_eq!(detector.push(&line), None);
    }

    #[test]
    fn a_step_list_showing_one_file_again_and_again_is_a_loop() {
        // Recorded on a rename task: the same file under "5. …", "6. …", … with its indentation
        // changing at "10.".
        let file = "   ```python\n   \"\"\"Reading deployment config files.\"\"\"\n   from dataclasses import dataclass, field\n\n   from . import config\n\n\n   @dataclass\n   class Plan:\n       app: str\n       replicas: int\n       env: dict = field(default_factory=dict)\n\n       def describe(self):\n           lines = [f\"deploy {self.app} x{self.replicas}\"]\n           for key in sorted(self.env):\n               lines.append(f\"  env {key}={self.env[key]}\")\n           return \"\\n\".join(lines)\n\n\n   def plan_from_text(text):\n       return make_plan(config.parse_config(text))\n   ```\n\n";
        let mut detector = LoopDetector::new();
        let mut found = None;
        let mut step = 5;
        while found.is_none() && step < 20 {
            found = detector.push(&format!(
                "{step}. **Rename the function call in `deployer/config.py`**:\n{file}"
            ));
            step += 1;
        }
        let found = found.unwrap_or_else(|| panic!("no loop up to step {step}"));
        assert!(found.block_lines > 1, "{found:?}");
        assert!(step <= 10, "found only at step {step}");
    }

    #[test]
    fn one_line_repeated_many_times_is_a_loop() {
        let mut detector = LoopDetector::new();
        let line = "The fix is to divide by the number of values, not one less than it.\n";
        let found = detector.push(&line.repeat(40));
        assert_eq!(found.map(|f| f.block_lines), Some(1));
    }

    #[tokio::test]
    async fn the_guard_ends_a_looping_stream_with_an_error() {
        let mut items: Vec<Result<StreamItem, ProviderError>> =
            vec![Ok(StreamItem::Text("```json\n".to_owned()))];
        for _ in 0..100 {
            items.push(Ok(StreamItem::Text(block())));
        }
        items.push(Ok(StreamItem::Finish(keel_events::FinishReason::Stop)));
        let stream: ItemStream = Box::pin(futures::stream::iter(items));
        let out: Vec<_> = guard(stream).collect().await;
        assert!(out.len() < 20, "{} items passed", out.len());
        assert!(matches!(
            out.last(),
            Some(Err(ProviderError::Repetition { kept, .. })) if kept == "```json\n"
        ));
    }

    #[tokio::test]
    async fn the_guard_passes_an_ordinary_stream_unchanged() {
        let items = vec![
            Ok(StreamItem::Text("def mean(values):\n".to_owned())),
            Ok(StreamItem::Text(
                "    return sum(values) / len(values)\n".to_owned(),
            )),
            Ok(StreamItem::Finish(keel_events::FinishReason::Stop)),
        ];
        let stream: ItemStream = Box::pin(futures::stream::iter(items));
        let out: Vec<_> = guard(stream).collect().await;
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(Result::is_ok));
    }
}
