//! One session hosted by this process, the same way for every local front end (`keel run`,
//! `keel chat`, `keel sessions resume`, `keel acp`, `keel mcp serve`).
//!
//! [`SessionHost::open`] opens the session's store and event log (a new session, created in the
//! store on its first turn, or a stored one continued); the front end then puts its own
//! handlers on the emitter's bus (after the store's writer) and shows the warnings met so far.
//! [`SessionHost::start`] builds the agent with the front end's approver and answerer and the
//! session's MCP servers. [`HostedSession::turn`] runs one turn under the process's lease
//! (session row, status and turn row written here), [`HostedSession::end_turn`] records its end,
//! [`HostedSession::distill`] ends the session with its memory distillation, and
//! [`HostedSession::close`] stores what is left.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::StreamExt as _;
use keel_engine::{AgentSession, Provider, TurnOutcome};
use keel_events::{Bus, Emitter, Sequencer};
use keel_mcp::{McpManager, ServerConfig};
use keel_store::{NewSession, Store, WriterOptions};
use tokio_util::sync::CancellationToken;

use crate::agent::{AgentSettings, Interaction, saved_conversation};
use crate::error::HostError;
use crate::event_log::EventLog;
use crate::git::{GitError, GitOptions, GitWork, PullRequest};
use crate::project_store::{open_project_store, process_lease};
use crate::recorder::{SessionRecorder, Warnings};
use crate::saved::SavedConversation;
use crate::session::OpenedSession;
use crate::turn::TurnEnd;

/// Which session a front end hosts.
#[derive(Debug)]
pub enum SessionSource {
    /// A stored session, continued.
    Resume {
        /// The store it is in.
        store: Arc<dyn Store>,
        /// The session, its saved conversation and its event position.
        opened: OpenedSession,
    },
    /// A new session in the project's store at `new.root` (created on its first turn; not
    /// stored at all when the store cannot be opened).
    New(NewSession),
}

/// A session whose store and event log are open, before its agent is built.
#[derive(Debug)]
pub struct SessionHost {
    emitter: Emitter,
    recorder: Option<SessionRecorder>,
    saved: Option<SavedConversation>,
    warnings: Vec<String>,
}

impl SessionHost {
    /// Opens the session of `source`. Store problems are not errors: the session then runs
    /// without being stored (or without its events), and each is a warning
    /// ([`SessionHost::take_warnings`]).
    pub async fn open(source: SessionSource) -> Self {
        let mut warnings = Vec::new();
        let (store, opened, new_session) = match source {
            SessionSource::Resume { store, opened } => (Some(store), Some(opened), None),
            SessionSource::New(new) => match open_project_store(&new.root).await {
                Ok((store, warning)) => {
                    warnings.extend(warning);
                    (Some(store), None, Some(new))
                }
                Err(e) => {
                    warnings.push(format!("the session will not be saved: {e}"));
                    (None, None, Some(new))
                }
            },
        };
        let (session_id, project_id, last_seq) = match (&opened, &new_session) {
            (Some(opened), _) => (
                opened.session.id.clone(),
                opened.session.project_id.clone(),
                opened.last_seq,
            ),
            (None, Some(new)) => (uuid::Uuid::now_v7().to_string(), new.project_id.clone(), 0),
            (None, None) => (uuid::Uuid::now_v7().to_string(), String::new(), 0),
        };
        // The store first, so every event is queued for storage before anything shows it.
        let (emitter, recorder) = match store {
            Some(store) => match EventLog::open(
                Arc::clone(&store),
                &session_id,
                &project_id,
                last_seq,
                WriterOptions::default(),
            ) {
                Ok(log) => {
                    let emitter = log.emitter().clone();
                    let recorder = SessionRecorder::new(store, log, new_session, process_lease());
                    (emitter, Some(recorder))
                }
                Err(e) => {
                    warnings.push(format!("events will not be stored: {e}"));
                    (unstored_emitter(&session_id, &project_id, last_seq), None)
                }
            },
            None => (unstored_emitter(&session_id, &project_id, last_seq), None),
        };
        Self {
            emitter,
            recorder,
            saved: opened.and_then(|o| o.saved),
            warnings,
        }
    }

    /// The session's emitter: the front end adds its handlers to its bus (they run after the
    /// store's writer).
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// The warnings met while opening, once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Builds the session's agent from `settings` with `provider`, asking `interaction`, and
    /// starts its MCP servers (`mcp_servers`). Store problems met from now on go to `warnings`.
    pub async fn start(
        mut self,
        settings: &AgentSettings,
        provider: Arc<dyn Provider>,
        mcp_servers: &BTreeMap<String, ServerConfig>,
        interaction: Interaction,
        warnings: Warnings,
    ) -> Result<HostedSession, HostError> {
        let agent = settings.build_wired(
            provider,
            self.emitter.clone(),
            self.saved.take(),
            interaction,
        )?;
        let (agent, mcp) = crate::mcp::attach_mcp(
            agent,
            &settings.root,
            mcp_servers,
            &settings.sandbox,
            &self.emitter,
        )
        .await;
        if let Some(recorder) = &mut self.recorder {
            recorder.tell(warnings);
        }
        Ok(HostedSession {
            agent,
            git: None,
            mcp,
            emitter: self.emitter,
            recorder: self.recorder,
        })
    }
}

/// A session hosted by this process, its agent built.
pub struct HostedSession {
    agent: AgentSession,
    /// The session's git work, when asked for ([`HostedSession::set_git`]).
    git: Option<GitWork>,
    /// The session's MCP servers, stopped when the session closes.
    mcp: Option<McpManager>,
    emitter: Emitter,
    recorder: Option<SessionRecorder>,
}

impl std::fmt::Debug for HostedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostedSession")
            .field("agent", &self.agent)
            .field("stored", &self.recorder.is_some())
            .finish_non_exhaustive()
    }
}

impl HostedSession {
    /// The session id (the events' `session_id`, the store's session id).
    pub fn session_id(&self) -> &str {
        self.emitter.sequencer().session_id()
    }

    /// The session's emitter.
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// A token that cancels the running turn (ask again after a cancelled turn).
    pub fn cancel_handle(&self) -> CancellationToken {
        self.agent.cancel_handle()
    }

    /// How the last turn ended: its answer and the files it changed.
    pub fn last_outcome(&self) -> Option<&TurnOutcome> {
        self.agent.last_outcome()
    }

    /// Runs the next turns with `overrides` (a custom command's model and tools) until
    /// [`Self::clear_overrides`]; returns what could not be applied.
    pub fn apply_overrides(&mut self, overrides: &keel_engine::TurnOverrides) -> Vec<String> {
        self.agent.apply_overrides(overrides)
    }

    /// Back to the session's own model and tools.
    pub fn clear_overrides(&mut self) {
        self.agent.clear_overrides();
    }

    /// Prepares the session's git work before its first turn (see [`GitWork::prepare`]):
    /// `--branch` switched to, a pull request's refusals checked. Each turn is then committed
    /// after its `agent.end` when `options` say so.
    pub async fn set_git(&mut self, options: GitOptions) -> Result<(), GitError> {
        self.git = GitWork::prepare(&self.agent.config().root, options).await?;
        Ok(())
    }

    /// Pushes the branch and opens a pull request for the session's commits (`None` when no
    /// pull request was asked for in [`HostedSession::set_git`]); what happened is also on the
    /// stream.
    pub async fn open_pull_request(&mut self) -> Option<Result<PullRequest, GitError>> {
        let git = self.git.as_mut().filter(|g| g.options().pull_request)?;
        Some(git.open_pull_request(&mut self.agent).await)
    }

    /// Runs `input` as one turn: the session row (on the first turn), its status and the turn
    /// row under this process's lease are written first, then the turn runs until its
    /// `agent.end` — or until `abandon` resolves, which gives it up at once (`None`). Record
    /// its end with [`HostedSession::end_turn`].
    pub async fn turn(
        &mut self,
        input: impl Into<keel_protocol::TurnInput>,
        abandon: impl Future<Output = ()>,
    ) -> Option<TurnEnd> {
        let input = input.into();
        let cancel = self.agent.cancel_handle();
        let conversation_id = self.agent.conversation_id().to_owned();
        // The turn row and the turn's events share one id.
        let turn_id = keel_engine::new_turn_id();
        if let Some(recorder) = &mut self.recorder {
            recorder.before_turn(&input.text, &conversation_id).await;
            recorder.begin_turn(&turn_id, &input.text, cancel).await;
        }
        if let Some(git) = &mut self.git {
            git.before_turn(&self.agent).await;
        }
        let task = self.git.is_some().then(|| input.text.clone());
        let finished = {
            let events = self.agent.run_with_id(turn_id, input);
            let mut events = std::pin::pin!(events);
            let mut abandon = std::pin::pin!(abandon);
            loop {
                tokio::select! {
                    event = events.next() => if event.is_none() {
                        break true;
                    },
                    () = &mut abandon => break false,
                }
            }
        };
        if finished
            && let Some(git) = &mut self.git
            && let Some(task) = &task
        {
            git.after_turn(&mut self.agent, task).await;
        }
        self.agent
            .last_outcome()
            .filter(|_| finished)
            .map(TurnEnd::finished)
    }

    /// Records how the turn ended (after its events): the conversation, the session's status
    /// and the turn row.
    pub async fn end_turn(&mut self, end: &TurnEnd) {
        if let Some(recorder) = &mut self.recorder {
            recorder
                .after_turn(end, &saved_conversation(&self.agent))
                .await;
        }
    }

    /// Where a session ends: distils the decisions of the turns that changed files into
    /// project memory with one model call, unless `abandon` resolves first (true then).
    pub async fn distill(&mut self, abandon: impl Future<Output = ()>) -> bool {
        tokio::select! {
            _ = self.agent.distill_memory() => false,
            () = abandon => true,
        }
    }

    /// Stops the session's MCP servers.
    pub async fn stop_mcp(&mut self) {
        if let Some(mcp) = self.mcp.take() {
            mcp.shutdown().await;
        }
    }

    /// Stores what is left and closes the store (the MCP servers stopped too).
    pub async fn close(mut self) {
        self.stop_mcp().await;
        if let Some(recorder) = self.recorder.take() {
            recorder.close().await;
        }
    }
}

/// An emitter whose events are not stored (the store could not be opened).
fn unstored_emitter(session_id: &str, project_id: &str, last_seq: u64) -> Emitter {
    Emitter::new(
        Sequencer::resume(session_id, project_id, last_seq),
        Bus::default(),
    )
}
