//! A legacy log file (seed 003 §8) read as catalogue events: each line becomes the event whose
//! Activity Timeline record is what [`parse_log_line`] reads the line as, so a store that keeps
//! the events shows the old log on the timeline.
//!
//! | line read as | event |
//! |---|---|
//! | `self_repair` | `run.repair.attempt` (same fields) |
//! | `file_update` op `move` | `run.file.change` op `move`, no lines counted |
//! | `log` (`metadata.raw = true`) | `system.log` |
//!
//! Lines end at `\n` (a `\r` before it is dropped). Blank lines are skipped. A line that is not
//! UTF-8 text, holds a NUL byte or is longer than [`MAX_LINE_BYTES`] is a [`BadLine`]: reported
//! with its 1-based number and skipped; every other line is kept.

use serde::Serialize;

use super::log_line::parse_log_line;
use super::timeline_event::TimelinePayload;
use crate::catalogue::EventKind;
use crate::payload::{LogLevel, RunFileChange, RunRepairAttempt, SystemLog};

/// Longest line read, in bytes.
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// A line that was not imported, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// Why it was skipped.
    pub error: String,
}

/// What a log file reads as.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogImport {
    /// The events of the good lines, with their 1-based line numbers, in file order.
    pub events: Vec<(usize, EventKind)>,
    /// The lines skipped as bad, in file order.
    pub bad_lines: Vec<BadLine>,
    /// How many blank lines were skipped.
    pub blank_lines: usize,
}

/// Reads a whole log file (see the module docs).
pub fn read_log(bytes: &[u8]) -> LogImport {
    let mut import = LogImport::default();
    if bytes.is_empty() {
        return import;
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    for (index, raw) in body.split(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        match check_line(raw) {
            Ok(line) if line.trim().is_empty() => import.blank_lines += 1,
            Ok(line) => import.events.push((number, line_event(line))),
            Err(error) => import.bad_lines.push(BadLine {
                line: number,
                error,
            }),
        }
    }
    import
}

fn check_line(raw: &[u8]) -> Result<&str, String> {
    if raw.len() > MAX_LINE_BYTES {
        return Err(format!(
            "longer than {MAX_LINE_BYTES} bytes ({} bytes)",
            raw.len()
        ));
    }
    let line = std::str::from_utf8(raw).map_err(|e| {
        format!(
            "not UTF-8 text (bad byte at column {})",
            e.valid_up_to() + 1
        )
    })?;
    if let Some(at) = line.find('\0') {
        return Err(format!("holds a NUL byte at column {}", at + 1));
    }
    Ok(line)
}

/// The catalogue event one log line stands for.
pub fn line_event(line: &str) -> EventKind {
    match parse_log_line(line) {
        TimelinePayload::SelfRepair(p) => RunRepairAttempt {
            step_id: None,
            attempt_number: p.attempt_number,
            max_attempts: p.max_attempts,
            trigger: p.trigger,
            error_type: p.error_type,
            error_message: p.error_message,
            suggestion: p.suggestion,
            result: p.result,
        }
        .into(),
        TimelinePayload::FileUpdate(p) => RunFileChange {
            path: p.path,
            op: p.op,
            from_path: p.from_path,
            to_path: p.to_path,
            summary: p.summary.unwrap_or_else(|| line.trim().to_owned()),
            lines_added: 0,
            lines_removed: 0,
            size: p.file_size,
            mime_type: p.mime_type,
            diff: None,
            staged: None,
        }
        .into(),
        TimelinePayload::Log(p) => SystemLog {
            level: p.level,
            message: p.message,
            metadata: p.metadata,
        }
        .into(),
        // The line parser reads no other kind; keep the line as given if it ever does.
        TimelinePayload::AgentPhase(_)
        | TimelinePayload::ToolCall(_)
        | TimelinePayload::Error(_) => SystemLog {
            level: LogLevel::Info,
            message: line.to_owned(),
            metadata: None,
        }
        .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::to_timeline;
    use crate::sequencer::Sequencer;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_line_becomes_the_event_the_timeline_reads_it_as() {
        let sequencer = Sequencer::new("s", "p");
        for line in [
            "[SelfRepairLoop] Attempt 2/3: Build failed: missing ;",
            "[move] src/a.ts → src/b.ts",
            "plain text",
        ] {
            let event = sequencer.stamp(None, line_event(line));
            let record = to_timeline(&event).unwrap();
            assert_eq!(record.payload, parse_log_line(line), "{line}");
        }
    }

    #[test]
    fn bad_lines_are_numbered_and_the_rest_kept() {
        let mut bytes = b"first\r\n\n[move] a -> b\n".to_vec();
        bytes.extend_from_slice(b"bad \xff byte\n");
        bytes.extend_from_slice(b"nul\0here\n");
        bytes.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES + 1]);
        bytes.extend_from_slice(b"\nlast without newline");
        let import = read_log(&bytes);
        let numbers: Vec<usize> = import.events.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 3, 7]);
        assert_eq!(import.blank_lines, 1);
        assert_eq!(
            import.bad_lines,
            [
                BadLine {
                    line: 4,
                    error: "not UTF-8 text (bad byte at column 5)".into()
                },
                BadLine {
                    line: 5,
                    error: "holds a NUL byte at column 4".into()
                },
                BadLine {
                    line: 6,
                    error: format!(
                        "longer than {MAX_LINE_BYTES} bytes ({} bytes)",
                        MAX_LINE_BYTES + 1
                    )
                },
            ]
        );
        assert_eq!(read_log(b""), LogImport::default());
    }

    proptest::proptest! {
        #[test]
        fn every_line_is_either_kept_skipped_or_reported(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let import = read_log(&bytes);
            let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            let lines = if bytes.is_empty() { 0 } else { body.split(|&b| b == b'\n').count() };
            proptest::prop_assert_eq!(import.events.len() + import.bad_lines.len() + import.blank_lines, lines);
        }
    }
}
