//! Store-before-broadcast: a task that persists a live event stream in batches.
//!
//! Producers hand events to an [`EventSink`] (an inline bus handler, or called directly), or the
//! writer follows a bus [`Subscription`]. The task gathers what has queued up (up to
//! [`WriterOptions::max_batch`] events, waiting at most [`WriterOptions::max_delay`] for more)
//! and appends it in one transaction, then forwards the stored events, in order, to an optional
//! broadcast channel: whoever listens there only ever sees events that are already in the
//! store, so a client resuming from the store by seq never misses one.

use std::sync::Arc;
use std::time::Duration;

use keel_events::{Delivery, Event, EventHandler, Subscription};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::claim::SharedClaim;
use crate::error::{StoreError, StoreResult};
use crate::store::Store;

/// How many failures a [`WriterReport`] keeps in full (the rest are only counted).
const KEPT_ERRORS: usize = 100;

/// Told of every event the writer could not store, as it happens.
pub type FailureHook = Arc<dyn Fn(&StoreError) + Send + Sync>;

/// How an [`EventWriter`] batches and where it forwards stored events.
#[derive(Clone)]
pub struct WriterOptions {
    /// Most events appended in one transaction.
    pub max_batch: usize,
    /// Longest a received event waits for others to share its transaction.
    pub max_delay: Duration,
    /// Where stored events go next, in order (display-only events, which are never stored, are
    /// forwarded too, in their place).
    pub forward: Option<broadcast::Sender<Arc<Event>>>,
    /// The writer claim every append quotes ([`Store::append_fenced`]), as the cell holds it
    /// when the batch is written (an empty cell stores nothing: [`StoreError::Unclaimed`]);
    /// `None` appends without one. Once the store refuses a claim ([`StoreError::Fenced`])
    /// nothing more is attempted under it: every later event fails with the same error.
    pub claim: Option<SharedClaim>,
    /// Called with each failure (a refused claim included) as it happens, so the producer can
    /// stop its work and say so instead of losing events unseen.
    pub on_failure: Option<FailureHook>,
}

impl std::fmt::Debug for WriterOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterOptions")
            .field("max_batch", &self.max_batch)
            .field("max_delay", &self.max_delay)
            .field("forward", &self.forward.is_some())
            .field("claim", &self.claim)
            .field("on_failure", &self.on_failure.is_some())
            .finish()
    }
}

impl Default for WriterOptions {
    fn default() -> Self {
        Self {
            max_batch: 256,
            max_delay: Duration::from_millis(2),
            forward: None,
            claim: None,
            on_failure: None,
        }
    }
}

/// What the writer did, returned by [`EventWriter::close`].
#[derive(Debug, Default)]
pub struct WriterReport {
    /// Events stored.
    pub stored: u64,
    /// Display-only events passed over.
    pub skipped: u64,
    /// Events that could not be stored (including ones a lagging subscription missed).
    pub failed: u64,
    /// Transactions that stored events.
    pub batches: u64,
    /// The first failures, in order.
    pub errors: Vec<StoreError>,
    /// Whether the store refused a claim of the writer (another process took the session over).
    pub fenced: bool,
}

impl WriterReport {
    /// True when every event received was stored or deliberately skipped.
    pub fn is_clean(&self) -> bool {
        self.failed == 0
    }
}

enum Command {
    Event(Arc<Event>),
    Lagged { missed: u64, after_seq: u64 },
    Flush(oneshot::Sender<StoreResult<()>>),
    Close,
}

/// The sending side of an [`EventWriter`]. Cheap to clone; never blocks.
///
/// Register it on a bus with `bus.add_handler(writer.sink())` to persist every event the bus
/// publishes without ever missing one.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: mpsc::UnboundedSender<Command>,
}

impl EventSink {
    /// Queues an event for storage; fails once the writer has closed.
    pub fn send(&self, event: impl Into<Arc<Event>>) -> StoreResult<()> {
        self.tx
            .send(Command::Event(event.into()))
            .map_err(|_| StoreError::WriterClosed)
    }
}

impl EventHandler for EventSink {
    fn handle(&mut self, event: &Event) {
        // After close there is nowhere to put it; `send` callers are told, handlers cannot be.
        let _ = self.send(event.clone());
    }

    fn lagged(&mut self, missed: u64, after_seq: u64) {
        let _ = self.tx.send(Command::Lagged { missed, after_seq });
    }
}

/// A background task persisting events in batches (store before broadcast).
///
/// Events come through [`EventWriter::sink`] (for example registered as an inline bus handler)
/// or from a followed [`Subscription`]. The task appends what has queued up, up to
/// [`WriterOptions::max_batch`] events per transaction, waiting at most
/// [`WriterOptions::max_delay`] for more, then forwards the stored events in order to
/// [`WriterOptions::forward`]. An event that cannot be stored (say, a duplicate seq) does not
/// take its batch down: the others are stored, and the failure is reported by
/// [`EventWriter::flush`] and in the [`WriterReport`].
#[derive(Debug)]
pub struct EventWriter {
    sink: EventSink,
    /// Where flush and close requests go: the writer itself, or the subscription pump.
    control: mpsc::UnboundedSender<Command>,
    task: JoinHandle<WriterReport>,
    pump: Option<JoinHandle<()>>,
}

impl EventWriter {
    /// Starts a writer fed through [`EventWriter::sink`]. Must be called inside a Tokio runtime.
    pub fn spawn(store: Arc<dyn Store>, options: WriterOptions) -> StoreResult<Self> {
        let runtime = current_runtime()?;
        let (tx, rx) = mpsc::unbounded_channel();
        let task = runtime.spawn(Worker::new(store, options, rx).run());
        Ok(Self {
            sink: EventSink { tx: tx.clone() },
            control: tx,
            task,
            pump: None,
        })
    }

    /// Starts a writer that stores everything `subscription` delivers, until
    /// [`EventWriter::close`] (which first drains what the subscription already holds). If the
    /// handle is dropped instead, the writer stores everything until the bus is gone, then ends.
    ///
    /// A subscription that falls behind loses events (reported as
    /// [`StoreError::WriterLagged`]); to never lose one, register [`EventWriter::sink`] as an
    /// inline bus handler instead.
    pub fn follow(
        store: Arc<dyn Store>,
        subscription: Subscription,
        options: WriterOptions,
    ) -> StoreResult<Self> {
        let runtime = current_runtime()?;
        let (tx, rx) = mpsc::unbounded_channel();
        let (control, control_rx) = mpsc::unbounded_channel();
        let task = runtime.spawn(Worker::new(store, options, rx).run());
        let pump = runtime.spawn(pump(subscription, control_rx, tx.clone()));
        Ok(Self {
            sink: EventSink { tx },
            control,
            task,
            pump: Some(pump),
        })
    }

    /// A handle to send events to this writer.
    pub fn sink(&self) -> EventSink {
        self.sink.clone()
    }

    /// Queues an event for storage.
    pub fn send(&self, event: impl Into<Arc<Event>>) -> StoreResult<()> {
        self.sink.send(event)
    }

    /// Waits until every event queued before this call has been stored. Fails with
    /// [`StoreError::WriterFailed`] if any event since the previous flush could not be stored.
    pub async fn flush(&self) -> StoreResult<()> {
        let (reply, answer) = oneshot::channel();
        self.control
            .send(Command::Flush(reply))
            .map_err(|_| StoreError::WriterClosed)?;
        answer.await.map_err(|_| StoreError::WriterClosed)?
    }

    /// Stores everything queued so far, stops the writer and reports what it did. Events sent
    /// afterwards are refused. Failed events are listed in the report, not returned as an error.
    pub async fn close(self) -> StoreResult<WriterReport> {
        // If the writer already stopped, there is nothing to tell it.
        let _ = self.control.send(Command::Close);
        if let Some(pump) = self.pump {
            pump.await
                .map_err(|e| StoreError::WriterTask(e.to_string()))?;
        }
        self.task
            .await
            .map_err(|e| StoreError::WriterTask(e.to_string()))
    }
}

fn current_runtime() -> StoreResult<tokio::runtime::Handle> {
    tokio::runtime::Handle::try_current()
        .map_err(|e| StoreError::WriterTask(format!("no Tokio runtime to run in: {e}")))
}

fn delivery_command(delivery: Delivery) -> Command {
    match delivery {
        Delivery::Event(event) => Command::Event(event),
        Delivery::Lagged { missed, after_seq } => Command::Lagged { missed, after_seq },
    }
}

/// Moves deliveries from a subscription to the writer; before passing on a flush or close, it
/// drains what the subscription already holds so the request covers it.
async fn pump(
    mut subscription: Subscription,
    mut control: mpsc::UnboundedReceiver<Command>,
    out: mpsc::UnboundedSender<Command>,
) {
    let mut control_open = true;
    loop {
        tokio::select! {
            biased;
            command = control.recv(), if control_open => {
                while let Some(delivery) = subscription.try_recv() {
                    let _ = out.send(delivery_command(delivery));
                }
                match command {
                    Some(Command::Close) => {
                        let _ = out.send(Command::Close);
                        return;
                    }
                    Some(command) => {
                        let _ = out.send(command);
                    }
                    // The writer's handle is gone: keep storing until the bus is.
                    None => control_open = false,
                }
            }
            delivery = subscription.recv() => match delivery {
                Some(delivery) => {
                    let _ = out.send(delivery_command(delivery));
                }
                None => break,
            }
        }
    }
    // The bus is gone; keep answering flush and close until the handle is dropped.
    while let Some(command) = control.recv().await {
        let close = matches!(command, Command::Close);
        let _ = out.send(command);
        if close {
            return;
        }
    }
}

struct Worker {
    store: Arc<dyn Store>,
    options: WriterOptions,
    rx: mpsc::UnboundedReceiver<Command>,
    /// A non-event command met while gathering a batch, handled after the batch is written.
    stash: Option<Command>,
    report: WriterReport,
    failed_since_flush: u64,
    first_error_since_flush: Option<String>,
    /// The epoch of the claim the store refused, if it did.
    fenced_epoch: Option<i64>,
}

impl Worker {
    fn new(
        store: Arc<dyn Store>,
        options: WriterOptions,
        rx: mpsc::UnboundedReceiver<Command>,
    ) -> Self {
        Self {
            store,
            options,
            rx,
            stash: None,
            report: WriterReport::default(),
            failed_since_flush: 0,
            first_error_since_flush: None,
            fenced_epoch: None,
        }
    }

    async fn run(mut self) -> WriterReport {
        let mut batch = Vec::with_capacity(self.options.max_batch.max(1));
        loop {
            let command = match self.stash.take() {
                Some(command) => command,
                None => match self.rx.recv().await {
                    Some(command) => command,
                    None => break,
                },
            };
            match command {
                Command::Event(event) => {
                    batch.push(event);
                    self.gather(&mut batch).await;
                    self.write(&mut batch).await;
                }
                Command::Lagged { missed, after_seq } => {
                    self.fail(StoreError::WriterLagged { missed, after_seq }, missed);
                }
                Command::Flush(reply) => {
                    let _ = reply.send(self.take_flush_result());
                }
                Command::Close => break,
            }
        }
        self.report
    }

    /// Adds queued events to `batch` until it is full, the queue stays empty for `max_delay`,
    /// or a non-event command comes (stashed for later).
    async fn gather(&mut self, batch: &mut Vec<Arc<Event>>) {
        let deadline = Instant::now() + self.options.max_delay;
        while batch.len() < self.options.max_batch {
            let command = match self.rx.try_recv() {
                Ok(command) => command,
                Err(mpsc::error::TryRecvError::Empty) if !self.options.max_delay.is_zero() => {
                    match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                        Ok(Some(command)) => command,
                        _ => break,
                    }
                }
                Err(_) => break,
            };
            match command {
                Command::Event(event) => batch.push(event),
                other => {
                    self.stash = Some(other);
                    break;
                }
            }
        }
    }

    /// Appends `events` as the options say: under the claim, if any.
    async fn append(&self, events: &[&Event]) -> StoreResult<usize> {
        let Some(cell) = &self.options.claim else {
            return self.store.append_batch(events).await;
        };
        match cell.get() {
            Some(claim) => self.store.append_fenced(&claim, events).await,
            // Only display-only events may pass: nothing is stored.
            None if events.iter().all(|e| e.kind.is_display_only()) => Ok(0),
            None => Err(StoreError::Unclaimed {
                session_id: events
                    .first()
                    .map(|e| e.session_id.clone())
                    .unwrap_or_default(),
            }),
        }
    }

    async fn write(&mut self, batch: &mut Vec<Arc<Event>>) {
        let refs: Vec<&Event> = batch.iter().map(|event| &**event).collect();
        let skipped = refs
            .iter()
            .filter(|event| event.kind.is_display_only())
            .count() as u64;
        if let Some(error) = self.fenced_error() {
            self.fail(error, refs.len() as u64 - skipped);
            batch.clear();
            return;
        }
        match self.append(&refs).await {
            Ok(stored) => {
                self.report.stored += stored as u64;
                self.report.skipped += skipped;
                if stored > 0 {
                    self.report.batches += 1;
                }
                for event in batch.iter() {
                    self.forward(event);
                }
            }
            Err(error) if batch.len() == 1 || error.is_fenced() => {
                self.note_fenced(&error);
                self.fail(error, refs.len() as u64 - skipped);
            }
            Err(_) => {
                // Keep every event that can be stored; name each one that cannot.
                for event in batch.iter() {
                    if let Some(error) = self.fenced_error() {
                        self.fail(error, 1);
                        continue;
                    }
                    match self.append(&[&**event]).await.map(|n| n == 1) {
                        Ok(stored) => {
                            if stored {
                                self.report.stored += 1;
                                self.report.batches += 1;
                            } else {
                                self.report.skipped += 1;
                            }
                            self.forward(event);
                        }
                        Err(error) => {
                            self.note_fenced(&error);
                            self.fail(error, 1);
                        }
                    }
                }
            }
        }
        batch.clear();
    }

    /// Once a claim was refused: the error every later event under it fails with.
    fn fenced_error(&self) -> Option<StoreError> {
        let claim = self.options.claim.as_ref()?.get()?;
        (self.fenced_epoch == Some(claim.epoch)).then(|| StoreError::Fenced {
            session_id: claim.session_id.clone(),
            owner: claim.owner.clone(),
            epoch: claim.epoch,
            holder: None,
        })
    }

    /// Notes a refused claim, so nothing more is attempted under it.
    fn note_fenced(&mut self, error: &StoreError) {
        if let StoreError::Fenced { epoch, .. } = error {
            self.report.fenced = true;
            self.fenced_epoch = Some(*epoch);
        }
    }

    fn forward(&self, event: &Arc<Event>) {
        if let Some(forward) = &self.options.forward {
            // An error only means nobody listens right now.
            let _ = forward.send(Arc::clone(event));
        }
    }

    fn fail(&mut self, error: StoreError, events: u64) {
        if events == 0 {
            return;
        }
        if let Some(hook) = &self.options.on_failure {
            hook(&error);
        }
        self.report.failed += events;
        self.failed_since_flush += events;
        if self.first_error_since_flush.is_none() {
            self.first_error_since_flush = Some(error.to_string());
        }
        if self.report.errors.len() < KEPT_ERRORS {
            self.report.errors.push(error);
        }
    }

    fn take_flush_result(&mut self) -> StoreResult<()> {
        let failed = std::mem::take(&mut self.failed_since_flush);
        match self.first_error_since_flush.take() {
            Some(first) if failed > 0 => Err(StoreError::WriterFailed { failed, first }),
            _ => Ok(()),
        }
    }
}
