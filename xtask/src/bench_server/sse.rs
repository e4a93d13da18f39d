//! One SSE subscriber: connects to a session's event stream, splits the byte stream into
//! messages, and logs each event's seq, its `ts` and when it arrived.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::header::ACCEPT;
use tokio::sync::{mpsc, watch};

/// One message of an SSE stream (comments and keep-alives produce none), borrowed from the
/// parser's buffer: the hot path of the benchmark's clients copies nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    /// The `id:` field.
    pub id: Option<&'a [u8]>,
    /// The `event:` field.
    pub event: Option<&'a [u8]>,
    /// The first `data:` line (axum writes one per message).
    pub data: Option<&'a [u8]>,
}

/// Splits a byte stream into SSE messages (`\n`-terminated lines, blank line between messages,
/// as axum writes them).
#[derive(Debug, Default)]
pub struct Parser {
    buffer: Vec<u8>,
}

impl Parser {
    /// Adds `bytes` and calls `each` with every message they complete.
    pub fn push(&mut self, bytes: &[u8], mut each: impl FnMut(Message<'_>)) {
        self.buffer.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(end) = memchr::memmem::find(&self.buffer[start..], b"\n\n") {
            if let Some(message) = parse_block(&self.buffer[start..start + end]) {
                each(message);
            }
            start += end + 2;
        }
        self.buffer.drain(..start);
    }
}

/// One message from the lines of one block; `None` for a block of comments only.
fn parse_block(block: &[u8]) -> Option<Message<'_>> {
    let mut message = Message {
        id: None,
        event: None,
        data: None,
    };
    for line in block.split(|&b| b == b'\n') {
        let colon = memchr::memchr(b':', line).unwrap_or(line.len());
        let (field, value) = line.split_at(colon);
        let value = value.get(1..).unwrap_or_default();
        let value = value.strip_prefix(b" ").unwrap_or(value);
        match field {
            b"id" => message.id = Some(value),
            b"event" => message.event = Some(value),
            b"data" if message.data.is_none() => message.data = Some(value),
            _ => {}
        }
    }
    (message.id.is_some() || message.event.is_some() || message.data.is_some()).then_some(message)
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

/// One event as a subscriber received it (its `ts` is looked up afterwards, from the stored
/// events, so the clients need not parse it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// The event's seq (its SSE `id`).
    pub seq: u64,
    /// When the chunk holding it arrived, µs since the epoch.
    pub received_us: i64,
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
                    parser.push(&bytes, |message| {
                        record(&mut log, message, received_us, &mut last_seq);
                    });
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
fn record(log: &mut Log, message: Message<'_>, received_us: i64, last_seq: &mut u64) {
    let text =
        |bytes: Option<&[u8]>| String::from_utf8_lossy(bytes.unwrap_or_default()).into_owned();
    if let Some(kind @ (b"lagged" | b"reload")) = message.event {
        log.notices.push(format!(
            "{}: {}",
            String::from_utf8_lossy(kind),
            text(message.data)
        ));
        return;
    }
    let seq = message
        .id
        .and_then(|id| std::str::from_utf8(id).ok())
        .and_then(|id| id.parse::<u64>().ok());
    match seq {
        Some(seq) => {
            *last_seq = (*last_seq).max(seq);
            log.receipts.push(Receipt { seq, received_us });
        }
        None => log.notices.push(format!(
            "message without a numeric id: event {:?}",
            text(message.event)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Fields = (Option<String>, Option<String>, Option<String>);

    fn collect(parser: &mut Parser, bytes: &[u8]) -> Vec<Fields> {
        let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
        let mut out = Vec::new();
        parser.push(bytes, |m| {
            out.push((text(m.id), text(m.event), text(m.data)))
        });
        out
    }

    #[test]
    fn messages_split_across_chunks_are_joined() {
        let mut parser = Parser::default();
        assert!(collect(&mut parser, b"id: 7\nevent: run.llm.delta\nda").is_empty());
        let messages = collect(&mut parser, b"ta: {\"seq\":7}\n\n: keep-alive\n\nid: 8\n");
        assert_eq!(
            messages,
            vec![(
                Some("7".into()),
                Some("run.llm.delta".into()),
                Some("{\"seq\":7}".into())
            )]
        );
        let messages = collect(&mut parser, b"data: x\n\n");
        assert_eq!(messages, vec![(Some("8".into()), None, Some("x".into()))]);
    }

    #[test]
    fn control_messages_are_notices_not_receipts() {
        let mut log = Log::default();
        let mut last = 0;
        let lagged = Message {
            id: None,
            event: Some(b"lagged"),
            data: Some(br#"{"after_seq":3}"#),
        };
        record(&mut log, lagged, 10, &mut last);
        let event = Message {
            id: Some(b"4"),
            event: Some(b"agent.end"),
            data: Some(br#"{"ts":"2026-01-02T03:04:05.000Z"}"#),
        };
        record(&mut log, event, 20, &mut last);
        assert_eq!(log.notices, vec![r#"lagged: {"after_seq":3}"#.to_owned()]);
        assert_eq!(
            log.receipts,
            vec![Receipt {
                seq: 4,
                received_us: 20
            }]
        );
        assert_eq!(last, 4);
    }
}
