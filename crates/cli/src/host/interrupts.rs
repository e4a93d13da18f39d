//! Ctrl-C (SIGINT) as a stream of notifications the command loop selects on.

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Every Ctrl-C the process receives, in order, from the moment this is created.
#[derive(Debug)]
pub struct Interrupts {
    rx: mpsc::UnboundedReceiver<()>,
    task: JoinHandle<()>,
}

impl Interrupts {
    /// Starts listening (inside a Tokio runtime). From now on Ctrl-C no longer kills the
    /// process: the command decides what it means.
    pub fn listen() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(forward(tx));
        Self { rx, task }
    }

    /// Never fires, and leaves Ctrl-C alone (a protocol front end cancels turns its own way).
    pub fn none() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            let _tx = tx;
            std::future::pending::<()>().await;
        });
        Self { rx, task }
    }

    /// Waits for the next Ctrl-C (pending forever if signals cannot be watched).
    pub async fn next(&mut self) {
        if self.rx.recv().await.is_none() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Sends one notification per SIGINT, from the moment it is called (the handler is in place
/// before the returned future is first polled), with one persistent listener so none is
/// missed between two.
#[cfg(unix)]
fn forward(tx: mpsc::UnboundedSender<()>) -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let sigint = signal(SignalKind::interrupt());
    async move {
        let Ok(mut sigint) = sigint else {
            return;
        };
        while sigint.recv().await.is_some() {
            if tx.send(()).is_err() {
                break;
            }
        }
    }
}

/// Sends one notification per Ctrl-C.
#[cfg(not(unix))]
fn forward(tx: mpsc::UnboundedSender<()>) -> impl Future<Output = ()> + Send + 'static {
    async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if tx.send(()).is_err() {
                break;
            }
        }
    }
}
