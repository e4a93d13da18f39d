//! Questions the model asks the user (`ask_followup_question`, `plan_mode_respond`) and who
//! answers them.

use async_trait::async_trait;

/// Why the model is asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionKind {
    /// `ask_followup_question`.
    FollowUp,
    /// `plan_mode_respond`: a planning reply waiting for the user's reaction.
    PlanResponse,
}

/// A question for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// Id of the question (the tool call's id); `run.question.answer` quotes it.
    pub id: String,
    /// Why the model asks.
    pub kind: QuestionKind,
    /// The question or planning reply.
    pub text: String,
    /// Suggested answers.
    pub options: Vec<String>,
}

/// Answers the model's questions. Front ends implement it.
#[async_trait]
pub trait QuestionAnswerer: Send + Sync + std::fmt::Debug {
    /// The user's answer. Must not hang forever: a front end that cannot ask answers at once
    /// (see [`CannotAnswer`]). The session stops waiting when the turn is cancelled.
    async fn answer(&self, question: &Question) -> String;
}

/// The answer [`CannotAnswer`] gives.
pub const CANNOT_ANSWER: &str = "cannot ask: non-interactive";

/// An answerer for front ends that cannot ask anyone: answers [`CANNOT_ANSWER`] at once.
#[derive(Debug, Clone, Copy, Default)]
pub struct CannotAnswer;

#[async_trait]
impl QuestionAnswerer for CannotAnswer {
    async fn answer(&self, _question: &Question) -> String {
        CANNOT_ANSWER.to_owned()
    }
}
