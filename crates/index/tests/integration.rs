//! keel-index's integration tests, linked as one binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod chunking;
