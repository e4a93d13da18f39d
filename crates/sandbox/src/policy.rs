//! The sandbox settings: mode, network, extra writable paths and the fallback.

use std::path::PathBuf;

use crate::mode::{Fallback, SandboxMode};

/// The settings a front end resolves from `--sandbox` and keel.toml (`sandbox`, `network`,
/// `writable_roots`, `sandbox_fallback`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// How much commands may change.
    pub mode: SandboxMode,
    /// Whether commands may open network sockets (`AF_INET`/`AF_INET6`); `false` by default.
    /// Ignored with [`SandboxMode::Off`].
    pub network: bool,
    /// Extra paths commands may write under (absolute, or relative to the workspace root).
    pub writable_roots: Vec<PathBuf>,
    /// What happens when this kernel cannot enforce the mode.
    pub fallback: Fallback,
}

impl SandboxPolicy {
    /// The policy for `mode` with the other settings at their defaults.
    pub fn new(mode: SandboxMode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// No sandbox at all.
    pub fn off() -> Self {
        Self::new(SandboxMode::Off)
    }

    /// Whether anything is confined.
    pub fn is_off(&self) -> bool {
        self.mode == SandboxMode::Off
    }

    /// One line for people: `workspace-write, network off`.
    pub fn describe(&self) -> String {
        if self.is_off() {
            return "off".to_owned();
        }
        let network = if self.network { "on" } else { "off" };
        format!("{}, network {network}", self.mode)
    }
}
