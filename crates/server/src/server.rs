//! Starting the server: open the store, recover turns a dead instance left running (see
//! [`lease`]), follow the store's append notices, and serve the router.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt as _;
use keel_store::WatchNotice;
use tokio::net::TcpListener;

use crate::config::ServerConfig;
// `lease` names the error by this path.
use crate::error::ServerError;
use crate::lease;
use crate::routes::router;
use crate::state::{AppState, SharedState};

/// How often channels and live sessions nobody uses are forgotten.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// How long a session stays loaded after its last turn or file run.
const IDLE_EVICTION: Duration = Duration::from_secs(600);

/// A bound server, ready to run.
#[derive(Debug)]
pub struct Server {
    state: SharedState,
    listener: TcpListener,
    addr: SocketAddr,
    recovered: usize,
}

impl Server {
    /// Opens the store, binds the listen address and recovers interrupted turns.
    pub async fn bind(mut config: ServerConfig) -> Result<Self, ServerError> {
        if config.database_url.starts_with("sqlite:") {
            std::fs::create_dir_all(&config.data_dir).map_err(|source| ServerError::DataDir {
                path: config.data_dir.clone(),
                source,
            })?;
        }
        let store = keel_store::open(&config.database_url).await?;
        let addr = config.addr;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServerError::Io {
                what: "cannot listen on",
                addr,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ServerError::Io {
            what: "cannot read the address of",
            addr,
            source,
        })?;
        if config.instance_id.is_none() {
            config.instance_id = Some(default_instance_id(addr));
        }
        let state = Arc::new(
            AppState::new(config, store).map_err(|source| ServerError::Io {
                what: "cannot start the producer runtime for",
                addr,
                source,
            })?,
        );
        let recovered = lease::recover(&state).await?;
        Ok(Self {
            state,
            listener,
            addr,
            recovered,
        })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// How many interrupted turns this instance began continuing at start.
    pub fn recovered_turns(&self) -> usize {
        self.recovered
    }

    /// The shared state (for embedding and tests).
    pub fn state(&self) -> &SharedState {
        &self.state
    }

    /// Serves until `shutdown` completes, then drains (see [`lease::drain`]): no new turns,
    /// the running ones handed over to the other instances, and returns within the drain time
    /// (`--drain-secs`) even while stream clients stay connected.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let watcher = tokio::spawn(follow_store(Arc::clone(&self.state)));
        let keeper = tokio::spawn(lease::keep(Arc::clone(&self.state)));
        let app = router(Arc::clone(&self.state));
        // Events are small writes that must leave at once: no Nagle delay.
        let listener = self.listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let budget = self.state.config.drain;
        let (drained_tx, drained_rx) = tokio::sync::oneshot::channel::<tokio::time::Instant>();
        let draining = Arc::clone(&self.state);
        let signal = async move {
            shutdown.await;
            let deadline = tokio::time::Instant::now() + budget;
            tracing::info!(secs = budget.as_secs_f64(), "draining");
            lease::drain(&draining, budget).await;
            let _ = drained_tx.send(deadline);
        };
        let serve = axum::serve(listener, app).with_graceful_shutdown(signal);
        // Stream clients keep their connections open: once drained, they get what is left of
        // the drain time (at least a second) to go, then serving stops anyway.
        let cut_off = async move {
            match drained_rx.await {
                Ok(deadline) => {
                    let floor = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
                    tokio::time::sleep_until(deadline.max(floor)).await;
                }
                Err(_) => std::future::pending().await,
            }
        };
        let result = tokio::select! {
            served = serve => served.map_err(|source| ServerError::Io {
                what: "serving on",
                addr: self.addr,
                source,
            }),
            () = cut_off => Ok(()),
        };
        watcher.abort();
        keeper.abort();
        if let Some(telemetry) = self.state.telemetry.clone() {
            // The last batch of spans, off the async threads.
            if let Ok(Err(error)) = tokio::task::spawn_blocking(move || telemetry.shutdown()).await
            {
                tracing::warn!(%error, "the last traces were not exported");
            }
        }
        result
    }
}

/// `HOST:PORT`: unique among instances on one database as long as no two hosts share a name,
/// and the same after a restart on the same address.
fn default_instance_id(addr: SocketAddr) -> String {
    let host = nix::unistd::gethostname()
        .ok()
        .and_then(|name| name.into_string().ok())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| addr.ip().to_string());
    format!("{host}:{}", addr.port())
}

/// Relays events other instances append (and anything a client could have missed) to this
/// instance's stream clients, applies control messages for work running here, and forgets idle
/// channels now and then.
async fn follow_store(state: SharedState) {
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    let mut watch = match state.store.watch().await {
        Ok(watch) => Some(watch),
        Err(e) => {
            tracing::warn!(
                "not following the store's appends (other instances' events are not relayed): {e}"
            );
            None
        }
    };
    loop {
        tokio::select! {
            notice = async {
                match watch.as_mut() {
                    Some(w) => w.recv().await,
                    None => std::future::pending().await,
                }
            } => match notice {
                Some(WatchNotice::Appended(notice)) => {
                    let hub = Arc::clone(&state.hub);
                    tokio::spawn(async move { hub.relay(&notice.session_id, notice.seq).await });
                }
                Some(WatchNotice::Resync) => {
                    let hub = Arc::clone(&state.hub);
                    tokio::spawn(async move { hub.resync().await });
                }
                Some(WatchNotice::Control(message)) => crate::relay::apply(&state, message),
                None => {
                    tracing::warn!("the store's append notices ended: other instances' events are no longer relayed");
                    watch = None;
                }
            },
            _ = sweep.tick() => {
                state.evict_idle(IDLE_EVICTION);
                state.hub.sweep();
                tracing::debug!(channels = state.hub.len(), "swept idle sessions and channels");
            }
        }
    }
}
