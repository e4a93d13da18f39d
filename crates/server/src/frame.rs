//! An event encoded once for every client: its JSON (WebSocket text frame) and its SSE
//! message (`id`, `event`, `data`), shared by reference among a session's subscribers; and
//! [`FrameBatch`]es, the events stored together, broadcast as one item with their SSE messages
//! already joined, so a client is woken and written to once per batch rather than per event.

use std::sync::Arc;

use axum::body::Bytes;
use keel_events::Event;
use keel_events::projection::WireEvent;

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

impl Frame {
    /// A frame of an event already encoded in a [`WireFormat`](keel_events::projection::WireFormat).
    pub fn encoded(seq: u64, event: &WireEvent) -> Self {
        let sse = format!("id: {seq}\nevent: {}\ndata: {}\n\n", event.name, event.json);
        Self {
            seq,
            display_only: false,
            json: Arc::from(event.json.as_str()),
            sse: Bytes::from(sse),
        }
    }
}

/// Frames broadcast together, in seq order.
#[derive(Debug)]
pub struct FrameBatch {
    /// The frames.
    pub frames: Vec<Arc<Frame>>,
    /// The lowest seq (of the first frame).
    pub first_seq: u64,
    /// The highest seq (of the last frame).
    pub last_seq: u64,
    /// True when the seqs run `first_seq..=last_seq` without a gap.
    pub contiguous: bool,
    /// The SSE messages of the frames that are not display-only, joined.
    pub sse: Bytes,
}

impl FrameBatch {
    /// A batch of `frames` (in seq order; must not be empty for the seqs to mean anything).
    pub fn new(frames: Vec<Arc<Frame>>) -> Self {
        let first_seq = frames.first().map_or(0, |f| f.seq);
        let last_seq = frames.last().map_or(0, |f| f.seq);
        let contiguous = frames.windows(2).all(|w| w[1].seq == w[0].seq + 1);
        let sse = match frames.as_slice() {
            [one] if !one.display_only => one.sse.clone(),
            _ => {
                let mut out = Vec::with_capacity(frames.iter().map(|f| f.sse.len()).sum());
                for frame in frames.iter().filter(|f| !f.display_only) {
                    out.extend_from_slice(&frame.sse);
                }
                Bytes::from(out)
            }
        };
        Self {
            frames,
            first_seq,
            last_seq,
            contiguous,
            sse,
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
        let event = emitter.emit(SystemStatus::line("two\nlines"));
        let frame = Frame::new(&event);
        let text = std::str::from_utf8(&frame.sse).unwrap();
        assert!(text.starts_with("id: 1\nevent: system.status\ndata: {"));
        assert!(text.ends_with("}\n\n"));
        assert_eq!(text.matches('\n').count(), 4, "{text}");
        assert_eq!(&*frame.json, event.to_json());
        assert!(!frame.display_only);
    }

    #[test]
    fn batches_join_their_messages_and_know_whether_they_have_gaps() {
        let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
        let frames: Vec<Arc<Frame>> = (0..3)
            .map(|i| {
                Arc::new(Frame::new(
                    &emitter.emit(SystemStatus::line(format!("m{i}"))),
                ))
            })
            .collect();
        let batch = FrameBatch::new(frames.clone());
        assert_eq!((batch.first_seq, batch.last_seq), (1, 3));
        assert!(batch.contiguous);
        let joined: Vec<u8> = frames.iter().flat_map(|f| f.sse.to_vec()).collect();
        assert_eq!(batch.sse.as_ref(), joined.as_slice());
        let gappy = FrameBatch::new(vec![Arc::clone(&frames[0]), Arc::clone(&frames[2])]);
        assert!(!gappy.contiguous);
        let one = FrameBatch::new(vec![Arc::clone(&frames[1])]);
        assert_eq!(one.sse, frames[1].sse);
    }
}
