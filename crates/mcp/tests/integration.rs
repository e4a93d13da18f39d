//! keel-mcp's integration tests, one binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod common;

mod bad_input;
mod everything;
mod http;
mod rag_server;
mod sandbox;
mod test_server;
