//! keel-lsp against real language servers (pyright, rust-analyzer) and failing ones.

mod common;
mod failures;
mod python;
mod rust;
