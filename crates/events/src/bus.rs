//! Dispatch (seed 001's observer pattern): one producer, many handlers and subscribers.
//!
//! Two kinds of consumer:
//! - *handlers* ([`Bus::add_handler`]) run inline, in registration order, for every event. They
//!   must be quick (an in-memory buffer, a store append); a JSONL file writer qualifies.
//! - *subscribers* ([`Bus::subscribe`], [`Bus::spawn_handler`]) read from a bounded buffer. A
//!   subscriber that falls behind never slows the producer: it is told how many events it missed
//!   and after which seq, so it can replay them from the store.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::broadcast;

use crate::catalogue::EventKind;
use crate::envelope::Event;
use crate::sequencer::Sequencer;

/// A consumer of events.
pub trait EventHandler: Send {
    /// Called once per event, in seq order.
    fn handle(&mut self, event: &Event);

    /// Called when a buffered handler fell behind: `missed` events after `after_seq` were dropped
    /// for it. The default does nothing.
    fn lagged(&mut self, missed: u64, after_seq: u64) {
        let _ = (missed, after_seq);
    }

    /// Pushes out anything buffered. The default does nothing.
    fn flush(&mut self) {}
}

/// What a subscriber receives.
#[derive(Debug, Clone)]
pub enum Delivery {
    /// The next event.
    Event(Arc<Event>),
    /// The subscriber fell behind: `missed` events after seq `after_seq` are gone from its
    /// buffer; the next delivery is newer. Replay `after_seq + 1 ..` from the store if needed.
    Lagged {
        /// How many events were dropped for this subscriber.
        missed: u64,
        /// The last seq this subscriber received before the gap (0 if none).
        after_seq: u64,
    },
}

/// Default buffer of each subscriber, in events.
pub const DEFAULT_CAPACITY: usize = 4096;

/// The event bus.
pub struct Bus {
    handlers: Mutex<Vec<Box<dyn EventHandler>>>,
    tx: broadcast::Sender<Arc<Event>>,
}

impl Default for Bus {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("subscribers", &self.tx.receiver_count())
            .finish()
    }
}

impl Bus {
    /// A bus whose subscribers each buffer up to `capacity` events.
    pub fn new(capacity: usize) -> Self {
        let (tx, _) = broadcast::channel(capacity.max(1));
        Self {
            handlers: Mutex::new(Vec::new()),
            tx,
        }
    }

    /// Registers an inline handler; it sees every later event, after the handlers before it.
    pub fn add_handler(&self, handler: impl EventHandler + 'static) {
        self.handlers().push(Box::new(handler));
    }

    /// A new subscription that receives every event published from now on.
    pub fn subscribe(&self) -> Subscription {
        Subscription {
            rx: self.tx.subscribe(),
            last_seq: 0,
        }
    }

    /// Number of live subscriptions.
    pub fn subscriber_count(&self) -> usize {
        self.tx.receiver_count()
    }

    /// Runs `handler` on its own thread behind a subscription. The thread ends once the bus is
    /// dropped and the handler has seen everything published before.
    pub fn spawn_handler(
        &self,
        handler: impl EventHandler + 'static,
    ) -> std::thread::JoinHandle<()> {
        let mut sub = self.subscribe();
        let mut handler = handler;
        std::thread::spawn(move || {
            while let Some(delivery) = sub.blocking_recv() {
                match delivery {
                    Delivery::Event(event) => handler.handle(&event),
                    Delivery::Lagged { missed, after_seq } => handler.lagged(missed, after_seq),
                }
            }
            handler.flush();
        })
    }

    /// Dispatches an event: inline handlers first, in order, then subscribers.
    pub fn publish(&self, event: Event) -> Arc<Event> {
        let event = Arc::new(event);
        for handler in self.handlers().iter_mut() {
            handler.handle(&event);
        }
        if self.tx.receiver_count() > 0 {
            // An error only means every subscriber has gone.
            let _ = self.tx.send(Arc::clone(&event));
        }
        event
    }

    /// Flushes every inline handler.
    pub fn flush(&self) {
        for handler in self.handlers().iter_mut() {
            handler.flush();
        }
    }

    fn handlers(&self) -> MutexGuard<'_, Vec<Box<dyn EventHandler>>> {
        // A handler that panicked leaves the list itself intact.
        self.handlers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A subscriber's end of the bus.
#[derive(Debug)]
pub struct Subscription {
    rx: broadcast::Receiver<Arc<Event>>,
    last_seq: u64,
}

impl Subscription {
    /// The next delivery; `None` once the bus is gone and the buffer is drained.
    pub async fn recv(&mut self) -> Option<Delivery> {
        let received = self.rx.recv().await;
        self.deliver(received)
    }

    /// Blocking form of [`Subscription::recv`], for threads outside a runtime.
    pub fn blocking_recv(&mut self) -> Option<Delivery> {
        let received = self.rx.blocking_recv();
        self.deliver(received)
    }

    /// The next delivery if one is ready.
    pub fn try_recv(&mut self) -> Option<Delivery> {
        match self.rx.try_recv() {
            Ok(event) => self.deliver(Ok(event)),
            Err(broadcast::error::TryRecvError::Lagged(n)) => {
                self.deliver(Err(broadcast::error::RecvError::Lagged(n)))
            }
            Err(_) => None,
        }
    }

    fn deliver(
        &mut self,
        received: Result<Arc<Event>, broadcast::error::RecvError>,
    ) -> Option<Delivery> {
        match received {
            Ok(event) => {
                self.last_seq = event.seq;
                Some(Delivery::Event(event))
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => Some(Delivery::Lagged {
                missed,
                after_seq: self.last_seq,
            }),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

/// A [`Sequencer`] and a [`Bus`] together: producers hand it payloads, it stamps and dispatches.
///
/// Stamping and dispatch happen under one lock, so every consumer sees events in seq order even
/// when several tasks emit at once. Cloning is cheap and shares everything.
///
/// A subagent's emitter ([`Emitter::child`]) shares the session's sequence, bus and turn, and
/// stamps `parent_call_id` on every event it emits.
#[derive(Clone, Debug)]
pub struct Emitter {
    inner: Arc<EmitterInner>,
    /// The `task` call whose subagent emits through this emitter (`None`: the top agent).
    parent_call_id: Option<Arc<str>>,
}

#[derive(Debug)]
struct EmitterInner {
    sequencer: Sequencer,
    bus: Bus,
    turn_id: Mutex<Option<String>>,
    order: Mutex<()>,
}

impl Emitter {
    /// An emitter stamping with `sequencer` and dispatching on `bus`.
    pub fn new(sequencer: Sequencer, bus: Bus) -> Self {
        Self {
            inner: Arc::new(EmitterInner {
                sequencer,
                bus,
                turn_id: Mutex::new(None),
                order: Mutex::new(()),
            }),
            parent_call_id: None,
        }
    }

    /// The emitter of a subagent started by the `task` call `call_id`: the same session,
    /// sequence, bus and turn, every event stamped with `parent_call_id = call_id`.
    pub fn child(&self, call_id: &str) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            parent_call_id: Some(Arc::from(call_id)),
        }
    }

    /// The `task` call whose subagent emits through this emitter (`None`: the top agent).
    pub fn parent_call_id(&self) -> Option<&str> {
        self.parent_call_id.as_deref()
    }

    /// The bus, to add handlers or subscribe.
    pub fn bus(&self) -> &Bus {
        &self.inner.bus
    }

    /// The sequencer.
    pub fn sequencer(&self) -> &Sequencer {
        &self.inner.sequencer
    }

    /// Sets the turn later events belong to (`None` outside a turn). A subagent's emitter
    /// ([`Emitter::child`]) leaves the turn alone: its events belong to its parent's turn.
    pub fn set_turn(&self, turn_id: Option<String>) {
        if self.parent_call_id.is_some() {
            return;
        }
        *self.inner.turn_id.lock().unwrap_or_else(|p| p.into_inner()) = turn_id;
    }

    /// The current turn id.
    pub fn turn_id(&self) -> Option<String> {
        self.inner
            .turn_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Stamps `kind` as the session's next event and dispatches it.
    pub fn emit(&self, kind: impl Into<EventKind>) -> Arc<Event> {
        let turn_id = self.turn_id();
        let _order = self.inner.order.lock().unwrap_or_else(|p| p.into_inner());
        let mut event = self.inner.sequencer.stamp(turn_id.as_deref(), kind);
        event.parent_call_id = self.parent_call_id.as_deref().map(str::to_owned);
        self.inner.bus.publish(event)
    }
}
