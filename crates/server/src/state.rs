//! What every request handler shares, and the extractors that authenticate callers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{FromRef, FromRequestParts, Query};
use axum::http::request::Parts;
use keel_host::InstanceHost;
use keel_store::{Session, Store, TurnLease};
use serde::Deserialize;

use crate::auth::{Scope, StreamTokens, Tokens};
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::hub::Hub;
use crate::live::LiveSession;
use crate::producers::Producers;

/// Shared server state.
#[derive(Debug)]
pub struct AppState {
    /// Settings.
    pub config: Arc<ServerConfig>,
    /// The store.
    pub store: Arc<dyn Store>,
    /// Broadcast channels per session.
    pub hub: Arc<Hub>,
    /// Bearer tokens.
    pub tokens: Tokens,
    /// Stream token signer.
    pub stream_tokens: StreamTokens,
    /// The lease this instance takes on the turns it runs (its instance id and lease length).
    pub lease: TurnLease,
    /// The session host: every turn row, lease, writer claim and session row this instance
    /// writes goes through it (under [`AppState::lease`]).
    pub host: InstanceHost,
    /// The runtime turns, file runs, their writers and the encoders run on.
    pub producers: Arc<Producers>,
    live: Mutex<HashMap<String, Arc<LiveSession>>>,
    /// Set when the instance drains: it takes no new turns and continues none.
    draining: std::sync::atomic::AtomicBool,
    /// Held by the lease keeper through each renewal and sweep.
    pub keeper: tokio::sync::Mutex<()>,
    /// The trace exporter, when an OTLP endpoint is configured: each session's events become
    /// GenAI spans.
    pub telemetry: Option<keel_telemetry::Telemetry>,
}

impl AppState {
    /// State over `store` with `config`; starts the producer runtime's thread.
    pub fn new(config: ServerConfig, store: Arc<dyn Store>) -> std::io::Result<Self> {
        let key = config
            .stream_key
            .clone()
            .unwrap_or_else(StreamTokens::random_key);
        let producers = Arc::new(Producers::start()?);
        let hub = Arc::new(Hub::new(
            Arc::clone(&store),
            config.stream_buffer,
            producers.handle().clone(),
        ));
        let owner = config
            .instance_id
            .clone()
            .unwrap_or_else(|| format!("keel-server-{}", uuid::Uuid::now_v7().simple()));
        let lease = TurnLease::new(owner, config.turn_lease);
        let telemetry =
            keel_telemetry::Telemetry::start(&config.telemetry).unwrap_or_else(|error| {
                tracing::warn!(%error, "traces will not be exported");
                None
            });
        Ok(Self {
            telemetry,
            producers,
            host: InstanceHost::new(Arc::clone(&store), lease.clone()),
            lease,
            tokens: Tokens::new(config.tokens.clone()),
            stream_tokens: StreamTokens::new(key, config.stream_token_ttl_secs),
            config: Arc::new(config),
            store,
            hub,
            live: Mutex::new(HashMap::new()),
            draining: std::sync::atomic::AtomicBool::new(false),
            keeper: tokio::sync::Mutex::new(()),
        })
    }

    /// Whether the instance drains (it takes no new turns).
    pub fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Starts draining: no new turns from now on.
    pub fn start_draining(&self) {
        self.draining
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Every session with live state here.
    pub fn live_sessions(&self) -> Vec<Arc<LiveSession>> {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// The live state of a session, created on first use.
    pub fn live(&self, session_id: &str) -> Arc<LiveSession> {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(live.entry(session_id.to_owned()).or_insert_with(|| {
            Arc::new(LiveSession::new(
                session_id.to_owned(),
                self.hub.channel(session_id),
            ))
        }))
    }

    /// Forgets the live state (agent session, producer) of sessions idle for `idle`: their
    /// next turn rebuilds it from the store.
    pub fn evict_idle(&self, idle: std::time::Duration) -> usize {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        let before = live.len();
        live.retain(|_, session| Arc::strong_count(session) > 1 || !session.is_idle_for(idle));
        before - live.len()
    }

    /// The sessions with a turn running here, with the turn's id.
    pub fn running_turns(&self) -> Vec<(Arc<LiveSession>, String)> {
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        live.values()
            .filter_map(|session| Some((Arc::clone(session), session.running_turn_id()?)))
            .collect()
    }

    /// The live state of a session if it has any.
    pub fn live_if_any(&self, session_id: &str) -> Option<Arc<LiveSession>> {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(session_id)
            .cloned()
    }

    /// A session visible to `scope`, or 404.
    pub async fn visible_session(&self, scope: &Scope, id: &str) -> Result<Session, ApiError> {
        let session = match self.store.get_session(id).await {
            Ok(session) => session,
            Err(keel_store::StoreError::NotFound { .. }) => return Err(ApiError::no_session(id)),
            Err(e) => return Err(e.into()),
        };
        let visible = match scope {
            Scope::Stream { session_id } => session_id == id,
            other => other.sees_project(&session.project_id),
        };
        if visible {
            Ok(session)
        } else {
            Err(ApiError::no_session(id))
        }
    }
}

/// The handlers' state type.
pub type SharedState = Arc<AppState>;

/// A caller authenticated by `Authorization: Bearer`.
#[derive(Debug, Clone)]
pub struct Caller(pub Scope);

fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

impl<S> FromRequestParts<S> for Caller
where
    S: Send + Sync,
    SharedState: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = SharedState::from_ref(state);
        let token = bearer(parts).ok_or_else(|| {
            ApiError::unauthorized("missing `Authorization: Bearer TOKEN` header")
        })?;
        state.tokens.check(token).map(Caller)
    }
}

#[derive(Debug, Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// A caller of an event stream: a bearer token, or a stream token in `?token=` (checked
/// against the session by the handler through [`StreamCaller::session_scope`]).
#[derive(Debug, Clone)]
pub enum StreamCaller {
    /// Bearer token.
    Bearer(Scope),
    /// Unchecked stream token.
    StreamToken(String),
}

impl StreamCaller {
    /// The scope for session `session_id`, verifying a stream token.
    pub fn session_scope(&self, state: &AppState, session_id: &str) -> Result<Scope, ApiError> {
        match self {
            StreamCaller::Bearer(scope) => Ok(scope.clone()),
            StreamCaller::StreamToken(token) => {
                state.stream_tokens.verify(token, session_id)?;
                Ok(Scope::Stream {
                    session_id: session_id.to_owned(),
                })
            }
        }
    }
}

impl<S> FromRequestParts<S> for StreamCaller
where
    S: Send + Sync,
    SharedState: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = SharedState::from_ref(state);
        if let Some(token) = bearer(parts) {
            return state.tokens.check(token).map(StreamCaller::Bearer);
        }
        let query = Query::<TokenQuery>::try_from_uri(&parts.uri)
            .map_err(|e| ApiError::bad_request(e.body_text()))?;
        match query.0.token {
            Some(token) if !token.is_empty() => Ok(StreamCaller::StreamToken(token)),
            _ => Err(ApiError::unauthorized(
                "missing `Authorization: Bearer TOKEN` header or `?token=STREAM_TOKEN`",
            )),
        }
    }
}
