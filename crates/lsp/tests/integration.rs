//! keel-lsp against real language servers (pyright, rust-analyzer) and failing ones.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used)]

mod common;
mod failures;
mod python;
mod rust;
