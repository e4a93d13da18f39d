//! One agent session as the CLI hosts it: built from the merged settings, rendered (or printed
//! as JSON lines), kept in the project's store, with Ctrl-C cancelling the running turn.
//!
//! `keel run`, `keel chat` and `keel sessions resume` all drive a [`Host`]: [`Host::turn`]
//! runs one turn, [`Host::read_input`] reads the next chat line, [`Host::close`] stores what is
//! left. Ctrl-C during a turn cancels it; a second one while it is still winding down ends the
//! turn at once ([`TurnEnd::Interrupted`], exit 130).

mod interrupts;
mod notices;
mod provider;

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use keel_events::{AgentStatus, DisplayStyle, Emitter, Event, EventHandler, JsonlHandler};
use keel_host::{
    HostedSession, Interaction, OpenedSession, SessionHost, SessionSource, TurnEnd as StoredEnd,
};
use keel_protocol::CannotAnswer;
use keel_protocol::{Approver, CannotAsk};
use keel_store::{NewSession, Store};

pub use interrupts::Interrupts;
pub use notices::{StderrNotices, notice};

use crate::config::Settings;
use crate::terminal::{LineReader, TerminalAnswerer, TerminalApprover};
use keel_render::i18n::{Arg, Messages};
use keel_render::{ConsoleRenderer, NoSpinner, RenderOptions, Spinner, TerminalSpinner};

/// Opens the project's store, `<root>/.keel/keel.db` (see [`keel_host::open_project_store`]);
/// errors as the CLI shows them.
pub async fn open_project_store(
    root: &std::path::Path,
) -> Result<(Arc<dyn Store>, Option<String>), String> {
    keel_host::open_project_store(root)
        .await
        .map_err(|e| e.to_string())
}

/// A stored session to continue.
#[derive(Debug)]
pub struct Resume {
    /// The store it is in.
    pub store: Arc<dyn Store>,
    /// The session, its saved conversation and its event position.
    pub opened: OpenedSession,
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

/// Who the session's events and approvals are for.
enum Frontend {
    /// A person at the terminal (or `--json` on standard output).
    Terminal,
    /// A protocol front end: events to `events`, approvals to `approver`.
    Embedded {
        events: Box<dyn EventHandler>,
        approver: Arc<dyn Approver>,
    },
}

/// A boxed event handler on the bus.
struct BoxedHandler(Box<dyn EventHandler>);

impl EventHandler for BoxedHandler {
    fn handle(&mut self, event: &Event) {
        self.0.handle(event);
    }

    fn lagged(&mut self, missed: u64, after_seq: u64) {
        self.0.lagged(missed, after_seq);
    }

    fn flush(&mut self) {
        self.0.flush();
    }
}

/// One agent session hosted by the CLI.
pub struct Host {
    /// The session, as keel-host runs and stores it.
    session: HostedSession,
    emitter: Emitter,
    renderer: Option<SharedRenderer>,
    interrupts: Interrupts,
    input: LineReader,
    /// The terminal's words in the session's language (`--lang`, the locale).
    messages: Messages,
    /// The trace exporter, when an OTLP endpoint is configured.
    telemetry: Option<keel_telemetry::Telemetry>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl Host {
    /// Builds the session `settings` describe, new or continuing `resume`. Errors are usage
    /// errors (exit 2): no API key, a bad script, a missing root, a corrupt conversation.
    /// A store that cannot be opened is only a warning (a notice once the session's events
    /// are shown).
    pub async fn start(settings: &Settings, resume: Option<Resume>) -> Result<Self, String> {
        Self::start_with(settings, resume, Frontend::Terminal).await
    }

    /// Builds the session for a front end that speaks a protocol on standard output (`keel mcp
    /// serve`, `keel acp`): nothing is printed, every event goes to `events` (after the store),
    /// approvals go to `approver`, questions cannot be answered, and Ctrl-C does not cancel
    /// turns (the protocol's cancel does, through [`Host::cancel_handle`]).
    pub async fn start_embedded(
        settings: &Settings,
        resume: Option<Resume>,
        events: Box<dyn EventHandler>,
        approver: Arc<dyn Approver>,
    ) -> Result<Self, String> {
        Self::start_with(settings, resume, Frontend::Embedded { events, approver }).await
    }

    async fn start_with(
        settings: &Settings,
        resume: Option<Resume>,
        frontend: Frontend,
    ) -> Result<Self, String> {
        let (provider, models) = provider::provider(settings)?;
        let root: PathBuf = settings
            .root
            .canonicalize()
            .map_err(|e| format!("workspace root `{}`: {e}", settings.root.display()))?;
        let agent_settings = settings.agent_settings(&root, models.clone());

        let source = match resume {
            Some(resume) => SessionSource::Resume {
                store: resume.store,
                opened: resume.opened,
            },
            None => SessionSource::New(
                NewSession::new(keel_host::project_id_of(&root), root.clone())
                    .with_model(models.join(","))
                    .with_mode(settings.config.mode.as_str()),
            ),
        };
        // The store first, so every event is queued for storage before anything shows it.
        let mut host = SessionHost::open(source).await;
        // Warnings found before there is a stream to show them in.
        let warnings = host.take_warnings();
        let emitter = host.emitter().clone();

        let embedded = match frontend {
            Frontend::Terminal => None,
            Frontend::Embedded { events, approver } => Some((events, approver)),
        };
        let (renderer, approver) = if let Some((events, approver)) = embedded {
            emitter.bus().add_handler(BoxedHandler(events));
            (None, Some(approver))
        } else if settings.json {
            emitter.bus().add_handler(JsonlHandler::with_format(
                std::io::stdout(),
                settings.format,
            ));
            emitter.bus().add_handler(StderrNotices);
            (None, None)
        } else {
            let stdout = std::io::stdout();
            let spinner: Box<dyn Spinner> = if stdout.is_terminal() {
                Box::new(TerminalSpinner::stdout())
            } else {
                Box::new(NoSpinner)
            };
            let options = RenderOptions {
                color: settings.color.for_stdout(),
                verbose: settings.config.verbose,
                lang: settings.lang,
            };
            let rewrite = stdout.is_terminal() && options.color;
            let mut renderer = ConsoleRenderer::new(stdout, options).with_spinner(spinner);
            if rewrite {
                // A retried model attempt's text is erased from the terminal.
                renderer = renderer.with_rewrite(keel_render::stdout_width());
            }
            let shared = SharedRenderer(Arc::new(Mutex::new(renderer)));
            emitter.bus().add_handler(shared.clone());
            (Some(shared), None)
        };
        let messages = Messages::new(settings.lang);
        let mut warnings = warnings;
        let telemetry = match keel_telemetry::Telemetry::start(&settings.telemetry()) {
            Ok(telemetry) => telemetry,
            Err(e) => {
                warnings.push(e.to_string());
                None
            }
        };
        if let Some(telemetry) = &telemetry {
            emitter.bus().add_handler(telemetry.spans());
        }
        for warning in warnings {
            notice(
                &emitter,
                DisplayStyle::Warning,
                messages.text("notice-warning", &[("message", Arg::from(warning))]),
            );
        }

        let input = LineReader::stdin();
        let embedded = approver.is_some();
        let interaction = if let Some(approver) = approver {
            Interaction {
                approver,
                answerer: Arc::new(CannotAnswer),
            }
        } else if std::io::stdin().is_terminal() {
            // With the renderer on the terminal, the request is already shown (once): the
            // prompt is then only its choices; with `--json` the prompt says it all.
            let shown = renderer.is_some();
            Interaction {
                approver: Arc::new(
                    TerminalApprover::new(input.clone(), settings.lang)
                        .with_rules_file(keel_tools::approval_rules::project_rules_path(
                            &agent_settings.root,
                        ))
                        .question_shown(shown),
                ),
                answerer: Arc::new(
                    TerminalAnswerer::new(input.clone(), settings.lang).question_shown(shown),
                ),
            }
        } else {
            Interaction {
                approver: Arc::new(CannotAsk),
                answerer: Arc::new(CannotAnswer),
            }
        };
        let store_warnings = {
            let emitter = emitter.clone();
            Arc::new(move |warning: String| {
                notice(
                    &emitter,
                    DisplayStyle::Warning,
                    format!("warning: {warning}"),
                );
            })
        };
        let mut session = host
            .start(
                &agent_settings,
                provider,
                &settings.config.mcp_servers,
                interaction,
                store_warnings,
            )
            .await
            .map_err(|e| e.to_string())?;
        // Before the first turn: `--branch` switched to, a pull request's refusals checked.
        if let Err(e) = session.set_git(settings.git.clone()).await {
            session.close().await;
            return Err(e.to_string());
        }
        Ok(Self {
            session,
            emitter,
            renderer,
            interrupts: if embedded {
                Interrupts::none()
            } else {
                Interrupts::listen()
            },
            input,
            messages,
            telemetry,
        })
    }

    /// The session id (the events' `session_id`, the store's session id).
    pub fn session_id(&self) -> &str {
        self.session.session_id()
    }

    /// A token that cancels the running turn (ask again after a cancelled turn).
    pub fn cancel_handle(&self) -> tokio_util::sync::CancellationToken {
        self.session.cancel_handle()
    }

    /// How the last turn ended: its answer and the files it changed.
    pub fn last_outcome(&self) -> Option<&keel_engine::TurnOutcome> {
        self.session.last_outcome()
    }

    /// Shows `message` to the person at the terminal (a `system.cli_display` event: rendered,
    /// or on standard error with `--json`; never stored).
    pub fn notice(&self, style: DisplayStyle, message: impl Into<String>) {
        notice(&self.emitter, style, message);
    }

    /// Message `id` of the terminal's catalogue (`cli.ftl`) in the session's language.
    pub fn text(&self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        self.messages.text(id, args)
    }

    /// Shows the session's id (`session ID`), as `keel run` and `keel chat` do when they end.
    pub fn notice_session(&self) {
        let text = self.text("session-id", &[("id", Arg::from(self.session_id()))]);
        self.notice(DisplayStyle::Info, text);
    }

    /// Runs `task` as one turn. Ctrl-C cancels it (it still ends with `agent.end`, status
    /// cancelled); a second Ctrl-C before it has ended abandons it at once.
    pub async fn turn(&mut self, task: impl Into<keel_protocol::TurnInput>) -> TurnEnd {
        let cancel = self.session.cancel_handle();
        let interrupts = &mut self.interrupts;
        let emitter = &self.emitter;
        let messages = &self.messages;
        let abandon = async move {
            interrupts.next().await;
            notice(
                emitter,
                DisplayStyle::Warning,
                messages.text("turn-cancelling", &[]),
            );
            cancel.cancel();
            interrupts.next().await;
        };
        let end = match self.session.turn(task, abandon).await {
            Some(end) => end,
            None => {
                self.notice(DisplayStyle::Error, self.text("turn-interrupted", &[]));
                StoredEnd::Abandoned("interrupted: Ctrl-C pressed twice".to_owned())
            }
        };
        self.emitter.bus().flush();
        self.finish_rendering();
        self.session.end_turn(&end).await;
        match end {
            StoredEnd::Finished { status, .. } => TurnEnd::Finished(status),
            StoredEnd::Abandoned(_) | StoredEnd::Failed(_) => TurnEnd::Interrupted,
        }
    }

    /// Pushes the branch and opens a pull request for the session's commits (`keel run --pr`);
    /// `None` when none was asked for. What happened is on the stream (`system.log`).
    pub async fn open_pull_request(
        &mut self,
    ) -> Option<Result<keel_host::git::PullRequest, String>> {
        let opened = self
            .session
            .open_pull_request()
            .await
            .map(|r| r.map_err(|e| e.to_string()));
        self.emitter.bus().flush();
        self.finish_rendering();
        opened
    }

    /// Runs `task` as one turn with `overrides` (a custom command's `model` and
    /// `allowed-tools`), then goes back to the session's own; what cannot be applied is a
    /// warning notice.
    pub async fn turn_with(
        &mut self,
        task: impl Into<keel_protocol::TurnInput>,
        overrides: &keel_engine::TurnOverrides,
    ) -> TurnEnd {
        for problem in self.session.apply_overrides(overrides) {
            let text = self.text(
                "command-override-skipped",
                &[("problem", Arg::from(problem))],
            );
            self.notice(DisplayStyle::Warning, text);
        }
        let end = self.turn(task).await;
        self.session.clear_overrides();
        end
    }

    /// Where a session ends (`keel run` after its turn, `keel chat` left with `/exit` or end
    /// of input, `keel sessions resume`): distils the decisions of the turns that changed files
    /// into project memory with one model call (see `AgentSession::distill_memory`). Its
    /// events are shown and stored like a turn's; a failure is a warning, and Ctrl-C abandons
    /// it. Nothing here changes the exit status.
    pub async fn end_session(&mut self) {
        let interrupted = self.session.distill(self.interrupts.next()).await;
        if interrupted {
            eprintln!("\nkeel: {}", self.text("memory-interrupted", &[]));
        }
        self.emitter.bus().flush();
        self.finish_rendering();
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

    /// Ends the rendering and stores what is left; stops the MCP servers.
    pub async fn close(mut self) {
        self.session.stop_mcp().await;
        self.emitter.bus().flush();
        self.finish_rendering();
        self.session.close().await;
        if let Some(telemetry) = self.telemetry.take() {
            // The last batch; a collector that is down is logged, not an exit failure.
            let stopped = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
            if let Ok(Err(e)) = stopped {
                eprintln!("keel: warning: {e}");
            }
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
