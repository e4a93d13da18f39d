//! The repo map: symbols, ranking, budgets, cache, watching, golden maps.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod budget;
mod cache;
mod golden;
mod ranking;
mod symbols;
mod watch;
