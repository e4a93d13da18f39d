//! The sandbox modes and what to do when one cannot be enforced.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much a command may change (`--sandbox`, `sandbox =` in keel.toml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No writes anywhere but a private temp dir.
    ReadOnly,
    /// Writes only under the workspace root, a private temp dir and `writable_roots`; `.git`,
    /// `.keel` and the root's `keel.toml` stay read-only. The default.
    #[default]
    WorkspaceWrite,
    /// No sandbox.
    Off,
}

impl SandboxMode {
    /// Every mode's name as accepted by [`FromStr`].
    pub const NAMES: &'static [&'static str] = &["read-only", "workspace-write", "off"];

    /// The mode's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::Off => "off",
        }
    }
}

impl std::fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is not one of [`SandboxMode::NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode `{0}` (expected one of: read-only, workspace-write, off)")]
pub struct UnknownMode(pub String);

impl FromStr for SandboxMode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "read-only" => Ok(Self::ReadOnly),
            "workspace-write" => Ok(Self::WorkspaceWrite),
            "off" => Ok(Self::Off),
            _ => Err(UnknownMode(s.to_owned())),
        }
    }
}

/// What happens when this kernel cannot enforce the chosen mode (`sandbox_fallback =`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fallback {
    /// Refuse to run commands (the default): `system.error`.
    #[default]
    Refuse,
    /// Run with what can be enforced, with a `system.log` warning on every command.
    Warn,
}

/// A fallback name other than `refuse` or `warn`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox_fallback `{0}` (expected refuse or warn)")]
pub struct UnknownFallback(pub String);

impl FromStr for Fallback {
    type Err = UnknownFallback;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "refuse" => Ok(Self::Refuse),
            "warn" => Ok(Self::Warn),
            _ => Err(UnknownFallback(s.to_owned())),
        }
    }
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Refuse => "refuse",
            Self::Warn => "warn",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in SandboxMode::NAMES {
            let mode: SandboxMode = name.parse().unwrap_or(SandboxMode::Off);
            assert_eq!(mode.as_str(), *name);
        }
        assert_eq!("READ_ONLY".parse(), Ok(SandboxMode::ReadOnly));
        assert!("strict".parse::<SandboxMode>().is_err());
        assert_eq!("warn".parse(), Ok(Fallback::Warn));
        assert!("maybe".parse::<Fallback>().is_err());
    }
}
