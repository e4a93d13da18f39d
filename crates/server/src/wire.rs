//! A session stream in a client's [`WireFormat`]: the shared frames are encoded once in Keel's
//! own format, so a client that asked for `v1` or `paths` gets each frame re-encoded for it,
//! and the events its format has no name for are left out (control messages pass unchanged).

use std::sync::Arc;

use futures::{Stream, StreamExt};
use keel_events::parse_line;
use keel_events::projection::WireFormat;

use crate::frame::{Frame, FrameBatch};
use crate::stream::StreamItem;

/// `stream` as `format` sends it.
pub fn in_format(
    stream: impl Stream<Item = StreamItem> + Send + 'static,
    format: WireFormat,
) -> impl Stream<Item = StreamItem> + Send + 'static {
    stream.filter_map(move |item| std::future::ready(reencode(item, format)))
}

fn reencode(item: StreamItem, format: WireFormat) -> Option<StreamItem> {
    if format == WireFormat::Keel {
        return Some(item);
    }
    match item {
        StreamItem::Event(frame) => reframe(&frame, format).map(StreamItem::Event),
        StreamItem::Batch(batch) => {
            let frames: Vec<Arc<Frame>> = batch
                .frames
                .iter()
                .filter_map(|frame| reframe(frame, format))
                .collect();
            (!frames.is_empty()).then(|| StreamItem::Batch(Arc::new(FrameBatch::new(frames))))
        }
        control => Some(control),
    }
}

/// The frame re-encoded in `format`, or `None` when the format leaves its event out.
fn reframe(frame: &Frame, format: WireFormat) -> Option<Arc<Frame>> {
    if frame.display_only {
        return None;
    }
    // The frame's JSON was written from an event, so it reads back as one.
    let event = parse_line(0, &frame.json).ok()?;
    let encoded = format.encode(&event)?;
    Some(Arc::new(Frame::encoded(frame.seq, &encoded)))
}
