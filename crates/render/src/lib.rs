//! Keel's terminal renderer: the event stream as a person reads it, in their language.
//!
//! [`ConsoleRenderer`] is an inline [`keel_events::EventHandler`] that turns every catalogue
//! event into text on any [`std::io::Write`]: streamed answer text as it arrives, each tool
//! call on one line with its result summarised, coloured diffs for file changes, plans and step
//! progress, repairs and anomalies, errors, usage, and a final status line. Colour is a switch
//! ([`RenderOptions::color`], chosen with [`ColorWhen`]); `verbose` adds thinking text, tool
//! output, model-call lines, debug logs, whole diffs and stacks. A [`Spinner`] shows while the
//! model or a tool is being waited for ([`TerminalSpinner`] on a terminal, [`NoSpinner`] else).
//!
//! Every event type has a `print_…` method (named after its type, seed 001 §4), and the dispatch
//! matches every [`keel_events::EventKind`] variant without a wildcard, so a new catalogue entry
//! does not compile until it has a rendering. Some renderings are empty outside verbose mode
//! (`run.response.*`, `run.llm.start`, `run.tool.output`, `run.thinking.delta`, debug logs).

pub mod i18n;

mod agent;
mod checkpoint;
mod exec;
mod files;
mod format;
mod hook;
mod memory;
mod model;
mod plan;
mod renderer;
mod spinner;
mod style;
mod subagent;
mod system;
mod tools;

#[cfg(test)]
mod tests;

pub use format::{brief_arguments, count, one_line, usd};
pub use renderer::{ConsoleRenderer, RenderOptions, stdout_width};
pub use spinner::{NoSpinner, Spinner, TerminalSpinner};
pub use style::ColorWhen;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
