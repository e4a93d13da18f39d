//! The event contract: bus, golden projections, round trips, samples, bad input.
//!
//! One test binary for the whole crate: each module below was its own binary, and linking
//! ~70 of them made a clean build outgrow a CI machine's disk.

// Test code: a failed unwrap is a failed test, and says why.
#![allow(clippy::unwrap_used)]

mod common;

mod bad_input;
mod bus;
mod codegen_drift;
mod golden;
mod phase_order;
mod roundtrip;
mod samples;
mod timeline_props;
