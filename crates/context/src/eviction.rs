//! Eviction of old messages by count and by tokens, never separating a tool result from the
//! assistant message that called it.

use crate::conversation::{Message, is_boundary};

/// How much history to keep. `None` means no limit of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvictionLimits {
    /// Most messages kept (seed 002: 50).
    pub max_messages: Option<usize>,
    /// Most tokens kept (as measured by the caller's cost function).
    pub max_tokens: Option<usize>,
}

impl Default for EvictionLimits {
    fn default() -> Self {
        Self {
            max_messages: Some(50),
            max_tokens: None,
        }
    }
}

/// How many leading messages to drop so that the rest fits `limits`.
///
/// The answer is the smallest index `i` such that `messages[i..]` respects both limits and starts
/// at a boundary: not at a tool result, so no result loses the assistant message that called it
/// and no call loses its results (a well-formed conversation keeps a call's results right after
/// it). When no non-empty suffix fits, everything is dropped. `costs[k]` is the token cost of
/// `messages[k]`; missing costs count as zero.
pub fn eviction_point(messages: &[Message], costs: &[usize], limits: &EvictionLimits) -> usize {
    let len = messages.len();
    let min_start = limits.max_messages.map_or(0, |max| len.saturating_sub(max));
    // Walk from the end, accumulating tokens, to find the earliest start within the budget.
    let mut tokens = 0usize;
    let mut earliest_by_tokens = len;
    for i in (0..len).rev() {
        tokens = tokens.saturating_add(costs.get(i).copied().unwrap_or(0));
        if limits.max_tokens.is_some_and(|max| tokens > max) {
            break;
        }
        earliest_by_tokens = i;
    }
    let start = min_start.max(earliest_by_tokens);
    (start..=len)
        .find(|&i| is_boundary(messages, i))
        .unwrap_or(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::RetentionPolicy;
    use crate::{Conversation, ToolCallRequest};

    fn sample() -> Conversation {
        let policy = RetentionPolicy::default();
        let mut c = Conversation::new();
        c.push_user("one");
        c.push_assistant(
            "",
            vec![
                ToolCallRequest::new("a", "execute_command", "{}"),
                ToolCallRequest::new("b", "execute_command", "{}"),
            ],
        )
        .unwrap();
        c.add_tool_result("a", "x", true, &policy).unwrap();
        c.add_tool_result("b", "y", true, &policy).unwrap();
        c.push_assistant("done", vec![]).unwrap();
        c
    }

    #[test]
    fn cuts_before_the_calling_message_not_between_results() {
        let c = sample();
        let costs = vec![1; c.len()];
        let limits = EvictionLimits {
            max_messages: Some(3),
            max_tokens: None,
        };
        // Keeping 3 would start at result "b"; the first boundary after it is "done".
        assert_eq!(eviction_point(c.messages(), &costs, &limits), 4);
        let limits = EvictionLimits {
            max_messages: Some(4),
            max_tokens: None,
        };
        assert_eq!(eviction_point(c.messages(), &costs, &limits), 1);
    }

    #[test]
    fn respects_tokens() {
        let c = sample();
        let costs = vec![10, 10, 100, 1, 1];
        let limits = EvictionLimits {
            max_messages: None,
            max_tokens: Some(50),
        };
        assert_eq!(eviction_point(c.messages(), &costs, &limits), 4);
        let none = EvictionLimits {
            max_messages: None,
            max_tokens: None,
        };
        assert_eq!(eviction_point(c.messages(), &costs, &none), 0);
    }
}
