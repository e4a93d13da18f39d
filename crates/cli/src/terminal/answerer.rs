//! The model's questions (`ask_followup_question`, planning replies) asked on the terminal.

use keel_engine::agent::{CANNOT_ANSWER, Question, QuestionAnswerer, QuestionKind};

use super::BoxFuture;
use super::input::LineReader;

/// Asks the model's questions on the terminal.
#[derive(Debug)]
pub struct TerminalAnswerer {
    input: LineReader,
    /// One question at a time.
    lock: tokio::sync::Mutex<()>,
}

impl TerminalAnswerer {
    /// An answerer reading from `input`.
    pub fn new(input: LineReader) -> Self {
        Self {
            input,
            lock: tokio::sync::Mutex::new(()),
        }
    }

    async fn ask(&self, question: &Question) -> String {
        let _one = self.lock.lock().await;
        let heading = match question.kind {
            QuestionKind::FollowUp => "? ",
            QuestionKind::PlanResponse => "? (planning) ",
        };
        let options = if question.options.is_empty() {
            String::new()
        } else {
            format!("\n  options: {}", question.options.join(" | "))
        };
        self.input
            .read_line(Some(format!("\n{heading}{}{options}\n> ", question.text)))
            .await
            .map(|line| line.trim().to_owned())
            .unwrap_or_else(|| CANNOT_ANSWER.to_owned())
    }
}

impl QuestionAnswerer for TerminalAnswerer {
    fn answer<'a, 'b, 'f>(&'a self, question: &'b Question) -> BoxFuture<'f, String>
    where
        'a: 'f,
        'b: 'f,
        Self: 'f,
    {
        Box::pin(self.ask(question))
    }
}
