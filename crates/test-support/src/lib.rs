//! What Keel's tests and benchmarks share, so that each exists once: temp copies of folders
//! and of the sample project ([`fs`]), fresh PostgreSQL databases with one rule for when the
//! PostgreSQL tests may be skipped ([`postgres`]), and scripted-provider scripts ([`script`]).
//!
//! A dev-dependency only. It depends on no `keel-*` crate, so any of them can use it without a
//! dependency cycle: scripts are built as JSON for the test to load with `keel_engine::Script`.

pub mod fs;
pub mod postgres;
pub mod script;

pub use fs::{SampleProject, copy_dir, repo_root, sample_project};
pub use postgres::TestDatabase;
pub use script::ScriptBuilder;
