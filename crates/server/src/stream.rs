//! A session's event stream for one client: the backlog from the store after the client's
//! cursor, then live events from the session's broadcast channel, with duplicates dropped by
//! seq and gaps filled from the store. A client whose buffer overflows is told it lagged and
//! the stream ends (it resumes from the store with its cursor).

use std::collections::VecDeque;
use std::sync::Arc;

use futures::Stream;
use keel_store::{EventRange, Store};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::frame::{Frame, FrameBatch};

/// Events read from the store per query while catching up.
const BACKLOG_PAGE: u32 = 500;

/// What a client is sent.
#[derive(Debug, Clone)]
pub enum StreamItem {
    /// The next event.
    Event(Arc<Frame>),
    /// The next events: a whole broadcast batch, contiguous from the client's cursor.
    Batch(Arc<FrameBatch>),
    /// The cursor is older than the oldest stored event: the client must reload.
    Reload {
        /// The oldest stored seq.
        oldest_seq: u64,
    },
    /// The client fell behind; the stream ends after this.
    Lagged {
        /// The last seq it was sent.
        after_seq: u64,
    },
    /// Reading the store failed; the stream ends after this.
    Failed {
        /// What went wrong.
        message: String,
    },
}

struct Cursor {
    store: Arc<dyn Store>,
    session_id: String,
    rx: broadcast::Receiver<Arc<FrameBatch>>,
    cursor: u64,
    started: bool,
    caught_up: bool,
    done: bool,
    pending: VecDeque<StreamItem>,
}

/// The stream of session `session_id` after seq `after`. `rx` must be subscribed before this
/// is called, so nothing committed in between is missed.
pub fn session_stream(
    store: Arc<dyn Store>,
    session_id: String,
    rx: broadcast::Receiver<Arc<FrameBatch>>,
    after: u64,
) -> impl Stream<Item = StreamItem> + Send + 'static {
    let state = Cursor {
        store,
        session_id,
        rx,
        cursor: after,
        started: false,
        caught_up: false,
        done: false,
        pending: VecDeque::new(),
    };
    futures::stream::unfold(state, |mut state| async move {
        let item = state.next().await?;
        Some((item, state))
    })
}

impl Cursor {
    async fn next(&mut self) -> Option<StreamItem> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                if matches!(item, StreamItem::Lagged { .. } | StreamItem::Failed { .. }) {
                    self.done = true;
                }
                return Some(item);
            }
            if self.done {
                return None;
            }
            if !self.started {
                self.started = true;
                self.check_retention().await;
            } else if !self.caught_up {
                self.read_backlog().await;
            } else {
                match self.rx.recv().await {
                    Ok(batch) => {
                        if let Some(item) = self.take_batch(batch) {
                            return Some(item);
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        self.pending.push_back(StreamItem::Lagged {
                            after_seq: self.cursor,
                        });
                    }
                    Err(RecvError::Closed) => return None,
                }
            }
        }
    }

    /// At the start: when retention dropped events the client has not seen, tell it to reload
    /// and go on from the oldest kept one.
    async fn check_retention(&mut self) {
        match self.store.oldest_seq(&self.session_id).await {
            Ok(oldest) if oldest > 0 && self.cursor + 1 < oldest => {
                self.cursor = oldest - 1;
                self.pending
                    .push_back(StreamItem::Reload { oldest_seq: oldest });
            }
            Ok(_) => {}
            Err(e) => self.pending.push_back(StreamItem::Failed {
                message: e.to_string(),
            }),
        }
    }

    /// Queues the next page of stored events after the cursor; an empty page means caught up.
    async fn read_backlog(&mut self) {
        match self
            .store
            .read_events(
                &self.session_id,
                EventRange::after(self.cursor).with_limit(BACKLOG_PAGE),
            )
            .await
        {
            Ok(events) if events.is_empty() => self.caught_up = true,
            Ok(events) => {
                for event in &events {
                    if event.seq > self.cursor {
                        self.cursor = event.seq;
                        self.pending
                            .push_back(StreamItem::Event(Arc::new(Frame::new(event))));
                    }
                }
            }
            Err(e) => self.pending.push_back(StreamItem::Failed {
                message: e.to_string(),
            }),
        }
    }

    /// A live batch: passed on whole when it follows the cursor exactly; otherwise its new
    /// frames are queued one by one, and a gap sends the stream back to the store.
    fn take_batch(&mut self, batch: Arc<FrameBatch>) -> Option<StreamItem> {
        if batch.last_seq <= self.cursor {
            return None;
        }
        if batch.contiguous && batch.first_seq == self.cursor + 1 {
            self.cursor = batch.last_seq;
            return Some(StreamItem::Batch(batch));
        }
        // Overlapping what the client has, or with a gap: frame by frame.
        for frame in &batch.frames {
            if frame.seq <= self.cursor {
                continue;
            }
            if frame.seq > self.cursor + 1 {
                // Missed something (a relay started late): read it from the store.
                self.caught_up = false;
                break;
            }
            self.cursor = frame.seq;
            if !frame.display_only {
                self.pending.push_back(StreamItem::Event(Arc::clone(frame)));
            }
        }
        None
    }
}
