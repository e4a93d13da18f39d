//! Answers caught in a loop: small models at low temperature sometimes write the same lines
//! again and again until the output limit (minutes on a local model). [`RepetitionGuard`] reads
//! a response as it streams and ends it with [`ProviderError::Repetition`] once its text — or a
//! tool call's arguments — ends in the same block of lines repeated
//! [`MIN_REPEATS`] times and at least [`MIN_REPEATED_CHARS`] long. Dropping the stream closes
//! the connection, so the server stops generating.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use futures::StreamExt;

use crate::error::ProviderError;
use crate::provider::{ChatRequest, ItemStream, Provider, StreamItem};

/// Times a block of lines must follow itself to be a loop (a single line: [`MIN_LINE_REPEATS`]).
pub const MIN_REPEATS: usize = 4;
/// Times a single line must follow itself to be a loop.
pub const MIN_LINE_REPEATS: usize = 16;
/// Characters the repeated blocks must hold together.
pub const MIN_REPEATED_CHARS: usize = 800;
/// The longest block, in lines, looked for.
const MAX_BLOCK_LINES: usize = 40;

/// A loop found in streamed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repetition {
    /// Lines in the repeated block.
    pub block_lines: usize,
    /// Times the block follows itself.
    pub times: usize,
    /// The block's first line.
    pub first_line: String,
}

impl std::fmt::Display for Repetition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the model wrote the same {} again and again ({} times, from `{}`); its answer was stopped",
            if self.block_lines == 1 {
                "line".to_owned()
            } else {
                format!("{} lines", self.block_lines)
            },
            self.times,
            self.first_line.trim(),
        )
    }
}

/// Watches one stream of text, line by line.
#[derive(Debug, Default)]
pub struct LoopDetector {
    /// Hash and length of each complete line.
    lines: Vec<(u64, usize)>,
    /// The first line of each distinct hash, for the report.
    first_seen: HashMap<u64, String>,
    /// The line being written.
    partial: String,
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
        found
    }

    fn complete_line(&mut self, line: String) -> Option<Repetition> {
        let mut hasher = DefaultHasher::new();
        line.trim_end().hash(&mut hasher);
        let hash = hasher.finish();
        self.lines.push((hash, line.len()));
        self.first_seen.entry(hash).or_insert(line);
        self.loop_at_end()
    }

    /// The shortest block the lines end in that repeats enough times.
    fn loop_at_end(&self) -> Option<Repetition> {
        let n = self.lines.len();
        for block in 1..=MAX_BLOCK_LINES.min(n / 2) {
            let tail = &self.lines[n - block..];
            if repeats_a_shorter_block(tail) {
                continue;
            }
            let mut times = 1;
            while times * block + block <= n {
                let start = n - (times + 1) * block;
                if self.lines[start..start + block]
                    .iter()
                    .zip(tail)
                    .any(|(a, b)| a.0 != b.0)
                {
                    break;
                }
                times += 1;
            }
            let needed = if block == 1 {
                MIN_LINE_REPEATS
            } else {
                MIN_REPEATS
            };
            let chars: usize = tail.iter().map(|l| l.1).sum::<usize>() * times;
            let blank = tail
                .iter()
                .all(|(hash, _)| self.first_seen[hash].trim().is_empty());
            if times >= needed && chars >= MIN_REPEATED_CHARS && !blank {
                return Some(Repetition {
                    block_lines: block,
                    times,
                    first_line: self.first_seen[&tail[0].0].clone(),
                });
            }
        }
        None
    }
}

/// Whether `block` is itself a shorter block written more than once (counted under that one).
fn repeats_a_shorter_block(block: &[(u64, usize)]) -> bool {
    (1..block.len())
        .filter(|period| block.len().is_multiple_of(*period))
        .any(|period| (period..block.len()).all(|i| block[i].0 == block[i - period].0))
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
    let mut calls: HashMap<u32, LoopDetector> = HashMap::new();
    let mut ended = false;
    Box::pin(
        stream
            .map(move |item| {
                let repetition = match &item {
                    Ok(StreamItem::Text(piece)) => text.push(piece),
                    Ok(StreamItem::ToolCall(delta)) => {
                        calls.entry(delta.index).or_default().push(&delta.arguments)
                    }
                    _ => None,
                };
                match repetition {
                    Some(found) => {
                        tracing::warn!(%found, "stopping a response caught in a loop");
                        Err(ProviderError::Repetition(found.to_string()))
                    }
                    None => item,
                }
            })
            // The item after the loop's error ends the stream, which drops the response.
            .take_while(move |item| {
                let go_on = !ended;
                ended |= matches!(item, Err(ProviderError::Repetition(_)));
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
    fn ordinary_code_is_not_a_loop() {
        let mut detector = LoopDetector::new();
        let mut code = String::new();
        for i in 0..200 {
            code.push_str(&format!(
                "    assert parse_size(\"{i}k\") == {}\n",
                i * 1024
            ));
            code.push_str("\n}\n\n");
        }
        assert_eq!(detector.push(&code), None);
    }

    #[test]
    fn short_repeats_and_blank_lines_are_not_a_loop() {
        let mut detector = LoopDetector::new();
        // A few identical lines (a table of zeros), blank lines, a closing brace run.
        let text = "0, 0, 0, 0,\n".repeat(10) + &"\n".repeat(300) + &"}\n".repeat(12);
        assert_eq!(detector.push(&text), None);
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
            Some(Err(ProviderError::Repetition(_)))
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
