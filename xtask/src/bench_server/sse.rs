//! One SSE subscriber: connects to a session's event stream, splits the byte stream into
//! messages, and logs each event's seq, its `ts` and when it arrived.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::header::ACCEPT;
use tokio::sync::{mpsc, watch};

/// One message of an SSE stream (comments and keep-alives produce none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The `id:` field.
    pub id: Option<String>,
    /// The `event:` field.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Splits a byte stream into SSE messages (`\n`-terminated lines, blank line between messages,
/// as axum writes them).
#[derive(Debug, Default)]
pub struct Parser {
    buffer: Vec<u8>,
}

impl Parser {
    /// Adds `bytes` and returns the messages they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Message> {
        self.buffer.extend_from_slice(bytes);
        let mut messages = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buffer[start..]
            .windows(2)
            .position(|w| w == b"\n\n")
            .map(|i| start + i)
        {
            if let Some(message) = parse_block(&String::from_utf8_lossy(&self.buffer[start..end])) {
                messages.push(message);
            }
            start = end + 2;
        }
        self.buffer.drain(..start);
        messages
    }
}

/// One message from the lines of one block; `None` for a block of comments only.
fn parse_block(block: &str) -> Option<Message> {
    let mut message = Message {
        id: None,
        event: None,
        data: String::new(),
    };
    let mut has_data = false;
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => message.id = Some(value.to_owned()),
            "event" => message.event = Some(value.to_owned()),
            "data" => {
                if has_data {
                    message.data.push('\n');
                }
                message.data.push_str(value);
                has_data = true;
            }
            _ => {}
        }
    }
    (has_data || message.id.is_some() || message.event.is_some()).then_some(message)
}

/// The envelope's `ts` (the first `"ts"` key of the event JSON), in microseconds since the
/// Unix epoch.
pub fn ts_micros(data: &str) -> Option<i64> {
    const KEY: &str = "\"ts\":\"";
    let start = data.find(KEY)? + KEY.len();
    let end = start + data[start..].find('"')?;
    rfc3339_micros(&data[start..end])
}

/// An RFC 3339 time in microseconds since the Unix epoch.
pub fn rfc3339_micros(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp_micros())
}

/// Now, in microseconds since the Unix epoch (the clock event `ts` values use).
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// One event as a subscriber received it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// The event's seq (its SSE `id`).
    pub seq: u64,
    /// When the chunk holding it arrived, µs since the epoch.
    pub received_us: i64,
    /// The event's `ts`, µs since the epoch.
    pub ts_us: Option<i64>,
}

/// What one subscriber saw.
#[derive(Debug, Default)]
pub struct Log {
    /// Every event received, in order.
    pub receipts: Vec<Receipt>,
    /// Control messages (`lagged`, `reload`), unparsable ids, and how the stream ended early.
    pub notices: Vec<String>,
}

/// How far the subscribers should read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The run is going on: read everything.
    Running,
    /// The run is over and its last seq is this: stop once it has arrived.
    Until(u64),
    /// Give up now.
    Stop,
}

/// Where and how to subscribe.
#[derive(Debug, Clone)]
pub struct Target {
    /// HTTP client (connection pool shared by all subscribers).
    pub client: reqwest::Client,
    /// The stream's URL, with `?after=` as wanted.
    pub url: String,
    /// Bearer token.
    pub token: String,
}

/// Subscribes to `target`, reports on `connected` once the response headers arrived (or why
/// it failed), then logs events until `phase` says stop.
pub async fn subscribe(
    target: Target,
    connected: mpsc::UnboundedSender<Result<(), String>>,
    mut phase: watch::Receiver<Phase>,
) -> Log {
    let mut log = Log::default();
    let response = target
        .client
        .get(&target.url)
        .bearer_auth(&target.token)
        .header(ACCEPT, "text/event-stream")
        .send()
        .await;
    let mut response = match response {
        Ok(response) if response.status().is_success() => response,
        Ok(response) => {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            let _ = connected.send(Err(format!("HTTP {status}: {body}")));
            return log;
        }
        Err(e) => {
            let _ = connected.send(Err(format!("cannot connect: {e}")));
            return log;
        }
    };
    // The receiver only goes away when the benchmark stopped waiting.
    let _ = connected.send(Ok(()));
    let mut parser = Parser::default();
    let mut last_seq = 0u64;
    loop {
        let done = match *phase.borrow_and_update() {
            Phase::Running => false,
            Phase::Until(last) => last_seq >= last,
            Phase::Stop => true,
        };
        if done {
            break;
        }
        tokio::select! {
            chunk = response.chunk() => match chunk {
                Ok(Some(bytes)) => {
                    let received_us = now_micros();
                    for message in parser.push(&bytes) {
                        record(&mut log, &message, received_us, &mut last_seq);
                    }
                }
                Ok(None) => {
                    log.notices.push("the server closed the stream".to_owned());
                    break;
                }
                Err(e) => {
                    log.notices.push(format!("stream error: {e}"));
                    break;
                }
            },
            changed = phase.changed() => {
                if changed.is_err() {
                    break;
                }
            }
        }
    }
    log
}

/// Logs one message: an event's receipt, or a notice for anything else.
fn record(log: &mut Log, message: &Message, received_us: i64, last_seq: &mut u64) {
    if let Some(kind @ ("lagged" | "reload")) = message.event.as_deref() {
        log.notices.push(format!("{kind}: {}", message.data));
        return;
    }
    match message.id.as_deref().map(str::parse::<u64>) {
        Some(Ok(seq)) => {
            *last_seq = (*last_seq).max(seq);
            log.receipts.push(Receipt {
                seq,
                received_us,
                ts_us: ts_micros(&message.data),
            });
        }
        Some(Err(_)) | None => log.notices.push(format!(
            "message without a numeric id: event {:?}",
            message.event
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_split_across_chunks_are_joined() {
        let mut parser = Parser::default();
        assert!(parser.push(b"id: 7\nevent: run.llm.delta\nda").is_empty());
        let messages = parser.push(b"ta: {\"seq\":7}\n\n: keep-alive\n\nid: 8\n");
        assert_eq!(
            messages,
            vec![Message {
                id: Some("7".into()),
                event: Some("run.llm.delta".into()),
                data: "{\"seq\":7}".into(),
            }]
        );
        let messages = parser.push(b"data: x\ndata: y\n\n");
        assert_eq!(messages[0].id.as_deref(), Some("8"));
        assert_eq!(messages[0].data, "x\ny");
    }

    #[test]
    fn the_envelope_ts_is_read_in_microseconds() {
        let data = r#"{"id":"x","seq":1,"ts":"2026-01-02T03:04:05.678Z","type":"agent.start"}"#;
        let expected = chrono::DateTime::parse_from_rfc3339("2026-01-02T03:04:05.678Z")
            .unwrap()
            .timestamp_micros();
        assert_eq!(ts_micros(data), Some(expected));
        assert_eq!(ts_micros(r#"{"ts":"yesterday"}"#), None);
        assert_eq!(ts_micros("{}"), None);
    }

    #[test]
    fn control_messages_are_notices_not_receipts() {
        let mut log = Log::default();
        let mut last = 0;
        let lagged = Message {
            id: None,
            event: Some("lagged".into()),
            data: r#"{"after_seq":3}"#.into(),
        };
        record(&mut log, &lagged, 10, &mut last);
        let event = Message {
            id: Some("4".into()),
            event: Some("agent.end".into()),
            data: r#"{"ts":"2026-01-02T03:04:05.000Z"}"#.into(),
        };
        record(&mut log, &event, 20, &mut last);
        assert_eq!(log.notices, vec![r#"lagged: {"after_seq":3}"#.to_owned()]);
        assert_eq!(log.receipts.len(), 1);
        assert_eq!(log.receipts[0].seq, 4);
        assert_eq!(last, 4);
    }
}
