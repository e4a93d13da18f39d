//! Context building: budgets, eviction, de-duplication, prompt caching, token counts.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

mod support;

mod budget_props;
mod builder;
mod dedup_savings;
mod eviction_props;
mod memory_store;
mod prompt_cache;
mod prompt_snapshot;
mod token_counts;
