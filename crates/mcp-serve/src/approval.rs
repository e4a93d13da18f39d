//! Approvals for an MCP client: asked through elicitation when the client supports it, refused
//! with a message saying why when it does not.

use async_trait::async_trait;
use keel_protocol::{ApprovalReply, ApprovalRequest, Approver};
use rmcp::service::{ElicitationError, ElicitationMode};
use rmcp::{Peer, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;

/// The answer a person gives in the client's elicitation form.
#[derive(Debug, Deserialize, JsonSchema)]
struct ApprovalAnswer {
    /// Whether to go ahead.
    approve: bool,
}

rmcp::elicit_safe!(ApprovalAnswer);

/// Asks the MCP client's user to approve (MCP elicitation, form mode).
#[derive(Debug, Clone)]
pub struct ClientApprover {
    peer: Peer<RoleServer>,
}

impl ClientApprover {
    /// An approver asking through `peer`.
    pub fn new(peer: Peer<RoleServer>) -> Self {
        Self { peer }
    }
}

#[async_trait]
impl Approver for ClientApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply {
        if !self
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return ApprovalReply::reject(
                "this MCP client cannot ask a person (it does not support elicitation); start \
                 `keel mcp serve` with another --approval policy, or use a client that supports \
                 elicitation",
            );
        }
        let message = format!(
            "Keel asks to run: {}\nWhy approval is needed: {}",
            request.subject, request.reason
        );
        match self.peer.elicit::<ApprovalAnswer>(message).await {
            Ok(Some(ApprovalAnswer { approve: true })) => ApprovalReply::approve(),
            Ok(Some(ApprovalAnswer { approve: false })) => {
                ApprovalReply::reject("the MCP client's user did not approve")
            }
            Ok(None) => ApprovalReply::reject("the MCP client's user gave no answer"),
            Err(ElicitationError::UserDeclined) => {
                ApprovalReply::reject("the MCP client's user declined")
            }
            Err(ElicitationError::UserCancelled) => {
                ApprovalReply::reject("the MCP client's user dismissed the request")
            }
            Err(e) => ApprovalReply::reject(format!("cannot ask the MCP client: {e}")),
        }
    }
}
