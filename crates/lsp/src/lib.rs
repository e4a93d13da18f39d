//! Keel's language-server client (issue 27 §1): the project's servers (pyright, typescript-
//! language-server, rust-analyzer, gopls; `[lsp.LANGUAGE]` in keel.toml) started lazily, one per
//! language per session, over stdio through async-lsp, confined like MCP servers; after an edit,
//! the edited files' errors and warnings within a bounded wait. A server that fails is
//! restarted once, then reported and left off.

pub mod config;
pub mod convert;
pub mod error;
pub mod language;
pub mod manager;
mod server;
pub mod tool;

pub use config::{LspSettings, LspTables, ServerConfig};
pub use language::Language;
pub use manager::{Edit, LspManager, Report};
pub use tool::DiagnosticsTool;

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
