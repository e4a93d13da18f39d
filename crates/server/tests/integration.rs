//! The HTTP server end to end: API, streams, PostgreSQL, recovery after kill -9.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod api;
mod approval_parity;
mod checkpoints;
mod commands;
mod git;
mod handover;
mod hooks;
mod images;
mod logging;
mod mcp;
mod memory;
mod postgres;
mod recovery;
mod streams;
mod wire_formats;
