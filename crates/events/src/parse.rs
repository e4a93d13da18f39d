//! Reading events back: one line, or a whole JSONL stream, with errors that name line and field.

use std::io::BufRead;

use crate::catalogue::PayloadError;
use crate::envelope::{Event, RawEvent};

/// Why a line of a JSONL event stream could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The line is not JSON, or the envelope is missing or mistyped a field.
    #[error("line {line}: malformed event envelope at `{path}`: {message}")]
    Envelope {
        /// 1-based line number.
        line: usize,
        /// Path of the offending envelope field (`.` when the line itself is not JSON).
        path: String,
        /// What the JSON reader reported.
        message: String,
    },
    /// The `type` string is not in the catalogue.
    #[error("line {line}: unknown event type `{event_type}`")]
    UnknownType {
        /// 1-based line number.
        line: usize,
        /// The type string found.
        event_type: String,
    },
    /// The payload does not fit its type.
    #[error("line {line}: invalid `{event_type}` payload at `payload.{path}`: {message}")]
    Payload {
        /// 1-based line number.
        line: usize,
        /// The event type.
        event_type: &'static str,
        /// Path of the offending field inside the payload.
        path: String,
        /// What the JSON reader reported.
        message: String,
    },
    /// The stream could not be read.
    #[error("line {line}: read error: {source}")]
    Io {
        /// 1-based line number.
        line: usize,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl ParseError {
    /// The 1-based line the error is on.
    pub fn line(&self) -> usize {
        match self {
            Self::Envelope { line, .. }
            | Self::UnknownType { line, .. }
            | Self::Payload { line, .. }
            | Self::Io { line, .. } => *line,
        }
    }
}

/// Parses one JSONL line (`line_no` is 1-based and only used in errors).
pub fn parse_line(line_no: usize, line: &str) -> Result<Event, ParseError> {
    let de = &mut serde_json::Deserializer::from_str(line);
    let raw: RawEvent = serde_path_to_error::deserialize(de).map_err(|e| ParseError::Envelope {
        line: line_no,
        path: e.path().to_string(),
        message: e.into_inner().to_string(),
    })?;
    raw.into_event().map_err(|e| match e {
        PayloadError::UnknownType(event_type) => ParseError::UnknownType {
            line: line_no,
            event_type,
        },
        PayloadError::Invalid {
            event_type,
            path,
            message,
        } => ParseError::Payload {
            line: line_no,
            event_type,
            path,
            message,
        },
    })
}

/// Reads a JSONL stream: one result per non-blank line, in order. A bad line does not stop the
/// lines after it.
pub fn read_jsonl<R: BufRead>(reader: R) -> impl Iterator<Item = Result<Event, ParseError>> {
    reader.lines().enumerate().filter_map(|(i, line)| {
        let line_no = i + 1;
        match line {
            Err(source) => Some(Err(ParseError::Io {
                line: line_no,
                source,
            })),
            Ok(text) if text.trim().is_empty() => None,
            Ok(text) => Some(parse_line(line_no, &text)),
        }
    })
}
