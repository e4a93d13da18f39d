//! keel-eval's integration tests: the metering proxy against the mock OpenAI server, whole
//! task runs with a shell "agent", verification of tasks, and the suites in the repository.
//!
//! The `keel` binary end to end (Keel as the agent, the command line, Ctrl-C) is tested in
//! keel-cli's `tests/eval_command.rs`.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod proxy;
mod repo_suites;
mod runs;
mod summary;
mod verify;
