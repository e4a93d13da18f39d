//! keel-host's integration tests, one binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hosted;
mod instance;
mod runner;
mod saved_shapes;
