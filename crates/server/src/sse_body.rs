//! The body of an SSE response: the messages of a client's [`StreamItem`]s, with everything
//! ready at once written as one chunk, and a `: keep-alive` comment after each `keep_alive` of
//! silence.
//!
//! This is the hot path of a fan-out (one poll per client per broadcast batch), so it allocates
//! nothing for a lone message (the shared, pre-encoded bytes go out as they are) and touches the
//! timer only once per `keep_alive`, not once per message: the keep-alive deadline is checked
//! against the time of the last write when it fires.
//!
//! With a non-zero `coalesce` window, a write is followed by that long in which nothing more is
//! written: what arrives meanwhile goes out together when it ends. The first message after a
//! quiet spell still goes out at once; under a fast stream each client gets at most one write
//! per window, which bounds the per-write cost (a syscall and a loopback or network segment
//! per client) that otherwise grows with the event rate.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use futures::Stream;
use serde_json::json;
use tokio::time::{Instant, Sleep};

use crate::frame::{SSE_KEEP_ALIVE, sse_control};
use crate::stream::StreamItem;

/// Most messages written to a client in one chunk.
const MAX_MESSAGES: usize = 256;

/// The SSE message (or messages, for a batch) of one item.
pub fn sse_message(item: &StreamItem) -> Bytes {
    match item {
        StreamItem::Event(frame) => frame.sse.clone(),
        StreamItem::Batch(batch) => batch.sse.clone(),
        StreamItem::Reload { oldest_seq } => sse_control(
            "reload",
            &json!({"reason": "retention", "oldest_seq": oldest_seq}),
        ),
        StreamItem::Lagged { after_seq } => sse_control("lagged", &json!({"after_seq": after_seq})),
        StreamItem::Failed { message } => sse_control("error", &json!({"message": message})),
    }
}

/// An SSE body over a stream of items.
pub struct SseBody<S> {
    items: Pin<Box<S>>,
    keep_alive: Duration,
    /// Fires at the earliest time a keep-alive could be due.
    timer: Pin<Box<Sleep>>,
    last_write: Instant,
    /// Zero, or the quiet time after each write of messages.
    coalesce: Duration,
    /// Ends the current coalescing window; created at the first one.
    hold: Option<Pin<Box<Sleep>>>,
    /// The end of the current coalescing window, if one is open.
    hold_until: Option<Instant>,
    done: bool,
}

impl<S> SseBody<S> {
    /// The body of `items`, with a keep-alive comment after `keep_alive` without a write, and
    /// at most one write of messages per `coalesce` (zero: write whatever is ready at once).
    pub fn new(items: S, keep_alive: Duration, coalesce: Duration) -> Self {
        let now = Instant::now();
        Self {
            items: Box::pin(items),
            keep_alive,
            timer: Box::pin(tokio::time::sleep_until(now + keep_alive)),
            last_write: now,
            coalesce,
            hold: None,
            hold_until: None,
            done: false,
        }
    }

    /// Pending while a coalescing window is open (woken when it ends).
    fn poll_hold(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(until) = self.hold_until else {
            return Poll::Ready(());
        };
        let hold = match &mut self.hold {
            Some(hold) => {
                if hold.deadline() != until {
                    hold.as_mut().reset(until);
                }
                hold
            }
            None => self.hold.insert(Box::pin(tokio::time::sleep_until(until))),
        };
        if hold.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.hold_until = None;
        Poll::Ready(())
    }
}

impl<S: Stream<Item = StreamItem>> Stream for SseBody<S> {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        if this.poll_hold(cx).is_pending() {
            return Poll::Pending;
        }
        let mut first: Option<Bytes> = None;
        let mut joined: Option<Vec<u8>> = None;
        let mut count = 0;
        while count < MAX_MESSAGES {
            match this.items.as_mut().poll_next(cx) {
                Poll::Ready(Some(item)) => {
                    let bytes = sse_message(&item);
                    match (&first, &mut joined) {
                        (None, _) => first = Some(bytes),
                        (Some(head), None) => {
                            let mut buffer = Vec::with_capacity((head.len() + bytes.len()) * 2);
                            buffer.extend_from_slice(head);
                            buffer.extend_from_slice(&bytes);
                            joined = Some(buffer);
                        }
                        (Some(_), Some(buffer)) => buffer.extend_from_slice(&bytes),
                    }
                    count += 1;
                }
                Poll::Ready(None) => {
                    this.done = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        if let Some(head) = first {
            this.last_write = Instant::now();
            if !this.coalesce.is_zero() {
                this.hold_until = Some(this.last_write + this.coalesce);
            }
            let chunk = joined.map_or(head, Bytes::from);
            return Poll::Ready(Some(Ok(chunk)));
        }
        if this.done {
            return Poll::Ready(None);
        }
        while this.timer.as_mut().poll(cx).is_ready() {
            let due = this.last_write + this.keep_alive;
            let now = Instant::now();
            if now >= due {
                this.last_write = now;
                this.timer.as_mut().reset(now + this.keep_alive);
                return Poll::Ready(Some(Ok(Bytes::from_static(SSE_KEEP_ALIVE))));
            }
            // Something was written since the timer was set: wait for the new deadline.
            this.timer.as_mut().reset(due);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    fn control(after_seq: u64) -> StreamItem {
        StreamItem::Lagged { after_seq }
    }

    #[tokio::test(start_paused = true)]
    async fn ready_items_are_one_chunk_and_silence_gets_keep_alives() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let items = tokio_stream_from(rx);
        let mut body = SseBody::new(items, Duration::from_secs(15), Duration::ZERO);
        tx.send(control(1)).unwrap();
        tx.send(control(2)).unwrap();
        let chunk = body.next().await.unwrap().unwrap();
        assert_eq!(
            chunk,
            [sse_message(&control(1)), sse_message(&control(2))].concat()
        );
        // A write 10 s in pushes the keep-alive to 15 s after it.
        tokio::time::advance(Duration::from_secs(10)).await;
        tx.send(control(3)).unwrap();
        assert_eq!(
            body.next().await.unwrap().unwrap(),
            sse_message(&control(3))
        );
        let started = Instant::now();
        let chunk = body.next().await.unwrap().unwrap();
        assert_eq!(chunk, Bytes::from_static(SSE_KEEP_ALIVE));
        assert_eq!(started.elapsed(), Duration::from_secs(15));
        // And again after another silent period.
        let chunk = body.next().await.unwrap().unwrap();
        assert_eq!(chunk, Bytes::from_static(SSE_KEEP_ALIVE));
        assert_eq!(started.elapsed(), Duration::from_secs(30));
        drop(tx);
        assert!(body.next().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn after_a_write_what_arrives_within_the_window_goes_out_together() {
        let window = Duration::from_millis(10);
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut body = SseBody::new(tokio_stream_from(rx), Duration::from_secs(15), window);
        let started = Instant::now();
        // The first message after a quiet spell goes out at once.
        tx.send(control(1)).unwrap();
        assert_eq!(
            body.next().await.unwrap().unwrap(),
            sse_message(&control(1))
        );
        assert_eq!(started.elapsed(), Duration::ZERO);
        // Two more within the window wait for its end, and go as one chunk.
        tokio::time::advance(Duration::from_millis(2)).await;
        tx.send(control(2)).unwrap();
        tokio::time::advance(Duration::from_millis(3)).await;
        tx.send(control(3)).unwrap();
        let chunk = body.next().await.unwrap().unwrap();
        assert_eq!(started.elapsed(), window);
        assert_eq!(
            chunk,
            [sse_message(&control(2)), sse_message(&control(3))].concat()
        );
        // After a quiet spell longer than the window, the next one goes out at once again.
        tokio::time::advance(Duration::from_millis(50)).await;
        tx.send(control(4)).unwrap();
        let sent = Instant::now();
        assert_eq!(
            body.next().await.unwrap().unwrap(),
            sse_message(&control(4))
        );
        assert_eq!(sent.elapsed(), Duration::ZERO);
        // The end of the stream is not held back past the window.
        drop(tx);
        assert!(body.next().await.is_none());
        assert_eq!(sent.elapsed(), window);
    }

    /// A stream of what `rx` receives (ends when every sender is gone).
    fn tokio_stream_from(
        rx: tokio::sync::mpsc::UnboundedReceiver<StreamItem>,
    ) -> impl Stream<Item = StreamItem> {
        futures::stream::unfold(rx, |mut rx| async move {
            let item = rx.recv().await?;
            Some((item, rx))
        })
    }
}
