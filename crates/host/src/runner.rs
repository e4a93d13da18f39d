//! Seed 004's runners over one base, for a program that runs Keel's agent as a library.
//!
//! [`Runner::open`] (the base runner) hosts one session of a project — the one named by
//! [`ConversationName`]: `current` (the project's most recently used session, or a new one),
//! `new`, or a session id — through [`SessionHost`], so it is stored, leased and recovered as
//! `keel run`'s are. Each turn is then run one of three ways:
//!
//! | runner | method | the turn's events go to |
//! |---|---|---|
//! | terminal | [`Runner::run_in_terminal`] | keel-render's [`ConsoleRenderer`], as `keel run` shows them |
//! | event system | [`Runner::publish`] | one JSON line each, in a [`WireFormat`] (`paths`: seed 004's `/agent/edit/*` event paths) |
//! | SDK | [`Runner::events`] | a [`Stream`] of the events themselves, for the caller to handle |
//!
//! [`Runner::set_git`] adds seed 004's git work (a commit per turn, a branch, `pull_request`:
//! [`Runner::open_pull_request`] after the turns). [`Runner::close`] ends the session: memory
//! distillation (when the settings make it), then what is left stored.

use std::collections::BTreeMap;
use std::future::Future;
use std::io::Write;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::Stream;
use keel_engine::Provider;
use keel_events::projection::WireFormat;
use keel_events::{Event, EventHandler, JsonlHandler};
use keel_mcp::ServerConfig;
use keel_render::{ConsoleRenderer, RenderOptions};
use keel_store::{NewSession, SessionFilter, SessionOrder};
use tokio::sync::mpsc;

use crate::agent::{AgentSettings, Interaction};
use crate::error::HostError;
use crate::git::{GitError, GitOptions, PullRequest};
use crate::hosted::{HostedSession, SessionHost, SessionSource};
use crate::project_store::{open_project_store, project_id_of};
use crate::session::open_session;
use crate::turn::TurnEnd;

/// Which session of the project a [`Runner`] hosts (seed 004's `conversation_name`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ConversationName {
    /// `current`: the project's most recently updated session, or a new one when it has none.
    #[default]
    Current,
    /// `new`: a new session.
    New,
    /// A stored session, by id.
    Id(String),
}

impl FromStr for ConversationName {
    type Err = std::convert::Infallible;

    /// `current`, `new`, or anything else as a session id.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Ok(match name.trim() {
            "current" => ConversationName::Current,
            "new" => ConversationName::New,
            id => ConversationName::Id(id.to_owned()),
        })
    }
}

/// What a [`Runner`] is opened with.
pub struct RunnerConfig {
    /// The agent's settings; `settings.root` is the project.
    pub settings: AgentSettings,
    /// The model.
    pub provider: Arc<dyn Provider>,
    /// Which session.
    pub conversation: ConversationName,
    /// Who approves and answers (e.g. `CannotAsk` and `CannotAnswer` for an unattended run).
    pub interaction: Interaction,
    /// MCP servers to attach, by name.
    pub mcp_servers: BTreeMap<String, ServerConfig>,
}

impl std::fmt::Debug for RunnerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunnerConfig")
            .field("root", &self.settings.root)
            .field("conversation", &self.conversation)
            .finish_non_exhaustive()
    }
}

/// One hosted session whose turns run in a terminal, into an event system, or as a stream.
pub struct Runner {
    session: HostedSession,
    sink: TurnSink,
    warnings: Vec<String>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("session_id", &self.session.session_id())
            .finish_non_exhaustive()
    }
}

impl Runner {
    /// Opens the session `config.conversation` names in the project at `config.settings.root`
    /// and builds its agent. An id that names no session is [`HostError::UnknownSession`];
    /// a store that cannot be opened leaves the session unstored, with a warning
    /// ([`Runner::take_warnings`]).
    pub async fn open(config: RunnerConfig) -> Result<Self, HostError> {
        let RunnerConfig {
            settings,
            provider,
            conversation,
            interaction,
            mcp_servers,
        } = config;
        let source = session_source(&settings.root, &settings, &conversation).await?;
        let mut host = SessionHost::open(source).await;
        let sink = TurnSink::default();
        host.emitter().bus().add_handler(sink.clone());
        let mut warnings = host.take_warnings();
        let late = Arc::new(Mutex::new(Vec::new()));
        let late_sink = Arc::clone(&late);
        let session = host
            .start(
                &settings,
                provider,
                &mcp_servers,
                interaction,
                Arc::new(move |w| lock(&late_sink).push(w)),
            )
            .await?;
        warnings.append(&mut lock(&late));
        Ok(Self {
            session,
            sink,
            warnings,
        })
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        self.session.session_id()
    }

    /// Warnings met while opening (a store that could not be opened, an MCP server that did
    /// not start), once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Seed 004's git work for the next turns (as `keel run --commit --branch NAME --pr` and a
    /// server session's `pull_request`): `options.branch` switched to, and each turn that
    /// changed files committed after its `agent.end`. Refused before any turn, naming why, on a
    /// work tree with changes Keel did not make, a detached HEAD, no remote or, for a pull
    /// request, the default branch.
    pub async fn set_git(&mut self, options: GitOptions) -> Result<(), GitError> {
        self.session.set_git(options).await
    }

    /// Pushes the branch and opens a pull request for the session's commits, through `gh`
    /// when it is installed and signed in, else naming the compare page (`None` when
    /// [`Runner::set_git`] asked for no pull request). What happened is also on the stream.
    pub async fn open_pull_request(&mut self) -> Option<Result<PullRequest, GitError>> {
        self.session.open_pull_request().await
    }

    /// The terminal runner: runs `request` as one turn, its events rendered to `out` as the
    /// terminal shows them.
    pub async fn run_in_terminal<W: Write + Send + 'static>(
        &mut self,
        request: &str,
        out: W,
        options: RenderOptions,
    ) -> Option<TurnEnd> {
        self.run_with(request, Box::new(ConsoleRenderer::new(out, options)))
            .await
    }

    /// The event-system runner: runs `request` as one turn, each event written to `out` as one
    /// JSON line in `format` (`paths`: `{"path", "event", "payload"}` for the events seed 004
    /// publishes, which are the only ones written).
    pub async fn publish<W: Write + Send + 'static>(
        &mut self,
        request: &str,
        format: WireFormat,
        out: W,
    ) -> Option<TurnEnd> {
        self.run_with(request, Box::new(JsonlHandler::with_format(out, format)))
            .await
    }

    /// The SDK runner: runs `request` as one turn while the stream yields its events, ending
    /// after the turn's last (its `agent.end`) once the turn is recorded.
    pub fn events<'a>(&'a mut self, request: &'a str) -> impl Stream<Item = Event> + 'a {
        let (tx, rx) = mpsc::unbounded_channel();
        let turn = Box::pin(self.run_with(request, Box::new(Forward(tx))));
        futures::stream::unfold((Some(turn), rx), |(mut turn, mut rx)| async move {
            loop {
                let Some(running) = turn.as_mut() else {
                    // The turn is over and its handler dropped: what is queued, then the end.
                    return rx.recv().await.map(|event| (event, (None, rx)));
                };
                tokio::select! {
                    biased;
                    event = rx.recv() => if let Some(event) = event {
                        return Some((event, (turn, rx)));
                    },
                    _ = running => turn = None,
                }
            }
        })
    }

    /// Ends the session: the memory distillation its settings ask for (given up when
    /// `abandon` resolves), then its MCP servers stopped and what is left stored.
    pub async fn close(mut self, abandon: impl Future<Output = ()>) {
        self.session.distill(abandon).await;
        self.session.close().await;
    }

    /// Runs one turn with `handler` seeing its events (after the store), then records its end.
    async fn run_with(&mut self, request: &str, handler: Box<dyn EventHandler>) -> Option<TurnEnd> {
        self.sink.set(handler);
        let end = self.session.turn(request, std::future::pending()).await;
        if let Some(end) = &end {
            self.session.end_turn(end).await;
        }
        self.sink.clear();
        end
    }
}

/// Where a runner's session comes from.
async fn session_source(
    root: &Path,
    settings: &AgentSettings,
    name: &ConversationName,
) -> Result<SessionSource, HostError> {
    let new = || {
        SessionSource::New(
            NewSession::new(project_id_of(root), root.to_path_buf())
                .with_model(settings.models.join(","))
                .with_mode(settings.mode.as_str()),
        )
    };
    let id = match name {
        ConversationName::New => return Ok(new()),
        ConversationName::Id(id) => id.clone(),
        ConversationName::Current => {
            let (store, _) = open_project_store(root).await?;
            let filter = SessionFilter {
                limit: Some(1),
                order: SessionOrder::RecentlyUpdated,
                ..SessionFilter::project(project_id_of(root))
            };
            let latest = store.list_sessions(&filter).await?.into_iter().next();
            store.close().await;
            match latest {
                Some(session) => session.id,
                None => return Ok(new()),
            }
        }
    };
    let (store, _) = open_project_store(root).await?;
    match open_session(store.as_ref(), &id).await {
        Ok(opened) => Ok(SessionSource::Resume { store, opened }),
        Err(HostError::Store(e)) if e.is_not_found() => {
            store.close().await;
            Err(HostError::UnknownSession(id))
        }
        Err(e) => {
            store.close().await;
            Err(e)
        }
    }
}

/// The handler of the turn running now, if any: the runner's one inline handler on the bus.
#[derive(Clone, Default)]
struct TurnSink(Arc<Mutex<Option<Box<dyn EventHandler>>>>);

impl TurnSink {
    fn set(&self, handler: Box<dyn EventHandler>) {
        *lock(&self.0) = Some(handler);
    }

    /// Flushes and drops the turn's handler.
    fn clear(&self) {
        if let Some(mut handler) = lock(&self.0).take() {
            handler.flush();
        }
    }
}

impl EventHandler for TurnSink {
    fn handle(&mut self, event: &Event) {
        if let Some(handler) = lock(&self.0).as_mut() {
            handler.handle(event);
        }
    }

    fn flush(&mut self) {
        if let Some(handler) = lock(&self.0).as_mut() {
            handler.flush();
        }
    }
}

/// The SDK runner's handler: each event to the stream.
struct Forward(mpsc::UnboundedSender<Event>);

impl EventHandler for Forward {
    fn handle(&mut self, event: &Event) {
        // The stream may have been dropped; the turn goes on regardless.
        let _ = self.0.send(event.clone());
    }
}

/// A poisoned lock only means a handler panicked; its data is still usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
