//! Token budgets: the share of the model's window a prompt may use, and the steps the builder
//! takes, in order, when a prompt does not fit.
//!
//! When the rendered prompt is over its limit the builder:
//!
//! 1. **summarises** the oldest whole turns before the current one through the
//!    [`Summarizer`](crate::Summarizer) (the summary replaces them in the conversation and goes in
//!    the system prompt; reported as `run.context.compress`); then, for this request only:
//! 2. **drops older turns**, oldest first, whole turns at a time;
//! 3. **drops earlier rounds of the current turn** (an assistant message with its tool results),
//!    oldest first, keeping the user's request and the latest round;
//! 4. **drops focused files**, oldest first, files not being edited before edited ones;
//! 5. **drops the repository map**;
//! 6. **caps the latest tool results** to 2,000 characters, largest first;
//! 7. **drops project memory**, then **the summary**.
//!
//! If the prompt is still over the limit, it is returned anyway, marked as not fitting.

use serde::{Deserialize, Serialize};

use crate::model_window::ModelWindows;

/// Share of the window a prompt may fill (seed 002 §5.2: keep 20 % free for the reply).
pub const DEFAULT_PROMPT_RATIO: f64 = 0.8;

/// How many tokens a prompt may use.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// The model's context window, in tokens.
    pub window: u64,
    /// Share of the window the prompt may fill (0.8).
    pub ratio: f64,
    /// Tokens the request carries besides the messages (tool definitions), counted against
    /// the limit.
    pub extra_tokens: u64,
}

impl Budget {
    /// A budget of `ratio` 0.8 of `window`, nothing extra.
    pub fn new(window: u64) -> Self {
        Self {
            window,
            ratio: DEFAULT_PROMPT_RATIO,
            extra_tokens: 0,
        }
    }

    /// The budget for `model`, its window taken from `windows`.
    pub fn for_model(model: &str, windows: &ModelWindows) -> Self {
        Self::new(windows.window_for(model))
    }

    /// The same budget with `tokens` of tool definitions counted against it.
    pub fn with_extra_tokens(mut self, tokens: u64) -> Self {
        self.extra_tokens = tokens;
        self
    }

    /// The same budget with another ratio (clamped to 0.05–1).
    pub fn with_ratio(mut self, ratio: f64) -> Self {
        self.ratio = if ratio.is_finite() {
            ratio.clamp(0.05, 1.0)
        } else {
            DEFAULT_PROMPT_RATIO
        };
        self
    }

    /// Most tokens the whole request may use: `ratio` of the window.
    pub fn request_limit(&self) -> u64 {
        let ratio = if self.ratio.is_finite() {
            self.ratio.clamp(0.0, 1.0)
        } else {
            DEFAULT_PROMPT_RATIO
        };
        // The product of a u64 and a ratio in [0, 1] fits in a u64; `as` saturates anyway.
        (self.window as f64 * ratio).floor() as u64
    }

    /// Most tokens the messages may use: the request limit less the extra tokens.
    pub fn message_limit(&self) -> usize {
        usize::try_from(self.request_limit().saturating_sub(self.extra_tokens))
            .unwrap_or(usize::MAX)
    }
}

/// One thing the builder did to make the prompt fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum FitStep {
    /// The oldest `messages` were summarised (permanently, in the conversation).
    Summarized {
        /// Messages replaced by the summary.
        messages: usize,
    },
    /// A summary was wanted but could not be had.
    SummaryFailed {
        /// Why.
        error: String,
    },
    /// An older turn was left out of this request.
    DroppedTurn {
        /// Its messages.
        messages: usize,
    },
    /// An earlier round of the current turn was left out of this request.
    DroppedRound {
        /// Its messages.
        messages: usize,
    },
    /// A focused file was left out of this request.
    DroppedFocusedFile {
        /// Its path.
        path: String,
        /// Whether it was being edited.
        editing: bool,
    },
    /// The repository map was left out of this request.
    DroppedRepoMap,
    /// The preloaded library docs were left out of this request.
    DroppedLibraryDocs,
    /// A tool result of the latest round was capped.
    CappedToolResult {
        /// The call it answers.
        tool_call_id: String,
        /// Its length before, in characters.
        chars: usize,
    },
    /// Project memory was left out of this request.
    DroppedMemory,
    /// The summary of earlier turns was left out of this request.
    DroppedSummary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        let budget = Budget::new(128_000);
        assert_eq!(budget.request_limit(), 102_400);
        assert_eq!(budget.with_extra_tokens(2_400).message_limit(), 100_000);
        assert_eq!(budget.with_extra_tokens(200_000).message_limit(), 0);
        assert_eq!(Budget::new(1_000).with_ratio(f64::NAN).request_limit(), 800);
        assert_eq!(Budget::new(1_000).with_ratio(2.0).request_limit(), 1_000);
        assert_eq!(
            Budget::for_model("gpt-4", &ModelWindows::new()).request_limit(),
            6_553
        );
    }
}
