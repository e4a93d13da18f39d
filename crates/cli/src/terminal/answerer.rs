//! The model's questions (`ask_followup_question`, planning replies) asked on the terminal.
//!
//! When the renderer has shown the question and its numbered options on the same terminal,
//! the prompt is only `› ` on the line after; otherwise (`--json`) it shows the question too.
//! A number among the options' answers with that option.

use keel_protocol::{CANNOT_ANSWER, Question, QuestionAnswerer, QuestionKind};

use super::BoxFuture;
use super::input::LineReader;
use keel_events::Lang;
use keel_render::i18n::{Arg, Messages};

/// Asks the model's questions on the terminal.
#[derive(Debug)]
pub struct TerminalAnswerer {
    input: LineReader,
    /// One question at a time.
    lock: tokio::sync::Mutex<()>,
    /// The prompts' words.
    messages: Messages,
    /// The renderer has shown the question on this terminal.
    shown: bool,
}

impl TerminalAnswerer {
    /// An answerer reading from `input`, asking in `lang`.
    pub fn new(input: LineReader, lang: Lang) -> Self {
        Self {
            input,
            lock: tokio::sync::Mutex::new(()),
            messages: Messages::new(lang),
            shown: false,
        }
    }

    /// The same answerer for a terminal where the renderer shows each question (`shown`).
    pub fn question_shown(mut self, shown: bool) -> Self {
        self.shown = shown;
        self
    }

    /// The prompt for `question`; the cursor stays at its end.
    pub fn prompt(&self, question: &Question) -> String {
        let answer = self.messages.text("prompt-answer", &[]);
        if self.shown {
            return answer;
        }
        let heading = match question.kind {
            QuestionKind::FollowUp => "? ".to_owned(),
            QuestionKind::PlanResponse => {
                format!("? {} ", self.messages.text("prompt-planning", &[]))
            }
        };
        let options = if question.options.is_empty() {
            String::new()
        } else {
            let options = question
                .options
                .iter()
                .enumerate()
                .map(|(i, o)| format!("{}. {o}", i + 1))
                .collect::<Vec<_>>()
                .join("  ");
            format!(
                "\n  {}",
                self.messages
                    .text("prompt-options", &[("options", Arg::from(options))])
            )
        };
        format!("\n{heading}{}{options}\n{answer}", question.text.trim())
    }

    async fn ask(&self, question: &Question) -> String {
        let _one = self.lock.lock().await;
        match self.input.read_line(Some(self.prompt(question))).await {
            Some(line) => chosen(question, line.trim()),
            None => CANNOT_ANSWER.to_owned(),
        }
    }
}

/// The answer `typed` stands for: option N when it is the number N of one, else as typed.
pub fn chosen(question: &Question, typed: &str) -> String {
    typed
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| question.options.get(i))
        .cloned()
        .unwrap_or_else(|| typed.to_owned())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn question(options: &[&str]) -> Question {
        Question {
            id: "call_1".into(),
            kind: QuestionKind::PlanResponse,
            text: "Patch or rewrite?".into(),
            options: options.iter().map(|o| (*o).to_owned()).collect(),
        }
    }

    #[test]
    fn numbers_pick_options_and_anything_else_is_the_answer() {
        let q = question(&["patch", "rewrite"]);
        assert_eq!(chosen(&q, "2"), "rewrite");
        assert_eq!(chosen(&q, "1"), "patch");
        assert_eq!(chosen(&q, "0"), "0");
        assert_eq!(chosen(&q, "3"), "3");
        assert_eq!(chosen(&q, "patch it"), "patch it");
        assert_eq!(chosen(&question(&[]), "1"), "1");
    }

    #[test]
    fn prompts_ask_once() {
        let input = LineReader::spawn(std::io::empty());
        let shown = TerminalAnswerer::new(input.clone(), Lang::En).question_shown(true);
        assert_eq!(shown.prompt(&question(&["patch"])), "› ");
        let alone = TerminalAnswerer::new(input, Lang::En);
        assert_eq!(
            alone.prompt(&question(&["patch", "rewrite"])),
            "\n? (planning) Patch or rewrite?\n  options: 1. patch  2. rewrite\n› "
        );
    }

    #[tokio::test]
    async fn a_closed_input_cannot_answer() {
        let answerer = TerminalAnswerer::new(LineReader::spawn(std::io::empty()), Lang::ZhCn);
        assert_eq!(answerer.ask(&question(&[])).await, CANNOT_ANSWER);
    }
}
