//! What a `keel run --json` event stream says about its run: the answer, how it ended, and the
//! tool calls it made. Events are read as JSON, so any version of the stream is read.

use std::path::Path;

use serde_json::Value;

use crate::proxy::excerpt;

/// What one run's events say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeelRun {
    /// The last `agent.end`'s status (`completed`, `failed`, …), if there was one.
    pub status: Option<String>,
    /// The last `agent.end`'s `result`: the agent's answer.
    pub answer: Option<String>,
    /// `run.tool.start` events.
    pub tool_calls: u64,
    /// `run.tool.end` events whose status is not `success`.
    pub tool_errors: u64,
    /// Lines that were not JSON events (a crash's last words, say).
    pub unreadable_lines: u64,
}

impl KeelRun {
    /// Reads the events of `path`; a missing or unreadable file reads as no events.
    pub fn read(path: &Path) -> Self {
        std::fs::read_to_string(path)
            .map(|text| Self::parse(&text))
            .unwrap_or_default()
    }

    /// Reads events from JSON lines.
    pub fn parse(text: &str) -> Self {
        let mut run = Self::default();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let Ok(event) = serde_json::from_str::<Value>(line) else {
                run.unreadable_lines += 1;
                continue;
            };
            let payload = &event["payload"];
            match event["type"].as_str() {
                Some("run.tool.start") => run.tool_calls += 1,
                Some("run.tool.end") if payload["status"].as_str() != Some("success") => {
                    run.tool_errors += 1;
                }
                Some("agent.end") => {
                    run.status = payload["status"].as_str().map(str::to_owned);
                    run.answer = payload["result"].as_str().map(str::to_owned);
                }
                _ => {}
            }
        }
        run
    }

    /// `STATUS: the first 200 characters of the answer`, when the run ended with `agent.end`.
    pub fn ended(&self) -> Option<String> {
        let status = self.status.as_deref()?;
        let answer = self.answer.as_deref().unwrap_or("").trim();
        Some(if answer.is_empty() {
            status.to_owned()
        } else {
            format!("{status}: {}", excerpt(answer, 200))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_agent_end_is_the_answer_and_failed_tools_are_counted() {
        let text = [
            r#"{"type":"agent.start","payload":{}}"#,
            r#"{"type":"run.tool.start","payload":{"tool_name":"read_file"}}"#,
            r#"{"type":"run.tool.end","payload":{"status":"success"}}"#,
            r#"{"type":"run.tool.start","payload":{"tool_name":"execute_command"}}"#,
            r#"{"type":"run.tool.end","payload":{"status":"error"}}"#,
            r#"{"type":"run.tool.start","payload":{"tool_name":"write_file"}}"#,
            r#"{"type":"run.tool.end","payload":{"status":"denied"}}"#,
            r#"{"type":"agent.end","payload":{"status":"failed","result":"first"}}"#,
            "thread 'main' panicked",
            r#"{"type":"agent.end","payload":{"status":"completed","result":"Fixed it."}}"#,
        ]
        .join("\n");
        let run = KeelRun::parse(&text);
        assert_eq!(run.tool_calls, 3);
        assert_eq!(run.tool_errors, 2);
        assert_eq!(run.unreadable_lines, 1);
        assert_eq!(run.answer.as_deref(), Some("Fixed it."));
        assert_eq!(run.ended().as_deref(), Some("completed: Fixed it."));
    }

    #[test]
    fn no_agent_end_means_no_ending() {
        assert_eq!(KeelRun::parse("").ended(), None);
        let long = format!(
            r#"{{"type":"agent.end","payload":{{"status":"completed","result":"{}"}}}}"#,
            "x".repeat(300)
        );
        let ended = KeelRun::parse(&long).ended().unwrap_or_default();
        assert_eq!(ended.chars().count(), "completed: ".len() + 201);
    }
}
