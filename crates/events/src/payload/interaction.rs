//! `run.question.*`, `run.completion.attempt`: the agent talking to the user.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `run.question.ask`: the model asks the user a follow-up question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunQuestionAsk {
    /// Id the answer must quote.
    pub question_id: String,
    /// The question.
    pub question: String,
    /// Suggested answers.
    #[serde(default)]
    pub options: Vec<String>,
}

/// `run.question.answer`: the user's answer (or that none can be given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunQuestionAnswer {
    /// Id of the question.
    pub question_id: String,
    /// The answer text.
    pub answer: String,
}

/// `run.completion.attempt`: the model declares the task done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunCompletionAttempt {
    /// The model's account of the result.
    pub result: String,
    /// A command that demonstrates the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command: Option<String>,
}
