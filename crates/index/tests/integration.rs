//! keel-index's integration tests, linked as one binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod bad_input;
mod chunking;
mod embeddings;
mod live;
mod project;
mod servers;
mod tokenize;
