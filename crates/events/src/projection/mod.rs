//! Projections of the event stream into other wire formats. Each is a pure function.
//!
//! - [`timeline`]: seed 003's Activity Timeline (`agent_phase`, `tool_call`, …, camelCase).

pub mod timeline_event;

pub use timeline_event::*;
