//! The tools: file edits, search, commands, checkpoints, safety table, registry.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used)]

mod common;

mod approval_rules;
mod checkpoint_bounds;
mod checkpoints;
mod edit_approval;
mod execute_command;
mod fetch_url;
mod file_run;
mod file_tools;
mod hooks;
mod list_search;
mod packages;
mod process_runner;
mod rag_tool;
mod registry;
mod replace_in_file;
mod repomap_tools;
mod shadow;
mod skill_tool;
mod workspace;
