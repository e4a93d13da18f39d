//! Keel's event contract.
//!
//! Everything the agent does is reported as an [`Event`]: an envelope (`id`, `seq`, `ts`,
//! `session_id`, `turn_id`, `project_id`) around one typed payload from the catalogue
//! ([`EventKind`]). This crate defines the catalogue, stamps events ([`Sequencer`]), dispatches
//! them ([`Bus`], [`Emitter`]), writes them as JSONL ([`JsonlHandler`]), reads them back
//! ([`parse_line`], [`read_jsonl`]) and projects them into the older wire formats front ends
//! still speak ([`projection`]). It depends on no other Keel crate.

mod bus;
mod catalogue;
pub mod codegen;
mod envelope;
mod jsonl;
mod lang;
mod parse;
pub mod payload;
pub mod projection;
mod sequencer;

pub use bus::{Bus, DEFAULT_CAPACITY, Delivery, Emitter, EventHandler, Subscription};
pub use catalogue::{EventKind, PayloadError};
pub use envelope::{Event, format_ts};
pub use jsonl::JsonlHandler;
pub use lang::{Lang, UnknownLang};
pub use parse::{ParseError, parse_line, read_jsonl};
pub use payload::*;
pub use sequencer::{Sequencer, now_millis};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
