//! Output handling: a capped capture keeping the head and tail, and a splitter that turns
//! pipe reads into line-ish chunks for streaming.

use std::collections::VecDeque;

/// Keeps the first and last bytes of a stream up to a cap, counting what was cut.
#[derive(Debug)]
pub(crate) struct Capture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl Capture {
    /// A capture keeping at most `cap` bytes (half from the start, half from the end).
    pub(crate) fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        Self {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(bytes);
        }
    }

    /// Bytes seen in all.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Bytes dropped from the middle.
    pub(crate) fn cut(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// The kept text, with a marker where bytes were cut.
    pub(crate) fn text(&self) -> String {
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        let cut = self.cut();
        if cut > 0 {
            out.push_str(&format!(
                "\n[… {cut} bytes of output cut; the first {} and last {} bytes are kept …]\n",
                self.head.len(),
                self.tail.len()
            ));
        }
        let (a, b) = self.tail.as_slices();
        let mut tail = Vec::with_capacity(a.len() + b.len());
        tail.extend_from_slice(a);
        tail.extend_from_slice(b);
        out.push_str(&String::from_utf8_lossy(&tail));
        out
    }
}

/// Largest chunk held back waiting for a newline.
const MAX_PENDING: usize = 4096;

/// Splits a byte stream into chunks ending at a newline (or at [`MAX_PENDING`] bytes), never
/// inside a UTF-8 character.
#[derive(Debug, Default)]
pub(crate) struct Chunker {
    pending: Vec<u8>,
}

impl Chunker {
    /// Adds bytes; returns a chunk when one is complete.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Option<String> {
        self.pending.extend_from_slice(bytes);
        let end = match self.pending.iter().rposition(|b| *b == b'\n') {
            Some(pos) => pos + 1,
            None if self.pending.len() >= MAX_PENDING => match std::str::from_utf8(&self.pending) {
                Ok(_) => self.pending.len(),
                Err(e) if e.error_len().is_none() => e.valid_up_to().max(1),
                Err(_) => self.pending.len(),
            },
            None => return None,
        };
        let rest = self.pending.split_off(end);
        let chunk = std::mem::replace(&mut self.pending, rest);
        Some(String::from_utf8_lossy(&chunk).into_owned())
    }

    /// Whatever is left at the end of the stream.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.pending.is_empty() {
            return None;
        }
        let chunk = std::mem::take(&mut self.pending);
        Some(String::from_utf8_lossy(&chunk).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_kept_whole() {
        let mut c = Capture::new(100);
        c.push(b"hello ");
        c.push(b"world");
        assert_eq!(c.text(), "hello world");
        assert_eq!(c.cut(), 0);
        assert_eq!(c.total(), 11);
    }

    #[test]
    fn large_output_keeps_head_and_tail() {
        let mut c = Capture::new(10);
        for i in 0..100u8 {
            c.push(&[b'a' + (i % 26)]);
        }
        assert_eq!(c.total(), 100);
        assert_eq!(c.cut(), 90);
        let text = c.text();
        assert!(
            text.starts_with("abcde\n[… 90 bytes of output cut"),
            "{text}"
        );
        assert!(text.ends_with("…]\nrstuv"), "{text}");
    }

    #[test]
    fn one_big_push_is_capped() {
        let mut c = Capture::new(8);
        c.push(&[b'x'; 1000]);
        assert_eq!(c.cut(), 992);
        c.push(b"END");
        assert!(c.text().ends_with("xEND"));
    }

    #[test]
    fn chunks_end_at_newlines() {
        let mut ch = Chunker::default();
        assert_eq!(ch.push(b"par"), None);
        assert_eq!(ch.push(b"tial\nnext"), Some("partial\n".into()));
        assert_eq!(ch.push(b" line\nmore\nx"), Some("next line\nmore\n".into()));
        assert_eq!(ch.finish(), Some("x".into()));
        assert_eq!(ch.finish(), None);
    }

    #[test]
    fn long_lines_are_split_on_char_boundaries() {
        let mut ch = Chunker::default();
        let e = "é".as_bytes();
        let mut bytes = vec![b'a'; MAX_PENDING - 1];
        bytes.push(e[0]);
        let chunk = ch.push(&bytes).unwrap();
        assert_eq!(chunk.len(), MAX_PENDING - 1);
        assert_eq!(ch.push(&e[1..]), None);
        assert_eq!(ch.finish(), Some("é".into()));
    }
}
