//! What Keel's tests and benchmarks share, so that each exists once: temp copies of folders
//! and of the sample project ([`fs`]), event-stream goldens without their run-to-run values
//! ([`golden`]), fresh PostgreSQL databases with one rule for when the
//! PostgreSQL tests may be skipped ([`postgres`]), a project with dependency trees on disk
//! ([`packages`]), scripted-provider scripts ([`script`]), a
//! recording mock of an OpenAI-compatible server ([`mock_openai`]: chat completions, embeddings, and the
//! model list and context-window routes of vLLM, llama.cpp and Ollama, image generations) with
//! real PNGs ([`png`]) and fault injection for its streams ([`stream_faults`]), an HTTP client
//! for talking to Keel's server ([`http`]), and `/proc` checks that a test left no process
//! behind plus the rule for programs installed from outside ([`processes`]),
//! third-party test peers such as the MCP Python SDK ([`peers`]), and what a terminal shows
//! after output that rewrites itself ([`screen`]), and real git repositories with a bare
//! remote and a fake `gh` ([`git`]), and the hooks every front end is tested with ([`hooks`]).
//!
//! A dev-dependency only. It depends on no `keel-*` crate, so any of them can use it without a
//! dependency cycle: scripts are built as JSON for the test to load with `keel_engine::Script`.

pub mod fs;
pub mod git;
pub mod golden;
pub mod hooks;
pub mod http;
pub mod http_sink;
pub mod mock_openai;
pub mod packages;
pub mod peers;
pub mod png;
pub mod postgres;
pub mod processes;
pub mod screen;
pub mod script;
pub mod stream_faults;

pub use fs::{SampleProject, copy_dir, repo_root, sample_project, tree_bytes};
pub use http::http_client;
pub use postgres::TestDatabase;
pub use script::ScriptBuilder;
