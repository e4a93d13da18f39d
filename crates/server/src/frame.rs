//! An event encoded once for every client: its JSON (WebSocket text frame) and its SSE
//! message (`id`, `event`, `data`), shared by reference among a session's subscribers.

use std::sync::Arc;

use axum::body::Bytes;
use keel_events::Event;

/// One event, encoded for the wire.
#[derive(Debug)]
pub struct Frame {
    /// The event's seq.
    pub seq: u64,
    /// Display-only events are never sent to stream clients.
    pub display_only: bool,
    /// The event's JSON.
    pub json: Arc<str>,
    /// `id: SEQ\nevent: TYPE\ndata: JSON\n\n`.
    pub sse: Bytes,
}

impl Frame {
    /// Encodes `event`.
    pub fn new(event: &Event) -> Self {
        let json = event.to_json();
        let sse = format!(
            "id: {}\nevent: {}\ndata: {}\n\n",
            event.seq,
            event.type_name(),
            json
        );
        Self {
            seq: event.seq,
            display_only: event.kind.is_display_only(),
            json: Arc::from(json),
            sse: Bytes::from(sse),
        }
    }
}

/// An SSE message with no id (`reload`, `lagged`, `error`).
pub fn sse_control(event: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

/// The SSE keep-alive comment.
pub const SSE_KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

#[cfg(test)]
mod tests {
    use super::*;
    use keel_events::{Bus, Emitter, Sequencer, SystemStatus};

    #[test]
    fn sse_messages_carry_seq_type_and_one_line_of_json() {
        let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
        let event = emitter.emit(SystemStatus {
            message: "two\nlines".to_owned(),
        });
        let frame = Frame::new(&event);
        let text = std::str::from_utf8(&frame.sse).unwrap();
        assert!(text.starts_with("id: 1\nevent: system.status\ndata: {"));
        assert!(text.ends_with("}\n\n"));
        assert_eq!(text.matches('\n').count(), 4, "{text}");
        assert_eq!(&*frame.json, event.to_json());
        assert!(!frame.display_only);
    }
}
