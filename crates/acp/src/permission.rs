//! Keel's approvals as ACP permission requests (`session/request_permission`).

use std::sync::{Arc, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SessionId, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use async_trait::async_trait;
use keel_events::ApprovalKind;
use keel_protocol::{ApprovalReply, ApprovalRequest, Approver};

use crate::updates::CurrentToolCall;

/// The option id that approves.
const ALLOW: &str = "allow";
/// The option id that rejects.
const REJECT: &str = "reject";

/// Asks the editor's user to approve, on the tool call the approval is for.
#[derive(Debug, Clone)]
pub struct AcpApprover {
    cx: ConnectionTo<Client>,
    session: Arc<OnceLock<SessionId>>,
    current: CurrentToolCall,
}

impl AcpApprover {
    /// An approver for the session whose id `session` will hold, asking over `cx`.
    pub fn new(
        cx: ConnectionTo<Client>,
        session: Arc<OnceLock<SessionId>>,
        current: CurrentToolCall,
    ) -> Self {
        Self {
            cx,
            session,
            current,
        }
    }
}

#[async_trait]
impl Approver for AcpApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply {
        let Some(session_id) = self.session.get().cloned() else {
            return ApprovalReply::reject("the session is not open yet");
        };
        let call_id = self
            .current
            .get()
            .unwrap_or_else(|| request.approval_id.clone());
        let kind = match request.kind {
            ApprovalKind::Command => ToolKind::Execute,
            ApprovalKind::Plan => ToolKind::Think,
            ApprovalKind::Tool => ToolKind::Other,
        };
        let tool_call = ToolCallUpdate::new(
            call_id,
            ToolCallUpdateFields::new()
                .title(request.subject.clone())
                .kind(kind)
                .raw_input(serde_json::json!({
                    "subject": request.subject,
                    "reason": request.reason,
                })),
        );
        let options = vec![
            PermissionOption::new(ALLOW, "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new(REJECT, "Reject", PermissionOptionKind::RejectOnce),
        ];
        let answer = self
            .cx
            .send_request(RequestPermissionRequest::new(
                session_id, tool_call, options,
            ))
            .block_task()
            .await;
        match answer {
            Ok(response) => match response.outcome {
                RequestPermissionOutcome::Selected(selected) if &*selected.option_id.0 == ALLOW => {
                    ApprovalReply::approve()
                }
                RequestPermissionOutcome::Selected(_) => {
                    ApprovalReply::reject("the editor's user rejected it")
                }
                _ => ApprovalReply::reject("the permission request was cancelled"),
            },
            Err(e) => ApprovalReply::reject(format!("cannot ask the editor: {e}")),
        }
    }
}
