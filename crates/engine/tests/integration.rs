//! The agent loop and its providers: scripted, OpenAI-compatible HTTP, XML, retries, fallback.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used)]

mod agent_common;
use keel_test_support::mock_openai as support;

mod agent_compaction;
mod agent_diagnostics;
mod agent_http;
mod agent_instructions;
mod agent_memory;
mod agent_repo_map;
mod agent_scenarios;
mod agent_skills;
mod agent_subagents;
mod agent_xml;
mod fallback;
mod openai_stream;
mod retry;
mod scripted;
mod server_window;
mod small_models;
mod stream_integrity;
mod stream_prefixes;
mod text_tool_call_parser;
mod text_tool_calls;
mod xml_parser;
