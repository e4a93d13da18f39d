//! What the front end supplies: opening sessions and running their prompts.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use keel_events::{AgentStatus, Event, EventHandler};
use keel_extensions::{Command, Commands};
use keel_protocol::{Approver, TurnInput};
use tokio_util::sync::CancellationToken;

/// What an ACP client asked to open.
pub struct OpenRequest {
    /// The project folder (absolute), the session's workspace root.
    pub cwd: PathBuf,
    /// The stored session to continue (`session/load`), or `None` for a new one.
    pub resume: Option<String>,
    /// Receives every event of the session's turns.
    pub events: Box<dyn EventHandler>,
    /// Asks for approvals the turns need.
    pub approver: Arc<dyn Approver>,
}

impl std::fmt::Debug for OpenRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenRequest")
            .field("cwd", &self.cwd)
            .field("resume", &self.resume)
            .finish_non_exhaustive()
    }
}

/// How a prompt's turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptEnd {
    /// The turn's status, or `None` when it was abandoned before its end.
    pub status: Option<AgentStatus>,
    /// The final answer, or what went wrong.
    pub result: String,
}

/// Opens sessions for ACP clients.
#[async_trait]
pub trait SessionHost: Send + Sync + 'static {
    /// Opens a new session, or the stored one `request.resume` names; the error says why not.
    async fn open(&self, request: OpenRequest) -> Result<Box<dyn HostedSession>, String>;
    /// Whether the sessions' model accepts images: the agent then advertises the `image`
    /// prompt capability (default: no). Image blocks are passed on either way, and a model
    /// that does not accept them refuses the turn by name.
    fn accepts_images(&self) -> bool {
        false
    }
}

/// One open session.
#[async_trait]
pub trait HostedSession: Send {
    /// Its id (the ACP session id, the stored session's id).
    fn session_id(&self) -> String;
    /// The stored events of its earlier turns (empty for a new session), replayed on load.
    fn history(&self) -> Vec<Event>;
    /// A token that cancels the running turn (ask again before each turn).
    fn cancel_handle(&self) -> CancellationToken;
    /// The custom commands of the session's project and user (`.keel/commands/NAME.md`, …),
    /// offered to the client as ACP available commands; `/NAME ARGS` prompts expand them.
    fn commands(&self) -> Commands {
        Commands::default()
    }
    /// Runs one turn for `input` (the prompt's text and its images); `command` is the custom
    /// command the text was expanded from (its `model` and `allowed-tools` apply to the turn).
    async fn prompt(&mut self, input: TurnInput, command: Option<&Command>) -> PromptEnd;
    /// Stores what is left.
    async fn close(self: Box<Self>);
}
