//! keel-sandbox's integration tests: real children confined by the real kernel.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod confine;
