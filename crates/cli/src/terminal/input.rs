//! One reader of standard input shared by the chat prompt, approvals and questions.

use std::io::{BufRead, Write};
use std::sync::mpsc;

use tokio::sync::oneshot;

/// A request for the next line.
struct Request {
    /// Shown on standard error before reading (unless a line is already waiting).
    prompt: Option<String>,
    reply: oneshot::Sender<Option<String>>,
}

/// Reads lines on a thread of its own, one per request, so an async caller can stop waiting
/// (on Ctrl-C) without losing what is typed next: a line whose asker went away is kept for
/// the next request. `None` means the input is closed.
#[derive(Debug, Clone)]
pub struct LineReader {
    requests: mpsc::Sender<Request>,
}

impl LineReader {
    /// A reader of this process's standard input.
    pub fn stdin() -> Self {
        Self::spawn(std::io::BufReader::new(std::io::stdin()))
    }

    /// A reader of `input`.
    pub fn spawn(mut input: impl BufRead + Send + 'static) -> Self {
        let (requests, incoming) = mpsc::channel::<Request>();
        std::thread::spawn(move || {
            let mut kept: Option<Option<String>> = None;
            let mut closed = false;
            for request in incoming {
                let line = match kept.take() {
                    Some(line) => line,
                    None if closed => None,
                    None => {
                        if let Some(prompt) = &request.prompt {
                            let mut stderr = std::io::stderr().lock();
                            let _ = write!(stderr, "{prompt}");
                            let _ = stderr.flush();
                        }
                        let line = read_one(&mut input);
                        closed = line.is_none();
                        line
                    }
                };
                if let Err(line) = request.reply.send(line) {
                    kept = Some(line);
                }
            }
        });
        Self { requests }
    }

    /// The next line without its line ending, after showing `prompt`; `None` at end of input.
    pub async fn read_line(&self, prompt: Option<String>) -> Option<String> {
        let (reply, answer) = oneshot::channel();
        self.requests.send(Request { prompt, reply }).ok()?;
        answer.await.ok().flatten()
    }
}

fn read_one(input: &mut impl BufRead) -> Option<String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            let trimmed = line.trim_end_matches(['\n', '\r']).len();
            line.truncate(trimmed);
            Some(line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_come_in_order_then_none() {
        let reader = LineReader::spawn(std::io::Cursor::new("one\r\ntwo\n"));
        assert_eq!(reader.read_line(None).await.as_deref(), Some("one"));
        assert_eq!(reader.read_line(None).await.as_deref(), Some("two"));
        assert_eq!(reader.read_line(None).await, None);
        assert_eq!(reader.read_line(None).await, None);
    }

    #[tokio::test]
    async fn a_line_nobody_waited_for_goes_to_the_next_asker() {
        let reader = LineReader::spawn(std::io::Cursor::new("kept\nnext\n"));
        // Ask and give up at once: the line read for it is kept.
        let (reply, answer) = oneshot::channel();
        reader
            .requests
            .send(Request {
                prompt: None,
                reply,
            })
            .unwrap();
        drop(answer);
        assert_eq!(reader.read_line(None).await.as_deref(), Some("kept"));
        assert_eq!(reader.read_line(None).await.as_deref(), Some("next"));
    }
}
