//! One agent session as the CLI hosts it: built from the merged settings, rendered (or printed
//! as JSON lines), kept in the project's store, with Ctrl-C cancelling the running turn.
//!
//! `keel run`, `keel chat` and `keel sessions resume` all drive a [`Host`]: [`Host::turn`]
//! runs one turn, [`Host::read_input`] reads the next chat line, [`Host::close`] stores what is
//! left. Ctrl-C during a turn cancels it; a second one while it is still winding down ends the
//! turn at once ([`TurnEnd::Interrupted`], exit 130).

mod interrupts;
mod persist;
mod provider;

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::StreamExt as _;
use keel_context::{Conversation, MemoryStore};
use keel_engine::agent::CannotAnswer;
use keel_engine::{AgentConfig, AgentSession, ModelChain};
use keel_events::{AgentStatus, Bus, Emitter, Event, EventHandler, JsonlHandler, Sequencer};
use keel_store::{NewSession, Session, Store};
use keel_tools::CannotAsk;

pub use interrupts::Interrupts;
pub use persist::{CONVERSATION_ID_KEY, open_project_store, recover_lapsed_turns};

use crate::config::Settings;
use crate::render::{ConsoleRenderer, NoSpinner, RenderOptions, Spinner, TerminalSpinner};
use crate::terminal::{LineReader, TerminalAnswerer, TerminalApprover};
use persist::Persistence;

/// A stored session to continue.
#[derive(Debug)]
pub struct Resume {
    /// The store it is in.
    pub store: Arc<dyn Store>,
    /// The session.
    pub session: Session,
    /// Its saved conversation, if any.
    pub conversation: Option<Conversation>,
    /// The highest stored seq: new events continue after it.
    pub last_seq: u64,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The turn ran to its `agent.end` with this status.
    Finished(AgentStatus),
    /// Ctrl-C was pressed twice: the turn was abandoned (exit 130).
    Interrupted,
}

/// What reading a chat line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A line, without its line ending.
    Line(String),
    /// End of input.
    Closed,
    /// Ctrl-C at the prompt.
    Interrupted,
}

/// The console renderer, shared so it can be finished after each turn.
#[derive(Clone)]
struct SharedRenderer(Arc<Mutex<ConsoleRenderer<std::io::Stdout>>>);

impl EventHandler for SharedRenderer {
    fn handle(&mut self, event: &Event) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .handle(event);
    }

    fn flush(&mut self) {
        EventHandler::flush(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

/// One agent session hosted by the CLI.
pub struct Host {
    session: AgentSession,
    emitter: Emitter,
    persistence: Option<Persistence>,
    renderer: Option<SharedRenderer>,
    interrupts: Interrupts,
    input: LineReader,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("session", &self.session)
            .field("stored", &self.persistence.is_some())
            .finish_non_exhaustive()
    }
}

impl Host {
    /// Builds the session `settings` describe, new or continuing `resume`. Errors are usage
    /// errors (exit 2): no API key, a bad script, a missing root, a corrupt conversation.
    /// A store that cannot be opened is only a warning.
    pub async fn start(settings: &Settings, resume: Option<Resume>) -> Result<Self, String> {
        let (provider, models) = provider::provider(settings)?;
        let chain = ModelChain::new(models.clone()).map_err(|e| e.to_string())?;
        let root: PathBuf = settings
            .root
            .canonicalize()
            .map_err(|e| format!("workspace root `{}`: {e}", settings.root.display()))?;
        let mut config = AgentConfig::new(&root, chain);
        config.mode = settings.mode;
        config.max_iterations = settings.max_iterations;
        config.approval = settings.approval;
        config.approve_plans = settings.approve_plans;
        config.tool_format = settings.tool_format;
        if let Some(retries) = settings.max_retries {
            config.retry.max_attempts = retries.saturating_add(1);
        }

        let (session_id, project_id, last_seq) = match &resume {
            Some(resume) => (
                resume.session.id.clone(),
                resume.session.project_id.clone(),
                resume.last_seq,
            ),
            None => (uuid::Uuid::now_v7().to_string(), project_id_of(&root), 0),
        };
        let emitter = Emitter::new(
            Sequencer::resume(session_id.clone(), project_id.clone(), last_seq),
            Bus::default(),
        );

        // The store first, so every event is queued for storage before anything shows it.
        let (store, new_session) = match &resume {
            Some(resume) => (Some(Arc::clone(&resume.store)), None),
            None => {
                let new = NewSession::new(project_id, root.clone())
                    .with_model(models.join(","))
                    .with_mode(settings.mode.as_str());
                match open_project_store(&root).await {
                    Ok(store) => (Some(store), Some(new)),
                    Err(e) => {
                        eprintln!("keel: warning: the session will not be saved: {e}");
                        (None, None)
                    }
                }
            }
        };
        let persistence = store.and_then(|store| {
            Persistence::start(store, emitter.bus(), session_id.clone(), new_session)
        });

        let renderer = if settings.json {
            emitter
                .bus()
                .add_handler(JsonlHandler::new(std::io::stdout()));
            None
        } else {
            let stdout = std::io::stdout();
            let spinner: Box<dyn Spinner> = if stdout.is_terminal() {
                Box::new(TerminalSpinner::stdout())
            } else {
                Box::new(NoSpinner)
            };
            let options = RenderOptions {
                color: settings.color.for_stdout(),
                verbose: settings.verbose,
            };
            let shared = SharedRenderer(Arc::new(Mutex::new(
                ConsoleRenderer::new(stdout, options).with_spinner(spinner),
            )));
            emitter.bus().add_handler(shared.clone());
            Some(shared)
        };

        let mut session =
            AgentSession::new(config, provider, emitter.clone()).map_err(|e| e.to_string())?;
        if let Some(resume) = resume {
            let conversation_id = resume
                .session
                .metadata
                .get(CONVERSATION_ID_KEY)
                .and_then(|v| v.as_str())
                .map_or_else(
                    || format!("conv_{}", resume.session.id.replace('-', "")),
                    str::to_owned,
                );
            session =
                session.with_conversation(conversation_id, resume.conversation.unwrap_or_default());
        }
        session = match MemoryStore::for_project(&root).load() {
            Ok(memory) if !memory.is_empty() => session.with_memory(memory),
            Ok(_) => session,
            Err(e) => {
                eprintln!("keel: project memory not used: {e}");
                session
            }
        };
        let input = LineReader::stdin();
        let session = if std::io::stdin().is_terminal() {
            session
                .with_approver(Arc::new(TerminalApprover::new(input.clone())))
                .with_answerer(Arc::new(TerminalAnswerer::new(input.clone())))
        } else {
            session
                .with_approver(Arc::new(CannotAsk))
                .with_answerer(Arc::new(CannotAnswer))
        };
        Ok(Self {
            session,
            emitter,
            persistence,
            renderer,
            interrupts: Interrupts::listen(),
            input,
        })
    }

    /// The session id (the events' `session_id`, the store's session id).
    pub fn session_id(&self) -> &str {
        self.emitter.sequencer().session_id()
    }

    /// Runs `task` as one turn. Ctrl-C cancels it (it still ends with `agent.end`, status
    /// cancelled); a second Ctrl-C before it has ended abandons it at once.
    pub async fn turn(&mut self, task: &str) -> TurnEnd {
        let cancel = self.session.cancel_handle();
        let conversation_id = self.session.conversation_id().to_owned();
        if let Some(persistence) = &mut self.persistence {
            persistence.before_turn(task, &conversation_id).await;
        }
        // The turn row and the turn's events share one id.
        let turn_id = keel_engine::new_turn_id();
        if let Some(persistence) = &mut self.persistence {
            persistence.begin_turn(&turn_id, task).await;
        }
        let mut cancelled = false;
        let finished = {
            let events = self.session.run_with_id(turn_id, task);
            let mut events = std::pin::pin!(events);
            loop {
                tokio::select! {
                    event = events.next() => match event {
                        Some(_) => {}
                        None => break true,
                    },
                    () = self.interrupts.next() => {
                        if cancelled {
                            break false;
                        }
                        cancelled = true;
                        eprintln!("\nkeel: cancelling the turn (Ctrl-C again to quit)");
                        cancel.cancel();
                    }
                }
            }
        };
        let status = if finished {
            self.session.last_outcome().map(|outcome| outcome.status)
        } else {
            eprintln!("\nkeel: interrupted");
            None
        };
        self.emitter.bus().flush();
        self.finish_rendering();
        if let Some(persistence) = &mut self.persistence {
            persistence
                .after_turn(status, self.session.conversation())
                .await;
        }
        match status {
            Some(status) => TurnEnd::Finished(status),
            None => TurnEnd::Interrupted,
        }
    }

    /// Reads the next chat line after `prompt` (shown on standard error); Ctrl-C while waiting
    /// gives [`Input::Interrupted`].
    pub async fn read_input(&mut self, prompt: Option<String>) -> Input {
        tokio::select! {
            line = self.input.read_line(prompt) => match line {
                Some(line) => Input::Line(line),
                None => Input::Closed,
            },
            () = self.interrupts.next() => Input::Interrupted,
        }
    }

    /// Ends the rendering and stores what is left.
    pub async fn close(mut self) {
        self.emitter.bus().flush();
        self.finish_rendering();
        if let Some(persistence) = self.persistence.take() {
            persistence.close().await;
        }
    }

    fn finish_rendering(&mut self) {
        if let Some(renderer) = &self.renderer {
            let mut renderer = renderer.0.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = renderer.finish() {
                eprintln!("keel: cannot write the output: {e}");
            }
        }
        let _ = std::io::stdout().flush();
    }
}

/// The project id of a workspace: its folder's name.
fn project_id_of(root: &std::path::Path) -> String {
    root.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "keel".to_owned())
}
