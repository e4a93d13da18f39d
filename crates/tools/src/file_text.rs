//! Reading files as text: binary detection, lossy decoding, and a line model that keeps a
//! file's line endings and final-newline state.

/// How many leading bytes are inspected for a NUL byte (the same heuristic as git and ripgrep).
const BINARY_SNIFF_BYTES: usize = 8192;

/// A file's bytes seen as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileText {
    /// Text; `lossy` when the bytes were not valid UTF-8 and invalid sequences became `�`.
    Text {
        /// The decoded text (a UTF-8 byte-order mark removed).
        text: String,
        /// Whether invalid UTF-8 was replaced.
        lossy: bool,
    },
    /// Binary content (a NUL byte near the start).
    Binary,
}

/// Whether `bytes` look binary: a NUL byte within the first 8 KiB.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// Decodes a file's bytes.
pub fn decode(bytes: Vec<u8>) -> FileText {
    if looks_binary(&bytes) {
        return FileText::Binary;
    }
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => FileText::Text { text, lossy: false },
        Err(e) => FileText::Text {
            text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            lossy: true,
        },
    }
}

/// A text as lines without terminators, plus what is needed to write it back the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lines {
    /// The lines, without `\n` or `\r\n`.
    pub lines: Vec<String>,
    /// Whether the text used CRLF line endings.
    pub crlf: bool,
    /// Whether the text ended with a line ending.
    pub final_newline: bool,
}

impl Lines {
    /// Splits `text`. Line endings are CRLF when most lines end with `\r\n`.
    pub fn parse(text: &str) -> Self {
        if text.is_empty() {
            return Self {
                lines: Vec::new(),
                crlf: false,
                final_newline: false,
            };
        }
        let newlines = text.matches('\n').count();
        let crlfs = text.matches("\r\n").count();
        let crlf = crlfs > 0 && crlfs * 2 >= newlines;
        let final_newline = text.ends_with('\n');
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines = body
            .split('\n')
            .map(|line| {
                if crlf {
                    line.strip_suffix('\r').unwrap_or(line).to_owned()
                } else {
                    line.to_owned()
                }
            })
            .collect();
        Self {
            lines,
            crlf,
            final_newline,
        }
    }

    /// The text again, with the original line endings and final-newline state.
    pub fn render(&self) -> String {
        let eol = if self.crlf { "\r\n" } else { "\n" };
        let mut out = self.lines.join(eol);
        if self.final_newline && !self.lines.is_empty() {
            out.push_str(eol);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for text in ["", "a", "a\n", "a\r\nb\r\n", "a\r\nb", "a\n\nb\n", "\n"] {
            assert_eq!(Lines::parse(text).render(), text, "{text:?}");
        }
    }

    #[test]
    fn decodes() {
        assert_eq!(decode(b"a\0b".to_vec()), FileText::Binary);
        assert_eq!(
            decode(b"\xEF\xBB\xBFhi".to_vec()),
            FileText::Text {
                text: "hi".into(),
                lossy: false
            }
        );
        assert!(matches!(
            decode(b"caf\xe9".to_vec()),
            FileText::Text { lossy: true, .. }
        ));
    }
}
