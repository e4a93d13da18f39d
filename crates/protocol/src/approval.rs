//! Approval: the policy deciding when a command needs a person's yes, and the [`Approver`]
//! front ends implement to ask.

use std::str::FromStr;

use async_trait::async_trait;
use keel_events::{ApprovalDecision, ApprovalKind};

/// When commands need approval before they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovalPolicy {
    /// Never ask: every command runs (dangerous ones included).
    Never,
    /// Ask before a command the safety check flags as dangerous (the default).
    #[default]
    OnDangerous,
    /// Ask before every command.
    Always,
    /// Refuse dangerous commands outright; run the rest without asking.
    DenyDangerous,
}

impl ApprovalPolicy {
    /// Every policy's name as accepted by [`FromStr`].
    pub const NAMES: &'static [&'static str] =
        &["never", "on-dangerous", "always", "deny-dangerous"];

    /// The policy's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::OnDangerous => "on-dangerous",
            Self::Always => "always",
            Self::DenyDangerous => "deny-dangerous",
        }
    }
}

impl std::fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An approval policy name that is not one of [`ApprovalPolicy::NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown approval policy `{0}` (expected one of: never, on-dangerous, always, deny-dangerous)"
)]
pub struct UnknownPolicy(pub String);

impl FromStr for ApprovalPolicy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "never" => Ok(Self::Never),
            "on-dangerous" => Ok(Self::OnDangerous),
            "always" => Ok(Self::Always),
            "deny-dangerous" => Ok(Self::DenyDangerous),
            _ => Err(UnknownPolicy(s.to_owned())),
        }
    }
}

/// Whether file edits are put up for approval, with their diff, before they apply
/// (`approval_edits` in `keel.toml`; seed 004's preview-and-confirm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EditApproval {
    /// Edits apply without asking (the default).
    #[default]
    Never,
    /// Every write, replace, delete and move is shown as a diff and asked about first.
    Ask,
}

impl std::str::FromStr for EditApproval {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "never" => Ok(Self::Never),
            "ask" => Ok(Self::Ask),
            other => Err(format!(
                "unknown approval_edits `{other}` (expected ask or never)"
            )),
        }
    }
}

/// What a front end is asked to approve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// Id quoted by the decision (also the `approval_id` of the events).
    pub approval_id: String,
    /// What kind of thing is to be approved.
    pub kind: ApprovalKind,
    /// The command line, plan goal or tool call.
    pub subject: String,
    /// Why approval is needed (e.g. the safety check's reason).
    pub reason: String,
}

/// A front end's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalReply {
    /// Approve, reject, or approve a modified version.
    pub decision: ApprovalDecision,
    /// Why, if the person said.
    pub reason: Option<String>,
    /// The replacement for `Modify` (e.g. an edited command line as a JSON string).
    pub modified: Option<serde_json::Value>,
}

impl ApprovalReply {
    /// A plain approval.
    pub fn approve() -> Self {
        Self {
            decision: ApprovalDecision::Approve,
            reason: None,
            modified: None,
        }
    }

    /// A rejection with a reason.
    pub fn reject(reason: impl Into<String>) -> Self {
        Self {
            decision: ApprovalDecision::Reject,
            reason: Some(reason.into()),
            modified: None,
        }
    }
}

/// Asks a person (or a rule standing in for one) to approve something. Front ends implement it.
#[async_trait]
pub trait Approver: Send + Sync + std::fmt::Debug {
    /// Waits for a decision. Must not hang forever: a front end that cannot ask rejects.
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply;
}

/// An approver for front ends that cannot ask anyone: rejects everything, saying so.
#[derive(Debug, Clone, Copy, Default)]
pub struct CannotAsk;

#[async_trait]
impl Approver for CannotAsk {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalReply {
        ApprovalReply::reject("approval needed but this front end cannot ask (non-interactive)")
    }
}

/// An approver that approves everything (for tests and explicit opt-in).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

#[async_trait]
impl Approver for ApproveAll {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalReply {
        ApprovalReply::approve()
    }
}
