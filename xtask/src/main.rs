//! `cargo xtask`: project automation.
#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {}
