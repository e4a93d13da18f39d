//! The sandbox commands of a session run in, as tools see it: off, confining, or refusing every
//! command because the chosen mode cannot be enforced here.

use std::path::Path;
use std::sync::Arc;

use keel_sandbox::{Sandbox, SandboxPolicy};

/// The sandbox a [`crate::ToolContext`] runs commands in.
#[derive(Debug, Clone, Default)]
pub enum CommandSandbox {
    /// Commands run unconfined (`sandbox = "off"`, and library users who set nothing).
    #[default]
    Off,
    /// Commands run confined.
    Confined(Arc<Sandbox>),
    /// The mode cannot be enforced (or its settings are unusable): every command is refused
    /// with this message and a `system.error`.
    Refused(Arc<str>),
}

impl CommandSandbox {
    /// `policy` for commands run in `root`: refused when [`Sandbox::new`] says it cannot be
    /// enforced (or a path is unusable).
    pub fn resolve(policy: SandboxPolicy, root: &Path) -> Self {
        if policy.is_off() {
            return Self::Off;
        }
        match Sandbox::new(policy, root) {
            Ok(sandbox) => Self::Confined(Arc::new(sandbox)),
            Err(e) => Self::Refused(e.to_string().into()),
        }
    }

    /// The same policy for commands run in `root` instead (a shadow workspace's copy).
    pub fn rooted_at(&self, root: &Path) -> Self {
        match self {
            Self::Confined(sandbox) => Self::resolve(sandbox.policy().clone(), root),
            Self::Off | Self::Refused(_) => self.clone(),
        }
    }

    /// The sandbox to confine a child with, `None` when off.
    pub fn sandbox(&self) -> Option<Arc<Sandbox>> {
        match self {
            Self::Confined(sandbox) => Some(Arc::clone(sandbox)),
            Self::Off | Self::Refused(_) => None,
        }
    }

    /// Whether the network may be used (`network = true`, or no sandbox); a refused sandbox
    /// allows nothing.
    pub fn network_allowed(&self) -> bool {
        match self {
            Self::Off => true,
            Self::Confined(sandbox) => sandbox.policy().network,
            Self::Refused(_) => false,
        }
    }

    /// Whether commands are confined or refused (anything but off).
    pub fn is_on(&self) -> bool {
        !matches!(self, Self::Off)
    }

    /// One line for people: `workspace-write, network off`, `off`, or `refused: …`.
    pub fn describe(&self) -> String {
        match self {
            Self::Off => "off".to_owned(),
            Self::Confined(sandbox) => sandbox.policy().describe(),
            Self::Refused(why) => format!("refused: {why}"),
        }
    }
}
