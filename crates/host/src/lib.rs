//! Keel's session host: what every front end does to keep an agent session in a store.
//!
//! The CLI and the server both open or resume a session ([`open_session`]), build its
//! [`AgentSession`](keel_engine::AgentSession) from settings ([`AgentSettings::build`]), give it an
//! [`EventLog`] that stores every event before anyone else sees it, run each turn under a
//! [`TurnLease`](keel_store::TurnLease) kept alive by a [`LeaseRenewal`], and end the turn with
//! [`finish_turn`], which saves the conversation as one versioned [`SavedConversation`]. Turns
//! whose process died are continued elsewhere from their committed state
//! ([`plan_continuation`], [`CommittedTurn`]) or failed and recorded by
//! [`recover_lapsed_turns`]. A process writes a session's events only under its writer claim
//! ([`keel_store::WriterClaim`], quoted by every append and by [`finish_turn_fenced`]). A session's MCP
//! servers start together and offer their tools through [`attach_mcp`]. A session is taken back
//! to before one of its checkpoints' turns by [`rewind`], or branched into a new one by
//! [`fork_session`]. What a front end does to a session between turns (a shadow apply) is
//! recorded by [`append_outside_turn`]. A process hosting a session alone (every CLI front end)
//! opens it with [`SessionHost::open`] and runs its turns through [`HostedSession`]; a server
//! instance hosting sessions beside others writes turns, leases, claims and session rows through
//! [`InstanceHost`]. Git work around turns (a commit per turn, a branch, a pull request) is
//! [`git::GitWork`]'s, started by [`HostedSession::set_git`] or a server's session. A program using Keel as a library runs turns through a [`Runner`] (seed
//! 004's terminal, event-system and SDK runners over one base). Front ends keep only what is theirs: terminal prompts and rendering, HTTP
//! routes and broadcast, and when work starts or stops.

mod agent;
mod config_dir;
mod continuation;
mod error;
mod event_log;
mod file_run;
mod fork;
pub mod git;
mod handover;
mod hosted;
mod instance;
mod lease;
mod mcp;
mod outside_turn;
mod project_store;
mod recorder;
mod rewind;
mod runner;
mod saved;
mod session;
mod turn;

pub use agent::{
    AgentSettings, Interaction, distills_by_default, is_local_endpoint, saved_conversation,
    split_models,
};
pub use config_dir::{CONFIG_DIR_VAR, user_config_dir, user_config_dir_or};
pub use continuation::{CommittedTurn, INTERRUPTED_CALL_RESULT};
pub use error::HostError;
pub use event_log::EventLog;
pub use file_run::file_run_sandbox;
pub use fork::{FORKED_FROM_KEY, Fork, fork_session};
pub use handover::{Continuation, plan_continuation};
pub use hosted::{HostedSession, SessionHost, SessionSource};
pub use instance::{EndRecorded, InstanceHost};
pub use lease::{
    AppendToStore, InterruptRecorder, LeaseRenewal, interrupted_error, recover_lapsed_turns,
    renew_every, renew_lease,
};
pub use mcp::{attach_mcp, server_specs};
pub use outside_turn::append_outside_turn;
pub use project_store::{
    TURN_LEASE, TURN_LEASE_VAR, open_project_store, process_lease, project_id_of,
    recover_interrupted,
};
pub use recorder::{Warnings, title_of};
pub use rewind::{RewindError, RewindReport, append_rewind, rewind};
pub use runner::{ConversationName, Runner, RunnerConfig};
pub use saved::{CONVERSATION_ID_KEY, SAVED_CONVERSATION_VERSION, SavedConversation};
pub use session::{OpenedSession, open_session, session_turns};
pub use turn::{TurnEnd, finish_turn, finish_turn_fenced};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
