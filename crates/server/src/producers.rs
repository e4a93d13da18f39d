//! The runtime that produces events — turns, file runs, their store writers and the channels'
//! encoders — apart from the one that serves HTTP and stream clients.
//!
//! A broadcast to a thousand SSE clients wakes a thousand tasks at once. On a shared runtime the
//! next event's store commit, and its encoding, would wait in the run queue behind all of them
//! before it could even be broadcast; on its own thread the producer side runs as soon as the
//! operating system schedules it, so an event reaches the broadcast within the commit time
//! however busy the fan-out is.

use std::future::Future;

use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

/// Worker threads of the producer runtime.
const PRODUCER_THREADS: usize = 1;

/// The producer runtime; shut down in the background when dropped (so dropping it inside an
/// async context is fine).
#[derive(Debug)]
pub struct Producers {
    runtime: Option<Runtime>,
    handle: Handle,
}

impl Producers {
    /// Starts the producer runtime's threads.
    pub fn start() -> std::io::Result<Self> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(PRODUCER_THREADS)
            .thread_name("keel-producer")
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        Ok(Self {
            runtime: Some(runtime),
            handle,
        })
    }

    /// Runs `future` on the producer runtime.
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// The runtime's handle: `handle().enter()` makes `tokio::spawn` inside the guard's scope
    /// spawn onto it (how store writers are started here).
    pub fn handle(&self) -> &Handle {
        &self.handle
    }
}

impl Drop for Producers {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
