//! Talking to the person at the terminal: reading lines, asking approvals and answering the
//! model's questions.

mod answerer;
mod approver;
mod input;

use std::future::Future;
use std::pin::Pin;

pub use answerer::TerminalAnswerer;
pub use approver::TerminalApprover;
pub use input::LineReader;

/// A boxed future, as the `async_trait` traits of the engine and tools expect.
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
