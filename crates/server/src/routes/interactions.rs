//! Decisions on approvals and answers to questions the running turn is waiting for.

use std::path::Path;

use axum::Json;
use axum::extract::State;
use keel_events::ApprovalDecision;
use keel_protocol::ApprovalReply;
use keel_tools::approval_rules::{append_always_rules, describe_written, project_rules_path};

use super::extract::{ApiJson, ApiPath};
use super::rules::rules_error;
use crate::api::{AnswerBody, AnswerResult, ApprovalBody, ApprovalResult, Decision, RuleView};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::interaction::{Applied, StoredState, stored_request};

/// The resolve event's reason for an "always" given without one.
const ALWAYS_REASON: &str = "approved always";
use crate::state::{Caller, SharedState};

/// Decides an approval.
#[utoipa::path(post, path = "/v1/sessions/{id}/approvals/{approval_id}", operation_id = "decideApproval", tag = "interactions",
    request_body = ApprovalBody,
    params(("id" = String, Path, description = "Session id"),
        ("approval_id" = String, Path, description = "Approval id (from run.approval.request)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Recorded (`applied: false` when the same decision was given before); `always` lists the rules it wrote", body = ApprovalResult),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session or approval", body = ErrorBody),
        (status = 409, description = "Decided differently before, or not waiting", body = ErrorBody),
        (status = 413, description = "Too large to relay to the server instance running the turn", body = ErrorBody),
        (status = 422, description = "Invalid fields, or (`always`) a rules file that does not parse", body = ErrorBody)))]
pub async fn approve(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath((id, approval_id)): ApiPath<(String, String)>,
    ApiJson(body): ApiJson<ApprovalBody>,
) -> ApiResult<Json<ApprovalResult>> {
    let session = state.visible_session(&scope, &id).await?;
    let mut reason = body.reason;
    let mut rules_written = Vec::new();
    let decision = match body.decision {
        Decision::Approve => ApprovalDecision::Approve,
        Decision::Reject => ApprovalDecision::Reject,
        Decision::Modify => ApprovalDecision::Modify,
        Decision::Always => {
            let (written, said) =
                write_always_rules(&state, &id, &approval_id, &session.root, reason).await?;
            rules_written = written;
            reason = Some(said);
            ApprovalDecision::Approve
        }
    };
    if decision == ApprovalDecision::Modify && body.modified.is_none() {
        return Err(ApiError::unprocessable(
            "`modified` is required with the decision `modify`",
        ));
    }
    let reply = ApprovalReply {
        decision,
        reason,
        modified: body.modified,
    };
    let live = state.live(&id);
    let applied = if live.turn_running() {
        live.interactions
            .decide_approval(state.store.as_ref(), &id, &approval_id, reply)
            .await?
    } else {
        crate::relay::relay_approval(&state, &id, &approval_id, reply).await?
    };
    Ok(Json(ApprovalResult {
        approval_id,
        decision: body.decision,
        applied: applied == Applied::Yes,
        rules_written,
    }))
}

/// For an "always" to approval `approval_id`: writes the allow rules it stands for into the
/// project's `.keel/rules.toml` (only while the approval still waits, so deciding again writes
/// nothing twice) and returns them with the reason the resolve event carries: `reason`, or
/// that it was approved for good, and what was written where.
async fn write_always_rules(
    state: &SharedState,
    session_id: &str,
    approval_id: &str,
    root: &Path,
    reason: Option<String>,
) -> ApiResult<(Vec<RuleView>, String)> {
    let (request, stored) = stored_request(state.store.as_ref(), session_id, approval_id).await?;
    let Some(request) = request else {
        return Err(ApiError::not_found(format!("no approval `{approval_id}`")));
    };
    let mut said = reason
        .filter(|r| !r.trim().is_empty())
        .unwrap_or_else(|| ALWAYS_REASON.to_owned());
    if stored != StoredState::Requested {
        return Ok((Vec::new(), said));
    }
    let file = project_rules_path(root);
    let (kind, subject, target) = (request.kind, request.subject, file.clone());
    let written = tokio::task::spawn_blocking(move || append_always_rules(&target, kind, &subject))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(rules_error)?;
    if !written.is_empty() {
        said = format!("{said}; {}", describe_written(&file, &written));
    }
    Ok((written.iter().map(RuleView::new).collect(), said))
}

/// Answers a question: a `run.question.ask`, or a planning reply (`run.plan.respond`), which
/// is answered the same way.
#[utoipa::path(post, path = "/v1/sessions/{id}/questions/{question_id}", operation_id = "answerQuestion", tag = "interactions",
    request_body = AnswerBody,
    params(("id" = String, Path, description = "Session id"),
        ("question_id" = String, Path, description = "Question id (from run.question.ask or run.plan.respond)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Recorded (`applied: false` when the same answer was given before)", body = AnswerResult),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session or question", body = ErrorBody),
        (status = 409, description = "Answered differently before, or not waiting", body = ErrorBody),
        (status = 413, description = "Too large to relay to the server instance running the turn", body = ErrorBody),
        (status = 422, description = "Invalid fields", body = ErrorBody)))]
pub async fn answer(
    State(state): State<SharedState>,
    Caller(scope): Caller,
    ApiPath((id, question_id)): ApiPath<(String, String)>,
    ApiJson(body): ApiJson<AnswerBody>,
) -> ApiResult<Json<AnswerResult>> {
    state.visible_session(&scope, &id).await?;
    let live = state.live(&id);
    let applied = if live.turn_running() {
        live.interactions
            .answer_question(state.store.as_ref(), &id, &question_id, body.answer.clone())
            .await?
    } else {
        crate::relay::relay_answer(&state, &id, &question_id, body.answer.clone()).await?
    };
    Ok(Json(AnswerResult {
        question_id,
        answer: body.answer,
        applied: applied == Applied::Yes,
    }))
}
