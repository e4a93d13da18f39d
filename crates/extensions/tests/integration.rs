//! keel-extensions' integration tests: discovery on real folders, and the front-matter splitter
//! under generated input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents;
mod commands;
mod front_matter_props;
mod skills;
