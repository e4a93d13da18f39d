//! The event store on SQLite and PostgreSQL: sessions, turns, events, writer, retention.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

mod events;
mod import;
mod open;
mod postgres;
mod range_props;
mod retention;
mod sessions;
mod sqlite_timeline;
mod turns;
mod usage;
mod watch;
mod writer;
mod writers;
