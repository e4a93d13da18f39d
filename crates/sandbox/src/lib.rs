//! Keel's OS sandbox for the commands it runs (`execute_command`, file runs, MCP stdio servers).
//!
//! A [`Sandbox`] is a [`SandboxPolicy`] (`read-only`, `workspace-write`, `off`; network; extra
//! writable roots; fallback) checked against what this kernel supports ([`Support`], the report
//! behind `keel sandbox check`). [`Sandbox::confine`] applies it to a `Command`: in the child,
//! between fork and exec, a private mount namespace makes `.git`, `.keel` and `keel.toml`
//! read-only, Landlock limits writes, and seccomp denies non-`AF_UNIX` sockets — Keel itself is
//! never confined. [`Confinement::explain`] names what the sandbox stopped in a failed command.

mod blocked;
mod confine;
mod error;
#[cfg(target_os = "linux")]
mod linux;
mod mode;
mod policy;
mod support;

pub use blocked::Blocked;
pub use confine::{Confinement, PROTECTED_NAMES, Sandbox};
pub use error::SandboxError;
pub use mode::{Fallback, SandboxMode, UnknownFallback, UnknownMode};
pub use policy::SandboxPolicy;
pub use support::{FULL_LANDLOCK_ABI, ModeReport, NET_LANDLOCK_ABI, Support};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
