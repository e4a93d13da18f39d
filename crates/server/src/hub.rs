//! Per-session broadcast channels carrying committed events to this instance's stream clients.
//!
//! Events produced here reach a session's channel from the store's [`keel_store::EventWriter`]
//! (`WriterOptions::forward`), so only stored events are broadcast. Events produced by another
//! instance on the same database are announced by [`keel_store::Store::watch`]; [`Hub::relay`]
//! reads them from the store and broadcasts them. A client drops what it already has by seq.
//! Each event is encoded once per channel ([`Frame`]) and shared by all its clients; what is
//! stored together is broadcast together ([`FrameBatch`]: one wake-up and one write per client
//! per batch).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use keel_events::Event;
use keel_store::{EventRange, Store};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::frame::{Frame, FrameBatch};

/// Most events read from the store per relay query.
const RELAY_PAGE: u32 = 1000;
/// Events the writers' forward channel holds for the encoder. The encoder runs on the
/// producer runtime and drains it at once; each slot costs memory in every session with a
/// listener, so it is no larger than a burst needs (if the encoder ever fell behind, clients
/// would fill the gap from the store).
const INGEST_CAPACITY: usize = 1024;
/// Most events the encoder puts in one batch.
const MAX_BATCH: usize = 512;

/// One session's channel.
#[derive(Debug)]
pub struct Channel {
    /// Where writers forward stored events (encoded by the channel's encoder task).
    ingest: broadcast::Sender<Arc<Event>>,
    /// Encoded batches for clients.
    tx: broadcast::Sender<Arc<FrameBatch>>,
    /// Highest seq relayed from the store; `None` until a client subscribes.
    relayed: tokio::sync::Mutex<Option<u64>>,
    /// Highest seq a local producer broadcast (through its writer).
    local_high: AtomicU64,
    /// Producers of this session running in this process (turns, file runs).
    local: AtomicUsize,
}

impl Channel {
    /// The writers' forward target.
    pub fn sender(&self) -> broadcast::Sender<Arc<Event>> {
        self.ingest.clone()
    }

    /// A new receiver of encoded batches.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<FrameBatch>> {
        self.tx.subscribe()
    }

    /// Records that a local producer broadcast everything up to `seq`, so relaying never
    /// repeats it.
    pub fn mark_local(&self, seq: u64) {
        self.local_high.fetch_max(seq, Ordering::SeqCst);
    }

    /// Marks a local producer as running until the guard is dropped.
    pub fn producing(self: &Arc<Self>) -> ProducingGuard {
        self.local.fetch_add(1, Ordering::SeqCst);
        ProducingGuard {
            channel: Arc::clone(self),
        }
    }
}

/// Counts a local producer while alive.
#[derive(Debug)]
pub struct ProducingGuard {
    channel: Arc<Channel>,
}

impl Drop for ProducingGuard {
    fn drop(&mut self) {
        self.channel.local.fetch_sub(1, Ordering::SeqCst);
    }
}

/// All sessions' channels.
#[derive(Debug)]
pub struct Hub {
    store: Arc<dyn Store>,
    capacity: usize,
    /// Where the channels' encoders run (the producer runtime).
    encoders: tokio::runtime::Handle,
    channels: Mutex<HashMap<String, Arc<Channel>>>,
}

impl Hub {
    /// Channels with `capacity` batches (of one or more events) of buffer per client, whose
    /// encoders run on `encoders`.
    pub fn new(store: Arc<dyn Store>, capacity: usize, encoders: tokio::runtime::Handle) -> Self {
        Self {
            store,
            capacity: capacity.max(1),
            encoders,
            channels: Mutex::new(HashMap::new()),
        }
    }

    /// The session's channel, created on first use.
    pub fn channel(&self, session_id: &str) -> Arc<Channel> {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(channels.entry(session_id.to_owned()).or_insert_with(|| {
            let (ingest, ingested) = broadcast::channel(INGEST_CAPACITY);
            let tx = broadcast::channel(self.capacity).0;
            self.encoders.spawn(encode(ingested, tx.clone()));
            Arc::new(Channel {
                ingest,
                tx,
                relayed: tokio::sync::Mutex::new(None),
                local_high: AtomicU64::new(0),
                local: AtomicUsize::new(0),
            })
        }))
    }

    /// A receiver for a stream client of `session_id`. Subscribes first, then (on the first
    /// subscription) notes the stored end, so relaying starts where the client's store reads
    /// leave off.
    pub async fn subscribe(&self, session_id: &str) -> broadcast::Receiver<Arc<FrameBatch>> {
        let channel = self.channel(session_id);
        let rx = channel.subscribe();
        let mut relayed = channel.relayed.lock().await;
        if relayed.is_none()
            && let Ok(last) = self.store.last_seq(session_id).await
        {
            *relayed = Some(last);
        }
        rx
    }

    /// Number of channels (sessions touched since start).
    pub fn len(&self) -> usize {
        self.channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// True when no channel exists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets channels nobody listens to, nothing produces on and no live session holds.
    pub fn sweep(&self) {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        // A channel a live session still holds keeps its writer's broadcasts: keep it.
        channels.retain(|_, c| {
            Arc::strong_count(c) > 1
                || c.tx.receiver_count() > 0
                || c.local.load(Ordering::SeqCst) > 0
        });
    }

    /// The store announced events of `session_id` up to `seq`: if clients here listen and no
    /// local producer broadcasts them already, read and broadcast what is new.
    pub async fn relay(&self, session_id: &str, seq: u64) {
        let channel = {
            let channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
            match channels.get(session_id) {
                Some(channel) => Arc::clone(channel),
                None => return,
            }
        };
        if channel.tx.receiver_count() == 0 || channel.local.load(Ordering::SeqCst) > 0 {
            return;
        }
        let mut relayed = channel.relayed.lock().await;
        let mut cursor = relayed
            .unwrap_or_else(|| seq.saturating_sub(RELAY_PAGE as u64))
            .max(channel.local_high.load(Ordering::SeqCst));
        while cursor < seq {
            let events = match self
                .store
                .read_events(session_id, EventRange::after(cursor).with_limit(RELAY_PAGE))
                .await
            {
                Ok(events) => events,
                Err(e) => {
                    tracing::warn!(session_id, after = cursor, "cannot relay events: {e}");
                    break;
                }
            };
            let Some(last) = events.last().map(|e| e.seq) else {
                break;
            };
            let frames = events.iter().map(|e| Arc::new(Frame::new(e))).collect();
            let _ = channel.tx.send(Arc::new(FrameBatch::new(frames)));
            cursor = last;
        }
        *relayed = Some(cursor);
    }

    /// After this instance's own work on `session_id` ended: relay what other instances
    /// appended while it produced (their notices were skipped meanwhile), so no client here is
    /// left behind the store.
    pub async fn catch_up(&self, session_id: &str) {
        match self.store.last_seq(session_id).await {
            Ok(seq) => self.relay(session_id, seq).await,
            Err(e) => tracing::warn!(session_id, "cannot catch the stream up: {e}"),
        }
    }

    /// Notices may have been lost: relay every listened-to session up to its stored end.
    pub async fn resync(&self) {
        let ids: Vec<String> = {
            let channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
            channels
                .iter()
                .filter(|(_, c)| c.tx.receiver_count() > 0)
                .map(|(id, _)| id.clone())
                .collect()
        };
        for id in ids {
            match self.store.last_seq(&id).await {
                Ok(seq) => self.relay(&id, seq).await,
                Err(e) => tracing::warn!(session_id = %id, "cannot resync the stream: {e}"),
            }
        }
    }
}

/// Encodes what writers forward, once, for every client of the channel: everything queued
/// when it wakes (a writer forwards a stored batch at once) becomes one [`FrameBatch`]. Ends
/// when every writer and the channel are gone. Events it misses (it never should) show up as a
/// gap, which clients fill from the store.
async fn encode(
    mut ingested: broadcast::Receiver<Arc<Event>>,
    tx: broadcast::Sender<Arc<FrameBatch>>,
) {
    loop {
        let first = match ingested.recv().await {
            Ok(event) => event,
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(
                    missed,
                    "stream encoder lagged: clients fill the gap from the store"
                );
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        let mut frames = vec![Arc::new(Frame::new(&first))];
        while frames.len() < MAX_BATCH {
            match ingested.try_recv() {
                Ok(event) => frames.push(Arc::new(Frame::new(&event))),
                Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        if tx.receiver_count() > 0 {
            let _ = tx.send(Arc::new(FrameBatch::new(frames)));
        }
    }
}
