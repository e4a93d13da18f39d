//! keel-config's integration tests, one binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hooks;
mod keys;
mod layers;
mod schema;
