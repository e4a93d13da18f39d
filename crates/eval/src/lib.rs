//! keel-eval: a coding agent judged by the work it gets done. Runs an agent — Keel (`keel run`
//! as a subprocess) or any other agent's command line — on suites of tasks, each in a fresh git
//! copy of the task's project, under a time cap, its model calls metered by a local proxy so
//! every agent is measured the same way; then runs the task's `check.sh` and writes one JSON
//! line per task, a Markdown summary, and side-by-side reports of several runs.
//!
//! [`verify::verify_task`] checks the tasks themselves: a check that fails before the reference
//! fix, passes after it, and cannot be satisfied by deleting the tests.
//!
//! The crate depends on no heavy Keel crate: Keel is run as a process and its events are read
//! as JSON.

pub mod agent;
pub mod check;
pub mod copy;
pub mod error;
pub mod events;
pub mod group;
pub mod proxy;
pub mod report;
pub mod result;
pub mod run;
pub mod runner;
pub mod summary;
pub mod task;
pub mod verify;

pub use agent::Agent;
pub use error::EvalError;
pub use proxy::{CallRecord, MeteringProxy};
pub use result::{Outcome, ResultsFile, TaskResult, read_results};
pub use run::{EvalSettings, run_task};
pub use runner::{Progress, Quiet, SuiteRun, run_suite};
pub use task::{Task, TaskMeta, discover};
pub use verify::{Verdict, verify_task};

/// The README's library example, compiled as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
