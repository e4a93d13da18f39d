//! LISTEN side of the append notices: one `PgListener` per store, started by the first
//! [`Store::watch`](crate::Store::watch), fanning `keel_events` notifications (appends) and
//! `keel_control` notifications (control messages) out to every watcher of that store.
//!
//! When the listening connection is lost, notifications sent meanwhile are gone: once it is
//! listening again, watchers get [`WatchNotice::Resync`] and re-read from the store.

use std::sync::Mutex;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgListener, PgNotification};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::error::StoreResult;
use crate::watch::{
    AppendNotice, CONTROL_CHANNEL, ControlMessage, NOTIFY_CHANNEL, WATCH_CAPACITY, WatchNotice,
};

/// First wait before reconnecting a lost listener; doubled after each failure.
const RECONNECT_MIN: Duration = Duration::from_millis(100);
/// Longest wait between reconnection attempts.
const RECONNECT_MAX: Duration = Duration::from_secs(5);

/// The running listener of one store, shared by its clones.
#[derive(Default)]
pub(super) struct Hub {
    /// The listener task's notice channel; only the task holds it strongly, so watchers end
    /// when the task does.
    notices: tokio::sync::Mutex<Option<broadcast::WeakSender<WatchNotice>>>,
    /// The listener task, aborted when the hub is stopped or dropped.
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Hub {
    /// A receiver of every notice from now on, starting the listener if it is not running.
    /// Returns once the listener is listening, so no append committed afterwards is missed.
    pub async fn subscribe(&self, pool: &PgPool) -> StoreResult<broadcast::Receiver<WatchNotice>> {
        let mut notices = self.notices.lock().await;
        if let Some(sender) = notices.as_ref().and_then(broadcast::WeakSender::upgrade) {
            return Ok(sender.subscribe());
        }
        let listener = listen(pool).await?;
        let (sender, receiver) = broadcast::channel(WATCH_CAPACITY);
        *notices = Some(sender.downgrade());
        let task = tokio::spawn(run(listener, pool.clone(), sender));
        if let Ok(mut slot) = self.task.lock()
            && let Some(old) = slot.replace(task)
        {
            old.abort();
        }
        Ok(receiver)
    }

    /// Stops the listener; its watchers end.
    pub fn stop(&self) {
        if let Ok(mut slot) = self.task.lock()
            && let Some(task) = slot.take()
        {
            task.abort();
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").finish_non_exhaustive()
    }
}

async fn listen(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener
        .listen_all([NOTIFY_CHANNEL, CONTROL_CHANNEL])
        .await?;
    Ok(listener)
}

/// The notice a `keel_events` payload stands for; `None` for a payload that is not one of ours.
pub(super) fn parse_notice(notification: &PgNotification) -> Option<AppendNotice> {
    serde_json::from_str(notification.payload()).ok()
}

/// What a notification stands for: an append notice or a control message; `None` for a payload
/// that is not one of ours.
fn parse(notification: &PgNotification) -> Option<WatchNotice> {
    if notification.channel() == CONTROL_CHANNEL {
        serde_json::from_str::<ControlMessage>(notification.payload())
            .ok()
            .map(WatchNotice::Control)
    } else {
        parse_notice(notification).map(WatchNotice::Appended)
    }
}

async fn run(mut listener: PgListener, pool: PgPool, notices: broadcast::Sender<WatchNotice>) {
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                if let Some(notice) = parse(&notification) {
                    // An error only means nobody watches right now.
                    let _ = notices.send(notice);
                }
            }
            // The connection was lost and has been re-established (eager reconnect).
            Ok(None) => {
                let _ = notices.send(WatchNotice::Resync);
            }
            Err(sqlx::Error::PoolClosed) => return,
            Err(e) => {
                tracing::warn!("lost the PostgreSQL notice connection, reconnecting: {e}");
                // Start over on a fresh connection, with back-off.
                drop(listener);
                let mut wait = RECONNECT_MIN;
                listener = loop {
                    if pool.is_closed() {
                        return;
                    }
                    tokio::time::sleep(wait).await;
                    match listen(&pool).await {
                        Ok(listener) => break listener,
                        Err(sqlx::Error::PoolClosed) => return,
                        Err(e) => {
                            wait = (wait * 2).min(RECONNECT_MAX);
                            tracing::warn!(
                                retry_in = ?wait,
                                "cannot reconnect for PostgreSQL notices: {e}"
                            );
                        }
                    }
                };
                let _ = notices.send(WatchNotice::Resync);
            }
        }
    }
}
