//! Seed 003 §8: reading the old agent's plain-text log lines as timeline payloads.
//!
//! | line | payload |
//! |---|---|
//! | `[SelfRepairLoop] Attempt 1/3: <text>` | `self_repair`: `attemptNumber` 1, `maxAttempts` 3, result `pending`; `<text>` split at its first `": "` into `trigger` and `errorMessage` (no `": "`: all of it is the `trigger`; empty: trigger `SelfRepairLoop`) |
//! | `[move] a → b`, `[move] a -> b`, `[rename] a to b` (either tag, any of the three separators) | `file_update` op `move`: `path` = `toPath` = `b`, `fromPath` = `a`, `summary` = the line |
//! | anything else | `log` level `info`, `message` = the line as given, `metadata` `{"raw": true}` |
//!
//! Tags are matched case-sensitively after leading whitespace; paths are trimmed. A line that
//! looks like a tag but does not parse (`Attempt x/3`, numbers beyond `u32`, a move without a
//! separator) falls back to `log`. The parser never panics.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::timeline_event::{FileUpdatePayload, LogPayload, SelfRepairPayload, TimelinePayload};
use crate::payload::{FileOp, LogLevel, RepairResult};

static SELF_REPAIR: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\s*\[SelfRepairLoop\]\s*Attempt\s+(\d+)\s*/\s*(\d+)\s*:?\s*(.*?)\s*$").ok()
});

static MOVE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\s*\[(?:move|rename)\]\s*(\S.*?)\s+(?:→|->|to)\s+(\S.*?)\s*$").ok()
});

/// Reads one legacy log line as a timeline payload (see the module docs for the rules).
pub fn parse_log_line(line: &str) -> TimelinePayload {
    self_repair(line)
        .or_else(|| file_move(line))
        .unwrap_or_else(|| raw_log(line))
}

fn self_repair(line: &str) -> Option<TimelinePayload> {
    let caps = SELF_REPAIR.as_ref()?.captures(line)?;
    let attempt_number: u32 = caps.get(1)?.as_str().parse().ok()?;
    let max_attempts: u32 = caps.get(2)?.as_str().parse().ok()?;
    let text = caps.get(3).map_or("", |m| m.as_str());
    let (trigger, error_message) = match text.split_once(": ") {
        Some((trigger, message)) if !trigger.trim().is_empty() => {
            (trigger.trim().to_owned(), Some(message.trim().to_owned()))
        }
        _ if text.is_empty() => ("SelfRepairLoop".to_owned(), None),
        _ => (text.to_owned(), None),
    };
    Some(TimelinePayload::SelfRepair(SelfRepairPayload {
        attempt_number,
        max_attempts,
        trigger,
        error_type: None,
        error_message,
        suggestion: None,
        result: RepairResult::Pending,
    }))
}

fn file_move(line: &str) -> Option<TimelinePayload> {
    let caps = MOVE.as_ref()?.captures(line)?;
    let from = caps.get(1)?.as_str().to_owned();
    let to = caps.get(2)?.as_str().to_owned();
    Some(TimelinePayload::FileUpdate(FileUpdatePayload {
        path: to.clone(),
        op: FileOp::Move,
        summary: Some(line.trim().to_owned()),
        from_path: Some(from),
        to_path: Some(to),
        file_size: None,
        mime_type: None,
    }))
}

fn raw_log(line: &str) -> TimelinePayload {
    let mut metadata = Map::new();
    metadata.insert("raw".into(), Value::Bool(true));
    TimelinePayload::Log(LogPayload {
        level: LogLevel::Info,
        message: line.to_owned(),
        metadata: Some(metadata),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn payload_json(line: &str) -> Value {
        serde_json::to_value(parse_log_line(line)).unwrap()
    }

    #[test]
    fn self_repair_line() {
        assert_eq!(
            payload_json("[SelfRepairLoop] Attempt 1/3: Build failed: Cannot find module './x'"),
            json!({"type": "self_repair", "payload": {
                "attemptNumber": 1, "maxAttempts": 3, "trigger": "Build failed",
                "errorMessage": "Cannot find module './x'", "result": "pending"
            }})
        );
        assert_eq!(
            payload_json("[SelfRepairLoop] Attempt 2/3: retrying"),
            json!({"type": "self_repair", "payload": {
                "attemptNumber": 2, "maxAttempts": 3, "trigger": "retrying", "result": "pending"
            }})
        );
        assert_eq!(
            payload_json("  [SelfRepairLoop] Attempt 3/3"),
            json!({"type": "self_repair", "payload": {
                "attemptNumber": 3, "maxAttempts": 3, "trigger": "SelfRepairLoop",
                "result": "pending"
            }})
        );
    }

    #[test]
    fn move_and_rename_lines() {
        let expected = |line: &str| {
            json!({"type": "file_update", "payload": {
                "path": "src/new.ts", "op": "move", "fromPath": "src/old.ts",
                "toPath": "src/new.ts", "summary": line
            }})
        };
        for line in [
            "[move] src/old.ts → src/new.ts",
            "[move] src/old.ts -> src/new.ts",
            "[rename] src/old.ts to src/new.ts",
        ] {
            assert_eq!(payload_json(line), expected(line), "{line}");
        }
    }

    #[test]
    fn everything_else_is_a_raw_log() {
        for line in [
            "",
            "plain text",
            "[SelfRepairLoop] Attempt x/3: nope",
            "[SelfRepairLoop] Attempt 99999999999/3: overflow",
            "[move] only-one-path",
            "[copy] a → b",
        ] {
            assert_eq!(
                payload_json(line),
                json!({"type": "log", "payload": {
                    "level": "info", "message": line, "metadata": {"raw": true}
                }}),
                "{line:?}"
            );
        }
    }
}
