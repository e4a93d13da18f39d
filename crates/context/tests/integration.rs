//! Context building: budgets, eviction, de-duplication, prompt caching, token counts.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod support;

mod budget_props;
mod builder;
mod dedup_savings;
mod eviction_props;
mod memory_store;
mod prompt_cache;
mod prompt_snapshot;
mod token_counts;
