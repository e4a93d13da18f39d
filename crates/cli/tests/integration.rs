//! The `keel` binary end to end: commands, rendering, sessions, interrupts.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod acp;
mod config;
mod custom_commands;
mod doctor;
mod eval_command;
mod exec_file_command;
mod git_work;
mod hooks;
mod i18n_catalogues;
mod images;
mod instructions;
mod interrupt;
mod knowledge_tools;
mod logging;
mod lsp_check;
mod mcp_command;
mod mcp_serve;
mod memory_command;
mod pipes;
mod questions;
mod rag_commands;
mod rag_mcp_servers;
mod render_sequences;
mod replay_command;
mod repomap;
mod resume_across_front_ends;
mod rewind_command;
mod rules_command;
mod run_command;
mod safety_command;
mod sandbox_command;
mod sessions;
mod shadow_command;
mod stream_faults;
mod subagents;
mod telemetry;
mod terminal_prompts;
mod tool_command;
mod wire_formats;
