//! `keel acp`: Keel as an editor's agent over the Agent Client Protocol on standard input and
//! output. The protocol is keel-acp's; this module opens its sessions through the CLI's session
//! host, each in the project folder the editor names, stored like `keel run`'s.

use std::process::ExitCode;

use async_trait::async_trait;
use keel_acp::{HostedSession, OpenRequest, PromptEnd, SessionHost};
use keel_events::Event;
use keel_extensions::{Command, Commands, Sources};
use keel_host::open_session;
use keel_store::EventRange;
use tokio_util::sync::CancellationToken;

use super::agent_args::AgentArgs;
use super::run::{block_on, usage};
use crate::config::Settings;
use crate::host::{Host, Resume, TurnEnd, open_project_store};

/// Arguments of `keel acp`.
///
/// Standard output carries the protocol; messages go to standard error. Exit status: 0 when
/// the editor disconnects, 1 when the connection fails, 2 for usage errors.
#[derive(Debug, clap::Args)]
pub struct AcpArgs {
    /// The agent settings every session runs with (`--provider`, `--model`, `--approval`,
    /// `--mode`, …), as for `keel run`; each session's `--root` is the folder the editor opens
    /// it in, whose `keel.toml` applies.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Runs `keel acp`.
pub fn run(args: AcpArgs) -> ExitCode {
    block_on("acp", async move {
        // Bad settings are reported now rather than on the first session.
        let settings = match Settings::load(&args.agent) {
            Ok(settings) => settings,
            Err(e) => return usage("acp", e),
        };
        // The image prompt capability follows the model these settings name (a session's
        // own keel.toml may differ: its model then accepts or refuses images by name).
        let images = settings.config.models.first().is_some_and(|model| {
            keel_engine::vision::accepts_images(model, settings.config.vision)
        });
        let sessions = CliSessions {
            args: args.agent,
            images,
        };
        match keel_acp::serve_stdio(sessions).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("keel acp: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Opens sessions with the CLI's host.
#[derive(Debug)]
struct CliSessions {
    args: AgentArgs,
    /// Whether the model of the settings `keel acp` started with accepts images.
    images: bool,
}

#[async_trait]
impl SessionHost for CliSessions {
    async fn open(&self, request: OpenRequest) -> Result<Box<dyn HostedSession>, String> {
        let mut args = self.args.clone();
        args.root = request.cwd;
        if !args.root.is_dir() {
            return Err(format!("cwd `{}` is not a folder", args.root.display()));
        }
        let settings = Settings::load(&args).map_err(|e| e.to_string())?;
        let (resume, history) = match &request.resume {
            Some(id) => {
                let root = args
                    .root
                    .canonicalize()
                    .map_err(|e| format!("cwd `{}`: {e}", args.root.display()))?;
                let (store, _) = open_project_store(&root).await?;
                let opened = open_session(store.as_ref(), id)
                    .await
                    .map_err(|e| format!("cannot load session `{id}`: {e}"))?;
                let history = store
                    .read_events(id, EventRange::all())
                    .await
                    .map_err(|e| format!("cannot read the events of session `{id}`: {e}"))?;
                (Some(Resume { store, opened }), history)
            }
            None => (None, Vec::new()),
        };
        let sources = Sources::new(&settings.root, settings.config.user_config_dir.clone());
        let (commands, warnings) = Commands::discover(&sources, &super::chat::BUILT_IN_COMMANDS);
        for warning in warnings {
            eprintln!("keel acp: warning: {warning}");
        }
        let host =
            Host::start_embedded(&settings, resume, request.events, request.approver).await?;
        Ok(Box::new(CliSession {
            host,
            history,
            commands,
        }))
    }

    fn accepts_images(&self) -> bool {
        self.images
    }
}

/// One session of the CLI's host.
struct CliSession {
    host: Host,
    history: Vec<Event>,
    /// The project's and the user's custom commands.
    commands: Commands,
}

#[async_trait]
impl HostedSession for CliSession {
    fn session_id(&self) -> String {
        self.host.session_id().to_owned()
    }

    fn history(&self) -> Vec<Event> {
        self.history.clone()
    }

    fn cancel_handle(&self) -> CancellationToken {
        self.host.cancel_handle()
    }

    fn commands(&self) -> Commands {
        self.commands.clone()
    }

    async fn prompt(
        &mut self,
        input: keel_protocol::TurnInput,
        command: Option<&Command>,
    ) -> PromptEnd {
        let end = match command {
            Some(command) => {
                let overrides = keel_engine::TurnOverrides::of_command(command);
                self.host.turn_with(input, &overrides).await
            }
            None => self.host.turn(input).await,
        };
        let outcome = self.host.last_outcome();
        match (end, outcome) {
            (TurnEnd::Finished(status), Some(outcome)) => PromptEnd {
                status: Some(status),
                result: outcome.result.clone(),
            },
            (TurnEnd::Finished(status), None) => PromptEnd {
                status: Some(status),
                result: String::new(),
            },
            (TurnEnd::Interrupted, _) => PromptEnd {
                status: None,
                result: "the turn was abandoned".to_owned(),
            },
        }
    }

    async fn close(mut self: Box<Self>) {
        self.host.end_session().await;
        self.host.close().await;
    }
}
